// CUDA's header names and declaration qualifiers, unmodified: the program
// must build through weft_add_cuda_executable and check its own result.
#include <cuda_runtime.h>
#include <device_launch_parameters.h>
#include <math_constants.h>
#include <vector_types.h>

#include <cstdio>
#include <memory>

__constant__ float scale = 2.0f;
__managed__ int launches = 0;

__forceinline__ __device__ float twice(float x) { return scale * x; }
__noinline__ __device__ float pi() { return CUDART_PI_F; }
__host__ __device__ int square(int x) { return x * x; }

struct __align__(16) quad {
  float a, b, c, d;
};

__global__ void __launch_bounds__(256) fill(float* __restrict__ out) {
  static __shared__ float cache[32];
  cache[threadIdx.x] = twice(pi());
  __syncthreads();
  out[threadIdx.x] = cache[31 - threadIdx.x];
  if (threadIdx.x == 0) launches += 1;
}

int main() {
  float* d = nullptr;
  cudaMalloc(&d, 32 * sizeof(float));
  fill<<<1, 32>>>(d);
  float h[32];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaFree(d);
  bool ok = alignof(quad) == 16 && square(7) == 49 && launches == 1;
  for (float v : h) ok = ok && v == 2 * CUDART_PI_F;
  auto shared = std::make_shared<int>(1);  // <memory> after the qualifier macros
  ok = ok && *shared == 1;
  std::puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
