// The stackless executor's converged steps (stackless_block_executor.hpp:
// a whole-warp shuffle of width 32 in a warp whose 32 lanes are live, with
// no group of its own) give what the general path and the fiber executor
// give, and hand over to the general path, results and reports alike, when
// a step stops fitting: a lane that reads lanes resumed before it, steps
// that alternate with partial masks, votes and other widths, lanes that
// exit between steps, lanes at other call sites or collectives, and a step
// left waiting at the round's end. These tests are also built at -O0 by
// hand when the fast path changes (docs/performance.md, log, h-S4).
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/stackless_kernel.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"
#include "text_checks.hpp"

#include <string>
#include <vector>

namespace {

// Shuffles whose lanes read lanes that resume before them (up, xor, a
// broadcast of the lane that completes each step and runs on first), step
// after step: a lane's deposit for the next step must not overwrite what a
// later lane still reads from this one.
constexpr unsigned converged_steps = 64;

weft::stackless_kernel converged_reads_of_resumed_lanes(long long* out) {
  unsigned lane = threadIdx.x % 32;
  long long v = threadIdx.x;
  unsigned long long mix = 0;  // wraps
  for (unsigned step = 0; step < converged_steps; ++step) {
    long long up = co_await weft::shfl_up_sync(~0u, v, step % 7 + 1);
    long long across = co_await weft::shfl_xor_sync(~0u, v, step % 31 + 1);
    long long last = co_await weft::shfl_sync(~0u, v, 31);
    long long down = co_await weft::shfl_down_sync(~0u, v, step % 5 + 1);
    v = (up * 3 + across * 5 + last * 7 + down * 11 + lane) % 1000003;
    mix = mix * 31 + static_cast<unsigned long long>(v);
  }
  out[threadIdx.x] = static_cast<long long>(mix);
}

// The same on the host: a warp's values step by step.
std::vector<long long> converged_expected(unsigned threads) {
  std::vector<long long> out(threads);
  for (unsigned base = 0; base < threads; base += 32) {
    long long v[32];
    unsigned long long mix[32] = {};
    for (unsigned l = 0; l < 32; ++l) v[l] = base + l;
    for (unsigned step = 0; step < converged_steps; ++step) {
      long long next[32];
      unsigned du = step % 7 + 1, dx = step % 31 + 1, dd = step % 5 + 1;
      for (unsigned l = 0; l < 32; ++l) {
        long long up = l >= du ? v[l - du] : v[l], across = v[l ^ dx], last = v[31];
        long long down = l + dd < 32 ? v[l + dd] : v[l];
        next[l] = (up * 3 + across * 5 + last * 7 + down * 11 + l) % 1000003;
      }
      for (unsigned l = 0; l < 32; ++l) {
        v[l] = next[l];
        mix[l] = mix[l] * 31 + static_cast<unsigned long long>(v[l]);
      }
    }
    for (unsigned l = 0; l < 32; ++l) out[base + l] = static_cast<long long>(mix[l]);
  }
  return out;
}

// Converged steps between steps of the general path in the same warp: a
// partial mask, a vote, a width of 16, a lane at another width, two call
// sites of one shuffle, then whole-warp steps again.
constexpr unsigned mixed_results = 7;

weft::stackless_kernel converged_and_general_in_turn(int* out) {
  unsigned lane = threadIdx.x % 32;
  int v = static_cast<int>(threadIdx.x) * 2 + 1;
  int* mine = out + threadIdx.x * mixed_results;
  for (unsigned round = 0; round < 3; ++round) {
    v += co_await weft::shfl_down_sync(~0u, v, 1);
    if (lane < 16) v += co_await weft::shfl_xor_sync(0xffffu, v, 1);
    v += co_await weft::shfl_up_sync(~0u, v, 2);
    v += static_cast<int>(co_await weft::ballot_sync(~0u, v % 3 == 0) % 7);
    v += co_await weft::shfl_xor_sync(~0u, v, 4, 16);
    v += co_await weft::shfl_xor_sync(~0u, v, 3, lane == 5 ? 8 : 32);
    if (lane % 2 == 0)
      v += co_await weft::shfl_sync(~0u, v, 7);
    else
      v += co_await weft::shfl_sync(~0u, v, 7);
    v %= 100003;
    mine[round] = v;
  }
  mine[3] = co_await weft::shfl_sync(~0u, v, 0);
  mine[4] = co_await weft::reduce_add_sync(~0u, v);
  mine[5] = co_await weft::shfl_down_sync(~0u, v, 16);
  mine[6] = co_await weft::shfl_up_sync(~0u, v, 16);
}

std::string converged_site(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }

}  // namespace

