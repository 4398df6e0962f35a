// A stackless kernel that goes wrong fails its launch with the report the
// fiber executor gives for it, word for word: an exception (its text, its
// thread), a failed assert (cudaErrorAssert), threads at different
// barriers (barrier divergence, naming threads and lines), a wild pointer
// or an integer division by zero (the CPU's fault signal), and a CUDA
// function that blocks called without co_await. The threads that wait are
// destroyed where they wait, so that their destructors run. Every test ends
// with cudaDeviceReset() so that the next one starts on a healthy device.
#undef NDEBUG  // release builds pass -DNDEBUG; the assert test needs assert live
#include <cassert>

#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/stackless_kernel.hpp>

#include "sanitizer_checks.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"
#include "text_checks.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace {

// Thread 5 of block (2,0,0) throws between two barriers.
weft::stackless_kernel coroutine_throwing_kernel() {
  stackless_frame_guard g;
  co_await weft::syncthreads();
  if (blockIdx.x == 2 && threadIdx.x == 5) throw std::runtime_error("thread five gave up");
  co_await weft::syncthreads();
}

// Only block (0,0,0) diverges: with two failing blocks, which one fails
// first (and is reported) depends on which worker gets there first.
weft::stackless_kernel coroutine_divergent_kernel(int* finished) {
  stackless_frame_guard g;
  if (blockIdx.x != 0 || threadIdx.x >= 24) co_return;
  if (threadIdx.x < 12)
    co_await weft::syncthreads();
  else
    co_await weft::syncthreads_count(1);
  atomicAdd(finished, 1);
}
constexpr int coroutine_divergent_line = __LINE__ - 5;

// Below the lowest address Linux maps (vm.mmap_min_addr, 64 KiB), above
// the null pointer's page: nothing is ever there.
int* const coroutine_unmapped = reinterpret_cast<int*>(std::uintptr_t{0x8000});

// Thread 5 of block (1,0,0) writes where nothing is mapped, after a barrier.
weft::stackless_kernel coroutine_wild_kernel(int* p) {
  p[blockIdx.x * blockDim.x + threadIdx.x] = 1;
  co_await weft::syncthreads();
  if (blockIdx.x == 1 && threadIdx.x == 5) *coroutine_unmapped = 2;
  co_await weft::syncthreads();
  p[blockIdx.x * blockDim.x + threadIdx.x] = 3;
}

__attribute__((no_sanitize("integer-divide-by-zero"))) weft::stackless_kernel coroutine_dividing_kernel(
    const int* divisors, int* quotients) {
  co_await weft::syncthreads();
  quotients[threadIdx.x] = 1000 / divisors[threadIdx.x];
}

}  // namespace

TEST_CASE("an exception escaping a stackless kernel's thread fails the launch as on fibers") {
  auto [on_coroutines, on_fibers] = on_both_executors(
      [] { return stackless_failure_of([] { return weft::launch<coroutine_throwing_kernel>(4, 32); }); });
  INFO(on_coroutines.report);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.code == cudaErrorLaunchFailure);
  CHECK(contains(on_coroutines.report, "coroutine_throwing_kernel"));
  CHECK(contains(on_coroutines.report, "block (2,0,0), thread (5,0,0): uncaught exception: thread five gave up"));
  CHECK(on_coroutines.guards_balanced);
}

// Threads 9-15 fail the assert after the barrier. The first to run after
// it, and so to fail, is thread 15, whose arrival completed the barrier:
// the fiber executor's order, which the stackless one keeps.
TEST_CASE("a failed assert in a stackless kernel is cudaErrorAssert, as on fibers") {
  auto kernel = [](int limit) -> weft::stackless_kernel {
    co_await weft::syncthreads();
    assert(static_cast<int>(threadIdx.x) < limit);
  };
  auto [on_coroutines, on_fibers] =
      on_both_executors([&] { return stackless_failure_of([&] { return weft::launch(1, 16, kernel, 9); }); });
  INFO(on_coroutines.report);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.code == cudaErrorAssert);
  CHECK(contains(on_coroutines.report, "thread (15,0,0): assertion"));
}

