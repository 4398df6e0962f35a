// Cooperative groups' memcpy_async in stackless kernels: the copy keeps
// its spelling (weft copies at once), and its waits are awaited, co_await
// weft::wait(g) and weft::wait_prior<N>(g), as a sync of the group that
// makes every thread's share visible. A block and a tile stage data through
// shared memory and give what the same kernels give on fibers and what the
// host computes; a wait that some threads skip is the fibers' report.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>
#include <weft/stackless_groups.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"

#include <string>
#include <vector>

namespace {

namespace cg = cooperative_groups;

constexpr unsigned group_copy_threads = 64, group_copy_blocks = 3;

// Two stages copied by the block; the first read after wait_prior<1>, the
// second after wait. Each thread reads words another thread copied.
weft::stackless_kernel group_copy_block_stages(const int* in, int* out) {
  __shared__ int group_copy_stage[2][group_copy_threads];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = threadIdx.x;
  for (unsigned s = 0; s < 2; ++s)
    cg::memcpy_async(block, group_copy_stage[s], in + ((blockIdx.x + s) % gridDim.x) * group_copy_threads,
                     sizeof(int) * group_copy_threads);
  co_await weft::wait_prior<1>(block);
  int first = group_copy_stage[0][(t + 5) % group_copy_threads];
  co_await weft::wait(block);
  out[blockIdx.x * group_copy_threads + t] = first - group_copy_stage[1][group_copy_threads - 1 - t];
}

// Each tile of 16 copies its own piece, then reads it reversed.
weft::stackless_kernel group_copy_tiles(const int* in, int* out) {
  __shared__ int group_copy_pieces[group_copy_threads];
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  unsigned base = threadIdx.x - tile.thread_rank();
  cg::memcpy_async(tile, group_copy_pieces + base, in + blockIdx.x * group_copy_threads + base, sizeof(int) * 16);
  co_await weft::wait(tile);
  out[blockIdx.x * group_copy_threads + threadIdx.x] = group_copy_pieces[base + 15 - tile.thread_rank()];
}

// Half the block waits for the copy, the other half at a block barrier elsewhere.
weft::stackless_kernel group_copy_divergent(const int* in, int* out) {
  __shared__ int group_copy_words[group_copy_threads];
  cg::thread_block block = cg::this_thread_block();
  cg::memcpy_async(block, group_copy_words, in, sizeof(int) * group_copy_threads);
  if (threadIdx.x < 32)
    co_await weft::wait(block);
  else
    co_await weft::syncthreads();
  out[threadIdx.x] = group_copy_words[threadIdx.x];
}

std::vector<int> group_copy_input() {
  std::vector<int> in(group_copy_blocks * group_copy_threads);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = static_cast<int>((i * 41) % 173) - 60;
  return in;
}

template <class Kernel>
std::vector<int> group_copy_run(Kernel kernel) {
  device_buffer<int> d_in(group_copy_input()), d_out(group_copy_blocks * group_copy_threads);
  REQUIRE(weft::launch(group_copy_blocks, group_copy_threads, kernel, d_in.p, d_out.p) == cudaSuccess);
  return d_out.to_host();
}

}  // namespace

TEST_CASE("a block's cg::memcpy_async with co_await weft::wait_prior and weft::wait stages data as on fibers") {
  auto [on_coroutines, on_fibers] = on_both_executors([] { return group_copy_run(group_copy_block_stages); });
  CHECK(on_coroutines == on_fibers);
  auto in = group_copy_input();
  unsigned n = group_copy_threads;
  for (unsigned b = 0; b < group_copy_blocks; ++b)
    for (unsigned t = 0; t < n; ++t)
      CHECK(on_coroutines[b * n + t] == in[b * n + (t + 5) % n] - in[(b + 1) % group_copy_blocks * n + n - 1 - t]);
}

TEST_CASE("a tile's cg::memcpy_async with co_await weft::wait(tile) gives what fibers give") {
  auto [on_coroutines, on_fibers] = on_both_executors([] { return group_copy_run(group_copy_tiles); });
  CHECK(on_coroutines == on_fibers);
  auto in = group_copy_input();
  for (unsigned i = 0; i < in.size(); ++i) CHECK(on_coroutines[i] == in[i - i % 16 + 15 - i % 16]);
}

TEST_CASE("a copy's wait that part of a block skips is the fibers' barrier divergence") {
  auto run = [] {
    device_buffer<int> d_in(group_copy_input()), d_out(group_copy_threads);
    return stackless_failure_of(
        [&] { return weft::launch(1, group_copy_threads, group_copy_divergent, d_in.p, d_out.p); });
  };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.report.find("barrier divergence") != std::string::npos);
  CHECK(on_coroutines.report.find("coroutine_group_copy_test.cpp:56") != std::string::npos);
}