TEST_CASE("converged stackless shuffles whose lanes read lanes resumed before them give the host's results") {
  constexpr unsigned threads = 128;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<long long> d_out(threads);
    REQUIRE(weft::launch<converged_reads_of_resumed_lanes>(2, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  std::vector<long long> expected = converged_expected(threads);
  for (unsigned t = 0; t < threads; ++t) {
    INFO("thread " << t);
    CHECK(on_coroutines[t] == expected[t]);
  }
}

TEST_CASE("converged stackless shuffles between partial masks, votes and other widths give the fibers' results") {
  constexpr unsigned threads = 96;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_out(threads * mixed_results);
    REQUIRE(weft::launch<converged_and_general_in_turn>(2, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  // Spot checks that do not depend on the fibers: the last steps' shapes.
  for (unsigned t = 0; t < threads; ++t) {
    const int* r = on_coroutines.data() + t * mixed_results;
    unsigned first = t - t % 32, lane = t % 32;
    INFO("thread " << t);
    CHECK(r[3] == on_coroutines[first * mixed_results + 2]);
    if (lane < 16) CHECK(r[5] == on_coroutines[(t + 16) * mixed_results + 2]);
    if (lane >= 16) CHECK(r[6] == on_coroutines[(t - 16) * mixed_results + 2]);
  }
}

// After a converged step a lane exits, and the others meet at the block
// barrier: the warp's next whole-warp shuffle names the lane as exited as
// the general path's first lane checks the mask, not as a step left
// waiting at the round's end.
TEST_CASE("a whole-warp stackless shuffle after a lane exits between converged steps fails as on fibers") {
  auto kernel = []() -> weft::stackless_kernel {
    stackless_frame_guard g;
    int v = co_await weft::shfl_down_sync(~0u, static_cast<int>(threadIdx.x), 1);
    if (threadIdx.x == 9) co_return;
    co_await weft::syncthreads();
    co_await weft::shfl_down_sync(~0u, v, 1);
  };
  constexpr int line = __LINE__ - 2;
  auto failure = block_failure_on_both_executors(kernel, 64);
  CHECK(contains(failure.report, "thread (31,0,0): __shfl_down_sync (" + converged_site(line)));
  CHECK(contains(failure.report, "in warp 0 with mask 0xffffffff: the mask names lane 9, which has exited"));
}

// Lanes wait in a converged step when a lane of the warp exits: the step
// is the group the fibers report, opened where its first lane called it.
TEST_CASE("a converged stackless shuffle left waiting for a lane that exits fails as on fibers") {
  auto kernel = []() -> weft::stackless_kernel {
    stackless_frame_guard g;
    int v = co_await weft::shfl_down_sync(~0u, static_cast<int>(threadIdx.x), 1);
    if (threadIdx.x == 40) co_return;
    co_await weft::shfl_xor_sync(~0u, v, 1);
  };
  constexpr int line = __LINE__ - 2;
  auto failure = block_failure_on_both_executors(kernel, 64);
  CHECK(contains(failure.report, "block (0,0,0), __shfl_xor_sync (" + converged_site(line)));
  CHECK(contains(failure.report, "in warp 1 with mask 0xffffffff: lanes 0-7,9-31 wait for lane 8, which has exited"));
}

// A converged step that lanes wait in while their warp's last lane waits
// at the block barrier: a deadlock, its group named with its call site.
TEST_CASE("a converged stackless shuffle while a lane waits at the block barrier is a deadlock, as on fibers") {
  auto kernel = []() -> weft::stackless_kernel {
    stackless_frame_guard g;
    co_await weft::shfl_xor_sync(~0u, 1, 1);
    if (threadIdx.x == 31)
      co_await weft::syncthreads();
    else
      co_await weft::shfl_up_sync(~0u, 2, 1);
  };
  constexpr int line = __LINE__ - 2;
  auto failure = block_failure_on_both_executors(kernel, 32);
  CHECK(contains(failure.report, "deadlock: no thread of the block can make progress; thread (31,0,0) wait at"));
  CHECK(contains(failure.report,
                 "; warp 0 lanes 0-30 (thread (0,0,0) first) wait at __shfl_up_sync (" + converged_site(line)));
}

// Lanes of a converged step and a lane that calls another shuffle: the
// group's collectives differ, reported as on fibers.
TEST_CASE("a lane that calls another shuffle into a converged stackless step fails as on fibers") {
  auto kernel = []() -> weft::stackless_kernel {
    stackless_frame_guard g;
    if (threadIdx.x == 20)
      co_await weft::shfl_down_sync(~0u, 1, 1);
    else
      co_await weft::shfl_xor_sync(~0u, 1, 1);
  };
  auto failure = block_failure_on_both_executors(kernel, 32);
  CHECK(contains(failure.report, "thread (20,0,0)"));
  CHECK(contains(failure.report, "lanes of one group call different collectives"));
}
