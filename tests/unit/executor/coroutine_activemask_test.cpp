// co_await weft::activemask() and the coalesced groups it makes
// (co_await weft::coalesced_threads(), weft/stackless_groups.hpp) give what
// __activemask and cg::coalesced_threads give on fibers: the lanes of the
// caller's warp waiting at the same call, without those that exited or
// went elsewhere; a coalesced group's ranks, shuffles, votes, reduce, scan
// and partitions follow. Threads waiting there when the block fails are
// destroyed where they wait.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>
#include <weft/stackless_groups.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"
#include "text_checks.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace cg = cooperative_groups;

// Lanes take three ways: two await __activemask at different calls, the
// third exits; then every thread left meets at the block barrier, and the
// whole warp's lanes that remain agree again.
weft::stackless_kernel activemask_branches(unsigned* out) {
  unsigned t = threadIdx.x, lane = t % 32;
  if (lane % 3 == 2) co_return;
  if (lane % 3 == 0)
    out[2 * t] = co_await weft::activemask();
  else
    out[2 * t] = co_await weft::activemask();
  co_await weft::syncthreads();
  out[2 * t + 1] = co_await weft::activemask();
}

__global__ void activemask_branches_on_fibers(unsigned* out) {
  unsigned t = threadIdx.x, lane = t % 32;
  if (lane % 3 == 2) return;
  if (lane % 3 == 0)
    out[2 * t] = __activemask();
  else
    out[2 * t] = __activemask();
  __syncthreads();
  out[2 * t + 1] = __activemask();
}

constexpr unsigned coalesced_results = 11;

// Odd lanes make a coalesced group and use it.
weft::stackless_kernel coalesced_collectives(long long* out) {
  unsigned t = threadIdx.x;
  long long* mine = out + t * coalesced_results;
  for (unsigned k = 0; k < coalesced_results; ++k) mine[k] = -1;
  if (t % 2 == 0) co_return;
  cg::coalesced_group g = co_await weft::coalesced_threads();
  int v = static_cast<int>(t) * 5;
  mine[0] = g.thread_rank() + 100 * g.num_threads();
  mine[1] = co_await weft::shfl(g, v, 3);
  mine[2] = co_await weft::shfl_down(g, v, 2);
  mine[3] = co_await weft::shfl_up(g, v, 1);
  mine[4] = co_await weft::ballot(g, t % 3 == 0);
  mine[5] = co_await weft::all(g, t < 60);
  mine[6] = co_await weft::reduce(g, v, cg::plus<int>());
  mine[7] = co_await weft::inclusive_scan(g, v);
  cg::coalesced_group halves = co_await weft::binary_partition(g, t % 4 == 1);
  mine[8] = halves.thread_rank() + 100 * halves.meta_group_rank() + 1000 * halves.num_threads();
  cg::coalesced_group thirds = co_await weft::labeled_partition(g, t % 3);
  mine[9] = co_await weft::reduce(thirds, v, cg::plus<int>());
  cg::coalesced_group quarter = cg::tiled_partition(g, 4);
  mine[10] = co_await weft::reduce(quarter, static_cast<int>(t), cg::greater<int>());
}

__global__ void coalesced_collectives_on_fibers(long long* out) {
  unsigned t = threadIdx.x;
  long long* mine = out + t * coalesced_results;
  for (unsigned k = 0; k < coalesced_results; ++k) mine[k] = -1;
  if (t % 2 == 0) return;
  cg::coalesced_group g = cg::coalesced_threads();
  int v = static_cast<int>(t) * 5;
  mine[0] = g.thread_rank() + 100 * g.num_threads();
  mine[1] = g.shfl(v, 3);
  mine[2] = g.shfl_down(v, 2);
  mine[3] = g.shfl_up(v, 1);
  mine[4] = g.ballot(t % 3 == 0);
  mine[5] = g.all(t < 60);
  mine[6] = cg::reduce(g, v, cg::plus<int>());
  mine[7] = cg::inclusive_scan(g, v);
  cg::coalesced_group halves = cg::binary_partition(g, t % 4 == 1);
  mine[8] = halves.thread_rank() + 100 * halves.meta_group_rank() + 1000 * halves.num_threads();
  cg::coalesced_group thirds = cg::labeled_partition(g, t % 3);
  mine[9] = cg::reduce(thirds, v, cg::plus<int>());
  cg::coalesced_group quarter = cg::tiled_partition(g, 4);
  mine[10] = cg::reduce(quarter, static_cast<int>(t), cg::greater<int>());
}

}  // namespace

