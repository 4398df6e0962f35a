// A CUDA thread that touches memory nothing is mapped at, or divides an
// integer by zero, fails its launch as a GPU's faulting kernel does (a
// sticky cudaErrorIllegalAddress, cudaErrorLaunchFailure for the division)
// instead of ending the process, and the report names the kernel, block,
// thread and address. A fault in host code still ends the process.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sanitizer_checks.hpp"
#include "text_checks.hpp"

namespace {

// Whether nothing is mapped at the page that holds `address`.
bool unmapped(const void* address) {
  auto page = reinterpret_cast<std::uintptr_t>(address) & ~(static_cast<std::uintptr_t>(getpagesize()) - 1);
  return msync(reinterpret_cast<void*>(page), 1, MS_ASYNC) != 0 && errno == ENOMEM;
}

// Where the faulting thread writes: p[1 << 28], a gigabyte past the array,
// as a wild index would, when nothing is mapped there; else (other mappings
// of a long test run may lie there) an address below the lowest one Linux
// ever maps (vm.mmap_min_addr, 64 KiB), above the null pointer's page.
template <class T>
T* wild_address(T* p) {
  T* far = p + (1 << 28);
  return unmapped(far) ? far : reinterpret_cast<T*>(std::uintptr_t{0x8000});
}

std::string hex(const void* address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(address)));
  return text;
}

}  // namespace

__global__ void wild_write(int* p, int* wild) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (threadIdx.x == 5 && blockIdx.x == 1)
    *wild = 1;
  else
    p[i] = 2;
}

__global__ void wild_float_write(float* p, float* wild) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (threadIdx.x == 5 && blockIdx.x == 1)
    *wild = 1.0f;
  else
    p[i] = 2.0f;
}

__global__ void wild_write_2d(float* p, float* wild) {
  unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * 32 + threadIdx.y * blockDim.x + threadIdx.x;
  if (threadIdx.x == 3 && threadIdx.y == 2 && blockIdx.x == 0 && blockIdx.y == 1)
    *wild = 1.0f;
  else
    p[i] = 2.0f;
}

// In a build with UBSan (WEFT_SANITIZE=undefined), UBSan would report the
// null read and the division by zero itself, before the CPU faults: these
// two kernels are built without those checks, since what they test is
// weft's handling of the fault (docs/debugging.md, "Sanitizer builds").
__global__ __attribute__((no_sanitize("null"))) void read_at(const int* const* where, int* out) {
  if (threadIdx.x == 2) out[0] = **where;
}

__global__ __attribute__((no_sanitize("integer-divide-by-zero"))) void divide(const int* divisors, int* quotients) {
  quotients[threadIdx.x] = 1000 / divisors[threadIdx.x];
}

TEST_CASE("a thread that writes where nothing is mapped fails the launch with cudaErrorIllegalAddress" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  int* p = nullptr;
  REQUIRE(cudaMalloc(&p, 128 * sizeof(int)) == cudaSuccess);
  int* wild = wild_address(p);
  SUBCASE("launched by name, the kernel compiled into weft's loop over the threads") {
    CHECK(weft::launch<wild_write>(2, 64, p, wild) == cudaSuccess);
  }
  SUBCASE("launched by address") { CHECK(weft::launch(2, 64, wild_write, p, wild) == cudaSuccess); }
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(report, "kernel 'wild_write(int*, int*)' failed in block (1,0,0), thread (5,0,0): illegal address: "));
  CHECK(contains(report, "a write to " + hex(wild)));
  CHECK(contains(report, "no memory is mapped there"));
  // Sticky, as on a GPU: the device is unusable until it is reset.
  int* more = nullptr;
  CHECK(cudaMalloc(&more, 16) == cudaErrorIllegalAddress);
  CHECK(weft::launch<wild_write>(1, 1, p, wild) == cudaErrorIllegalAddress);
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();

  // The device works again.
  REQUIRE(cudaMalloc(&p, 128 * sizeof(int)) == cudaSuccess);
  CHECK(weft::launch<wild_write>(1, 64, p, wild) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaFree(p) == cudaSuccess);
}

