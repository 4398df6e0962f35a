// Vector addition, the first kernel of the CUDA programming guide: each CUDA
// thread adds one pair of elements. Where CUDA writes
//   VecAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, N);
// weft writes weft::launch(blocksPerGrid, threadsPerBlock, VecAdd, ...).
#include <weft.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

// Device code: thread i computes C[i] = A[i] + B[i].
__global__ void VecAdd(const float* A, const float* B, float* C, int N) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

// Host code
int main() {
  const int N = 1 << 20;  // not a multiple of the block size would work too
  size_t size = N * sizeof(float);

  std::vector<float> h_A(N), h_B(N), h_C(N);
  for (int i = 0; i < N; ++i) {
    h_A[i] = std::sin(0.001f * i);
    h_B[i] = 0.5f * i;
  }

  float *d_A, *d_B, *d_C;
  cudaMalloc(&d_A, size);
  cudaMalloc(&d_B, size);
  cudaMalloc(&d_C, size);
  cudaMemcpy(d_A, h_A.data(), size, cudaMemcpyHostToDevice);
  cudaMemcpy(d_B, h_B.data(), size, cudaMemcpyHostToDevice);

  int threadsPerBlock = 256;
  int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;
  weft::launch(blocksPerGrid, threadsPerBlock, VecAdd, d_A, d_B, d_C, N);

  // cudaMemcpy waits for the kernel, as on the legacy default stream.
  cudaMemcpy(h_C.data(), d_C, size, cudaMemcpyDeviceToHost);
  cudaError_t err = cudaGetLastError();

  cudaFree(d_A);
  cudaFree(d_B);
  cudaFree(d_C);

  // One float addition per element: the result must match the host's exactly.
  int mismatches = 0;
  for (int i = 0; i < N; ++i)
    if (h_C[i] != h_A[i] + h_B[i]) ++mismatches;

  std::printf("vector_add: %d elements, %d blocks of %d threads, %d mismatches, %s\n", N, blocksPerGrid,
              threadsPerBlock, mismatches, cudaGetErrorName(err));
  bool ok = err == cudaSuccess && mismatches == 0;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