TEST_CASE("co_await weft::activemask gives each branch's lanes, without exited ones, as __activemask on fibers") {
  constexpr unsigned threads = 80;
  auto [on_coroutines, awaited_on_fibers] = on_both_executors([&] {
    device_buffer<unsigned> d_out(2 * threads);
    REQUIRE(weft::launch<activemask_branches>(1, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  std::vector<unsigned> plain = [&] {
    stackless_scope scope(stackless_executor::fibers);
    device_buffer<unsigned> d_out(2 * threads);
    REQUIRE(weft::launch<activemask_branches_on_fibers>(1, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  }();
  CHECK(on_coroutines == awaited_on_fibers);
  CHECK(on_coroutines == plain);
  for (unsigned t = 0; t < threads; ++t) {
    unsigned lane = t % 32, lanes = t < 64 ? 32 : threads - 64;
    if (lane % 3 == 2) continue;
    unsigned branch = 0, staying = 0;
    for (unsigned l = 0; l < lanes; ++l) {
      if (l % 3 == lane % 3) branch |= 1u << l;
      if (l % 3 != 2) staying |= 1u << l;
    }
    INFO("thread " << t);
    CHECK(on_coroutines[2 * t] == branch);
    CHECK(on_coroutines[2 * t + 1] == staying);
  }
}

TEST_CASE("a stackless coalesced group's collectives and partitions give what they give on fibers") {
  constexpr unsigned threads = 64;
  auto [on_coroutines, awaited_on_fibers] = on_both_executors([&] {
    device_buffer<long long> d_out(threads * coalesced_results);
    REQUIRE(weft::launch<coalesced_collectives>(1, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  std::vector<long long> plain = [&] {
    stackless_scope scope(stackless_executor::fibers);
    device_buffer<long long> d_out(threads * coalesced_results);
    REQUIRE(weft::launch<coalesced_collectives_on_fibers>(1, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  }();
  CHECK(on_coroutines == awaited_on_fibers);
  CHECK(on_coroutines == plain);
  // A few of CUDA's documented results: thread 7 is rank 3 of the 16 odd
  // lanes of warp 0; rank 3's value is lane 7's; the sum is 5 * (1 + 3 + ... + 31).
  const long long* seventh = on_coroutines.data() + 7 * coalesced_results;
  CHECK(seventh[0] == 3 + 100 * 16);
  CHECK(seventh[1] == 7 * 5);
  CHECK(seventh[2] == 11 * 5);
  CHECK(seventh[3] == 5 * 5);
  CHECK(seventh[6] == 5 * 256);
  CHECK(seventh[7] == 5 * (1 + 3 + 5 + 7));
  CHECK(seventh[10] == 7);
}

TEST_CASE("threads waiting at a stackless __activemask when the block fails are destroyed there, as on fibers") {
  auto kernel = []() -> weft::stackless_kernel {
    stackless_frame_guard g;
    if (threadIdx.x == 5) throw std::runtime_error("lane 5 failed");
    co_await weft::activemask();
  };
  auto [on_coroutines, on_fibers] =
      on_both_executors([&] { return stackless_failure_of([&] { return weft::launch(1, 32, kernel); }); });
  INFO(on_coroutines.report);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.code == cudaErrorLaunchFailure);
  CHECK(contains(on_coroutines.report, "thread (5,0,0)"));
  CHECK(contains(on_coroutines.report, "lane 5 failed"));
  CHECK(on_coroutines.guards_balanced);
}
