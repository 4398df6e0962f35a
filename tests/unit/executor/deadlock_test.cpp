// Kernels that can never finish (threads waiting at different barriers) or
// that throw: the launch succeeds, the device faults with
// cudaErrorLaunchFailure, the fault report says where, and the block's
// suspended threads are unwound. Every test ends with cudaDeviceReset() so
// that the next one starts on a healthy device.
//
// The kernels here have external linkage so that the report can name them.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "schedule_scope.hpp"
#include "stream_gates.hpp"
#include "text_checks.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

// Two distinct barrier call sites, and the lines the report must name.
__device__ void barrier_site_a() { __syncthreads(); }
constexpr int site_a_line = __LINE__ - 1;
__device__ void barrier_site_b() { __syncthreads(); }
constexpr int site_b_line = __LINE__ - 1;
__device__ int counting_site_b(int predicate) { return __syncthreads_count(predicate); }
constexpr int counting_site_b_line = __LINE__ - 1;

// Counts live objects, to see that a suspended thread's locals are destroyed
// when its block is abandoned. Host memory: after a fault, device memory can
// no longer be copied back.
std::atomic<int> guards_made{0}, guards_destroyed{0};
struct guard {
  guard() { ++guards_made; }
  ~guard() { ++guards_destroyed; }
  guard(const guard&) = delete;
};

// In block (1,2,0) only, threads 0-15 and 16-31 wait at different barriers.
__global__ void deadlock_divergent_kernel(int* finished) {
  guard g;
  if (blockIdx.x == 1 && blockIdx.y == 2 && threadIdx.x < 16)
    barrier_site_a();
  else
    barrier_site_b();
  atomicAdd(finished, 1);
}

__global__ void deadlock_mixed_kinds_kernel(int* finished) {
  if (threadIdx.x < 16)
    barrier_site_a();
  else
    counting_site_b(1);
  atomicAdd(finished, 1);
}

// Threads 24-31 exit; the others split between two barriers.
__global__ void deadlock_after_exits_kernel(int* finished) {
  if (threadIdx.x >= 24) return;
  if (threadIdx.x < 12)
    barrier_site_a();
  else
    barrier_site_b();
  atomicAdd(finished, 1);
}

// Thread 5 of block (2,0,0) throws after every thread has built its guard.
__global__ void deadlock_throwing_kernel() {
  guard g;
  __syncthreads();
  if (blockIdx.x == 2 && threadIdx.x == 5) throw std::runtime_error("thread five gave up");
  __syncthreads();
}

