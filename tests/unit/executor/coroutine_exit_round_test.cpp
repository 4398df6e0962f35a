// The stackless executor's rounds in which threads exit after the threads
// before them arrived at the barrier in the order they run (a kernel's last
// round; threads past a bound that leave after a barrier), which it resumes
// in the in-order loop's own continuation (stackless_block_executor.hpp,
// resume_in_order): the counts, orders and reports are the fiber
// executor's, whether the exits end the round, are followed by threads that
// arrive again, or meet a thread that parks in a warp group or throws; and
// the lanes that exited there count as exited for the warp collectives
// after them.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/stackless_kernel.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"
#include "text_checks.hpp"

#include <atomic>
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

constexpr unsigned exit_round_threads = 256;
constexpr unsigned exit_round_barriers = 4;

// Thread t leaves after barrier leave_after[t]; after each barrier every
// thread notes how many threads passed it and when it ran (a ticket).
weft::stackless_kernel exit_round_kernel(const int* leave_after, int* counts, int* tickets, int* next_ticket) {
  unsigned n = blockDim.x * blockDim.y, t = threadIdx.y * blockDim.x + threadIdx.x;
  for (unsigned k = 0; k < exit_round_barriers; ++k) {
    int passed = co_await weft::syncthreads_count(1);
    counts[k * n + t] = passed;
    tickets[k * n + t] = atomicAdd(&next_ticket[k], 1);
    if (leave_after[t] == static_cast<int>(k)) co_return;
  }
}

// The list of a round is the last thread to arrive, then the others in the
// order they arrived: after barrier 0, thread 255 and then 0 to 254. So
// that threads 128 to 254 exit after 255 and 0 to 127 arrived in order;
// after barrier 1 (which their exits completed: the list stays), 64 to 127
// after 255 and 0 to 63; after barrier 2 the even threads below 64, between
// threads that arrive; after barrier 3, the rest, all exiting.
std::vector<int> exit_round_plan() {
  std::vector<int> leave_after(exit_round_threads, 3);
  for (unsigned t = 0; t < exit_round_threads; ++t) {
    if (t >= 128 && t < 255) leave_after[t] = 0;
    if (t >= 64 && t < 128) leave_after[t] = 1;
    if (t < 64 && t % 2 == 0) leave_after[t] = 2;
  }
  return leave_after;
}

struct exit_round_result {
  std::vector<int> counts, tickets;
  bool operator==(const exit_round_result&) const = default;
};

