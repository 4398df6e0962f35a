// assert in kernels: a failed assert fails the launch with cudaErrorAssert,
// sticky until cudaDeviceReset, naming the condition, file, line, block and
// thread, and the process goes on; on the host assert aborts as usual; NDEBUG
// disables it. <cassert> comes both before and after <weft.hpp> here, the
// orders CUDA code includes them in.
#undef NDEBUG  // release builds pass -DNDEBUG; these tests need assert live

#include <cassert>

#include <doctest/doctest.h>
#include <weft.hpp>

#include "schedule_scope.hpp"

#include <cassert>  // again: redefines assert, which must still be caught

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

// Kernels have external linkage, as __global__ functions do, so that reports
// can name them.

// The line of the assert, for the report.
constexpr int assert_line = __LINE__ + 1;
__device__ void check_positive(int v) { assert(v > 0); }

__global__ void check_all(const int* values) { check_positive(values[blockIdx.x * blockDim.x + threadIdx.x]); }

namespace {

int* device_values(int n, int zero_at) {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
  for (int i = 0; i < n; ++i) {
    int v = i == zero_at ? 0 : i + 1;
    REQUIRE(cudaMemcpy(d + i, &v, sizeof v, cudaMemcpyHostToDevice) == cudaSuccess);
  }
  return d;
}

}  // namespace

TEST_CASE("a passing assert in a kernel does nothing") {
  int* values = device_values(256, -1);
  CHECK(weft::launch(4, 64, check_all, values) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaFree(values) == cudaSuccess);
}

TEST_CASE("a failed assert fails the launch with cudaErrorAssert, sticky until reset") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  int* values = device_values(256, 2 * 64 + 7);  // block 2, thread 7
  CHECK(weft::launch(4, 64, check_all, values) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorAssert);
  CHECK(cudaErrorAssert == 710);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(report.find("kernel 'check_all") != std::string::npos);
  CHECK(report.find("block (2,0,0), thread (7,0,0): assertion `v > 0' failed at ") != std::string::npos);
  CHECK(report.find("assert_test.cpp:" + std::to_string(assert_line)) != std::string::npos);
  CHECK(report.find("check_positive") != std::string::npos);
  // As on an H100 (tests/differential/device_functions_probe.expected).
  CHECK(cudaGetLastError() == cudaErrorAssert);
  CHECK(cudaGetLastError() == cudaSuccess);
  int* more = nullptr;
  CHECK(cudaMalloc(&more, 16) == cudaErrorAssert);
  int host = 0;
  CHECK(cudaMemcpy(&host, values, sizeof host, cudaMemcpyDeviceToHost) == cudaErrorAssert);
  CHECK(cudaDeviceSynchronize() == cudaErrorAssert);
  CHECK(weft::launch(1, 1, check_all, values) == cudaErrorAssert);
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorAssert);  // left by the calls before the reset
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(weft::fault_message().empty());
  // The device works again.
  values = device_values(64, -1);
  CHECK(weft::launch(1, 64, check_all, values) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaFree(values) == cudaSuccess);
}

struct assert_counted {
  int* destroyed;
  ~assert_counted() { atomicAdd(destroyed, 1); }
};

__global__ void assert_before_barrier(int* destroyed) {
  assert_counted c{destroyed};
  assert(!(threadIdx.x == 1 && threadIdx.y == 2));
  __syncthreads();
}

TEST_CASE("a failed assert unwinds its thread and releases the block's waiting threads") {
  // Pinned to the forward schedule: how many threads started before the failing one depends on the order
  // (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  int* destroyed = nullptr;
  REQUIRE(cudaMalloc(&destroyed, sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemset(destroyed, 0, sizeof(int)) == cudaSuccess);
  CHECK(weft::launch(1, dim3(4, 4), assert_before_barrier, destroyed) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorAssert);
  CHECK(weft::fault_message().find("thread (1,2,0): assertion `!(threadIdx.x == 1 && threadIdx.y == 2)'") !=
        std::string::npos);
  // Threads (0,0,0) to (0,2,0) ran first and wait at the barrier; (1,2,0)
  // fails; the rest never start. Each started thread's destructor ran: the
  // failed one's as its exception unwound it, the waiting ones' as the
  // abandoned block unwound them. (weft's device memory is host memory,
  // readable until the reset frees it.)
  CHECK(*destroyed == 10);
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorAssert);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("assert in a lambda kernel") {
  // Pinned to the forward schedule: the report names the first thread to fail, which depends on the order
  // (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  CHECK(weft::launch(2, 8, [] { assert(blockIdx.x == 0 || threadIdx.x < 5); }) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorAssert);
  CHECK(weft::fault_message().find("block (1,0,0), thread (5,0,0): assertion `blockIdx.x == 0 || threadIdx.x < 5'") !=
        std::string::npos);
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorAssert);
  CHECK(cudaGetLastError() == cudaSuccess);
}

// NDEBUG disables assert as usual, for the code after <cassert> is included
// with it defined, until <cassert> is included again without it.
#define NDEBUG
#include <cassert>
__global__ void unchecked(int* out) {
  assert(threadIdx.x > 1000);
  out[threadIdx.x] = 1;
}
#undef NDEBUG
#include <cassert>
__global__ void checked_again() { assert(threadIdx.x != 2); }

TEST_CASE("NDEBUG disables assert in kernels, and including <cassert> again re-enables it") {
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, 32 * sizeof(int)) == cudaSuccess);
  CHECK(weft::launch(1, 32, unchecked, out) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaFree(out) == cudaSuccess);
  CHECK(weft::launch(1, 4, checked_again) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorAssert);
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorAssert);
  CHECK(cudaGetLastError() == cudaSuccess);
}

namespace {
[[gnu::noinline]] void host_check(int v) { assert(v > 0); }
}  // namespace

TEST_CASE("on the host, a failed assert prints glibc's message and aborts") {
  host_check(1);  // passes
  int pipe_ends[2];
  REQUIRE(pipe(pipe_ends) == 0);
  std::fflush(nullptr);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    signal(SIGABRT, SIG_DFL);  // not doctest's crash report
    dup2(pipe_ends[1], STDERR_FILENO);
    close(pipe_ends[0]);
    host_check(0);
    _exit(0);  // not reached
  }
  close(pipe_ends[1]);
  std::string message;
  char chunk[512];
  for (ssize_t n; (n = read(pipe_ends[0], chunk, sizeof chunk)) > 0;) message.append(chunk, n);
  close(pipe_ends[0]);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
  INFO(message);
  CHECK(message.find("assert_test.cpp:") != std::string::npos);
  CHECK(message.find("Assertion `v > 0' failed.") != std::string::npos);
}
