// Helpers for tests of work that runs concurrently: a gate holds a stream
// until the host opens it, so that a test checks an order, never a time;
// enough_workers gives kernels that wait for each other a worker each, and
// exact_workers sets the pool's size for a test.
#pragma once

#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <filesystem>
#include <iterator>
#include <thread>

// A host-set flag in managed memory that a kernel spins on.
struct gate {
  int* flag = nullptr;
  std::atomic<bool> opened{false};
  gate() {
    REQUIRE(cudaMallocManaged(&flag, sizeof(int)) == cudaSuccess);
    std::atomic_ref<int>(*flag).store(0);
  }
  gate(const gate&) = delete;
  gate& operator=(const gate&) = delete;
  ~gate() {
    open();
    cudaDeviceSynchronize();
    cudaFree(flag);
  }
  void open() {
    opened = true;
    std::atomic_ref<int>(*flag).store(1);
  }
  // Holds `stream` until open() is called.
  void hold(cudaStream_t stream) const {
    REQUIRE(weft::launch(
                {1, 1, 0, stream},
                [](int* f) {
                  while (std::atomic_ref<int>(*f).load() == 0) std::this_thread::yield();
                },
                flag) == cudaSuccess);
  }
};

// At least `n` SM workers while it lives (a worker runs one block to its
// end, so blocks that wait for each other need one each).
struct enough_workers {
  unsigned before = weft::worker_count();
  explicit enough_workers(unsigned n) {
    if (before < n) weft::set_worker_count(n);
  }
  enough_workers(const enough_workers&) = delete;
  enough_workers& operator=(const enough_workers&) = delete;
  ~enough_workers() { weft::set_worker_count(before); }
};

// Exactly `n` SM workers while it lives.
struct exact_workers {
  unsigned before = weft::worker_count();
  explicit exact_workers(unsigned n) { weft::set_worker_count(n); }
  exact_workers(const exact_workers&) = delete;
  exact_workers& operator=(const exact_workers&) = delete;
  ~exact_workers() { weft::set_worker_count(before); }
};

// How many threads the process has now (workers come and go as the pool
// grows for kernels that wait on each other).
inline long host_thread_count() {
  return std::distance(std::filesystem::directory_iterator("/proc/self/task"), std::filesystem::directory_iterator{});
}