namespace {

std::string site(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }

// The '; '-separated clause of the report that names `where`, or "".
std::string clause_naming(const std::string& report, const std::string& where) {
  std::size_t at = report.find(where);
  if (at == std::string::npos) return "";
  std::size_t begin = report.rfind(';', at), end = report.find(';', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return report.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// The fault is sticky: every call that uses the device reports it until
// cudaDeviceReset, which clears it.
void check_sticky_fault_then_reset() {
  void* p = nullptr;
  CHECK(cudaMalloc(&p, 16) == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(weft::synchronize() == cudaErrorLaunchFailure);
  int ran = 0;
  auto mark_ran = [](int* r) { *r = 1; };
  CHECK(weft::launch(1, 1, mark_ran, &ran) == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(ran == 0);  // a launch on a faulted device runs nothing
  CHECK(weft::fault_message().empty());
  CHECK(cudaMalloc(&p, 16) == cudaSuccess);
  CHECK(cudaFree(p) == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
}

}  // namespace

TEST_CASE("threads waiting at different barriers fault the device and are reported") {
  exact_workers pool(4);
  guards_made = guards_destroyed = 0;
  int finished = 0;
  CHECK(weft::launch(dim3(2, 3), 32, deadlock_divergent_kernel, &finished) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaSuccess);  // reported once as the last error

  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(report, "deadlock_divergent_kernel"));
  CHECK(contains(report, "block (1,2,0)"));
  std::string at_a = clause_naming(report, site(site_a_line)), at_b = clause_naming(report, site(site_b_line));
  CHECK(contains(at_a, "__syncthreads"));
  CHECK(contains(at_a, "(0,0,0)"));
  CHECK(contains(at_a, "(15,0,0)"));
  CHECK(contains(at_b, "(16,0,0)"));
  CHECK(contains(at_b, "(31,0,0)"));
  // No thread of the faulty block got past its barrier, and every thread
  // that built a guard destroyed it.
  CHECK(finished <= 5 * 32);
  CHECK(guards_made >= 32);
  CHECK(guards_made == guards_destroyed);
  check_sticky_fault_then_reset();
}

TEST_CASE("__syncthreads and __syncthreads_count at different sites are a divergence") {
  int finished = 0;
  CHECK(weft::launch(1, 32, deadlock_mixed_kinds_kernel, &finished) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(report, "deadlock_mixed_kinds_kernel"));
  CHECK(contains(report, "block (0,0,0)"));
  CHECK(contains(clause_naming(report, site(site_a_line)), "__syncthreads"));
  CHECK(contains(clause_naming(report, site(counting_site_b_line)), "__syncthreads_count"));
  CHECK(finished == 0);
  check_sticky_fault_then_reset();
}

TEST_CASE("a divergence is found when the last threads to finish exit") {
  int finished = 0;
  CHECK(weft::launch(1, 32, deadlock_after_exits_kernel, &finished) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(clause_naming(report, site(site_a_line)), "(11,0,0)"));
  CHECK(contains(clause_naming(report, site(site_b_line)), "(12,0,0)"));
  CHECK(finished == 0);
  check_sticky_fault_then_reset();
}

TEST_CASE("an exception thrown by a kernel faults the device with its text") {
  exact_workers pool(4);
  guards_made = guards_destroyed = 0;
  CHECK(weft::launch(4, 32, deadlock_throwing_kernel) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  INFO(report);
  CHECK(contains(report, "deadlock_throwing_kernel"));
  CHECK(contains(report, "block (2,0,0)"));
  CHECK(contains(report, "thread (5,0,0)"));
  CHECK(contains(report, "thread five gave up"));
  // Block (2,0,0)'s 32 threads all built a guard before the throw; the ones
  // still suspended at a barrier must be unwound, not leaked.
  CHECK(guards_made >= 32);
  CHECK(guards_made == guards_destroyed);
  check_sticky_fault_then_reset();
}

TEST_CASE("a lambda kernel that throws faults the device too") {
  // Pinned to the forward schedule: the report names the first thread to throw, which depends on the order
  // (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  auto kernel = [](int limit) {
    if (static_cast<int>(threadIdx.x) >= limit) throw std::out_of_range("index past the limit");
  };
  CHECK(weft::launch(1, 8, kernel, 6) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(contains(weft::fault_message(), "index past the limit"));
  CHECK(contains(weft::fault_message(), "thread (6,0,0)"));
  check_sticky_fault_then_reset();
}

TEST_CASE("a failed block stops its grid: blocks not yet started are skipped") {
  // Pinned to the forward schedule: block 0 must be the first block claimed (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  // One worker takes block 0 first and nothing else runs beside it, so every
  // other block is still unstarted when block 0 fails.
  exact_workers pool(1);
  std::atomic<int> others_ran{0};
  auto kernel = [](std::atomic<int>* ran) {
    if (blockIdx.x == 0) throw std::runtime_error("block zero fails");
    if (threadIdx.x == 0) ++*ran;
  };
  CHECK(weft::launch(1000, 32, kernel, &others_ran) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(others_ran == 0);
  check_sticky_fault_then_reset();
}

TEST_CASE("when several kernels fail, the first report is kept") {
  // A gate holds the device until both failing kernels are queued, so that
  // both are accepted before either has failed.
  auto gate = [](std::atomic<bool>* open) {
    auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!open->load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  };
  auto fail_with = [](int which) { throw std::runtime_error(which == 1 ? "the first failure" : "the second failure"); };
  std::atomic<bool> open{false};
  CHECK(weft::launch(1, 1, gate, &open) == cudaSuccess);
  CHECK(weft::launch(1, 1, fail_with, 1) == cudaSuccess);
  CHECK(weft::launch(1, 1, fail_with, 2) == cudaSuccess);
  open = true;
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(contains(weft::fault_message(), "the first failure"));
  CHECK_FALSE(contains(weft::fault_message(), "the second failure"));
  check_sticky_fault_then_reset();
}
