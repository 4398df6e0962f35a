// Launch configurations: what CUDA 13 refuses on an H100 (with the codes of
// tests/differential/error_codes_probe.expected), the largest shapes it
// accepts, launch order, and the device limits (stack size) kernels run with.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "device_buffer.hpp"
#include "sanitizer_checks.hpp"
#include "stream_gates.hpp"

#include <signal.h>

#include <cstddef>
#include <string>
#include <vector>

namespace {

__global__ void count_threads(unsigned long long* counters) {
  atomicAdd(&counters[0], 1ull);
  // Sums of the linear block and thread indices, to see that each ran once.
  atomicAdd(&counters[1], (1ull * blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x);
  atomicAdd(&counters[2], (1ull * threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
}

// Launches count_threads and checks that exactly every thread ran once.
void check_runs_every_thread(dim3 grid, dim3 block) {
  device_buffer<unsigned long long> counters(3);
  REQUIRE(weft::launch(grid, block, count_threads, counters.p) == cudaSuccess);
  unsigned long long blocks = weft::volume(grid), threads = weft::volume(block);
  auto c = counters.to_host();
  CHECK(c[0] == blocks * threads);
  CHECK(c[1] == blocks * (blocks - 1) / 2 * threads);
  CHECK(c[2] == threads * (threads - 1) / 2 * blocks);
}

[[gnu::noinline]] int recursive_sum(int n) {
  volatile int frame[64];  // about 300 bytes of stack per level
  frame[n % 64] = n;
  if (n == 0) return 0;
  return recursive_sum(n - 1) + frame[n % 64];  // not a tail call
}

}  // namespace

TEST_CASE("bad launch configurations are refused with cudaErrorInvalidValue") {
  struct shape {
    const char* what;
    dim3 grid, block;
  };
  const shape refused[] = {
      {"block of 2048 threads", dim3(1), dim3(2048)},  {"block (1,1,65)", dim3(1), dim3(1, 1, 65)},
      {"block (1025,1,1)", dim3(1), dim3(1025, 1, 1)}, {"block of 32x32x2 threads", dim3(1), dim3(32, 32, 2)},
      {"block of 0 threads", dim3(1), dim3(0)},        {"grid.y 70000", dim3(1, 70000), dim3(1)},
      {"grid.z 65536", dim3(1, 1, 65536), dim3(1)},    {"grid of 0 blocks", dim3(0), dim3(1)},
      {"grid.x 2^31", dim3(0x80000000u), dim3(1)},
  };
  for (const shape& s : refused) {
    INFO(s.what);
    int ran = 0;
    auto mark_ran = [](int* r) { *r = 1; };
    REQUIRE(cudaGetLastError() == cudaSuccess);
    CHECK(weft::launch(s.grid, s.block, mark_ran, &ran) == cudaErrorInvalidValue);
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);  // a refused launch faults nothing
    CHECK(ran == 0);
  }
}

TEST_CASE("the largest block and grid extents are accepted and run") {
  exact_workers pool(4);
  // grid.x may go up to 2^31-1 (the probe's launch of that size succeeded);
  // running that many blocks would take far too long here.
  CHECK(weft::launch_limits::max_grid.x == 0x7fffffffu);
  check_runs_every_thread(dim3(1), dim3(1024));
  check_runs_every_thread(dim3(2), dim3(1, 1, 64));
  check_runs_every_thread(dim3(2), dim3(32, 32, 1));
  check_runs_every_thread(dim3(1), dim3(1, 1024, 1));
  check_runs_every_thread(dim3(1, 65535), dim3(1));
  check_runs_every_thread(dim3(1, 1, 65535), dim3(1));
}

TEST_CASE("a grid of 65535*4 one-thread blocks runs every block once") {
  exact_workers pool(4);
  check_runs_every_thread(dim3(65535 * 4), dim3(1));
}

TEST_CASE("the native launch_config spelling") {
  check_runs_every_thread(dim3(3, 2, 2), dim3(4, 3, 2));
  device_buffer<unsigned long long> counters(3);
  REQUIRE(weft::launch(weft::launch_config{dim3(5, 2), dim3(7, 3)}, count_threads, counters.p) == cudaSuccess);
  CHECK(counters.to_host()[0] == 5 * 2 * 7 * 3);
}

TEST_CASE("kernels run in launch order, one after another") {
  // Each launch reads what the previous one wrote; overlapping or reordered
  // launches would break the recurrence.
  exact_workers pool(4);
  const unsigned n = 16 * 64;
  const int launches = 50;
  device_buffer<long long> values(n);
  auto step = [](long long* v, int i) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    v[t] = v[t] * 3 % 1000003 + i + static_cast<long long>(t);
  };
  for (int i = 0; i < launches; ++i) REQUIRE(weft::launch(16, 64, step, values.p, i) == cudaSuccess);
  auto host = values.to_host();
  for (unsigned t = 0; t < n; ++t) {
    long long expected = 0;
    for (int i = 0; i < launches; ++i) expected = expected * 3 % 1000003 + i + t;
    CHECK(host[t] == expected);
  }
}

TEST_CASE("cudaDeviceSetLimit and cudaDeviceGetLimit") {
  std::size_t original = 0, original_heap = 0, value = 0;
  REQUIRE(cudaDeviceGetLimit(&original, cudaLimitStackSize) == cudaSuccess);
  REQUIRE(cudaDeviceGetLimit(&original_heap, cudaLimitMallocHeapSize) == cudaSuccess);
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 1 << 20) == cudaSuccess);
  CHECK(cudaDeviceGetLimit(&value, cudaLimitStackSize) == cudaSuccess);
  CHECK(value == 1 << 20);
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 0) == cudaSuccess);  // accepted, as on an H100
  CHECK(cudaGetLastError() == cudaSuccess);

  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, original_heap + (16 << 20)) == cudaSuccess);
  CHECK(cudaDeviceGetLimit(&value, cudaLimitMallocHeapSize) == cudaSuccess);
  CHECK(value == original_heap + (16 << 20));

  CHECK(cudaDeviceSetLimit(static_cast<cudaLimit>(99), 0) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaDeviceGetLimit(&value, static_cast<cudaLimit>(99)) == cudaErrorInvalidValue);
  CHECK(cudaDeviceGetLimit(nullptr, cudaLimitStackSize) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);

  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, original) == cudaSuccess);
  CHECK(cudaDeviceReset() == cudaSuccess);  // restores the default limits
  CHECK(cudaDeviceGetLimit(&value, cudaLimitMallocHeapSize) == cudaSuccess);
  CHECK(value == original_heap);
}

