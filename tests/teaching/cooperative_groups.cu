// Cooperative groups, as CUDA courses teach them: a sum where each warp-sized
// tile reduces with cg::reduce and the tiles' totals meet in shared memory,
// a filter that compacts its output with an aggregated atomic over the
// coalesced threads of a branch, and a tiled copy staged with memcpy_async.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

#define BLOCK 256

__global__ void block_sum(const int* in, int* total, int n) {
  __shared__ int tile_sums[BLOCK / 32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int i = blockIdx.x * BLOCK + block.thread_rank();
  int sum = cg::reduce(warp, i < n ? in[i] : 0, cg::plus<int>());
  if (warp.thread_rank() == 0) tile_sums[warp.meta_group_rank()] = sum;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    int part = warp.thread_rank() < warp.meta_group_size() ? tile_sums[warp.thread_rank()] : 0;
    part = cg::reduce(warp, part, cg::plus<int>());
    if (warp.thread_rank() == 0) atomicAdd(total, part);
  }
}

// One atomic per branch of each warp instead of one per thread: the leader
// of the coalesced threads reserves room for all of them.
__device__ int aggregated_increment(int* counter) {
  cg::coalesced_group active = cg::coalesced_threads();
  int first = 0;
  if (active.thread_rank() == 0) first = atomicAdd(counter, active.num_threads());
  return active.shfl(first, 0) + active.thread_rank();
}

__global__ void keep_positive(const int* in, int* out, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0) out[aggregated_increment(count)] = in[i];
}

__global__ void reverse_tiles(const int* in, int* out) {
  __shared__ int stage[BLOCK];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, stage, in + blockIdx.x * BLOCK, sizeof(int) * BLOCK);
  cg::wait(block);
  out[blockIdx.x * BLOCK + block.thread_rank()] = stage[BLOCK - 1 - block.thread_rank()];
}

int main() {
  const int n = 100000;
  const int blocks = (n + BLOCK - 1) / BLOCK;
  std::vector<int> in(blocks * BLOCK, 0);
  long long expected_sum = 0;
  int expected_positive = 0;
  for (int i = 0; i < n; ++i) {
    in[i] = (i * 7919) % 23 - 11;
    expected_sum += in[i];
    expected_positive += in[i] > 0;
  }
  int *d_in, *d_out, *d_total, *d_count;
  cudaMalloc(&d_in, in.size() * sizeof(int));
  cudaMalloc(&d_out, in.size() * sizeof(int));
  cudaMalloc(&d_total, sizeof(int));
  cudaMalloc(&d_count, sizeof(int));
  cudaMemcpy(d_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_total, 0, sizeof(int));
  cudaMemset(d_count, 0, sizeof(int));

  bool ok = true;
  block_sum<<<blocks, BLOCK>>>(d_in, d_total, n);
  int total = 0;
  cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  if (total != expected_sum) {
    std::printf("sum: got %d, expected %lld\n", total, expected_sum);
    ok = false;
  }

  keep_positive<<<blocks, BLOCK>>>(d_in, d_out, d_count, n);
  int count = 0;
  std::vector<int> kept(in.size());
  cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(kept.data(), d_out, in.size() * sizeof(int), cudaMemcpyDeviceToHost);
  long long kept_sum = 0, positive_sum = 0;
  for (int i = 0; i < count; ++i) {
    ok &= kept[i] > 0;
    kept_sum += kept[i];
  }
  for (int i = 0; i < n; ++i) positive_sum += in[i] > 0 ? in[i] : 0;
  if (count != expected_positive || kept_sum != positive_sum) {
    std::printf("filter: kept %d values summing to %lld, expected %d summing to %lld\n", count, kept_sum,
                expected_positive, positive_sum);
    ok = false;
  }

  reverse_tiles<<<blocks, BLOCK>>>(d_in, d_out);
  std::vector<int> reversed(in.size());
  cudaMemcpy(reversed.data(), d_out, in.size() * sizeof(int), cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < BLOCK; ++t) ok &= reversed[b * BLOCK + t] == in[b * BLOCK + BLOCK - 1 - t];

  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) {
    std::printf("error: %s\n", cudaGetErrorString(error));
    ok = false;
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_total);
  cudaFree(d_count);
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
