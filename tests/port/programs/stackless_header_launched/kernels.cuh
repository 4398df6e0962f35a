// The kernels of main.cu, in a header that only main.cu includes: main.cu
// launches each by name, the template with its arguments, and one also
// through a table of pointers, and includes it twice.
#ifndef STACKLESS_HEADER_LAUNCHED_KERNELS_CUH
#define STACKLESS_HEADER_LAUNCHED_KERNELS_CUH

#include "scan.cuh"

constexpr int threads = 64;

// Each block's elements in reverse order, through shared memory.
__global__ void reverse_blocks(int* data) {
  __shared__ int tile[threads];
  int t = threadIdx.x;
  tile[t] = data[blockIdx.x * threads + t];
  __syncthreads();
  data[blockIdx.x * threads + t] = tile[threads - 1 - t];
}

// Each block's sum, by a tree of barriers.
template <int block_size>
__global__ void block_sums(const int* in, int* sums) {
  __shared__ int partial[block_size];
  int t = threadIdx.x;
  partial[t] = in[blockIdx.x * block_size + t];
  __syncthreads();
  for (int s = block_size / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}

// The sum of each thread's v over the block, by a tree of barriers: a
// waiting helper, whose awaitable version weft-port writes before the include
// guard's #endif.
__device__ int block_total(int* partial, int v) {
  int t = threadIdx.x;
  partial[t] = v;
  __syncthreads();
  for (int s = threads / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  int total = partial[0];
  __syncthreads();  // every thread has read it before partial changes again
  return total;
}

// Each element times the block's size, less the block's sum.
__global__ void center_blocks(int* data) {
  __shared__ int partial[threads];
  int i = blockIdx.x * threads + threadIdx.x;
  int total = block_total(partial, data[i]);
  data[i] = data[i] * threads - total;
}

namespace reorders {
// Each block's elements rotated left by one, through shared memory.
__global__ void rotate_blocks(int* data) {
  __shared__ int tile[threads];
  int t = threadIdx.x;
  tile[t] = data[blockIdx.x * threads + t];
  __syncthreads();
  data[blockIdx.x * threads + t] = tile[(t + 1) % threads];
}
}  // namespace reorders

#endif
