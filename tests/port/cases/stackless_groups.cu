// Cooperative groups in kernels weft-port converts: what waits on a block,
// a tile of at most 32 threads or a coalesced group is awaited
// (weft/stackless_groups.hpp); making groups and asking their ranks is kept.
// A grid's sync is awaited too (stackless_grid_cluster.cu has more), and
// memcpy_async's wait (stackless_group_copies.cu has more), and tiles of
// 64 to 1024 threads or of a template parameter's size. Run with --explain
// (stackless_groups.expected-stderr).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>

namespace cg = cooperative_groups;

// A group passed to a __device__ function that waits on it.
__device__ int tile_sum(cg::thread_block_tile<32> tile, int v) {
  for (int offset = 16; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
  return v;
}

__global__ void block_and_tiles(const int* in, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  auto quarter = cg::tiled_partition<8>(tile);
  int v = in[block.thread_rank()];
  block.sync();
  cg::sync(block);
  int sum = tile_sum(tile, v) + cg::reduce(tile, v, cg::plus<int>());
  int below = cg::exclusive_scan(quarter, v) + cg::inclusive_scan(quarter, v, cg::plus<int>());
  unsigned votes = tile.ballot(v > 3) + quarter.any(v == 0) + quarter.all(v >= 0);
  tile.sync();
  int first = tile.shfl(v, 0) + quarter.shfl_up(v, 1) + quarter.shfl_xor(v, 2);
  out[block.thread_rank()] = sum + below + static_cast<int>(votes) + first + tile.meta_group_rank();
}

__global__ void runtime_tiles_and_coalesced(int* out) {
  auto block = cg::this_thread_block();
  cg::thread_group sixteen = cg::tiled_partition(block, 16);
  sixteen.sync();
  if (out[threadIdx.x] > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    out[threadIdx.x] = cg::reduce(active, 1, cg::plus<int>()) + active.thread_rank();
  }
}

__global__ void grid_wide(int* out) {
  cg::grid_group grid = cg::this_grid();
  out[0] = 1;
  grid.sync();
}

__global__ void copies_async(const int* in, int* out) {
  __shared__ int staged[32];
  auto block = cg::this_thread_block();
  cg::memcpy_async(block, staged, in, sizeof(staged));
  cg::wait(block);
  out[threadIdx.x] = staged[threadIdx.x];
}

// Tiles of 64 to 1024 threads, and of a template parameter's size.
__global__ void wide_tile(int* out) {
  __shared__ cg::block_tile_memory<128> scratch;
  cg::thread_block block = cg::this_thread_block(scratch);
  auto tile = cg::tiled_partition<64>(block);
  tile.sync();
  out[threadIdx.x] = cg::reduce(tile, tile.shfl(static_cast<int>(threadIdx.x), 0), cg::plus<int>()) + tile.any(1);
}

template <unsigned TILE>
__global__ void sized_tile(int* out) {
  cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(cg::this_thread_block());
  out[threadIdx.x] = cg::reduce(tile, static_cast<int>(threadIdx.x), cg::plus<int>());
  tile.sync();
}

// Stays on fibers: the reason --explain gives.
__global__ void unnamed_tile(int* out) {
  cg::tiled_partition<64>(cg::this_thread_block()).sync();
  out[0] = 1;
}

// Scans over a tile of 64, a reduction stored by one thread, and the
// block's split barrier.
__global__ void wide_scans_and_split_barrier(int* out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<64>(block);
  int v = cg::inclusive_scan(tile, 1) + cg::exclusive_scan(tile, 2, cg::plus<int>());
  cg::reduce_store_async(tile, out + tile.meta_group_rank(), v, cg::plus<int>());
  cg::reduce_update_async(tile, cuda::atomic_ref<int, cuda::thread_scope_device>(out[2]), v, cg::plus<int>());
  v += cg::exclusive_scan_update(tile, cuda::atomic_ref<int>(out[3]), 1);
  cg::thread_block::arrival_token token = block.barrier_arrive();
  out[64 + threadIdx.x] = v;
  block.barrier_wait(std::move(token));
}

void host(int* p) {
  block_and_tiles<<<1, 64>>>(p, p);
  runtime_tiles_and_coalesced<<<1, 64>>>(p);
  grid_wide<<<1, 32>>>(p);
  wide_tile<<<1, 128>>>(p);
  sized_tile<16><<<1, 64>>>(p);
  sized_tile<128><<<1, 128>>>(p);
  unnamed_tile<<<1, 64>>>(p);
  copies_async<<<1, 32>>>(p, p);
  wide_scans_and_split_barrier<<<1, 128>>>(p);
}