exit_round_result run_exit_rounds(dim3 block) {
  device_buffer<int> leave_after(exit_round_plan());
  device_buffer<int> counts(exit_round_barriers * exit_round_threads);
  device_buffer<int> tickets(exit_round_barriers * exit_round_threads);
  device_buffer<int> next_ticket(exit_round_barriers);
  REQUIRE(weft::launch<exit_round_kernel>(1, block, leave_after.p, counts.p, tickets.p, next_ticket.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  return {counts.to_host(), tickets.to_host()};
}

void check_exit_rounds(dim3 block) {
  auto [on_coroutines, on_fibers] = on_both_executors([&] { return run_exit_rounds(block); });
  CHECK(on_coroutines == on_fibers);
  std::vector<int> plan = exit_round_plan();
  for (unsigned k = 0; k < exit_round_barriers; ++k) {
    int live = 0;
    for (int leave : plan) live += leave >= static_cast<int>(k);
    for (unsigned t = 0; t < exit_round_threads; ++t) {
      if (plan[t] < static_cast<int>(k)) continue;
      INFO("barrier " << k << ", thread " << t);
      CHECK(on_coroutines.counts[k * exit_round_threads + t] == live);
    }
  }
  // After barrier 1, completed by exits, the round runs 255 first, then 0 to 127 (the
  // list as it stood): the thread that arrived last (127) does not move to the front.
  CHECK(on_coroutines.tickets[1 * exit_round_threads + 255] == 0);
  CHECK(on_coroutines.tickets[1 * exit_round_threads + 0] == 1);
  CHECK(on_coroutines.tickets[1 * exit_round_threads + 127] == 128);
}

// After barrier 0 (the list 63, 0 to 62), thread 32 exits after threads
// that arrived in order (63, then 0 to 31), and threads 33 to 62 meet at a
// shuffle (lanes 1 to 30 of warp 1), which they meet again after barrier
// 1: thread 33 parks where the exit was, and does not count as exited.
constexpr unsigned exit_then_park_mask = 0x7ffffffeu;

weft::stackless_kernel exit_then_park_kernel(int* sums) {
  unsigned t = threadIdx.x, lane = t % 32;
  co_await weft::syncthreads();
  if (t == 32) co_return;
  int value = static_cast<int>(t);
  if (t > 32 && t < 63) value += co_await weft::shfl_sync(exit_then_park_mask, value, 1 + (lane + 1) % 30);
  co_await weft::syncthreads();
  if (t > 32 && t < 63) value += co_await weft::shfl_sync(exit_then_park_mask, value, lane % 30 + 1);
  sums[t] = value;
}

std::vector<int> exit_then_park_expected() {
  std::vector<int> value(64);
  for (unsigned t = 0; t < 64; ++t) value[t] = static_cast<int>(t);
  auto shuffle = [&](auto source_of) {
    std::vector<int> next = value;
    for (unsigned t = 33; t < 63; ++t) next[t] = value[t] + value[32 + source_of(t % 32)];
    value = next;
  };
  shuffle([](unsigned lane) { return 1 + (lane + 1) % 30; });
  shuffle([](unsigned lane) { return lane % 30 + 1; });
  value[32] = 0;  // exited: nothing written
  return value;
}

std::vector<int> run_exit_then_park() {
  device_buffer<int> sums(64);
  REQUIRE(weft::launch<exit_then_park_kernel>(1, 64, sums.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  return sums.to_host();
}

// After barrier 0 (the list 63, 0 to 62), 63 and 0 to 31 arrive at barrier
// 1, 32 to 39 exit and 40 throws: the threads after it never run again.
// Counted on the host's side: the failed launch leaves no device memory to
// read back.
std::atomic<int> exit_then_throw_ran{0};

weft::stackless_kernel exit_then_throw_kernel() {
  stackless_frame_guard guard;
  unsigned t = threadIdx.x;
  co_await weft::syncthreads();
  ++exit_then_throw_ran;
  if (t >= 32 && t < 40) co_return;
  if (t == 40) throw std::runtime_error("thread forty gave up");
  co_await weft::syncthreads();
}

// After barrier 0 the lanes of warp 7 but 31 (thread 255, which runs first
// after barrier 1) exit after 0 to 127 arrived: its whole-warp shuffle
// after barrier 1 names lanes that exited, which the fiber executor refuses.
weft::stackless_kernel exit_then_full_shuffle_kernel() {
  unsigned t = threadIdx.x;
  co_await weft::syncthreads();
  if (t >= 128 && t < 255) co_return;
  co_await weft::syncthreads();
  if (t == 255) co_await weft::shfl_sync(~0u, 1, 0);
}

// Threads 40 to 47 exit before the first barrier, after 0 to 39 arrived in
// the order they started (the first round's own loop, start_in_order):
// thread 63's whole-warp shuffle after it names lanes 8 to 15, which exited.
weft::stackless_kernel start_exit_then_full_shuffle_kernel() {
  unsigned t = threadIdx.x;
  if (t >= 40 && t < 48) co_return;
  co_await weft::syncthreads();
  if (t == 63) co_await weft::shfl_sync(~0u, 1, 0);
}

// Where each thread of a block stands: a one-dimensional block's threads
// are given threadIdx.x alone, their .y and .z left at 0 from the block's
// start, whatever block the worker ran before.
weft::stackless_kernel thread_index_kernel(uint3* before, uint3* after) {
  unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  before[t] = threadIdx;
  co_await weft::syncthreads();
  after[t] = threadIdx;
}

}  // namespace

TEST_CASE("stackless threads that exit after the round's arrivals count and run as on fibers") {
  check_exit_rounds(dim3(exit_round_threads));
  check_exit_rounds(dim3(32, exit_round_threads / 32));  // the loop that sets threadIdx's three fields
}

TEST_CASE("a stackless lane that parks in a warp group after threads exited is not counted as exited") {
  auto [on_coroutines, on_fibers] = on_both_executors(run_exit_then_park);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines == exit_then_park_expected());
}

TEST_CASE("a stackless thread that throws after threads exited fails its block as on fibers") {
  auto [on_coroutines, on_fibers] = on_both_executors([] {
    exit_then_throw_ran = 0;
    stackless_failure failure = stackless_failure_of([] { return weft::launch<exit_then_throw_kernel>(1, 64); });
    return std::pair{failure, exit_then_throw_ran.load()};
  });
  INFO("coroutines: " << on_coroutines.first.report);
  INFO("fibers:     " << on_fibers.first.report);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.first.code == cudaErrorLaunchFailure);
  CHECK(contains(on_coroutines.first.report, "thread (40,0,0): uncaught exception: thread forty gave up"));
  CHECK(on_coroutines.first.guards_balanced);
  CHECK(on_coroutines.second == 1 + 32 + 8 + 1);  // 63, 0 to 31, the exits, the thrower
}

TEST_CASE("a stackless lane's whole-warp shuffle after its warp's lanes exited in order is refused as on fibers") {
  stackless_failure failure = block_failure_on_both_executors(&exit_then_full_shuffle_kernel, exit_round_threads);
  CHECK(contains(failure.report, "thread (255,0,0)"));
}

TEST_CASE("a stackless lane's whole-warp shuffle after lanes exited before the first barrier is refused as on fibers") {
  stackless_failure failure = block_failure_on_both_executors(&start_exit_then_full_shuffle_kernel, 64);
  CHECK(contains(failure.report, "thread (63,0,0)"));
  CHECK(contains(failure.report, "lanes 8-15, which have exited"));
}

TEST_CASE(
    "a one-dimensional stackless block after a three-dimensional one on the worker sees threadIdx.y and .z at 0") {
  stackless_scope scope(stackless_executor::coroutines);
  unsigned saved_workers = weft::worker_count();
  weft::set_worker_count(1);
  device_buffer<uint3> before(64), after(64);
  REQUIRE(weft::launch<thread_index_kernel>(1, dim3(4, 4, 4), before.p, after.p) == cudaSuccess);
  REQUIRE(weft::launch<thread_index_kernel>(1, 64, before.p, after.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  weft::set_worker_count(saved_workers);
  std::vector<uint3> at_start = before.to_host(), at_barrier = after.to_host();
  for (unsigned t = 0; t < 64; ++t) {
    INFO("thread " << t);
    CHECK(at_start[t].x == t);
    CHECK(at_start[t].y == 0);
    CHECK(at_start[t].z == 0);
    CHECK(at_barrier[t].x == t);
    CHECK(at_barrier[t].y == 0);
    CHECK(at_barrier[t].z == 0);
  }
}