TEST_CASE("the faulting thread is named where the compiler keeps threadIdx in a register" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  // With float stores, which cannot alias threadIdx, GCC keeps threadIdx.x
  // in a register across the inlined kernel: weft replays the threads.
  float* p = nullptr;
  REQUIRE(cudaMalloc(&p, 128 * sizeof(float)) == cudaSuccess);
  float* wild = wild_address(p);
  CHECK(weft::launch<wild_float_write>(2, 64, p, wild) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(report, "block (1,0,0), thread (5,0,0): illegal address: a write to " + hex(wild)));
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("the faulting thread of a two-dimensional block is named" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  float* p = nullptr;
  REQUIRE(cudaMalloc(&p, 4 * 32 * sizeof(float)) == cudaSuccess);
  float* wild = wild_address(p);
  CHECK(weft::launch<wild_write_2d>(dim3(2, 2), dim3(8, 4), p, wild) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(report, "in block (0,1,0), thread (3,2,0): illegal address: a write to " + hex(wild)));
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("a null pointer read fails the launch and says so" * doctest::skip(weft_test::under_thread_sanitizer)) {
  const int** where = nullptr;
  int* out = nullptr;
  REQUIRE(cudaMallocManaged(&where, sizeof(int*)) == cudaSuccess);
  REQUIRE(cudaMalloc(&out, sizeof(int)) == cudaSuccess);
  *where = nullptr;
  CHECK(weft::launch<read_at>(1, 4, where, out) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(report, "kernel 'read_at(int const* const*, int*)' failed in block (0,0,0), thread (2,0,0)"));
  CHECK(contains(report, "a read of 0x0 (a null pointer)"));
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("a fault on a page of an allocation names the allocation" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  // weft's device memory comes from the C++ heap, so a small overrun reads
  // a neighbour unnoticed, and what lies around an allocation depends on
  // everything the process did before: the test makes one page of its own
  // allocation inaccessible instead, and the report must name that
  // allocation and where in it the read fell. Restored before it is freed.
  constexpr std::size_t bytes = 8 << 20;
  const int** where = nullptr;
  int* out = nullptr;
  REQUIRE(cudaMallocManaged(&where, sizeof(int*)) == cudaSuccess);
  REQUIRE(cudaMalloc(&out, sizeof(int)) == cudaSuccess);
  char* base = nullptr;
  REQUIRE(cudaMalloc(&base, bytes) == cudaSuccess);
  const std::size_t page = static_cast<std::size_t>(getpagesize());
  auto last = (reinterpret_cast<std::uintptr_t>(base) + bytes - page) & ~(std::uintptr_t{page} - 1);
  char* target = reinterpret_cast<char*>(last);
  REQUIRE(::mprotect(target, page, PROT_NONE) == 0);
  *where = reinterpret_cast<const int*>(target);
  CHECK(weft::launch<read_at>(1, 4, where, out) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  REQUIRE(::mprotect(target, page, PROT_READ | PROT_WRITE) == 0);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(report,
                 "thread (2,0,0): illegal address: a read of " + hex(target) + " (mapped, but not for this access)"));
  CHECK(contains(report, "; " + std::to_string(target - base) + " bytes into the 8388608-byte allocation at " +
                             hex(base) + " on device 0, made by cudaMalloc"));
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();
}

#if defined(__x86_64__)
TEST_CASE("an integer division by zero fails the launch, where a GPU would go on with an unspecified quotient" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  int* divisors = nullptr;
  int* quotients = nullptr;
  REQUIRE(cudaMallocManaged(&divisors, 8 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&quotients, 8 * sizeof(int)) == cudaSuccess);
  for (int i = 0; i < 8; ++i) divisors[i] = i == 3 ? 0 : i + 1;
  CHECK(weft::launch<divide>(1, 8, divisors, quotients) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(
      report, "kernel 'divide(int const*, int*)' failed in block (0,0,0), thread (3,0,0): integer division by zero"));
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();
}
#endif

namespace {
[[noreturn]] void programs_own_handler(int) { std::_Exit(42); }
}  // namespace

TEST_CASE("a kernel's fault is weft's even when the program installed its own SIGSEGV handler after weft's" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  // As a test framework does before each test case: weft installs its
  // handler again before a grid it has not run, and passes host faults on.
  struct sigaction own = {};
  struct sigaction before = {};
  own.sa_handler = programs_own_handler;  // ends the process with 42, failing the test
  sigemptyset(&own.sa_mask);
  REQUIRE(sigaction(SIGSEGV, &own, &before) == 0);
  int* p = nullptr;
  REQUIRE(cudaMalloc(&p, 128 * sizeof(int)) == cudaSuccess);
  CHECK(weft::launch<wild_write>(2, 64, p, wild_address(p)) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(contains(weft::fault_message(), "thread (5,0,0)"));
  CHECK(cudaDeviceReset() == cudaSuccess);
  REQUIRE(sigaction(SIGSEGV, &before, nullptr) == 0);
  cudaGetLastError();
}

namespace {

// Runs `body` in a child process; its wait status.
template <class Body>
int in_child(Body body) {
  std::fflush(nullptr);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    body();
    std::_Exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  return status;
}

void host_null_write() {
  volatile int* volatile nowhere = nullptr;
  *nowhere = 1;
}
}  // namespace

TEST_CASE("a fault in host code still ends the process, or goes to the program's own handler") {
  // The child has no SM workers (fork copies only the calling thread), so
  // it installs weft's handlers as a worker would before a grid.
  int status = in_child([] {
    signal(SIGSEGV, SIG_DFL);  // not doctest's crash report
    weft::detail::install_fault_handlers();
    host_null_write();
  });
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGSEGV);

  status = in_child([] {
    signal(SIGSEGV, programs_own_handler);
    weft::detail::install_fault_handlers();
    host_null_write();
  });
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 42);
}
