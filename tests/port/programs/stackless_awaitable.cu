// Kernels weft-port converts only since it makes __device__ functions that
// wait awaitable and awaits cooperative groups, checked against the host.
// Built twice: as ported (port_stackless_awaitable, its kernels stackless)
// and with NO_STACKLESS (port_stackless_awaitable_fibers); both print the
// same lines and PASS.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

constexpr int threads = 128;

// Declared first with a default width, defined after the kernel that calls it.
__device__ int width_sum(int v, int width = 32);

// Waits through width_sum only.
__device__ int warp_and_half_sums(int v) { return width_sum(v) * 1000 + width_sum(v, 16); }

template <class T>
__device__ T warp_inclusive_scan(T v) {
  int lane = threadIdx.x % 32;
  for (int offset = 1; offset < 32; offset *= 2) {
    T below = __shfl_up_sync(0xffffffffu, v, offset);
    if (lane >= offset) v += below;
  }
  return v;
}

// A block scan: warps scan, the first warp scans their totals.
__device__ void block_scan(int* values, int* totals) {
  int t = threadIdx.x, lane = t % 32, warp = t / 32;
  int v = warp_inclusive_scan(values[t]);
  if (lane == 31) totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int total = warp_inclusive_scan<int>(lane < threads / 32 ? totals[lane] : 0);
    if (lane < threads / 32) totals[lane] = total;
  }
  __syncthreads();
  values[t] = v + (warp > 0 ? totals[warp - 1] : 0);
}

__global__ void awaited_helpers(const int* in, int* sums, int* scans) {
  __shared__ int values[threads];
  __shared__ int totals[threads / 32];
  int i = blockIdx.x * threads + threadIdx.x;
  sums[i] = warp_and_half_sums(in[i]);
  values[threadIdx.x] = in[i];
  block_scan(values, totals);
  scans[i] = values[threadIdx.x];
}

__device__ int width_sum(int v, int width) {
  for (int offset = width / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset, width);
  return v;
}

__device__ int tile_max(cg::thread_block_tile<32> tile, int v) {
  for (int offset = 16; offset > 0; offset /= 2) v = max(v, tile.shfl_xor(v, offset));
  return v;
}

// Seven values per thread from cooperative groups.
__global__ void groups(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  auto eight = cg::tiled_partition<8>(tile);
  int i = blockIdx.x * threads + block.thread_rank();
  int v = in[i];
  __shared__ int first_of_block;
  if (block.thread_rank() == 0) first_of_block = v;
  block.sync();
  int* o = out + i * 7;
  o[0] = cg::reduce(tile, v, cg::plus<int>()) + first_of_block;
  o[1] = cg::inclusive_scan(eight, v) * 100 + cg::exclusive_scan(eight, v, cg::plus<int>());
  o[2] = static_cast<int>(tile.ballot(v % 3 == 0)) ^ (eight.any(v > 250) * 2 + eight.all(v > 5));
  o[3] = tile.shfl(v, 5) + eight.shfl_down(v, 1) * 3 + eight.shfl_up(v, 2) * 7;
  o[4] = tile_max(tile, v);
  cg::sync(block);
  cg::thread_group sixteen = cg::tiled_partition(block, 16);
  sixteen.sync();
  o[5] = 0;
  if (v % 2 == 0) {
    cg::coalesced_group even = cg::coalesced_threads();
    o[5] = cg::reduce(even, v, cg::plus<int>()) * 100 + static_cast<int>(even.thread_rank());
  }
  tile.sync();
  o[6] = cg::reduce(eight, v, cg::greater<int>());
}

int main() {
  const int blocks = 3, n = blocks * threads;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 301;
  int *d_in, *d_sums, *d_scans, *d_groups;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_sums, n * sizeof(int));
  cudaMalloc(&d_scans, n * sizeof(int));
  cudaMalloc(&d_groups, n * 7 * sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  awaited_helpers<<<blocks, threads>>>(d_in, d_sums, d_scans);
  groups<<<blocks, threads>>>(d_in, d_groups);
  std::vector<int> sums(n), scans(n), group_values(n * 7);
  cudaMemcpy(sums.data(), d_sums, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(scans.data(), d_scans, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(group_values.data(), d_groups, n * 7 * sizeof(int), cudaMemcpyDeviceToHost);

  bool ok = cudaGetLastError() == cudaSuccess;
  for (int b = 0; b < blocks; ++b) {
    int running = 0;
    for (int t = 0; t < threads; ++t) {
      int i = b * threads + t;
      running += in[i];
      ok &= scans[i] == running;
      if (t % 32 == 0) {
        int warp = 0, half = 0;
        for (int k = 0; k < 32; ++k) warp += in[i + k];
        for (int k = 0; k < 16; ++k) half += in[i + k];
        ok &= sums[i] == warp * 1000 + half;
      }
      if (t % 8 == 0) {
        int most = 0;
        for (int k = 0; k < 8; ++k) most = std::max(most, in[i + k]);
        ok &= group_values[(i + 3) * 7 + 6] == most;
      }
    }
  }
  unsigned long long checksum = 0;
  for (int v : group_values) checksum = checksum * 31 + static_cast<unsigned>(v);
  printf("sums[0..3] %d %d %d %d\n", sums[0], sums[1], sums[31], sums[32]);
  printf("scans[last] %d\n", scans[n - 1]);
  printf("groups[0..6] %d %d %d %d %d %d %d\n", group_values[0], group_values[1], group_values[2], group_values[3],
         group_values[4], group_values[5], group_values[6]);
  printf("groups checksum %llu\n", checksum);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
