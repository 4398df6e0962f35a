// __device__ functions that wait, in stackless kernels
// (weft::stackless_function<T>): a kernel awaits a helper that awaits warp
// collectives and block barriers, helpers await helpers, a helper called
// in a loop reuses its frame and grows no stack, and an exception or a
// barrier divergence inside a helper fails the launch with the fibers'
// report, destroying the waiting threads' helpers where they wait.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/stackless_kernel.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"
#include "text_checks.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace {

// The CUDA guide's warp reduction, as a helper: five shuffles.
weft::stackless_function<int> helper_warp_sum(int v) {
  for (unsigned offset = 16; offset > 0; offset /= 2) v += co_await weft::shfl_down_sync(~0u, v, offset);
  co_return v;
}

// A block sum from warp sums: a helper that awaits a helper and barriers.
weft::stackless_function<int> helper_block_sum(int v, int* warp_sums) {
  int warp = co_await helper_warp_sum(v);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = warp;
  co_await weft::syncthreads();
  int total = 0;
  for (unsigned w = 0; w < blockDim.x / 32; ++w) total += warp_sums[w];
  co_await weft::syncthreads();  // before the next call overwrites warp_sums
  co_return total;
}

weft::stackless_function<> helper_store_after_barrier(int* out, int v) {
  co_await weft::syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Each thread sums `rounds` block sums, one helper call each.
weft::stackless_kernel helper_block_sums(const int* in, int* out, int rounds) {
  __shared__ int warp_sums[32];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int sum = 0;
  for (int r = 0; r < rounds; ++r) sum += co_await helper_block_sum(in[i] + r, warp_sums);
  co_await helper_store_after_barrier(out, sum);
}

weft::stackless_function<int> helper_plus_one(int v) { co_return v + 1; }

// Many calls that do not wait, one after another.
weft::stackless_kernel helper_many_calls(int calls, int* out) {
  int v = 0;
  for (int i = 0; i < calls; ++i) v = co_await helper_plus_one(v);
  out[threadIdx.x] = v;
}

weft::stackless_function<int> helper_that_throws(int v) {
  stackless_frame_guard g;
  co_await weft::syncthreads();
  if (threadIdx.x == 5) throw std::runtime_error("helper failed");
  co_await weft::syncthreads();
  co_return v;
}

weft::stackless_function<> helper_at_barrier_a() {
  stackless_frame_guard g;
  co_await weft::syncthreads();
}

}  // namespace

TEST_CASE("a stackless kernel awaits __device__ helpers that wait, as on fibers, in a loop") {
  constexpr unsigned blocks = 6, threads = 128;
  constexpr int rounds = 50;
  std::vector<int> in(blocks * threads);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i % 13) - 6;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_in(in), d_out(in.size());
    REQUIRE(weft::launch<helper_block_sums>(blocks, threads, d_in.p, d_out.p, rounds) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned b = 0; b < blocks; ++b) {
    int block_sum = 0;
    for (unsigned t = 0; t < threads; ++t) block_sum += in[b * threads + t];
    int expected = rounds * block_sum + static_cast<int>(threads) * rounds * (rounds - 1) / 2;
    for (unsigned t = 0; t < threads; ++t) CHECK(on_coroutines[b * threads + t] == expected);
  }
}

TEST_CASE("a loop of helper calls that do not wait does not grow the stack, whatever the optimisation") {
  // Symmetric transfer there and back would, without a tail call (GCC below
  // -O2): 300000 calls overflowed the worker's and the fibers' stacks.
  constexpr int calls = 300000;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_out(4);
    REQUIRE(weft::launch<helper_many_calls>(1, 4, calls, d_out.p) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == std::vector<int>(4, calls));
  CHECK(on_fibers == std::vector<int>(4, calls));
}

TEST_CASE("a helper's calls in a loop reuse their frames") {
  stackless_scope scope(stackless_executor::coroutines);
  auto frames_after = [](int rounds) {
    std::size_t bytes = 0;
    auto kernel = [&bytes](int n) -> weft::stackless_kernel {
      int sum = 0;
      for (int r = 0; r < n; ++r) sum += co_await helper_warp_sum(r);
      if (threadIdx.x == 0 && sum == 32 * n * (n - 1) / 2)  // lane 0 gets the warp's 32 values of each r
        bytes = weft::detail::running_frame_arena->used();
    };
    REQUIRE(weft::launch(1, 64, kernel, rounds) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    return bytes;
  };
  std::size_t few = frames_after(2), many = frames_after(200);
  CHECK(few != 0);
  CHECK(many == few);
}

TEST_CASE("an exception in a stackless helper fails the launch as on fibers; waiting helpers are destroyed") {
  auto kernel = []() -> weft::stackless_kernel {
    stackless_frame_guard g;
    int v = co_await helper_that_throws(1);
    (void)v;
  };
  auto [on_coroutines, on_fibers] =
      on_both_executors([&] { return stackless_failure_of([&] { return weft::launch(1, 32, kernel); }); });
  INFO(on_coroutines.report);
  INFO(on_fibers.report);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.code == cudaErrorLaunchFailure);
  CHECK(contains(on_coroutines.report, "thread (5,0,0)"));
  CHECK(contains(on_coroutines.report, "helper failed"));
  CHECK(on_coroutines.guards_balanced);
}

TEST_CASE("threads at a helper's barrier and the kernel's are a barrier divergence naming both lines, as on fibers") {
  auto kernel = []() -> weft::stackless_kernel {
    stackless_frame_guard g;
    if (threadIdx.x < 8)
      co_await helper_at_barrier_a();
    else
      co_await weft::syncthreads();
  };
  constexpr int line = __LINE__ - 2;
  auto [on_coroutines, on_fibers] =
      on_both_executors([&] { return stackless_failure_of([&] { return weft::launch(1, 32, kernel); }); });
  INFO(on_coroutines.report);
  CHECK(on_coroutines == on_fibers);
  CHECK(contains(on_coroutines.report, "barrier divergence"));
  CHECK(contains(on_coroutines.report, "thread (0,0,0) to thread (7,0,0) wait at __syncthreads ("));
  CHECK(contains(on_coroutines.report, "thread (8,0,0) to thread (31,0,0) wait at __syncthreads (" +
                                           std::string(__FILE__) + ":" + std::to_string(line)));
  CHECK(on_coroutines.guards_balanced);
}
