// Tiles of a size given by a template parameter, and tiles of 64 to 1024
// threads (CUDA's multi-warp tiles), in stackless kernels: co_await
// weft::sync, shfl, any, all and reduce give what CUDA documents and what
// the same kernel gives on fibers, for tile sizes from 16 to the whole
// block, over several blocks (each block's tiles start afresh); a tile
// whose threads do not all reach its sync is the fibers' deadlock report.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>
#include <weft/stackless_groups.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace {

namespace cg = cooperative_groups;

constexpr unsigned wide_tile_threads = 256, wide_tile_blocks = 3, wide_tile_results = 5;

// Per thread: its tile's sum, rank 3's value, whether any value exceeds 150,
// whether all are under 170, and its value after the tile's sync.
template <unsigned Tile>
weft::stackless_kernel wide_tile_collectives(const int* in, int* out) {
  auto tile = cg::tiled_partition<Tile>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int sum = co_await weft::reduce(tile, v, cg::plus<int>());
  int third = co_await weft::shfl(tile, v, 3u);
  int any_large = co_await weft::any(tile, v > 150);
  int all_small = co_await weft::all(tile, v < 170);
  __shared__ int wide_tile_words[wide_tile_threads];
  wide_tile_words[threadIdx.x] = v;
  co_await weft::sync(tile);
  int mirrored = wide_tile_words[threadIdx.x - tile.thread_rank() + Tile - 1 - tile.thread_rank()];
  int* mine = out + i * wide_tile_results;
  mine[0] = sum;
  mine[1] = third;
  mine[2] = any_large;
  mine[3] = all_small;
  mine[4] = mirrored;
}

// The second tile of 64 skips its sync but for rank 0.
weft::stackless_kernel wide_tile_partial_sync(int* out) {
  auto tile = cg::tiled_partition<64>(cg::this_thread_block());
  if (tile.meta_group_rank() != 1 || tile.thread_rank() == 0) co_await weft::sync(tile);
  out[threadIdx.x] = 1;
}

std::vector<int> wide_tile_input() {
  std::vector<int> in(wide_tile_blocks * wide_tile_threads);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = static_cast<int>((i * 53) % 160);
  in[5 * 64 + 7] = 160;  // one tile of 64 (block 1's second) has a value over 150
  return in;
}

template <unsigned Tile>
std::vector<int> wide_tile_run() {
  device_buffer<int> d_in(wide_tile_input()), d_out(wide_tile_blocks * wide_tile_threads * wide_tile_results);
  REQUIRE(weft::launch<wide_tile_collectives<Tile>>(wide_tile_blocks, wide_tile_threads, d_in.p, d_out.p) ==
          cudaSuccess);
  return d_out.to_host();
}

template <unsigned Tile>
void check_wide_tile() {
  CAPTURE(Tile);
  auto [on_coroutines, on_fibers] = on_both_executors(wide_tile_run<Tile>);
  CHECK(on_coroutines == on_fibers);
  auto in = wide_tile_input();
  for (unsigned i = 0; i < in.size(); ++i) {
    unsigned first = i - i % Tile;
    int sum = 0, any_large = 0, all_small = 1;
    for (unsigned k = first; k < first + Tile; ++k) {
      sum += in[k];
      any_large |= in[k] > 150;
      all_small &= in[k] < 170;
    }
    const int* got = &on_coroutines[i * wide_tile_results];
    CHECK(got[0] == sum);
    CHECK(got[1] == in[first + 3]);
    CHECK(got[2] == any_large);
    CHECK(got[3] == all_small);
    CHECK(got[4] == in[first + Tile - 1 - i % Tile]);
  }
}

}  // namespace

TEST_CASE("stackless tiles of a template parameter's size, 16 to 256 threads, give what fibers give") {
  check_wide_tile<16>();
  check_wide_tile<32>();
  check_wide_tile<64>();
  check_wide_tile<128>();
  check_wide_tile<256>();
}

TEST_CASE("a stackless multi-warp tile's sync that part of the tile skips is the fibers' deadlock report") {
  auto run = [] {
    device_buffer<int> out(128);
    return stackless_failure_of([&] { return weft::launch(1, 128, wide_tile_partial_sync, out.p); });
  };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  CHECK(on_coroutines.code == on_fibers.code);
  CHECK(on_coroutines.guards_balanced == on_fibers.guards_balanced);
  // The tile's barrier's address differs between the executors' workers.
  CHECK(report_without_addresses(on_coroutines.report) == report_without_addresses(on_fibers.report));
  CHECK(on_coroutines.code != cudaSuccess);
  CHECK(on_coroutines.report.find("coroutine_wide_tile_test.cpp:52") != std::string::npos);
}
