#include <weft.hpp>
#include <cstdio>
#include <vector>
__global__ void VecAdd(const float* A, const float* B, float* C, int N) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}
int main() {
  int N = 1000; size_t size = N * sizeof(float);
  std::vector<float> a(N), b(N), c(N);
  for (int i = 0; i < N; ++i) { a[i] = i; b[i] = 2 * i; }
  float *dA, *dB, *dC;
  cudaMalloc(&dA, size); cudaMalloc(&dB, size); cudaMalloc(&dC, size);
  cudaMemcpy(dA, a.data(), size, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, b.data(), size, cudaMemcpyHostToDevice);
  weft::launch((N + 255) / 256, 256, VecAdd, dA, dB, dC, N);
  cudaMemcpy(c.data(), dC, size, cudaMemcpyDeviceToHost);
  int bad = 0; for (int i = 0; i < N; ++i) bad += c[i] != 3 * i;
  // barrier test
  int* out; cudaMalloc(&out, 256 * sizeof(int));
  weft::launch(2, 256, [] (int* o) {
    __shared__ int s[256];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    int sum = 0;
    for (int r = 0; r < 3; ++r) { int v = s[(threadIdx.x + 1) % 256]; __syncthreads(); s[threadIdx.x] = v; __syncthreads(); }
    if (blockIdx.x == 0) o[threadIdx.x] = s[threadIdx.x] + __syncthreads_count(threadIdx.x < 10);
  }, out);
  std::vector<int> h(256); cudaMemcpy(h.data(), out, 1024, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 256; ++i) bad += h[i] != (i + 3) % 256 + 10;
  std::printf("bad=%d err=%s\n", bad, cudaGetErrorName(cudaGetLastError()));
  weft::launch(1, 64, [] { if (threadIdx.x < 32) __syncthreads(); else __syncthreads(); });
  std::printf("sync=%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  std::printf("msg=%s\n", weft::fault_message().c_str());
}
