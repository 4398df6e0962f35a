// Histogram of bytes with per-block privatised bins in shared memory:
// shared atomics build each block's histogram, global atomics merge them.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define BINS 256

__global__ void histogram_shared(const unsigned char* data, unsigned n, unsigned* bins) {
  __shared__ unsigned local[BINS];
  for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

int main() {
  const unsigned n = 3'000'000;
  std::vector<unsigned char> data(n);
  unsigned seed = 12345;
  for (auto& byte : data) {
    seed = seed * 1103515245u + 12345u;
    byte = static_cast<unsigned char>((seed >> 16) % 200 + (seed >> 30));
  }
  std::vector<unsigned> expected(BINS, 0);
  for (unsigned char byte : data) ++expected[byte];

  unsigned char* d_data;
  unsigned* d_bins;
  cudaMalloc(&d_data, n);
  cudaMalloc(&d_bins, BINS * sizeof(unsigned));
  cudaMemcpy(d_data, data.data(), n, cudaMemcpyHostToDevice);
  cudaMemset(d_bins, 0, BINS * sizeof(unsigned));
  histogram_shared<<<64, 256>>>(d_data, n, d_bins);
  std::vector<unsigned> bins(BINS);
  cudaMemcpy(bins.data(), d_bins, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaError_t err = cudaGetLastError();
  cudaFree(d_data);
  cudaFree(d_bins);

  bool ok = err == cudaSuccess && bins == expected;
  unsigned long long total = 0;
  for (unsigned b : bins) total += b;
  std::printf("%llu bytes counted in %d bins\n", total, BINS);
  std::puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
