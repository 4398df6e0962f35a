// The first program: a __global__ function launched with weft::launch.
#include <weft.hpp>

#include <cstdio>
#include <vector>

__global__ void VecAdd(const float* A, const float* B, float* C, int N) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

int main() {
  const int n = 5000;
  std::vector<float> a(n, 1.5f), b(n, 2.0f), c(n);
  float *da, *db, *dc;
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dc, n * sizeof(float));
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  int threadsPerBlock = 256;
  int blocksPerGrid = (n + threadsPerBlock - 1) / threadsPerBlock;
  weft::launch(blocksPerGrid, threadsPerBlock, VecAdd, da, db, dc, n);
  cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (float v : c)
    if (v != 3.5f) {
      std::puts("FAIL");
      return 1;
    }
  std::puts("PASS");
  return 0;
}
