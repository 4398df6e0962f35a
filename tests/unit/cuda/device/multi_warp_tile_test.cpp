// Multi-warp tiles (thread_block_tile<Size> for Size 64 to 1024), as
// cuda-samples' reduction builds them: tiled_partition<Size> of a block made
// with a block_tile_memory scratch, cg::reduce over each tile, shfl, any,
// all, and sync between the tile's threads.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>

#include <vector>

namespace cg = cooperative_groups;

namespace {

constexpr int fields = 9;

template <unsigned Size>
__global__ void multi_warp_tiles(int* out) {
  __shared__ cg::block_tile_memory<1024> scratch;
  __shared__ int staged[1024];
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::thread_block_tile<Size> tile = cg::tiled_partition<Size>(block);
  unsigned t = block.thread_rank();
  int* o = out + (blockIdx.x * blockDim.x + t) * fields;  // each block its own slots
  o[0] = static_cast<int>(tile.thread_rank());
  o[1] = static_cast<int>(tile.meta_group_rank());
  o[2] = static_cast<int>(tile.meta_group_size());
  o[3] = cg::reduce(tile, static_cast<int>(t), cg::plus<int>());
  o[4] = cg::reduce(tile, static_cast<int>(t), cg::greater<int>());
  o[5] = tile.shfl(static_cast<int>(t) * 2, 5);
  o[6] = tile.any(t == 70) * 10 + tile.all(t % Size != 3);
  // Writes before the tile's sync are seen after it by the tile's threads.
  staged[t] = static_cast<int>(t) + 1000;
  tile.sync();
  o[7] = staged[tile.meta_group_rank() * Size + (tile.thread_rank() + 1) % Size];
  o[8] = static_cast<int>(cg::reduce(tile, 0.5f, cg::plus<float>()) * 2.0f);
}

template <unsigned Size>
void check_tiles(unsigned threads) {
  constexpr unsigned blocks = 2;
  int* out = nullptr;
  REQUIRE(cudaMallocManaged(&out, blocks * threads * fields * sizeof(int)) == cudaSuccess);
  REQUIRE(weft::launch(blocks, threads, multi_warp_tiles<Size>, out) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (unsigned slot = 0; slot < blocks * threads; ++slot) {
    unsigned t = slot % threads;  // the thread's rank in its block
    CAPTURE(Size);
    CAPTURE(slot);
    unsigned tile = t / Size, first = tile * Size;
    int sum = 0;
    for (unsigned u = first; u < first + Size; ++u) sum += static_cast<int>(u);
    const int* o = out + slot * fields;
    CHECK(o[0] == static_cast<int>(t % Size));
    CHECK(o[1] == static_cast<int>(tile));
    CHECK(o[2] == static_cast<int>(threads / Size));
    CHECK(o[3] == sum);
    CHECK(o[4] == static_cast<int>(first + Size - 1));
    CHECK(o[5] == static_cast<int>(first + 5) * 2);
    CHECK(o[6] == (first <= 70 && 70 < first + Size ? 10 : 0));
    CHECK(o[7] == static_cast<int>(first + (t % Size + 1) % Size) + 1000);
    CHECK(o[8] == static_cast<int>(Size));
  }
  CHECK(cudaFree(out) == cudaSuccess);
}

}  // namespace

TEST_CASE("multi-warp tiles of 64 to 1024 threads: ranks, reduce, shfl, votes and sync") {
  check_tiles<64>(256);
  check_tiles<128>(256);
  check_tiles<256>(512);
  check_tiles<1024>(1024);
}

TEST_CASE("a tile of 64 inside a block that diverges by tile: each tile syncs on its own") {
  // Only the second tile of each block reaches the collective: a block-wide
  // barrier would never complete; the tile's own barrier does.
  int* out = nullptr;
  REQUIRE(cudaMallocManaged(&out, 128 * sizeof(int)) == cudaSuccess);
  auto kernel = [] __device__(int* o) {
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
    int v = 0;
    if (tile.meta_group_rank() == 1) v = cg::reduce(tile, 1, cg::plus<int>());
    o[threadIdx.x] = v;
  };
  REQUIRE(weft::launch(1, 128, kernel, out) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int t = 0; t < 128; ++t) CHECK(out[t] == (t < 64 ? 0 : 64));
  CHECK(cudaFree(out) == cudaSuccess);
}
