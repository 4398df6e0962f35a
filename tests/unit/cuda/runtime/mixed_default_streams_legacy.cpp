// One program, two meanings of stream 0: this translation unit is built
// without CUDA_API_PER_THREAD_DEFAULT_STREAM, mixed_default_streams_per_thread.cpp
// with it, and each keeps its own, as with CUDA, whose per-thread entry
// points are symbols of their own (_ptds). Were an entry point one inline
// function whose body read the macro, the linker would keep one body, and
// both files would get the same stream 0.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <thread>

#include "stream_gates.hpp"

cudaError_t hold_stream_zero_per_thread(int* flag);
cudaError_t query_stream_zero_per_thread();

TEST_CASE("translation units built with and without CUDA_API_PER_THREAD_DEFAULT_STREAM each keep their stream 0") {
  enough_workers pool(2);
  int* flag = nullptr;
  REQUIRE(cudaMallocManaged(&flag, sizeof(int)) == cudaSuccess);
  *flag = 0;
  // This thread's per-thread default stream is held until the flag is set.
  REQUIRE(hold_stream_zero_per_thread(flag) == cudaSuccess);
  CHECK(query_stream_zero_per_thread() == cudaErrorNotReady);
  std::thread other([] {
    // Another thread's per-thread stream 0 has nothing to do...
    CHECK(query_stream_zero_per_thread() == cudaSuccess);
    // ...while this file's stream 0, the legacy stream, waits for every
    // blocking stream, the held per-thread one included.
    CHECK(cudaStreamQuery(0) == cudaErrorNotReady);
  });
  other.join();
  std::atomic_ref<int>(*flag).store(1);
  CHECK(cudaStreamSynchronize(0) == cudaSuccess);
  CHECK(cudaStreamQuery(0) == cudaSuccess);
  CHECK(query_stream_zero_per_thread() == cudaSuccess);
  CHECK(cudaFree(flag) == cudaSuccess);
}
