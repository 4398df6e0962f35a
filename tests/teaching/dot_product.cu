// Dot product in the style of "CUDA by Example": each block reduces its
// threads' partial sums in a shared cache, and the blocks' results are
// combined on the device with atomicAdd on a double.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>

const int N = 33 * 1024;
const int threadsPerBlock = 256;
const int blocksPerGrid = 32;

__global__ void dot(const float* a, const float* b, double* c) {
  __shared__ float cache[threadsPerBlock];
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  int cacheIndex = threadIdx.x;
  float temp = 0;
  while (tid < N) {
    temp += a[tid] * b[tid];
    tid += blockDim.x * gridDim.x;
  }
  cache[cacheIndex] = temp;
  __syncthreads();
  int i = blockDim.x / 2;
  while (i != 0) {
    if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i];
    __syncthreads();
    i /= 2;
  }
  if (cacheIndex == 0) atomicAdd(c, (double)cache[0]);
}

int main() {
  float *a = new float[N], *b = new float[N];
  for (int i = 0; i < N; i++) {
    a[i] = i % 100;
    b[i] = (i % 7) * 0.5f;
  }
  float *dev_a, *dev_b;
  double* dev_c;
  cudaMalloc((void**)&dev_a, N * sizeof(float));
  cudaMalloc((void**)&dev_b, N * sizeof(float));
  cudaMalloc((void**)&dev_c, sizeof(double));
  cudaMemcpy(dev_a, a, N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dev_b, b, N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(dev_c, 0, sizeof(double));
  dot<<<blocksPerGrid, threadsPerBlock>>>(dev_a, dev_b, dev_c);
  double c = 0;
  cudaMemcpy(&c, dev_c, sizeof(double), cudaMemcpyDeviceToHost);
  double expected = 0;
  for (int i = 0; i < N; i++) expected += double(a[i]) * b[i];
  printf("GPU value %.6g, host value %.6g\n", c, expected);
  bool ok = std::fabs(c - expected) <= 1e-6 * expected;
  cudaFree(dev_a);
  cudaFree(dev_b);
  cudaFree(dev_c);
  delete[] a;
  delete[] b;
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
