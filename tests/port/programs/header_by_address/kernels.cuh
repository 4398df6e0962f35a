// Kernels that main.cu launches only by address: weft-port registers a
// header's kernels in the port of the .cu that includes it, as nvcc does.
#ifndef HEADER_BY_ADDRESS_KERNELS_CUH
#define HEADER_BY_ADDRESS_KERNELS_CUH

#include "shift.cuh"

// No wait: on fibers in both builds.
__global__ void scale(int* data, int factor) { data[blockIdx.x * blockDim.x + threadIdx.x] *= factor; }

// A barrier: converts where weft-port converts (a void-pointer cast passed
// to cudaLaunchKernel does not keep it on fibers).
__global__ void swap_halves(int* data) {
  __shared__ int tile[1024];
  int t = threadIdx.x, half = blockDim.x / 2;
  tile[t] = data[blockIdx.x * blockDim.x + t];
  __syncthreads();
  data[blockIdx.x * blockDim.x + t] = tile[(t + half) % blockDim.x];
}

// A barrier, and a kernel node's function: converts through a void kernel.
__global__ void reverse_blocks(int* data) {
  __shared__ int tile[1024];
  int t = threadIdx.x;
  tile[t] = data[blockIdx.x * blockDim.x + t];
  __syncthreads();
  data[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}

// A different function in each file that includes the header.
static __global__ void add_block_index(int* data) { data[blockIdx.x * blockDim.x + threadIdx.x] += blockIdx.x; }

namespace {
__global__ void negate(int* data) { data[blockIdx.x * blockDim.x + threadIdx.x] *= -1; }
}  // namespace

// Declared only, defined nowhere: registering it would not link.
__global__ void defined_elsewhere(int* data);

#ifdef HEADER_BY_ADDRESS_NEVER_DEFINED
// Compiled by no pass: registering it would not compile.
__global__ void left_out(int* data) { data[threadIdx.x] = 0; }
#endif

#endif
