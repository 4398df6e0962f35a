// Kernels of C linkage run stackless through a stackless body of C++
// linkage; the C-named kernel stays void, for launches by address and by name.
#include <cuda_runtime.h>

extern "C" __global__ void c_block_sum(const int* in, int* out);  // a prototype stays void

extern "C" __global__ void c_block_sum(const int* __restrict__ in, int* out) {
  __shared__ int partial[64];
  partial[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (int i = 0; i < 64; ++i) sum += partial[i];
    out[blockIdx.x] = sum;
  }
}

extern "C" {
__global__ void
c_in_block(float* data,
           unsigned n) {
  if (threadIdx.x >= n) return;
  data[threadIdx.x] += __shfl_down_sync(0xffffffff, data[threadIdx.x], 1);
}

__global__ void c_unnamed(int*, int* out) {
  __syncthreads();
  out[0] = 1;
}
}

namespace lib {
extern "C" __global__ void c_in_namespace(int* out) {
  __syncthreads();
  out[threadIdx.x] = 2;
}
}  // namespace lib

extern "C" __global__ void c_defaults(int* out, int n = 1);
extern "C" __global__ void c_defaults(int* out, int n) {
  __syncthreads();
  out[0] = n;
}

void host(const int* in, int* out, float* data) {
  c_block_sum<<<4, 64>>>(in, out);
  void* args[] = {&in, &out};
  cudaLaunchKernel((void*)c_block_sum, 4, 64, args);
  c_in_block<<<1, 32>>>(data, 32u);
  c_unnamed<<<1, 1>>>(out, out);
  lib::c_in_namespace<<<1, 32>>>(out);
  c_defaults<<<1, 32>>>(out);
}
