// __shared__ followed by alignas, which nvcc accepts and C++ does not accept
// after thread_local: weft-port moves the alignas in front.
#include <cuda_runtime.h>

__global__ void tiles(float* out) {
  __shared__ alignas(16) float a[8];
  static __shared__ alignas(alignof(float4)) float b[8];
  __shared__ alignas(16)
      alignas(32) float c[8];
  alignas(16) __shared__ float d[8];  // already fine: unchanged
  __shared__ float e[8];              // no alignas: unchanged
  a[threadIdx.x] = b[threadIdx.x] = c[threadIdx.x] = d[threadIdx.x] = e[threadIdx.x] = 1;
  out[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x] + c[threadIdx.x] + d[threadIdx.x] + e[threadIdx.x];
}

#define TILE(name) __shared__ alignas(16) float name[8]
__global__ void in_macro(float* out) {
  TILE(t);
  t[threadIdx.x] = 2;
  out[threadIdx.x] = t[threadIdx.x];
}
