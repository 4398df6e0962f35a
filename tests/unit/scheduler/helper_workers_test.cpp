// Blocks that wait for other blocks: a GPU holds a small grid's blocks, and
// the blocks of kernels in different streams, at the same time, so one may
// spin on a flag that another sets. A weft worker runs its block to the end;
// when every worker is in a block and blocks wait for a worker, the SM pool's
// watchdog adds helper workers (detail/scheduler/sm_pool.hpp), which leave afterwards.
// Each test runs with one worker, where nothing could finish without them.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <thread>

#include "stream_gates.hpp"

namespace {

struct managed_counter {
  unsigned* p = nullptr;
  managed_counter() {
    REQUIRE(cudaMallocManaged(&p, sizeof(unsigned)) == cudaSuccess);
    *p = 0;
  }
  managed_counter(const managed_counter&) = delete;
  managed_counter& operator=(const managed_counter&) = delete;
  ~managed_counter() { cudaFree(p); }
};

}  // namespace

TEST_CASE("one worker: a kernel that spins on a flag set by a kernel in another stream finishes") {
  exact_workers workers(1);
  cudaStream_t a, b;
  REQUIRE(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking) == cudaSuccess);
  managed_counter flag;
  // The waiter takes the only worker first; the setter's block waits for one.
  REQUIRE(weft::launch(
              {1, 1, 0, a},
              [](unsigned* f) {
                while (atomicAdd(f, 0) == 0) {
                }
                atomicAdd(f, 1);
              },
              flag.p) == cudaSuccess);
  REQUIRE(weft::launch(
              {1, 1, 0, b}, [](unsigned* f) { atomicExch(f, 1); }, flag.p) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*flag.p == 2);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}

TEST_CASE("one worker: the blocks of a grid barrier made of atomics all get to run") {
  exact_workers workers(1);
  managed_counter arrived;
  const unsigned blocks = 40;  // not a power of two: helpers double, the last step adds fewer
  REQUIRE(weft::launch(
              blocks, 64,
              [](unsigned* count) {
                if (threadIdx.x == 0) {
                  atomicAdd(count, 1);
                  while (atomicAdd(count, 0) < gridDim.x) {
                  }
                }
                __syncthreads();
              },
              arrived.p) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*arrived.p == blocks);
}

TEST_CASE("helpers leave once no block waits for a worker, and later grids run as before") {
  exact_workers workers(1);
  // The pool starts on first use; a first launch makes its threads exist.
  REQUIRE(weft::launch(1, 1, [] {}) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  long before = host_thread_count();

  managed_counter arrived;
  REQUIRE(weft::launch(
              8, 32,
              [](unsigned* count) {
                if (threadIdx.x == 0) {
                  atomicAdd(count, 1);
                  while (atomicAdd(count, 0) < gridDim.x) {
                  }
                }
              },
              arrived.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(*arrived.p == 8);

  // A helper leaves as soon as it finds no block waiting; allow it time to.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (host_thread_count() > before && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(host_thread_count() == before);

  // An ordinary grid afterwards: all of it runs, on the one worker.
  managed_counter sum;
  REQUIRE(weft::launch(
              100, 128, [](unsigned* s) { atomicAdd(s, 1u); }, sum.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*sum.p == 100 * 128);
}

TEST_CASE("two kernels that must run side by side do, and their pool can then be replaced") {
  exact_workers workers(1);
  managed_counter started;
  gate g;
  cudaStream_t a, b;
  REQUIRE(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking) == cudaSuccess);
  // Each kernel counts itself in, then waits for the host to open the gate,
  // which it does once both are running: on one worker, only with a helper.
  auto counted_gate = [](unsigned* s, int* flag) {
    atomicAdd(s, 1u);
    while (std::atomic_ref<int>(*flag).load() == 0) std::this_thread::yield();
  };
  REQUIRE(weft::launch({1, 1, 0, a}, counted_gate, started.p, g.flag) == cudaSuccess);
  REQUIRE(weft::launch({1, 1, 0, b}, counted_gate, started.p, g.flag) == cudaSuccess);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::atomic_ref<unsigned>(*started.p).load() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(std::atomic_ref<unsigned>(*started.p).load() == 2);
  g.open();
  // Replacing the pool waits for its grids, and for its helpers to leave.
  weft::set_worker_count(2);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}
