// Cooperative groups' memcpy_async converts: weft copies at once, so the
// copy keeps its spelling, and cg::wait(g) and cg::wait_prior<N>(g), a sync
// of the group, are awaited. Run with --explain
// (stackless_group_copies.expected-stderr).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

namespace cg = cooperative_groups;

__global__ void staged(const int* in, int* out) {
  __shared__ int stage[2][64];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, stage[0], in, sizeof(int) * 64);
  cg::memcpy_async(block, stage[1], in + 64, sizeof(int) * 64);
  cg::wait_prior<1>(block);
  int first = stage[0][(threadIdx.x + 1) % 64];
  cg::wait(block);
  out[threadIdx.x] = first + stage[1][threadIdx.x];
}

__global__ void tiled(const int* in, int* out) {
  __shared__ int piece[64];
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned base = threadIdx.x - tile.thread_rank();
  cooperative_groups::memcpy_async(tile, piece + base, in + base, sizeof(int) * 32);
  cooperative_groups::wait(tile);
  out[threadIdx.x] = piece[base + 31 - tile.thread_rank()];
}

// Stays on fibers: the reason --explain gives.
__global__ void unknown_copy(const int* in, int* out) {
  __shared__ int words[64];
  memcpy_async(cg::this_thread_block(), words, in, sizeof(int) * 64);
  cg::sync(cg::this_thread_block());
  out[threadIdx.x] = words[threadIdx.x];
}
