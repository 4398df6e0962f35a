// Included by kernels.cuh only: its kernel is registered by main.cu's port
// all the same, the .cu naming no kernel of it.
#pragma once

namespace shifts {
// Each block's elements rotated left by one, through shared memory.
__global__ void rotate_blocks(int* data) {
  extern __shared__ int tile[];
  int t = threadIdx.x;
  tile[t] = data[blockIdx.x * blockDim.x + t];
  __syncthreads();
  data[blockIdx.x * blockDim.x + t] = tile[(t + 1) % blockDim.x];
}
}  // namespace shifts
