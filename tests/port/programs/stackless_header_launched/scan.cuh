// A kernel of a header that kernels.cuh includes, launched from main.cu.
#pragma once

// A warp's inclusive prefix sum of v, by shuffles: a waiting helper, whose
// awaitable version weft-port writes after the last line (#pragma once).
__device__ int warp_inclusive_sum(int v) {
  int lane = threadIdx.x % 32;
  for (int d = 1; d < 32; d *= 2) {
    int below = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += below;
  }
  return v;
}

// Each warp's inclusive prefix sums.
__global__ void warp_scan(int* data) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = warp_inclusive_sum(data[i]);
}
