// A block's cuda::pipeline awaited in stackless kernels
// (weft/stackless_pipeline.hpp: co_await weft::make_pipeline(block, &state),
// weft::producer_acquire(pipe), weft::consumer_wait(pipe)) gives what the
// same kernel gives on fibers and what CUDA documents: a unified pipeline
// of two stages staging batches through shared memory, a partitioned one
// whose producers and consumers are different threads; a wait no commit
// can release is the fiber executor's deadlock report, and a wait not
// awaited fails the launch naming itself.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/async/pipeline.hpp>
#include <weft/stackless_pipeline.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"

#include <string>
#include <vector>

namespace {

namespace cg = cooperative_groups;

constexpr unsigned pipeline_threads = 64, pipeline_batches = 5;

// Every thread produces and consumes: batch b is copied into stage b % 2
// while the batch before is read from the other.
weft::stackless_kernel pipeline_unified_kernel(const int* in, int* out) {
  __shared__ int staged[2][pipeline_threads];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cg::this_thread_block();
  cuda::pipeline<cuda::thread_scope_block> pipe = co_await weft::make_pipeline(block, &state);
  unsigned t = threadIdx.x;
  int sum = 0;
  for (unsigned b = 0; b < pipeline_batches; ++b) {
    co_await weft::producer_acquire(pipe);
    cuda::memcpy_async(block, staged[b % 2], in + b * pipeline_threads, sizeof(staged[0]), pipe);
    pipe.producer_commit();
    co_await weft::consumer_wait(pipe);
    sum += staged[b % 2][(t + 1) % pipeline_threads] * static_cast<int>(b + 1);
    pipe.consumer_release();
  }
  out[blockIdx.x * pipeline_threads + t] = sum;
}

// The first half produces (each its own word), the second consumes.
weft::stackless_kernel pipeline_partitioned_kernel(const int* in, int* out) {
  constexpr unsigned half = pipeline_threads / 2;
  __shared__ int staged[2][half];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cg::this_thread_block();
  cuda::pipeline<cuda::thread_scope_block> pipe = co_await weft::make_pipeline(block, &state, half);
  unsigned t = threadIdx.x;
  int sum = 0;
  for (unsigned b = 0; b < pipeline_batches; ++b) {
    if (t < half) {
      co_await weft::producer_acquire(pipe);
      staged[b % 2][t] = in[b * pipeline_threads + t] + 1;
      pipe.producer_commit();
    } else {
      co_await weft::consumer_wait(pipe);
      sum += staged[b % 2][half - 1 - (t - half)];
      pipe.consumer_release();
    }
  }
  out[blockIdx.x * pipeline_threads + t] = sum;
}

std::vector<int> pipeline_input() {
  std::vector<int> in(pipeline_batches * pipeline_threads);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = static_cast<int>(7 * i % 101);
  return in;
}

template <auto Kernel>
std::vector<int> pipeline_run() {
  device_buffer<int> in(pipeline_input()), out(2 * pipeline_threads);
  REQUIRE(weft::launch<Kernel>(2, pipeline_threads, in.p, out.p) == cudaSuccess);
  return out.to_host();
}

// Every thread waits for a stage nobody commits.
weft::stackless_kernel pipeline_never_committed() {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  cuda::pipeline<cuda::thread_scope_block> pipe = co_await weft::make_pipeline(cg::this_thread_block(), &state);
  co_await weft::consumer_wait(pipe);
}

weft::stackless_kernel pipeline_not_awaited() {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  cuda::pipeline<cuda::thread_scope_block> pipe = co_await weft::make_pipeline(cg::this_thread_block(), &state);
  pipe.consumer_wait();
}

}  // namespace

TEST_CASE("a unified block pipeline awaited in a stackless kernel gives what fibers give") {
  auto [on_coroutines, on_fibers] = on_both_executors(pipeline_run<pipeline_unified_kernel>);
  CHECK(on_coroutines == on_fibers);
  std::vector<int> in = pipeline_input();
  for (unsigned i = 0; i < on_coroutines.size(); ++i) {
    unsigned t = i % pipeline_threads;
    int expected = 0;
    for (unsigned b = 0; b < pipeline_batches; ++b)
      expected += in[b * pipeline_threads + (t + 1) % pipeline_threads] * static_cast<int>(b + 1);
    CHECK(on_coroutines[i] == expected);
  }
}

TEST_CASE("a partitioned block pipeline awaited in a stackless kernel gives what fibers give") {
  auto [on_coroutines, on_fibers] = on_both_executors(pipeline_run<pipeline_partitioned_kernel>);
  CHECK(on_coroutines == on_fibers);
  std::vector<int> in = pipeline_input();
  constexpr unsigned half = pipeline_threads / 2;
  for (unsigned i = 0; i < on_coroutines.size(); ++i) {
    unsigned t = i % pipeline_threads;
    int expected = 0;
    if (t >= half)
      for (unsigned b = 0; b < pipeline_batches; ++b) expected += in[b * pipeline_threads + half - 1 - (t - half)] + 1;
    CHECK(on_coroutines[i] == expected);
  }
}

TEST_CASE("a stackless pipeline wait no commit can release is the fiber executor's deadlock report") {
  auto run = [] { return stackless_failure_of([] { return weft::launch(1, 32, pipeline_never_committed); }); };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.report.find("deadlock: no thread of the block can make progress; thread (0,0,0) to thread "
                                  "(31,0,0) wait at cuda::pipeline::consumer_wait") != std::string::npos);
  CHECK(on_coroutines.report.find("32 of 32 producers have not committed") != std::string::npos);
}

TEST_CASE("a pipeline wait not awaited fails a stackless kernel and names itself") {
  stackless_scope scope(stackless_executor::coroutines);
  stackless_failure failure = stackless_failure_of([] { return weft::launch(1, 32, pipeline_not_awaited); });
  CHECK(failure.code == cudaErrorLaunchFailure);
  CHECK(failure.report.find("cuda::pipeline::consumer_wait: called without co_await in a stackless kernel") !=
        std::string::npos);
}
