// Probe of warp collectives whose mask names lanes that do not exist: the
// full mask (0xffffffff, or a 32-thread tile's collectives) in the last warp
// of a block whose size is not a multiple of 32, as cuda-samples' shfl_scan
// does with 120-thread blocks. CUDA leaves it undefined; an H100 runs it,
// treating the missing lanes as inactive. Built with nvcc for an H100, its
// output is committed beside it as partial_warp_probe.expected; the ctest
// test differential.partial_warp_probe builds it with weft and requires the
// same output (lines marked "undefined" too: weft matches what the H100 did).
//
//   nvcc -arch=sm_90 -o partial_warp_probe partial_warp_probe.cu && ./partial_warp_probe > partial_warp_probe.expected
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>

#include <cuda_runtime.h>

namespace cg = cooperative_groups;

constexpr int slots = 12;  // ints written per thread

// 56 threads: warp 1 has lanes 0..23; every collective uses the full mask.
__global__ void full_mask_in_partial_warp(int* out) {
  unsigned t = threadIdx.x;
  int v = static_cast<int>(t) * 10 + 1;
  int* o = out + t * slots;
  o[0] = __shfl_up_sync(0xffffffffu, v, 1);
  o[1] = __shfl_down_sync(0xffffffffu, v, 4);    // lanes 20..23 read past the end (undefined)
  o[2] = __shfl_sync(0xffffffffu, v, 28);        // lane 28 does not exist in warp 1 (undefined)
  o[3] = __shfl_xor_sync(0xffffffffu, v, 16);    // lanes 8..15's partners do not exist (undefined)
  o[4] = static_cast<int>(__ballot_sync(0xffffffffu, t % 3 == 0));
  o[5] = __any_sync(0xffffffffu, t == 50);
  o[6] = __all_sync(0xffffffffu, t < 56);
  o[7] = static_cast<int>(__reduce_add_sync(0xffffffffu, t));
  o[8] = static_cast<int>(__match_any_sync(0xffffffffu, t / 8));
  __syncwarp(0xffffffffu);
  o[9] = static_cast<int>(__activemask());
  unsigned sum = t;
  for (int d = 1; d < 32; d *= 2) {  // shfl_scan's inclusive scan
    unsigned n = __shfl_up_sync(0xffffffffu, sum, d);
    if ((t % 32) >= static_cast<unsigned>(d)) sum += n;
  }
  o[10] = static_cast<int>(sum);
  o[11] = __popc(__ballot_sync(0xffffffffu, 1));
}

// The same scan through a 32-thread tile of a 120-thread block, as
// shfl_scan's kernel writes it, with the tile's own answers about itself.
__global__ void tile_in_partial_warp(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  unsigned t = threadIdx.x;
  unsigned sum = t + 1;
  for (unsigned d = 1; d < 32; d *= 2) {
    unsigned n = tile.shfl_up(sum, d);
    if (tile.thread_rank() >= d) sum += n;
  }
  int* o = out + t * slots;
  o[0] = static_cast<int>(sum);
  o[1] = static_cast<int>(tile.size());
  o[2] = static_cast<int>(tile.num_threads());
  o[3] = static_cast<int>(tile.thread_rank());
  o[4] = static_cast<int>(tile.meta_group_rank());
  o[5] = static_cast<int>(tile.meta_group_size());
  o[6] = static_cast<int>(tile.ballot(t % 2));
  o[7] = tile.any(t == 100);
  o[8] = tile.all(t < 120);
  tile.sync();
  o[9] = tile.shfl(static_cast<int>(t), 0);
  o[10] = cg::reduce(tile, static_cast<int>(t), cg::plus<int>());
  o[11] = static_cast<int>(block.size());
}

void show(const char* name, const int* d, int threads, int first) {
  static int h[128 * slots];
  cudaDeviceSynchronize();
  cudaError_t e = cudaGetLastError();
  cudaMemcpy(h, d, sizeof(int) * threads * slots, cudaMemcpyDeviceToHost);
  std::printf("%s: %s\n", name, cudaGetErrorName(e));
  for (int t = first; t < threads; ++t) {
    std::printf("%s[%d]:", name, t);
    for (int i = 0; i < slots; ++i) std::printf(" %d", h[t * slots + i]);
    std::printf("\n");
  }
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, sizeof(int) * 128 * slots);
  cudaMemset(d, 0, sizeof(int) * 128 * slots);
  full_mask_in_partial_warp<<<1, 56>>>(d);
  show("full_mask_in_partial_warp", d, 56, 0);
  cudaMemset(d, 0, sizeof(int) * 128 * slots);
  tile_in_partial_warp<<<1, 120>>>(d);
  show("tile_in_partial_warp", d, 120, 64);
  cudaFree(d);
  return 0;
}
