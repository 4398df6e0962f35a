// WEFT_SCHEDULE (docs/debugging.md, "Schedule permutation"): the order in
// which a block's threads start, in which a barrier or warp collective
// releases its waiters, and in which workers claim blocks. A kernel that
// depends on an order CUDA does not promise gives another result under
// another schedule; one that synchronises correctly gives the same.
//
// The tests choose the schedule with use_schedule and put back the one in
// use (schedule_scope.hpp: the suite may run under
// WEFT_SCHEDULE=random:<seed>, see tests/CMakeLists.txt).
#include <doctest/doctest.h>
#include <weft.hpp>

#include "device_buffer.hpp"
#include "schedule_scope.hpp"
#include "stream_gates.hpp"
#include "text_checks.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <set>
#include <vector>

namespace {

using weft::detail::schedule_order;
using weft::detail::schedule_setting;

constexpr schedule_setting schedule_forward{schedule_order::forward, 0};
constexpr schedule_setting schedule_reverse{schedule_order::reverse, 0};
constexpr schedule_setting schedule_random(std::uint64_t seed) { return {schedule_order::random, seed}; }

constexpr int schedule_threads = 64;

// Each thread writes its slot, then reads the slot of the thread below it
// with no __syncthreads() between: right only if that thread ran first.
// `salt` differs from launch to launch, so that a stale slot (shared memory
// keeps its bytes on a worker) is never right by chance.
__global__ void schedule_missing_barrier_kernel(int salt, int* out) {
  __shared__ int schedule_slots[schedule_threads];
  unsigned t = threadIdx.x;
  schedule_slots[t] = static_cast<int>(t) + salt;
  out[t] = t == 0 ? salt : schedule_slots[t - 1];  // the bug: no barrier before the read
}

// The same, with the barrier: right under every schedule.
__global__ void schedule_with_barrier_kernel(int salt, int* out) {
  __shared__ int schedule_barrier_slots[schedule_threads];
  unsigned t = threadIdx.x;
  schedule_barrier_slots[t] = static_cast<int>(t) + salt;
  __syncthreads();
  out[t] = t == 0 ? salt : schedule_barrier_slots[t - 1];
}

// Whether the missing-barrier kernel (or the correct one) gives every
// thread its neighbour's value under `setting`.
bool schedule_neighbours_right(schedule_setting setting, bool with_barrier, int salt) {
  weft::detail::use_schedule(setting);
  device_buffer<int> out(schedule_threads);
  if (with_barrier)
    REQUIRE(weft::launch(1, schedule_threads, schedule_with_barrier_kernel, salt, out.p) == cudaSuccess);
  else
    REQUIRE(weft::launch(1, schedule_threads, schedule_missing_barrier_kernel, salt, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<int> got = out.to_host();
  for (int t = 0; t < schedule_threads; ++t)
    if (got[t] != (t == 0 ? salt : t - 1 + salt)) return false;
  return true;
}

// Records, per block, the order in which its threads start, in which the
// barrier releases them, and in which __syncwarp releases each warp's
// lanes. `counters` holds four per block, zeroed.
__global__ void schedule_order_kernel(unsigned* counters, unsigned* started, unsigned* released,
                                      unsigned* warp_released) {
  unsigned t = threadIdx.x, base = blockIdx.x * schedule_threads, *count = counters + 4 * blockIdx.x;
  started[base + atomicAdd(&count[0], 1u)] = t;
  __syncthreads();
  released[base + atomicAdd(&count[1], 1u)] = t;
  __syncwarp();
  warp_released[base + (t / 32) * 32 + atomicAdd(&count[2 + t / 32], 1u)] = t;
}

struct schedule_orders {
  std::vector<unsigned> started, released, warp_released;
  bool operator==(const schedule_orders&) const = default;
};

schedule_orders schedule_record(schedule_setting setting, unsigned blocks) {
  weft::detail::use_schedule(setting);
  device_buffer<unsigned> counters(blocks * 4), started(blocks * schedule_threads), released(blocks * schedule_threads),
      warp_released(blocks * schedule_threads);
  REQUIRE(weft::launch(blocks, schedule_threads, schedule_order_kernel, counters.p, started.p, released.p,
                       warp_released.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  return {started.to_host(), released.to_host(), warp_released.to_host()};
}

std::vector<unsigned> schedule_ids(unsigned first, unsigned count, bool decreasing) {
  std::vector<unsigned> ids(count);
  std::iota(ids.begin(), ids.end(), first);
  if (decreasing) std::reverse(ids.begin(), ids.end());
  return ids;
}

std::vector<unsigned> schedule_block_part(const std::vector<unsigned>& all, unsigned block) {
  return {all.begin() + block * schedule_threads, all.begin() + (block + 1) * schedule_threads};
}

bool schedule_is_permutation_of_block(std::vector<unsigned> ids) {
  std::sort(ids.begin(), ids.end());
  return ids == schedule_ids(0, schedule_threads, false);
}

// Each block of a grid of single-thread blocks takes a ticket as it runs:
// the order in which the workers ran them.
__global__ void schedule_ticket_kernel(unsigned* counter, unsigned* ticket) {
  ticket[blockIdx.x] = atomicAdd(counter, 1u);
}

std::vector<unsigned> schedule_tickets(schedule_setting setting, unsigned blocks) {
  weft::detail::use_schedule(setting);
  device_buffer<unsigned> counter(1), ticket(blocks);
  REQUIRE(weft::launch(blocks, 1, schedule_ticket_kernel, counter.p, ticket.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  return ticket.to_host();
}

// The correlation between block index and ticket: near 1 when blocks run
// first to last, near -1 when last to first, near 0 when shuffled.
double schedule_rank_correlation(const std::vector<unsigned>& ticket) {
  double n = static_cast<double>(ticket.size()), mean = (n - 1) / 2, covariance = 0, variance = 0;
  for (std::size_t b = 0; b < ticket.size(); ++b) {
    covariance += (static_cast<double>(b) - mean) * (ticket[b] - mean);
    variance += (static_cast<double>(b) - mean) * (static_cast<double>(b) - mean);
  }
  return covariance / variance;
}

// Threads below 16 wait at one barrier, the others at another.
__global__ void schedule_divergent_kernel() {
  if (threadIdx.x < 16)
    __syncthreads();
  else
    __syncthreads();
}

// Lanes 16-31 exit; lanes 0-15 wait for the whole warp.
__global__ void schedule_exited_lanes_kernel() {
  if (threadIdx.x >= 16) return;
  __syncwarp();
}

// The launch's fault report; resets the device and takes the last error
// that the failed synchronize recorded, so that no later test case of the
// process finds it.
std::string schedule_fault_report(schedule_setting setting, void (*kernel)()) {
  weft::detail::use_schedule(setting);
  REQUIRE(weft::launch(1, 32, kernel) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  return report;
}

}  // namespace

TEST_CASE("WEFT_SCHEDULE values: forward, reverse, random with a seed or a fresh one; anything else is refused") {
  auto fresh = [] { return std::uint64_t{4242}; };
  using weft::detail::parse_schedule;
  CHECK(parse_schedule("forward", fresh) == schedule_forward);
  CHECK(parse_schedule("reverse", fresh) == schedule_reverse);
  CHECK(parse_schedule("random", fresh) == schedule_random(4242));
  CHECK(parse_schedule("random:12345", fresh) == schedule_random(12345));
  CHECK(parse_schedule("random:0", fresh) == schedule_random(0));
  CHECK(parse_schedule("random:18446744073709551615", fresh) == schedule_random(18446744073709551615ull));
  for (const char* bad : {"", "Forward", "backward", "random:", "random:-1", "random: 1", "random:12x",
                          "random:18446744073709551616", "reverse:3", "random12"})
    CHECK_MESSAGE(parse_schedule(bad, fresh) == std::nullopt, bad);
}

TEST_CASE("a block permutation of WEFT_SCHEDULE is a bijection, reproducible from its seed") {
  using weft::detail::index_permutation;
  for (std::uint64_t n : {1ull, 2ull, 3ull, 5ull, 64ull, 100ull, 1000ull, 4097ull}) {
    for (auto order : {schedule_order::forward, schedule_order::reverse, schedule_order::random}) {
      index_permutation p(order, n, 77);
      std::set<std::uint64_t> seen;
      for (std::uint64_t i = 0; i < n; ++i) {
        std::uint64_t j = p(i);
        CHECK(j < n);
        seen.insert(j);
      }
      CHECK(seen.size() == n);
      if (order == schedule_order::reverse) CHECK(p(0) == n - 1);
    }
  }
  index_permutation a(schedule_order::random, 1000, 1), b(schedule_order::random, 1000, 1),
      c(schedule_order::random, 1000, 2);
  std::vector<std::uint64_t> first, again, other;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    first.push_back(a(i));
    again.push_back(b(i));
    other.push_back(c(i));
  }
  CHECK(first == again);
  CHECK(first != other);
  CHECK(!std::is_sorted(first.begin(), first.end()));
}

TEST_CASE("a kernel missing a __syncthreads passes under the forward schedule and fails under reverse") {
  schedule_scope restore(schedule_forward);
  CHECK(schedule_neighbours_right(schedule_forward, false, 1000));
  CHECK_FALSE(schedule_neighbours_right(schedule_reverse, false, 2000));
  CHECK_FALSE(schedule_neighbours_right(schedule_random(1), false, 3000));
  // With the barrier, every schedule gives the right answer.
  CHECK(schedule_neighbours_right(schedule_forward, true, 4000));
  CHECK(schedule_neighbours_right(schedule_reverse, true, 5000));
  CHECK(schedule_neighbours_right(schedule_random(1), true, 6000));
  CHECK(schedule_neighbours_right(schedule_random(2), true, 7000));
}

TEST_CASE("WEFT_SCHEDULE orders the start of a block's threads and the release of barrier and warp waiters") {
  schedule_scope restore(schedule_forward);
  const unsigned blocks = 8;

  SUBCASE("forward: threads start in increasing threadIdx, waiters resume in arrival order") {
    schedule_orders o = schedule_record(schedule_forward, blocks);
    for (unsigned b = 0; b < blocks; ++b) {
      CHECK(schedule_block_part(o.started, b) == schedule_ids(0, schedule_threads, false));
      // The last to arrive (thread 63) carries on; the others follow in arrival order.
      std::vector<unsigned> released{63};
      for (unsigned t = 0; t < 63; ++t) released.push_back(t);
      CHECK(schedule_block_part(o.released, b) == released);
      // __syncwarp: the last lane of each warp to arrive carries on, then
      // the ones it releases in lane order.
      std::vector<unsigned> warps{31};
      for (unsigned t = 0; t < 31; ++t) warps.push_back(t);
      warps.push_back(62);
      for (unsigned t = 32; t < 62; ++t) warps.push_back(t);
      warps.push_back(63);
      CHECK(schedule_block_part(o.warp_released, b) == warps);
    }
  }

  SUBCASE("reverse: threads start in decreasing threadIdx, waiters resume in decreasing threadIdx") {
    schedule_orders o = schedule_record(schedule_reverse, blocks);
    for (unsigned b = 0; b < blocks; ++b) {
      CHECK(schedule_block_part(o.started, b) == schedule_ids(0, schedule_threads, true));
      // Thread 0 arrives last and carries on; the barrier releases the rest from the top.
      std::vector<unsigned> released{0};
      for (unsigned t = 63; t > 0; --t) released.push_back(t);
      CHECK(schedule_block_part(o.released, b) == released);
      // __syncwarp: thread 0 parks first; warp 1 completes first, thread 32
      // last to arrive, and releases lanes 63 down to 33; then warp 0, with
      // thread 1 last, releasing 31 down to 2, and 0.
      std::vector<unsigned> warps{1};
      for (unsigned t = 31; t >= 2; --t) warps.push_back(t);
      warps.push_back(0);
      warps.push_back(32);
      for (unsigned t = 63; t >= 33; --t) warps.push_back(t);
      CHECK(schedule_block_part(o.warp_released, b) == warps);
    }
  }

  SUBCASE("random: a permutation per block, the same for the same seed, another for another seed") {
    schedule_orders one = schedule_record(schedule_random(11), blocks);
    schedule_orders again = schedule_record(schedule_random(11), blocks);
    schedule_orders other = schedule_record(schedule_random(12), blocks);
    CHECK(one == again);
    CHECK(one.started != other.started);
    CHECK(one.released != other.released);
    for (unsigned b = 0; b < blocks; ++b) {
      std::vector<unsigned> started = schedule_block_part(one.started, b);
      CHECK(schedule_is_permutation_of_block(started));
      CHECK(schedule_is_permutation_of_block(schedule_block_part(one.released, b)));
      CHECK(schedule_is_permutation_of_block(schedule_block_part(one.warp_released, b)));
      CHECK(started != schedule_ids(0, schedule_threads, false));
      CHECK(started != schedule_ids(0, schedule_threads, true));
      // Blocks are drawn one by one, from the seed, the launch and the block.
      if (b > 0) CHECK(started != schedule_block_part(one.started, b - 1));
    }
  }
}

TEST_CASE("WEFT_SCHEDULE orders the blocks that workers claim: first to last, last to first, or shuffled") {
  schedule_scope restore(schedule_forward);
  // Two workers: with many, a worker that the OS or a sanitizer holds back
  // between its claim and its first block puts whole chunks out of order
  // (on 16 cores under TSan forward order correlated 0.55), though every
  // claim was in order.
  exact_workers two(2);
  // More blocks than a GPU holds at once, so that they are claimed in chunks.
  const unsigned blocks = 8192;
  CHECK(schedule_rank_correlation(schedule_tickets(schedule_forward, blocks)) > 0.9);
  CHECK(schedule_rank_correlation(schedule_tickets(schedule_reverse, blocks)) < -0.9);
  double shuffled = schedule_rank_correlation(schedule_tickets(schedule_random(5), blocks));
  CHECK(shuffled > -0.2);
  CHECK(shuffled < 0.2);
  // A grid small enough to be claimed a block at a time, too.
  CHECK(schedule_rank_correlation(schedule_tickets(schedule_reverse, 256)) < -0.9);
}

TEST_CASE("under every schedule, barrier divergence and lanes that exited are reported") {
  schedule_scope restore(schedule_forward);
  // A divergence report lists the waiters sorted by thread: the same text
  // whatever order they arrived in.
  std::string forward = schedule_fault_report(schedule_forward, schedule_divergent_kernel);
  CHECK(contains(forward, "barrier divergence"));
  CHECK(contains(forward, "thread (0,0,0) to thread (15,0,0) wait at __syncthreads"));
  CHECK(contains(forward, "thread (16,0,0) to thread (31,0,0) wait at __syncthreads"));
  CHECK(schedule_fault_report(schedule_reverse, schedule_divergent_kernel) == forward);
  CHECK(schedule_fault_report(schedule_random(3), schedule_divergent_kernel) == forward);

  // Forward: lanes 0-15 wait, then 16-31 exit. Reverse: 16-31 have exited
  // before lane 15 calls, and its mask is refused. Random: either, or some
  // of each.
  CHECK(contains(schedule_fault_report(schedule_forward, schedule_exited_lanes_kernel),
                 "lanes 0-15 wait for lanes 16-31, which have exited"));
  CHECK(contains(schedule_fault_report(schedule_reverse, schedule_exited_lanes_kernel), "thread (15,0,0): __syncwarp"));
  CHECK(contains(schedule_fault_report(schedule_reverse, schedule_exited_lanes_kernel),
                 "the mask names lanes 16-31, which have exited"));
  for (std::uint64_t seed : {1, 2, 3}) {
    std::string report = schedule_fault_report(schedule_random(seed), schedule_exited_lanes_kernel);
    INFO(report);
    CHECK(contains(report, "__syncwarp"));
    CHECK(contains(report, "exited"));  // "which has exited" or "which have exited"
  }
}