TEST_CASE("stackless threads at different barriers are a barrier divergence, reported as on fibers") {
  int finished = 0;
  auto [on_coroutines, on_fibers] = on_both_executors(
      [&] { return stackless_failure_of([&] { return weft::launch<coroutine_divergent_kernel>(2, 32, &finished); }); });
  INFO(on_coroutines.report);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.code == cudaErrorLaunchFailure);
  std::string file = __FILE__;
  CHECK(contains(on_coroutines.report,
                 "block (0,0,0), barrier divergence: threads wait at different barriers, which can never all "
                 "complete; thread (0,0,0) to thread (11,0,0) wait at __syncthreads (" +
                     file + ":" + std::to_string(coroutine_divergent_line)));
  CHECK(contains(on_coroutines.report, "thread (12,0,0) to thread (23,0,0) wait at __syncthreads_count (" + file + ":" +
                                           std::to_string(coroutine_divergent_line + 2)));
  CHECK(contains(on_coroutines.report, "; 8 of 32 threads exited"));
  CHECK(finished == 0);
  CHECK(on_coroutines.guards_balanced);
}

TEST_CASE("a blocking CUDA call without co_await fails a stackless kernel, and names itself") {
  stackless_scope scope(stackless_executor::coroutines);
  auto plain_barrier = []() -> weft::stackless_kernel {
    __syncthreads();
    co_return;
  };
  auto plain_shuffle = [](int* out) -> weft::stackless_kernel {
    *out = __shfl_sync(~0u, 1, 0);
    co_return;
  };
  int out = 0;
  auto barrier = stackless_failure_of([&] { return weft::launch(1, 32, plain_barrier); });
  auto shuffle = stackless_failure_of([&] { return weft::launch(1, 32, plain_shuffle, &out); });
  INFO(barrier.report);
  INFO(shuffle.report);
  CHECK(barrier.code == cudaErrorLaunchFailure);
  CHECK(contains(barrier.report, "thread (0,0,0): __syncthreads: called without co_await in a stackless kernel"));
  CHECK(contains(shuffle.report, "thread (0,0,0): warp collectives: called without co_await in a stackless kernel"));
}

// The fiber executor's report of the same faults is checked word for word
// in fault_signal_test.cpp. Run only on the stackless executor here: on
// fibers the faulting thread's frame comes from the heap, and a fault drops
// it unfreed, which LeakSanitizer (CI's ASan build) would report.
TEST_CASE("a stackless thread that writes where nothing is mapped fails the launch as on fibers" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  stackless_scope scope(stackless_executor::coroutines);
  int* p = nullptr;
  REQUIRE(cudaMalloc(&p, 2 * 32 * sizeof(int)) == cudaSuccess);
  stackless_failure failure = stackless_failure_of([&] { return weft::launch<coroutine_wild_kernel>(2, 32, p); });
  INFO(failure.report);
  CHECK(failure.code == cudaErrorIllegalAddress);
  CHECK(contains(failure.report,
                 "kernel '(anonymous namespace)::coroutine_wild_kernel' failed in block (1,0,0), "
                 "thread (5,0,0): illegal address: a write to 0x8000 (no memory is mapped there) "
                 "by the instruction at "));

  // The worker's stackless executor runs the next launch as if nothing had happened.
  REQUIRE(cudaMalloc(&p, 2 * 32 * sizeof(int)) == cudaSuccess);  // the reset freed it
  REQUIRE(weft::launch<coroutine_wild_kernel>(1, 32, p) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  int host[32] = {};
  REQUIRE(cudaMemcpy(host, p, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host[0] == 3);
  CHECK(host[31] == 3);
  CHECK(cudaFree(p) == cudaSuccess);
}

#if defined(__x86_64__)
TEST_CASE("an integer division by zero in a stackless thread fails the launch as on fibers" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  stackless_scope scope(stackless_executor::coroutines);
  int* divisors = nullptr;
  int* quotients = nullptr;
  REQUIRE(cudaMallocManaged(&divisors, 8 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&quotients, 8 * sizeof(int)) == cudaSuccess);
  for (int i = 0; i < 8; ++i) divisors[i] = i == 6 ? 0 : i + 1;
  stackless_failure failure =
      stackless_failure_of([&] { return weft::launch<coroutine_dividing_kernel>(1, 8, divisors, quotients); });
  INFO(failure.report);
  CHECK(failure.code == cudaErrorLaunchFailure);
  CHECK(contains(failure.report,
                 "failed in block (0,0,0), thread (6,0,0): integer division by zero (SIGFPE; a GPU "
                 "goes on with an unspecified quotient) by the instruction at "));
}
#endif
