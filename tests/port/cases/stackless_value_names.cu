// Kernels whose name is used as a value (a pointer, a (void*) cast, a table
// of pointers) stay void kernels that forward to a stackless body, as
// kernels of C linkage do: every launch through the name runs the body.
#include <cuda_runtime.h>

__global__ void block_reverse(int* data);  // a prototype stays void

__global__ void block_reverse(int* data) {
  __shared__ int tile[64];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[63 - threadIdx.x];
}

static __global__ void __launch_bounds__(64) block_rotate(int* data, int by) {
  __shared__ int tile[64];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[(threadIdx.x + by) % 64];
}

namespace lib {
__global__ void warp_total(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x == 0) *out = v;
}
}  // namespace lib

template <int N>
__global__ void template_reverse(int* data) {
  __shared__ int tile[N];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[N - 1 - threadIdx.x];
}

__global__ void unnamed(int*, int* out) {
  __syncthreads();
  out[threadIdx.x] = 1;
}

__global__ void defaults(int* out, int n = 1) {
  __syncthreads();
  out[threadIdx.x] = n;
}

using reorder = void (*)(int*);
static const reorder reorders[] = {block_reverse, template_reverse<64>};

void host(int* data, int* out) {
  block_reverse<<<1, 64>>>(data);
  void* args[] = {&data};
  cudaLaunchKernel((void*)block_reverse, 1, 64, args);
  int by = 3;
  void* rotate_args[] = {&data, &by};
  cudaLaunchKernel(reinterpret_cast<const void*>(&block_rotate), 1, 64, rotate_args);
  block_rotate<<<1, 64>>>(data, 5);
  auto total = &lib::warp_total;
  lib::warp_total<<<1, 32>>>(data, out);
  (void)total;
  (void)reorders;
  auto unnamed_pointer = &unnamed;
  auto defaults_pointer = &defaults;
  (void)unnamed_pointer;
  (void)defaults_pointer;
}
