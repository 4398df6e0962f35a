// CUDA threads' fiber stacks: their size follows cudaLimitStackSize, and a
// thread that overflows its stack fails the launch (a sticky
// cudaErrorLaunchFailure naming the thread) instead of crashing the process.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "sanitizer_checks.hpp"
#include "stream_gates.hpp"

// Each level keeps 512 bytes live on the stack, so the depth decides how
// much stack a thread needs.
__device__ int deep(int levels) {
  volatile char frame[512];
  frame[0] = static_cast<char>(levels);
  return levels == 0 ? 0 : deep(levels - 1) + frame[0] - frame[0] + 1;
}

__global__ void recursion_kernel(int* depth_reached, int levels, int overflowing_thread) {
  __syncthreads();  // the overflowing thread then runs on a promoted fiber
  int mine = static_cast<int>(threadIdx.x) == overflowing_thread ? 1 << 20 : levels;
  depth_reached[threadIdx.x] = deep(mine);
}

TEST_CASE("a thread that overflows its stack fails the launch, and the process goes on" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  REQUIRE(cudaDeviceSetLimit(cudaLimitStackSize, 16 * 1024) == cudaSuccess);
  int* depth = nullptr;
  REQUIRE(cudaMalloc(&depth, 64 * sizeof(int)) == cudaSuccess);
  CHECK(weft::launch(2, 64, recursion_kernel, depth, 4, 37) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  CHECK(report.find("recursion_kernel") != std::string::npos);
  CHECK(report.find("thread (37,0,0)") != std::string::npos);
  CHECK(report.find("stack overflow") != std::string::npos);
  CHECK(report.find("16 KiB") != std::string::npos);
  CHECK(cudaMalloc(&depth, 16) == cudaErrorLaunchFailure);  // sticky
  CHECK(cudaDeviceReset() == cudaSuccess);

  // The device works again, and a second overflow is caught as well.
  REQUIRE(cudaMalloc(&depth, 64 * sizeof(int)) == cudaSuccess);
  CHECK(weft::launch(1, 64, recursion_kernel, depth, 4, -1) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(weft::launch(1, 8, recursion_kernel, depth, 4, 0) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);  // recorded by the synchronize
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("a deep recursion that fits the raised stack limit runs") {
  // 1000 levels of 512 bytes need about 600 KiB: more than the default.
  size_t limit = 0;
  REQUIRE(cudaDeviceGetLimit(&limit, cudaLimitStackSize) == cudaSuccess);
  CHECK(limit == 64 * 1024);
  REQUIRE(cudaDeviceSetLimit(cudaLimitStackSize, 1 << 20) == cudaSuccess);
  REQUIRE(cudaDeviceGetLimit(&limit, cudaLimitStackSize) == cudaSuccess);
  CHECK(limit == 1 << 20);
  int* depth = nullptr;
  REQUIRE(cudaMalloc(&depth, 32 * sizeof(int)) == cudaSuccess);
  CHECK(weft::launch(1, 32, recursion_kernel, depth, 1000, -1) == cudaSuccess);
  int host[32] = {};
  REQUIRE(cudaMemcpy(host, depth, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int d : host) CHECK(d == 1000);
  CHECK(cudaFree(depth) == cudaSuccess);
  CHECK(cudaDeviceReset() == cudaSuccess);  // restores the default limit
  REQUIRE(cudaDeviceGetLimit(&limit, cudaLimitStackSize) == cudaSuccess);
  CHECK(limit == 64 * 1024);
}

// A block's threads end on the fibers their first barrier gave them, and
// those fibers wait, idle, for the worker's next block: the next launch of
// the same kernel must still get stacks of the limit in force, and its own
// arguments.
TEST_CASE("a launch after one of the same kernel runs on stacks of the limit now in force") {
  unsigned workers = weft::worker_count();
  weft::set_worker_count(1);  // both launches on one worker, where the first leaves its fibers
  int* depth = nullptr;
  REQUIRE(cudaMalloc(&depth, 32 * sizeof(int)) == cudaSuccess);
  CHECK(weft::launch(1, 32, recursion_kernel, depth, 4, -1) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaDeviceSetLimit(cudaLimitStackSize, 1 << 20) == cudaSuccess);
  CHECK(weft::launch(1, 32, recursion_kernel, depth, 1000, -1) == cudaSuccess);
  int host[32] = {};
  REQUIRE(cudaMemcpy(host, depth, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int d : host) CHECK(d == 1000);
  CHECK(cudaFree(depth) == cudaSuccess);
  CHECK(cudaDeviceReset() == cudaSuccess);
  weft::set_worker_count(workers);
}

__global__ void stack_test_value_across_barriers(int* out, int value) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  __syncthreads();
  out[i] = value;
  __syncthreads();
  out[i] += value;
}

TEST_CASE("each launch of a kernel with barriers gets its own arguments on the fibers the last one left") {
  unsigned workers = weft::worker_count();
  weft::set_worker_count(1);
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, 64 * sizeof(int)) == cudaSuccess);
  for (int value = 1; value <= 3; ++value) {
    CHECK(weft::launch(2, 32, stack_test_value_across_barriers, out, value) == cudaSuccess);
    int host[64] = {};
    REQUIRE(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int v : host) CHECK(v == 2 * value);
  }
  CHECK(cudaFree(out) == cudaSuccess);
  weft::set_worker_count(workers);
}

namespace {
[[noreturn]] void programs_own_segv_handler(int) {
  std::fputs("the program's own SIGSEGV handler got a CUDA thread's stack overflow\n", stderr);
  std::_Exit(3);
}
}  // namespace

TEST_CASE("an overflow is still caught after the program installs its own SIGSEGV handler between launches" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  // As a test framework does before each test case. A worker checks the
  // handler for every grid it has not run before; grids come and go on both
  // workers here, so that a new one may be allocated where an earlier one
  // was, which the check must not take for the same grid.
  exact_workers workers(2);
  struct sigaction own = {};
  struct sigaction before = {};
  own.sa_handler = programs_own_segv_handler;
  sigemptyset(&own.sa_mask);
  for (int round = 0; round < 40; ++round) {
    int* depth = nullptr;
    REQUIRE(cudaMalloc(&depth, 8 * sizeof(int)) == cudaSuccess);
    // Grids that come and go on both workers, so that addresses recur.
    for (int i = 0; i < 4; ++i) {
      CHECK(weft::launch(2, 8, recursion_kernel, depth, 4, -1) == cudaSuccess);
      CHECK(cudaDeviceSynchronize() == cudaSuccess);
    }
    REQUIRE(sigaction(SIGSEGV, &own, &before) == 0);
    CHECK(weft::launch(1, 8, recursion_kernel, depth, 4, 0) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    CHECK(cudaDeviceReset() == cudaSuccess);
    REQUIRE(sigaction(SIGSEGV, &before, nullptr) == 0);
  }
  cudaGetLastError();
}
