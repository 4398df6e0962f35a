// A program built as nvcc --default-stream per-thread builds it: with
// CUDA_API_PER_THREAD_DEFAULT_STREAM defined before the runtime's headers,
// stream 0 is each host thread's own default stream, which does not wait for
// other host threads' work. (This file is its own program: the choice holds
// for a whole program, so it cannot share weft_tests.)
#define CUDA_API_PER_THREAD_DEFAULT_STREAM
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <thread>

#include "stream_gates.hpp"

namespace {

int read(const int* p) { return std::atomic_ref<const int>(*p).load(); }

}  // namespace

TEST_CASE("with CUDA_API_PER_THREAD_DEFAULT_STREAM, stream 0 belongs to the calling host thread") {
  enough_workers pool(2);
  int* flags = nullptr;
  REQUIRE(cudaMallocManaged(&flags, 3 * sizeof(int)) == cudaSuccess);
  for (int i = 0; i < 3; ++i) flags[i] = 0;
  // This thread's stream 0 is held until flags[0] is set.
  REQUIRE(weft::launch(
              1, 1,
              [](int* f) {
                while (std::atomic_ref<int>(f[0]).load() == 0) std::this_thread::yield();
              },
              flags) == cudaSuccess);
  std::thread other([&] {
    // Another thread's stream 0 runs, and its synchronous copy returns,
    // although the first thread's stream 0 is still held.
    CHECK(weft::launch(
              1, 1, [](int* f) { std::atomic_ref<int>(f[1]).store(1); }, flags) == cudaSuccess);
    int seen = 0;
    CHECK(cudaMemcpy(&seen, flags + 1, sizeof(int), cudaMemcpyDefault) == cudaSuccess);
    CHECK(seen == 1);
    CHECK(cudaStreamSynchronize(0) == cudaSuccess);
  });
  other.join();
  CHECK(cudaStreamQuery(0) == cudaErrorNotReady);
  // The legacy stream still waits for every blocking stream, per-thread ones included.
  CHECK(weft::launch(
            {1, 1, 0, cudaStreamLegacy}, [](int* f) { std::atomic_ref<int>(f[2]).store(1); }, flags) == cudaSuccess);
  CHECK(read(flags + 2) == 0);
  std::atomic_ref<int>(flags[0]).store(1);
  CHECK(cudaStreamSynchronize(cudaStreamLegacy) == cudaSuccess);
  CHECK(read(flags + 2) == 1);
  CHECK(cudaStreamQuery(0) == cudaSuccess);
  cudaFree(flags);
}
