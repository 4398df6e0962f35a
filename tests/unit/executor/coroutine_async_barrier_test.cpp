// A block-scope cuda::barrier awaited in stackless kernels
// (weft/stackless_barrier.hpp: co_await weft::arrive_and_wait(bar), co_await
// weft::wait(bar, std::move(token))) gives what the same kernel gives on
// fibers and what CUDA documents: phases that order a block's shared-memory
// exchanges, an arrival split from its wait with work between, the
// completion function once per phase; a barrier no phase of which can
// complete is the fiber executor's deadlock report, and a wait not awaited
// fails the launch naming itself.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/async/barrier.hpp>
#include <weft/stackless_barrier.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"

#include <string>
#include <vector>

namespace {

using async_block_barrier = cuda::barrier<cuda::thread_scope_block>;

constexpr unsigned async_barrier_threads = 96, async_barrier_rounds = 3;

// Counts the phases that completed, in shared memory.
struct async_phase_counter {
  int* phases;
  void operator()() noexcept { ++*phases; }
};

// Each round every thread writes its word, waits for the phase, reads its
// neighbour's and waits again before the next round overwrites it; the
// second wait is split, with work between arrival and wait. The last word
// per thread says whether it ran on the stackless executor.
weft::stackless_kernel async_barrier_rounds_kernel(int* out) {
  __shared__ int words[async_barrier_threads];
  __shared__ int phases;
  __shared__ cuda::barrier<cuda::thread_scope_block, async_phase_counter> bar;
  unsigned t = threadIdx.x, n = blockDim.x;
  if (t == 0) {
    phases = 0;
    init(&bar, n, async_phase_counter{&phases});
  }
  co_await weft::syncthreads();
  int* mine = out + (blockIdx.x * n + t) * (async_barrier_rounds + 2);
  for (unsigned round = 0; round < async_barrier_rounds; ++round) {
    words[t] = static_cast<int>(1000 * blockIdx.x + 10 * t + round);
    co_await weft::arrive_and_wait(bar);
    int neighbour = words[(t + 1) % n];
    auto token = bar.arrive();
    mine[round] = neighbour * 2;  // work between the arrival and the wait
    co_await weft::wait(bar, std::move(token));
  }
  mine[async_barrier_rounds] = phases;
  mine[async_barrier_rounds + 1] = weft::detail::running_stackless_block != nullptr;
}

std::vector<int> async_barrier_run() {
  constexpr unsigned blocks = 3;
  device_buffer<int> out(blocks * async_barrier_threads * (async_barrier_rounds + 2));
  REQUIRE(weft::launch<async_barrier_rounds_kernel>(blocks, async_barrier_threads, out.p) == cudaSuccess);
  return out.to_host();
}

// One arrival more expected than the block has threads: no phase completes.
weft::stackless_kernel async_barrier_never_completes() {
  __shared__ async_block_barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x + 1);
  co_await weft::syncthreads();
  co_await weft::arrive_and_wait(bar);
}

weft::stackless_kernel async_barrier_not_awaited() {
  __shared__ async_block_barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  co_await weft::syncthreads();
  bar.arrive_and_wait();
}

}  // namespace

TEST_CASE("co_await weft::arrive_and_wait and weft::wait on a block-scope cuda::barrier give what fibers give") {
  auto [on_coroutines, on_fibers] = on_both_executors(async_barrier_run);
  const unsigned words = async_barrier_rounds + 2, n = async_barrier_threads;
  for (unsigned i = 0; i < on_coroutines.size(); ++i) {
    unsigned block = i / words / n, t = i / words % n, word = i % words;
    if (word < async_barrier_rounds) {
      CHECK(on_coroutines[i] == 2 * static_cast<int>(1000 * block + 10 * ((t + 1) % n) + word));
      CHECK(on_coroutines[i] == on_fibers[i]);
    } else if (word == async_barrier_rounds) {
      CHECK(on_coroutines[i] == 2 * static_cast<int>(async_barrier_rounds));  // every phase's completion ran once
      CHECK(on_fibers[i] == on_coroutines[i]);
    } else {
      CHECK(on_coroutines[i] == 1);
      CHECK(on_fibers[i] == 0);
    }
  }
}

TEST_CASE("a stackless cuda::barrier phase that can never complete is the fiber executor's deadlock report") {
  auto run = [] { return stackless_failure_of([] { return weft::launch(1, 64, async_barrier_never_completes); }); };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  CHECK(on_coroutines.code == on_fibers.code);
  CHECK(report_without_addresses(on_coroutines.report) == report_without_addresses(on_fibers.report));
  CHECK(on_coroutines.report.find("deadlock: no thread of the block can make progress; thread (0,0,0) to thread "
                                  "(63,0,0) wait at cuda::barrier::arrive_and_wait") != std::string::npos);
  CHECK(on_coroutines.report.find("1 of 65 arrivals missing") != std::string::npos);
}

TEST_CASE("a cuda::barrier wait not awaited fails a stackless kernel and names itself") {
  stackless_scope scope(stackless_executor::coroutines);
  stackless_failure failure = stackless_failure_of([] { return weft::launch(1, 32, async_barrier_not_awaited); });
  CHECK(failure.code == cudaErrorLaunchFailure);
  CHECK(failure.report.find("cuda::barrier::arrive_and_wait: called without co_await in a stackless kernel") !=
        std::string::npos);
}