TEST_CASE("deep recursion in a kernel after raising the stack limit to 1 MiB") {
  std::size_t original = 0;
  REQUIRE(cudaDeviceGetLimit(&original, cudaLimitStackSize) == cudaSuccess);
  REQUIRE(cudaDeviceSetLimit(cudaLimitStackSize, 1 << 20) == cudaSuccess);
  const int depth = 2000;  // about 600 KiB of stack
  device_buffer<int> out(2 * 8);
  auto kernel = [](int n, int* result) { result[blockIdx.x * blockDim.x + threadIdx.x] = recursive_sum(n); };
  REQUIRE(weft::launch(2, 8, kernel, depth, out.p) == cudaSuccess);
  CHECK(out.to_host() == std::vector<int>(2 * 8, depth * (depth + 1) / 2));
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, original) == cudaSuccess);
}

TEST_CASE("a stack overflow fails the launch instead of crashing the program" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  // weft catches an overflow with a SIGSEGV handler, installed when its
  // first worker starts. doctest (like other frameworks) installs its own
  // handler for each test case and afterwards restores the one it replaced,
  // which removes a handler weft installed during an earlier test case. An
  // overflow without weft's handler would kill the whole suite, so check
  // that a launch puts weft's handler in place before provoking one.
  using signal_action = struct sigaction;
  signal_action before{}, during{};
  sigaction(SIGSEGV, nullptr, &before);
  REQUIRE(weft::launch(1, 1, [] {}) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  sigaction(SIGSEGV, nullptr, &during);
  bool weft_handles_segv = during.sa_sigaction != before.sa_sigaction || during.sa_flags != before.sa_flags;
  INFO("weft's SIGSEGV handler is not installed: a stack overflow would crash this program");
  REQUIRE(weft_handles_segv);

  std::size_t stack = 0;
  REQUIRE(cudaDeviceGetLimit(&stack, cudaLimitStackSize) == cudaSuccess);
  const int depth = static_cast<int>(2 * stack / 256);  // at least twice the stack, at 256+ bytes a level
  device_buffer<int> out(1);
  auto kernel = [](int n, int* result) { *result = recursive_sum(n); };
  CHECK(weft::launch(1, 4, kernel, depth, out.p) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  CHECK(report.find("stack overflow") != std::string::npos);
  CHECK(report.find("thread (") != std::string::npos);
  CHECK(report.find("cudaLimitStackSize") != std::string::npos);
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);  // recorded by the synchronize
  out.p = nullptr;                                      // freed by the reset
}

TEST_CASE("a launch names a default stream; no other stream exists yet") {
  device_buffer<int> out(1);
  auto kernel = [](int* o) { atomicAdd(o, 1); };
  CHECK(weft::launch(weft::launch_config{1, 32, 0, nullptr}, kernel, out.p) == cudaSuccess);
  CHECK(weft::launch(weft::launch_config{1, 32, 0, cudaStreamLegacy}, kernel, out.p) == cudaSuccess);
  CHECK(weft::launch(weft::launch_config{1, 32, 0, cudaStreamPerThread}, kernel, out.p) == cudaSuccess);
  CHECK(out.to_host()[0] == 96);
  auto bogus = reinterpret_cast<cudaStream_t>(0x1234);
  CHECK(weft::launch(weft::launch_config{1, 32, 0, bogus}, kernel, out.p) == cudaErrorInvalidResourceHandle);
  CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(out.to_host()[0] == 96);
}

TEST_CASE("launch_config accepts the operand types a CUDA launch accepts") {
  // <<<...>>> converts its operands like function arguments: an int byte
  // count, a floating-point size, a braced shape.
  int bytes = 5;
  weft::launch_config from_numbers{1'000, 0x1p+3};
  CHECK(from_numbers.grid.x == 1000);
  CHECK(from_numbers.block.x == 8);
  weft::launch_config braced{{16, 16}, 256};
  CHECK(braced.grid.y == 16);
  CHECK(braced.block.x == 256);
  weft::launch_config with_bytes{dim3(4, 4), 64, bytes, cudaStreamLegacy};
  CHECK(with_bytes.dynamic_shared_bytes == 5);
  CHECK(with_bytes.stream == cudaStreamLegacy);
  weft::launch_config all_braced{{2, 2}, {8, 8}, 0, nullptr};
  CHECK(all_braced.block.y == 8);
}
