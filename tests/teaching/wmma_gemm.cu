// Matrix multiplication on tensor cores with the warp matrix functions:
// C = A * B for 128 x 128 half matrices with float results. Each warp
// computes one 16 x 16 tile of C, stepping through K 16 at a time: it loads
// a tile of A and a tile of B into fragments and accumulates their product
// with mma_sync. The host checks the result.
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace nvcuda;

const int N = 128;      // A, B and C are N x N, row-major
const int TILE = 16;    // the wmma tile
const int WARPS_X = 2;  // warps per block, in each direction
const int WARPS_Y = 2;

__global__ void wmma_gemm(const half* a, const half* b, float* c, int n) {
  int warp = threadIdx.x / warpSize;
  int tile_row = (blockIdx.y * WARPS_Y + warp / WARPS_X) * TILE;
  int tile_col = (blockIdx.x * WARPS_X + warp % WARPS_X) * TILE;

  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_frag;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b_frag;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);

  for (int k = 0; k < n; k += TILE) {
    wmma::load_matrix_sync(a_frag, a + tile_row * n + k, n);
    wmma::load_matrix_sync(b_frag, b + k * n + tile_col, n);
    wmma::mma_sync(acc, a_frag, b_frag, acc);
  }
  // A small epilogue on the fragment itself: every element doubled.
  for (int i = 0; i < acc.num_elements; i++) acc.x[i] = 2.0f * acc.x[i];
  wmma::store_matrix_sync(c + tile_row * n + tile_col, acc, n, wmma::mem_row_major);
}

int main() {
  std::vector<half> a(N * N), b(N * N);
  std::vector<float> fa(N * N), fb(N * N), c(N * N);
  for (int i = 0; i < N * N; i++) {
    fa[i] = (float)(i % 7 - 3);  // small integers: every sum is exact
    fb[i] = (float)(i % 5 - 2);
    a[i] = __float2half(fa[i]);
    b[i] = __float2half(fb[i]);
  }

  half *d_a, *d_b;
  float* d_c;
  cudaMalloc(&d_a, N * N * sizeof(half));
  cudaMalloc(&d_b, N * N * sizeof(half));
  cudaMalloc(&d_c, N * N * sizeof(float));
  cudaMemcpy(d_a, a.data(), N * N * sizeof(half), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b.data(), N * N * sizeof(half), cudaMemcpyHostToDevice);

  dim3 block(WARPS_X * WARPS_Y * 32);
  dim3 grid(N / (TILE * WARPS_X), N / (TILE * WARPS_Y));
  wmma_gemm<<<grid, block>>>(d_a, d_b, d_c, N);
  cudaError_t err = cudaDeviceSynchronize();
  cudaMemcpy(c.data(), d_c, N * N * sizeof(float), cudaMemcpyDeviceToHost);

  int errors = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float expected = 0.0f;
      for (int k = 0; k < N; k++) expected += fa[i * N + k] * fb[k * N + j];
      if (c[i * N + j] != 2.0f * expected) errors++;
    }
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  printf("%d of %d elements wrong\n", errors, N * N);
  printf("%s\n", err == cudaSuccess && errors == 0 ? "PASS" : "FAIL");
  return errors == 0 ? 0 : 1;
}
