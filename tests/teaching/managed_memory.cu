// Unified memory: one allocation used by host and kernel alike, with a
// cudaDeviceSynchronize before the host reads what the kernel wrote.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>

__global__ void add(int n, const float* x, float* y) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride) y[i] = x[i] + y[i];
}

int main() {
  int N = 1 << 20;
  float *x, *y;
  cudaMallocManaged(&x, N * sizeof(float));
  cudaMallocManaged(&y, N * sizeof(float));
  for (int i = 0; i < N; i++) {
    x[i] = 1.0f;
    y[i] = 2.0f;
  }
  int device = -1;
  cudaGetDevice(&device);
  cudaMemPrefetchAsync(x, N * sizeof(float), device, 0);
  cudaMemPrefetchAsync(y, N * sizeof(float), device, 0);
  int blockSize = 256;
  int numBlocks = (N + blockSize - 1) / blockSize;
  add<<<numBlocks, blockSize>>>(N, x, y);
  cudaDeviceSynchronize();
  float maxError = 0.0f;
  for (int i = 0; i < N; i++) maxError = fmax(maxError, fabs(y[i] - 3.0f));
  printf("Max error: %g\n", maxError);
  cudaPointerAttributes attributes;
  bool ok = maxError == 0.0f && cudaPointerGetAttributes(&attributes, x) == cudaSuccess &&
            attributes.type == cudaMemoryTypeManaged;
  cudaFree(x);
  cudaFree(y);
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
