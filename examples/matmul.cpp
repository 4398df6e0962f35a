// Matrix multiplication without shared memory (CUDA programming guide,
// "Shared Memory"): each CUDA thread computes one element of C = A * B by
// reading a whole row of A and a whole column of B from global memory.
#include <weft.hpp>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <vector>

// Row-major storage: M(row, col) = M.elements[row * M.width + col].
struct Matrix {
  int width;
  int height;
  float* elements;
};

// Threads per block in each dimension.
constexpr int BLOCK_SIZE = 16;

// Device code: the thread at (row, col) of the grid computes C(row, col).
__global__ void MatMulKernel(Matrix A, Matrix B, Matrix C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float Cvalue = 0;
  for (int k = 0; k < A.width; ++k) Cvalue += A.elements[row * A.width + k] * B.elements[k * B.width + col];
  C.elements[row * C.width + col] = Cvalue;
}

// Copies a host matrix's shape, and optionally its contents, to a new device matrix.
Matrix ToDevice(const Matrix& M, bool copyElements) {
  Matrix d_M{M.width, M.height, nullptr};
  size_t size = size_t(M.width) * M.height * sizeof(float);
  cudaMalloc(&d_M.elements, size);
  if (copyElements) cudaMemcpy(d_M.elements, M.elements, size, cudaMemcpyHostToDevice);
  return d_M;
}

// Host code: C = A * B. Every dimension must be a multiple of BLOCK_SIZE.
cudaError_t MatMul(const Matrix A, const Matrix B, Matrix C) {
  Matrix d_A = ToDevice(A, true);
  Matrix d_B = ToDevice(B, true);
  Matrix d_C = ToDevice(C, false);

  dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
  dim3 dimGrid(B.width / dimBlock.x, A.height / dimBlock.y);
  weft::launch(dimGrid, dimBlock, MatMulKernel, d_A, d_B, d_C);

  cudaMemcpy(C.elements, d_C.elements, size_t(C.width) * C.height * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d_A.elements);
  cudaFree(d_B.elements);
  cudaFree(d_C.elements);
  return cudaGetLastError();
}

// Deterministic pseudo-random values in [-1, 1).
void Fill(std::vector<float>& v, unsigned seed) {
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = float(seed >> 8) / float(1 << 23) - 1.0f;
  }
}

int main() {
  const int M = 256, K = 384, N = 512;  // C (MxN) = A (MxK) * B (KxN)
  std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N);
  Fill(a, 1);
  Fill(b, 2);
  Matrix A{K, M, a.data()}, B{N, K, b.data()}, C{N, M, c.data()};

  cudaError_t err = MatMul(A, B, C);

  // A float sum of K products is within K * FLT_EPSILON * sum |a*b| of the
  // exact value, whatever the order of the additions.
  int mismatches = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double exact = 0, magnitude = 0;
      for (int k = 0; k < K; ++k) {
        double p = double(a[size_t(i) * K + k]) * b[size_t(k) * N + j];
        exact += p;
        magnitude += std::fabs(p);
      }
      if (std::fabs(c[size_t(i) * N + j] - exact) > K * FLT_EPSILON * magnitude) ++mismatches;
    }

  std::printf("matmul: C (%dx%d) = A (%dx%d) * B (%dx%d), %d mismatches, %s\n", M, N, M, K, K, N, mismatches,
              cudaGetErrorName(err));
  bool ok = err == cudaSuccess && mismatches == 0;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
