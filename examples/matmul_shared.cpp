// Matrix multiplication with shared memory (CUDA programming guide, "Shared
// Memory"): each block computes one BLOCK_SIZE x BLOCK_SIZE tile of C. It
// walks along A's block row and B's block column, staging one tile of each in
// __shared__ memory, so every element loaded from global memory is used
// BLOCK_SIZE times. __syncthreads keeps the block's threads in step: a tile is
// complete before anyone reads it, and read by everyone before it is replaced.
#include <weft.hpp>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <vector>

// Row-major storage with a row stride, so that a sub-matrix can share its
// parent's elements: M(row, col) = M.elements[row * M.stride + col].
struct Matrix {
  int width;
  int height;
  int stride;
  float* elements;
};

// Tile edge, and threads per block in each dimension.
constexpr int BLOCK_SIZE = 16;

__device__ float GetElement(const Matrix A, int row, int col) { return A.elements[row * A.stride + col]; }

__device__ void SetElement(Matrix A, int row, int col, float value) { A.elements[row * A.stride + col] = value; }

// The BLOCK_SIZE x BLOCK_SIZE tile of A that is `row` tiles down and `col`
// tiles to the right of A's top-left corner.
__device__ Matrix GetSubMatrix(Matrix A, int row, int col) {
  Matrix sub;
  sub.width = BLOCK_SIZE;
  sub.height = BLOCK_SIZE;
  sub.stride = A.stride;
  sub.elements = &A.elements[A.stride * BLOCK_SIZE * row + BLOCK_SIZE * col];
  return sub;
}

// Device code: block (blockCol, blockRow) computes tile Csub of C; thread
// (col, row) of the block computes element (row, col) of Csub.
__global__ void MatMulKernel(Matrix A, Matrix B, Matrix C) {
  int blockRow = blockIdx.y;
  int blockCol = blockIdx.x;
  int row = threadIdx.y;
  int col = threadIdx.x;
  Matrix Csub = GetSubMatrix(C, blockRow, blockCol);

  float Cvalue = 0;
  for (int m = 0; m < A.width / BLOCK_SIZE; ++m) {
    Matrix Asub = GetSubMatrix(A, blockRow, m);
    Matrix Bsub = GetSubMatrix(B, m, blockCol);

    // One tile of A and one of B, shared by the whole block.
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

    // Each thread loads one element of each tile.
    As[row][col] = GetElement(Asub, row, col);
    Bs[row][col] = GetElement(Bsub, row, col);
    __syncthreads();  // both tiles are complete

    for (int e = 0; e < BLOCK_SIZE; ++e) Cvalue += As[row][e] * Bs[e][col];
    __syncthreads();  // nobody still reads the tiles the next iteration overwrites
  }
  SetElement(Csub, row, col, Cvalue);
}

// Copies a host matrix's shape, and optionally its contents, to a new device matrix.
Matrix ToDevice(const Matrix& M, bool copyElements) {
  Matrix d_M{M.width, M.height, M.width, nullptr};
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
  std::printf("matmul_shared: C (%dx%d) = A (%dx%d) * B (%dx%d) in %ux%u blocks of %dx%d threads on %u SM workers\n",
              C.height, C.width, A.height, A.width, B.height, B.width, dimGrid.y, dimGrid.x, BLOCK_SIZE, BLOCK_SIZE,
              weft::worker_count());
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
  const int M = 384, K = 512, N = 256;  // C (MxN) = A (MxK) * B (KxN)
  std::vector<float> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N);
  Fill(a, 1);
  Fill(b, 2);
  Matrix A{K, M, K, a.data()}, B{N, K, N, b.data()}, C{N, M, N, c.data()};

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

  if (err != cudaSuccess) std::printf("error: %s %s\n", cudaGetErrorName(err), weft::fault_message().c_str());
  std::printf("%d of %d elements outside the float rounding bound\n", mismatches, M * N);
  bool ok = err == cudaSuccess && mismatches == 0;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
