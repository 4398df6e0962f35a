// Warp-specialised kernels synchronised by PTX named barriers, as CUTLASS
// and producer/consumer kernels write them in inline PTX: a producer warp
// hands rows to a consumer warp through bar.arrive and bar.sync on two
// barriers, pairs of warps meet at barriers 1 and 2 at once, and a barrier
// without a count waits for the whole block. Built unmodified through
// weft_add_cuda_executable, and by nvcc the same (it is the GPU probe of
// docs/semantics.md, "Named barriers"). Prints PASS or FAIL.
#include <cstdio>
#include <vector>

constexpr int rounds = 8;

__device__ void named_sync(int id, int threads) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory"); }
__device__ void named_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Warp 0 produces a row per round, warp 1 copies it out; barrier 1 says
// the row is full, barrier 2 that it was read.
__global__ void handover(int* out) {
  __shared__ int row[32];
  int lane = threadIdx.x % 32;
  for (int round = 0; round < rounds; ++round) {
    if (threadIdx.x < 32) {
      if (round > 0) named_sync(2, 64);
      row[lane] = blockIdx.x * 10000 + round * 100 + lane;
      named_arrive(1, 64);
    } else {
      named_sync(1, 64);
      out[(blockIdx.x * rounds + round) * 32 + lane] = row[lane];
      named_arrive(2, 64);
    }
  }
}

// Warps 0-1 swap values through barrier 1, warps 2-3 through barrier 2;
// then the block meets at barrier 3, without a count.
__global__ void pairs(int* out) {
  __shared__ int value[128];
  int pair = threadIdx.x / 64, partner = pair * 64 + (threadIdx.x + 32) % 64;
  int sum = 0;
  for (int round = 1; round <= 4; ++round) {
    value[threadIdx.x] = round * 1000 + threadIdx.x;
    asm volatile("barrier.sync %0, 64;" ::"r"(1 + pair) : "memory");
    sum += value[partner];
    asm volatile("bar.cta.sync %0, 64;" ::"r"(1 + pair) : "memory");
  }
  value[threadIdx.x] = sum;
  asm volatile("bar.sync 3;" ::: "memory");
  out[blockIdx.x * 128 + threadIdx.x] = value[127 - threadIdx.x];
}

int main() {
  const int blocks = 4;
  int *d_handover, *d_pairs;
  cudaMalloc(&d_handover, blocks * rounds * 32 * sizeof(int));
  cudaMalloc(&d_pairs, blocks * 128 * sizeof(int));
  handover<<<blocks, 64>>>(d_handover);
  pairs<<<blocks, 128>>>(d_pairs);
  std::vector<int> got_handover(blocks * rounds * 32), got_pairs(blocks * 128);
  cudaMemcpy(got_handover.data(), d_handover, got_handover.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(got_pairs.data(), d_pairs, got_pairs.size() * sizeof(int), cudaMemcpyDeviceToHost);
  int wrong = cudaGetLastError() != cudaSuccess;
  for (int b = 0; b < blocks; ++b)
    for (int round = 0; round < rounds; ++round)
      for (int lane = 0; lane < 32; ++lane)
        wrong += got_handover[(b * rounds + round) * 32 + lane] != b * 10000 + round * 100 + lane;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 128; ++t) {
      int other = 127 - t, partner = other / 64 * 64 + (other + 32) % 64;
      wrong += got_pairs[b * 128 + t] != 10 * 1000 + 4 * partner;
    }
  cudaFree(d_handover);
  cudaFree(d_pairs);
  std::printf("%s (%d wrong)\n", wrong ? "FAIL" : "PASS", wrong);
  return wrong != 0;
}
