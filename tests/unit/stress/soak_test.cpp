// Load (issue 16, item 6): 8 host threads at once, each with its own
// streams, copying in, launching, copying out, recording events and waiting
// on them, round after round, every result checked; and each thread's
// stream waits on its neighbour thread's event, so events cross threads.
// Built with -fsanitize=thread it must be silent (docs/debugging.md,
// "Hostile input and load").
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <barrier>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int soak_threads = 8;
constexpr int soak_rounds = 200;
constexpr int soak_ints = 1024;

__global__ void soak_twice_plus_one(int* data, int count) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < count;
       i += static_cast<int>(gridDim.x * blockDim.x))
    data[i] = 2 * data[i] + 1;
}

// A thread's progress, read by its neighbour's kernels while it moves on.
__global__ void soak_publish(int* progress, int round) { std::atomic_ref<int>(*progress).store(round); }

__global__ void soak_expect_at_least(const int* progress, int round, int* shortfalls) {
  if (std::atomic_ref<const int>(*progress).load() < round) std::atomic_ref<int>(*shortfalls).fetch_add(1);
}

void soak_count_host_call(void* calls) { std::atomic_ref<int>(*static_cast<int*>(calls)).fetch_add(1); }

// What went wrong, gathered from all threads and checked by the test's own.
struct soak_failures {
  std::atomic<int> calls{0};    // a runtime call that should have succeeded
  std::atomic<int> results{0};  // a wrong value read back
  std::atomic<int> first_code{cudaSuccess};

  void call(cudaError_t e) {
    if (e == cudaSuccess) return;
    int none = cudaSuccess;
    first_code.compare_exchange_strong(none, e);
    ++calls;
  }
};

struct soak_shared {
  std::vector<cudaEvent_t> published{std::vector<cudaEvent_t>(soak_threads)};
  int* progress = nullptr;    // one counter per thread, managed memory
  int* shortfalls = nullptr;  // neighbour checks that found too little progress
  std::barrier<> round_done{soak_threads};
  soak_failures failures;
};

void soak_host_thread(int me, soak_shared& shared) {
  soak_failures& f = shared.failures;
  cudaStream_t in = nullptr, out = nullptr;
  f.call(cudaStreamCreate(&in));
  f.call(cudaStreamCreateWithFlags(&out, cudaStreamNonBlocking));
  int* device = nullptr;
  int *host_in = nullptr, *host_out = nullptr, *host_calls = nullptr;
  f.call(cudaMalloc(&device, soak_ints * sizeof(int)));
  f.call(cudaMallocHost(&host_in, soak_ints * sizeof(int)));
  f.call(cudaHostAlloc(&host_out, soak_ints * sizeof(int), cudaHostAllocDefault));
  f.call(cudaMallocManaged(&host_calls, sizeof(int)));
  cudaEvent_t copied_in = nullptr;
  f.call(cudaEventCreateWithFlags(&copied_in, cudaEventDisableTiming));
  f.call(cudaEventCreate(&shared.published[static_cast<std::size_t>(me)]));
  if (f.calls) return shared.round_done.arrive_and_drop();  // the others go on without this thread
  *host_calls = 0;
  shared.round_done.arrive_and_wait();  // every thread's event exists
  int neighbour = (me + 1) % soak_threads;
  int expected_calls = 0;
  for (int round = 1; round <= soak_rounds; ++round) {
    for (int i = 0; i < soak_ints; ++i) host_in[i] = me * 1000000 + round * 1000 + i;
    // In: copy, compute, publish the round; out: wait for that, copy back.
    f.call(cudaMemsetAsync(device, 0xff, soak_ints * sizeof(int), in));
    f.call(cudaMemcpyAsync(device, host_in, soak_ints * sizeof(int), cudaMemcpyHostToDevice, in));
    f.call(cudaEventRecord(copied_in, in));
    f.call(weft::launch({4, 128, 0, in}, soak_twice_plus_one, device, soak_ints));
    f.call(weft::launch({1, 1, 0, in}, soak_publish, shared.progress + me, round));
    f.call(cudaEventRecord(shared.published[static_cast<std::size_t>(me)], in));
    f.call(cudaStreamWaitEvent(out, shared.published[static_cast<std::size_t>(me)], 0));
    f.call(cudaMemcpyAsync(host_out, device, soak_ints * sizeof(int), cudaMemcpyDeviceToHost, out));
    if (round % 8 == 0) {
      f.call(cudaLaunchHostFunc(out, soak_count_host_call, host_calls));
      ++expected_calls;
    }
    // Every thread has recorded this round: the neighbour's latest record
    // follows its publication of this round (or a later one).
    shared.round_done.arrive_and_wait();
    f.call(cudaStreamWaitEvent(out, shared.published[static_cast<std::size_t>(neighbour)], 0));
    f.call(weft::launch({1, 1, 0, out}, soak_expect_at_least, shared.progress + neighbour, round, shared.shortfalls));
    if (round % 2 == 0) {
      f.call(cudaStreamSynchronize(out));
    } else {
      f.call(cudaEventSynchronize(shared.published[static_cast<std::size_t>(me)]));
      f.call(cudaStreamSynchronize(out));
    }
    f.call(cudaEventQuery(copied_in));
    for (int i = 0; i < soak_ints; ++i)
      if (host_out[i] != 2 * (me * 1000000 + round * 1000 + i) + 1) ++f.results;
    if (std::atomic_ref<int>(*host_calls).load() != expected_calls) ++f.results;
  }
  // No thread may destroy its event while a neighbour may still wait on it.
  shared.round_done.arrive_and_wait();
  f.call(cudaEventDestroy(copied_in));
  f.call(cudaEventDestroy(shared.published[static_cast<std::size_t>(me)]));
  f.call(cudaStreamDestroy(in));
  f.call(cudaStreamDestroy(out));
  f.call(cudaFree(device));
  f.call(cudaFreeHost(host_in));
  f.call(cudaFreeHost(host_out));
  f.call(cudaFree(host_calls));
  f.call(cudaGetLastError());
}

}  // namespace

TEST_CASE("soak: 8 host threads with their own streams, events waited on across threads, every result checked") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  soak_shared shared;
  REQUIRE(cudaMallocManaged(&shared.progress, soak_threads * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&shared.shortfalls, sizeof(int)) == cudaSuccess);
  for (int t = 0; t < soak_threads; ++t) shared.progress[t] = 0;
  *shared.shortfalls = 0;
  std::vector<std::thread> hosts;
  for (int t = 0; t < soak_threads; ++t) hosts.emplace_back(soak_host_thread, t, std::ref(shared));
  for (auto& h : hosts) h.join();
  INFO("first failing call: " << cudaGetErrorName(static_cast<cudaError_t>(shared.failures.first_code.load())));
  CHECK(shared.failures.calls == 0);
  CHECK(shared.failures.results == 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*shared.shortfalls == 0);
  for (int t = 0; t < soak_threads; ++t) CHECK(shared.progress[t] == soak_rounds);
  CHECK(cudaFree(shared.progress) == cudaSuccess);
  CHECK(cudaFree(shared.shortfalls) == cudaSuccess);
}
