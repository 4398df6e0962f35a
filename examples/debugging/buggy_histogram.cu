// The program of docs/debugging.md's walkthrough: a histogram of samples in
// [0, 1) with four bugs, each switched on by its name on the command line so
// that one tool at a time finds one:
//
//   buggy_histogram                  correct: prints PASS
//   buggy_histogram out-of-bounds    reads one sample past the end of the input
//   buggy_histogram missing-barrier  counts before thread 0 has cleared the counts
//   buggy_histogram block-race       blocks add their counts to the result without atomics
//   buggy_histogram deadlock         threads without a sample wait at a barrier of their own
//
// Each block counts its samples in shared memory, then adds its counts to the
// histogram in global memory. The program checks the histogram against one
// counted on the host and prints PASS or FAIL.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

enum class bug { none, out_of_bounds, missing_barrier, block_race, deadlock };

constexpr int bins = 64;
constexpr int threads_per_block = 128;

// The bin of a sample in [0, 1); -1 for a sample outside, which is not counted.
__host__ __device__ int bin_of(float sample) {
  if (!(sample >= 0.0f && sample < 1.0f)) return -1;
  return static_cast<int>(sample * bins);
}

__global__ void histogram_kernel(const float* samples, int n, unsigned* histogram, bug b) {
  __shared__ unsigned counts[bins];
  if (threadIdx.x == 0)
    for (int k = 0; k < bins; ++k) counts[k] = 0;
  if (b != bug::missing_barrier) __syncthreads();  // the counts are clear before anyone counts

  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  if (b == bug::deadlock && first >= n) {
    __syncthreads();  // "nothing to count: wait for the others at the merge" (a barrier of its own)
    return;
  }
  const int last = b == bug::out_of_bounds ? n : n - 1;  // out-of-bounds: i <= n
  for (int i = first; i <= last; i += gridDim.x * blockDim.x) {
    const int k = bin_of(samples[i]);
    if (k >= 0) atomicAdd(&counts[k], 1u);
  }
  __syncthreads();  // every sample is counted before the counts are added up

  for (int k = threadIdx.x; k < bins; k += blockDim.x) {
    if (b == bug::block_race)
      histogram[k] += counts[k];  // another block may add to the same bin at the same time
    else
      atomicAdd(&histogram[k], counts[k]);
  }
}

int main(int argc, char** argv) {
  bug b = bug::none;
  if (argc > 1) {
    const char* names[] = {"none", "out-of-bounds", "missing-barrier", "block-race", "deadlock"};
    bool known = false;
    for (int i = 0; i < 5; ++i)
      if (std::strcmp(argv[1], names[i]) == 0) b = static_cast<bug>(i), known = true;
    if (!known) {
      std::fprintf(stderr, "usage: %s [none|out-of-bounds|missing-barrier|block-race|deadlock]\n", argv[0]);
      return 2;
    }
  }

  const int n = 1000;  // not a multiple of the block size: the last block has threads without a sample
  float host_samples[n];
  unsigned expected[bins] = {};
  for (int i = 0; i < n; ++i) {
    host_samples[i] = static_cast<float>((i * 37) % 1000) / 1000.0f;
    ++expected[bin_of(host_samples[i])];
  }

  float* samples = nullptr;
  unsigned* histogram = nullptr;
  cudaMalloc(&samples, n * sizeof(float));
  cudaMalloc(&histogram, bins * sizeof(unsigned));
  cudaMemcpy(samples, host_samples, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(histogram, 0, bins * sizeof(unsigned));

  const int blocks = (n + threads_per_block - 1) / threads_per_block;
  histogram_kernel<<<blocks, threads_per_block>>>(samples, n, histogram, b);
  cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    std::printf("FAIL: the kernel failed: %s\n", cudaGetErrorName(status));
    return 1;
  }

  unsigned result[bins];
  cudaMemcpy(result, histogram, bins * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaFree(samples);
  cudaFree(histogram);
  for (int k = 0; k < bins; ++k) {
    if (result[k] != expected[k]) {
      std::printf("FAIL: bin %d holds %u samples, expected %u\n", k, result[k], expected[k]);
      return 1;
    }
  }
  std::printf("PASS\n");
  return 0;
}
