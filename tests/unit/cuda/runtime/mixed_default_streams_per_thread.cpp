// The per-thread half of a program whose translation units differ in
// CUDA_API_PER_THREAD_DEFAULT_STREAM (the test is in
// mixed_default_streams_legacy.cpp): here stream 0 is the calling host
// thread's own default stream.
#define CUDA_API_PER_THREAD_DEFAULT_STREAM
#include <weft.hpp>

#include <atomic>
#include <thread>

cudaError_t hold_stream_zero_per_thread(int* flag) {
  return weft::launch(
      1, 1,
      [](int* f) {
        while (std::atomic_ref<int>(*f).load() == 0) std::this_thread::yield();
      },
      flag);
}

cudaError_t query_stream_zero_per_thread() { return cudaStreamQuery(0); }
