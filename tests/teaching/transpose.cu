// Matrix transpose three ways: a naive copy with strided writes, a tiled
// transpose through shared memory, and the same with a padded tile (the
// classic fix for shared-memory bank conflicts). A TILE_DIM x BLOCK_ROWS
// block moves a TILE_DIM x TILE_DIM tile, each thread several rows.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

const int TILE_DIM = 32;
const int BLOCK_ROWS = 8;

__global__ void transpose_naive(float* odata, const float* idata, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) odata[x * height + (y + j)] = idata[(y + j) * width + x];
}

template <int PAD>
__global__ void transpose_tiled(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + PAD];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;  // swapped block offsets
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int width = 1000, height = 700;  // not multiples of the tile
  const size_t bytes = size_t(width) * height * sizeof(float);
  std::vector<float> in(width * height), out(width * height);
  for (int i = 0; i < width * height; ++i) in[i] = float(i);
  float *d_in, *d_out;
  cudaMalloc(&d_in, bytes);
  cudaMalloc(&d_out, bytes);
  cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice);

  dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
  dim3 block(TILE_DIM, BLOCK_ROWS);
  bool ok = true;
  for (int variant = 0; variant < 3; ++variant) {
    cudaMemset(d_out, 0, bytes);
    if (variant == 0) transpose_naive<<<grid, block>>>(d_out, d_in, width, height);
    if (variant == 1) transpose_tiled<0><<<grid, block>>>(d_out, d_in, width, height);
    if (variant == 2) transpose_tiled<1><<<grid, block>>>(d_out, d_in, width, height);
    cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) wrong += out[x * height + y] != in[y * width + x];
    std::printf("variant %d: %d wrong elements\n", variant, wrong);
    ok = ok && wrong == 0;
  }
  ok = ok && cudaGetLastError() == cudaSuccess;
  cudaFree(d_in);
  cudaFree(d_out);
  std::puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
