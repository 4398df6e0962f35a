// Tiled matrix multiplication of non-square matrices whose sizes are not
// multiples of the tile: the tiles at the edges are padded with zeros.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#define TILE_WIDTH 16

__global__ void matrixMulTiled(const float* A, const float* B, float* C, int M, int K, int N) {
  __shared__ float As[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Bs[TILE_WIDTH][TILE_WIDTH];
  int row = blockIdx.y * TILE_WIDTH + threadIdx.y;
  int col = blockIdx.x * TILE_WIDTH + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++t) {
    int aCol = t * TILE_WIDTH + threadIdx.x;
    int bRow = t * TILE_WIDTH + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && aCol < K) ? A[row * K + aCol] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (bRow < K && col < N) ? B[bRow * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k) sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = sum;
}

int main() {
  const int M = 150, K = 203, N = 97;
  std::vector<float> A(M * K), B(K * N), C(M * N);
  for (int i = 0; i < M * K; ++i) A[i] = float(i % 13) / 13.0f;
  for (int i = 0; i < K * N; ++i) B[i] = float(i % 7) / 7.0f - 0.5f;
  float *dA, *dB, *dC;
  cudaMalloc(&dA, A.size() * sizeof(float));
  cudaMalloc(&dB, B.size() * sizeof(float));
  cudaMalloc(&dC, C.size() * sizeof(float));
  cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(TILE_WIDTH, TILE_WIDTH);
  dim3 grid((N + TILE_WIDTH - 1) / TILE_WIDTH, (M + TILE_WIDTH - 1) / TILE_WIDTH);
  matrixMulTiled<<<grid, block>>>(dA, dB, dC, M, K, N);
  cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost);
  double maxError = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += double(A[r * K + k]) * B[k * N + c];
      maxError = std::fmax(maxError, std::fabs(ref - C[r * N + c]));
    }
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  printf("max error %g\n", maxError);
  bool ok = maxError < 1e-3 && cudaGetLastError() == cudaSuccess;
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
