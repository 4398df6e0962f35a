// Streams and events (CUDA guide, "Asynchronous Concurrent Execution"):
// order within a stream, concurrency across streams, the legacy default
// stream's implicit synchronisation, event waits, callbacks, queries, timing,
// destruction while busy, error propagation, priorities, and many host
// threads at once. Where a test needs work to be held back, a "gate" kernel
// spins on a flag the host sets, so what is checked is an order, never a time.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "device_buffer.hpp"
#include "error_checks.hpp"
#include "stream_gates.hpp"

namespace {

// Sets *p = value.
void mark(cudaStream_t stream, int* p, int value) {
  REQUIRE(weft::launch(
              {1, 1, 0, stream}, [](int* q, int v) { std::atomic_ref<int>(*q).store(v); }, p, value) == cudaSuccess);
}

int read_atomically(const int* p) { return std::atomic_ref<const int>(*p).load(); }

struct managed_ints {
  int* p = nullptr;
  explicit managed_ints(std::size_t n) {
    REQUIRE(cudaMallocManaged(&p, n * sizeof(int)) == cudaSuccess);
    for (std::size_t i = 0; i < n; ++i) p[i] = 0;
  }
  ~managed_ints() { cudaFree(p); }
};

}  // namespace

TEST_CASE("commands of one stream run in the order they were issued") {
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  managed_ints log(2);
  // Each kernel checks that it follows the one before: a kernel that ran
  // out of order would find the wrong count.
  for (int i = 0; i < 200; ++i)
    REQUIRE(weft::launch(
                {2, 64, 0, s},
                [](int* l, int expected) {
                  __shared__ int seen;
                  if (threadIdx.x == 0) seen = std::atomic_ref<int>(l[0]).load();
                  __syncthreads();
                  if (seen != expected) std::atomic_ref<int>(l[1]).fetch_add(1);
                  __syncthreads();
                  // The grid's last block to finish moves the count on.
                  if (threadIdx.x == 0 && std::atomic_ref<int>(l[1]).fetch_add(0x10000) / 0x10000 % 2 == 1)
                    std::atomic_ref<int>(l[0]).fetch_add(1);
                },
                log.p, i) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(log.p[0] == 200);
  CHECK((log.p[1] & 0xffff) == 0);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("asynchronous copies and sets are ordered with kernels in their stream") {
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  const int n = 4096;
  std::vector<int> in(n), out(n, -1);
  for (int i = 0; i < n; ++i) in[i] = i;
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
  gate g;
  g.hold(s);  // nothing below may run before the gate opens
  CHECK(cudaMemsetAsync(d, 0, n * sizeof(int), s) == cudaSuccess);
  CHECK(cudaMemcpyAsync(d, in.data(), n / 2 * sizeof(int), cudaMemcpyHostToDevice, s) == cudaSuccess);
  REQUIRE(weft::launch(
              {n / 256, 256, 0, s},
              [](int* p) {
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                p[i] = p[i] * 2 + 1;
              },
              d) == cudaSuccess);
  CHECK(cudaMemcpyAsync(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s) == cudaSuccess);
  CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
  CHECK(out[0] == -1);
  g.open();
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  for (int i = 0; i < n; ++i) REQUIRE(out[i] == (i < n / 2 ? 2 * i + 1 : 1));
  cudaFree(d);
  cudaStreamDestroy(s);
}

TEST_CASE("kernels in two streams run at the same time: a flag handed back and forth") {
  enough_workers workers(2);
  cudaStream_t a, b;
  REQUIRE(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking) == cudaSuccess);
  managed_ints flag(1);
  auto player = [](int* f, int parity) {
    for (int turn = parity; turn < 20; turn += 2) {
      while (std::atomic_ref<int>(*f).load() != turn) std::this_thread::yield();
      std::atomic_ref<int>(*f).store(turn + 1);
    }
  };
  // Many rounds, launched back to back: the second kernel must get a worker
  // even when the first has taken the one that was awake.
  for (int round = 0; round < 300; ++round) {
    std::atomic_ref<int>(*flag.p).store(0);
    REQUIRE(weft::launch({1, 1, 0, a}, player, flag.p, 0) == cudaSuccess);
    REQUIRE(weft::launch({1, 1, 0, b}, player, flag.p, 1) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(read_atomically(flag.p) == 20);
  }
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}

TEST_CASE("the legacy default stream waits for blocking streams, not for non-blocking ones") {
  cudaGetLastError();  // what an earlier test in this process left
  enough_workers workers(2);
  managed_ints marks(2);
  SUBCASE("a blocking stream holds back later work on stream 0") {
    cudaStream_t blocking;
    REQUIRE(cudaStreamCreate(&blocking) == cudaSuccess);
    gate g;
    g.hold(blocking);
    mark(0, marks.p, 1);
    CHECK(cudaStreamQuery(0) == cudaErrorNotReady);
    CHECK(cudaGetLastError() == cudaSuccess);  // not ready is not an error
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(read_atomically(marks.p) == 0);
    g.open();
    CHECK(cudaStreamSynchronize(0) == cudaSuccess);
    CHECK(read_atomically(marks.p) == 1);
    CHECK(cudaStreamDestroy(blocking) == cudaSuccess);
  }
  SUBCASE("work on stream 0 holds back later work on a blocking stream") {
    cudaStream_t blocking;
    REQUIRE(cudaStreamCreate(&blocking) == cudaSuccess);
    gate g;
    g.hold(0);
    mark(blocking, marks.p, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(cudaStreamQuery(blocking) == cudaErrorNotReady);
    CHECK(read_atomically(marks.p) == 0);
    g.open();
    CHECK(cudaStreamSynchronize(blocking) == cudaSuccess);
    CHECK(read_atomically(marks.p) == 2);
    CHECK(cudaStreamDestroy(blocking) == cudaSuccess);
  }
  SUBCASE("a non-blocking stream runs past stream 0, and stream 0 past it") {
    cudaStream_t independent;
    REQUIRE(cudaStreamCreateWithFlags(&independent, cudaStreamNonBlocking) == cudaSuccess);
    gate g;
    g.hold(independent);
    mark(0, marks.p, 3);
    CHECK(cudaStreamSynchronize(0) == cudaSuccess);
    CHECK(read_atomically(marks.p) == 3);
    CHECK(cudaStreamQuery(independent) == cudaErrorNotReady);
    gate g0;
    g0.hold(0);
    mark(independent, marks.p + 1, 4);
    g.open();
    CHECK(cudaStreamSynchronize(independent) == cudaSuccess);
    CHECK(read_atomically(marks.p + 1) == 4);
    g0.open();
    CHECK(cudaStreamDestroy(independent) == cudaSuccess);
  }
  SUBCASE("a synchronous copy is a command of stream 0") {
    cudaStream_t blocking;
    REQUIRE(cudaStreamCreate(&blocking) == cudaSuccess);
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, sizeof(int)) == cudaSuccess);
    mark(blocking, d, 7);
    int host = 0;
    CHECK(cudaMemcpy(&host, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(host == 7);
    cudaFree(d);
    CHECK(cudaStreamDestroy(blocking) == cudaSuccess);
  }
}

TEST_CASE("per-thread default streams of two host threads do not wait for each other") {
  enough_workers workers(2);
  managed_ints marks(1);
  gate g;
  std::thread holder([&] { g.hold(cudaStreamPerThread); });
  holder.join();
  std::thread other([&] {
    mark(cudaStreamPerThread, marks.p, 5);
    CHECK(cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess);
  });
  other.join();
  CHECK(read_atomically(marks.p) == 5);
  // The per-thread stream is a blocking stream: stream 0 waits for it.
  mark(cudaStreamLegacy, marks.p, 6);
  CHECK(cudaStreamQuery(cudaStreamLegacy) == cudaErrorNotReady);
  g.open();
  CHECK(cudaStreamSynchronize(cudaStreamLegacy) == cudaSuccess);
  CHECK(read_atomically(marks.p) == 6);
}

TEST_CASE("cudaStreamWaitEvent holds a stream until another stream reaches the event") {
  enough_workers workers(2);
  cudaStream_t producer, consumer;
  REQUIRE(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t ready = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming) == cudaSuccess);
  managed_ints marks(2);
  gate first, second;
  first.hold(producer);
  mark(producer, marks.p, 1);
  CHECK(cudaEventRecord(ready, producer) == cudaSuccess);
  second.hold(producer);
  mark(producer, marks.p, 2);
  CHECK(cudaStreamWaitEvent(consumer, ready, 0) == cudaSuccess);
  // The consumer copies what the producer wrote before the record.
  REQUIRE(weft::launch(
              {1, 1, 0, consumer}, [](int* m) { m[1] = m[0] + 10; }, marks.p) == cudaSuccess);
  // Recording again later does not move what the consumer waits for.
  CHECK(cudaEventRecord(ready, producer) == cudaSuccess);
  CHECK(cudaEventQuery(ready) == cudaErrorNotReady);
  CHECK(cudaStreamQuery(consumer) == cudaErrorNotReady);
  first.open();
  CHECK(cudaStreamSynchronize(consumer) == cudaSuccess);
  CHECK(read_atomically(marks.p + 1) == 11);
  CHECK(cudaEventQuery(ready) == cudaErrorNotReady);  // its latest record waits behind `second`
  second.open();
  CHECK(cudaStreamSynchronize(producer) == cudaSuccess);
  CHECK(cudaEventQuery(ready) == cudaSuccess);
  CHECK(read_atomically(marks.p) == 2);
  // Waiting for an event that was never recorded waits for nothing.
  cudaEvent_t never = nullptr;
  REQUIRE(cudaEventCreate(&never) == cudaSuccess);
  CHECK(cudaStreamWaitEvent(consumer, never, 0) == cudaSuccess);
  CHECK(cudaStreamSynchronize(consumer) == cudaSuccess);
  cudaEventDestroy(never);
  cudaEventDestroy(ready);
  cudaStreamDestroy(producer);
  cudaStreamDestroy(consumer);
}

namespace {

struct callback_log {
  std::atomic<int> count{0};
  int order[8] = {};
  std::thread::id thread;
  cudaError_t status = cudaErrorUnknown;
  cudaStream_t stream = nullptr;
};

callback_log* active_log = nullptr;

void CUDART_CB record_callback(cudaStream_t stream, cudaError_t status, void* data) {
  int n = active_log->count.fetch_add(1);
  active_log->order[n] = static_cast<int>(reinterpret_cast<std::intptr_t>(data));
  active_log->thread = std::this_thread::get_id();
  active_log->status = status;
  active_log->stream = stream;
}

}  // namespace

TEST_CASE("callbacks run on a host thread in stream order, and later work waits for them") {
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  callback_log log;
  active_log = &log;
  managed_ints data(2);
  gate g;
  g.hold(s);
  mark(s, data.p, 3);
  for (std::intptr_t i = 0; i < 4; ++i)
    CHECK(cudaStreamAddCallback(s, record_callback, reinterpret_cast<void*>(i), 0) == cudaSuccess);
  // A host function sees the kernel's result, and the next kernel sees the host function's.
  static std::atomic<bool> release{false};
  release = false;
  CHECK(cudaLaunchHostFunc(
            s,
            [](void* p) {
              auto* d = static_cast<int*>(p);
              while (!release) std::this_thread::yield();  // a slow callback holds its stream
              d[1] = d[0] * 100;
            },
            data.p) == cudaSuccess);
  REQUIRE(weft::launch(
              {1, 1, 0, s}, [](int* d) { d[0] = d[1] + 1; }, data.p) == cudaSuccess);
  CHECK(log.count == 0);
  g.open();
  while (log.count < 4) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
  CHECK(read_atomically(data.p) == 3);
  release = true;
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(data.p[0] == 301);
  for (int i = 0; i < 4; ++i) CHECK(log.order[i] == i);
  CHECK(log.thread != std::this_thread::get_id());
  CHECK(log.status == cudaSuccess);
  CHECK(log.stream == s);
  active_log = nullptr;
  cudaStreamDestroy(s);
}

TEST_CASE("a host function that calls the runtime to enqueue or wait gets cudaErrorNotPermitted") {
  struct results {
    cudaError_t sync_stream, sync_device, copy, launch, record;
    cudaError_t last;
  } r{};
  cudaEvent_t e = nullptr;
  REQUIRE(cudaEventCreate(&e) == cudaSuccess);
  static cudaEvent_t event = nullptr;
  event = e;
  CHECK(cudaLaunchHostFunc(
            0,
            [](void* p) {
              auto* r = static_cast<results*>(p);
              int x = 0, y = 0;
              r->sync_stream = cudaStreamSynchronize(0);
              r->sync_device = cudaDeviceSynchronize();
              r->copy = cudaMemcpy(&x, &y, sizeof(int), cudaMemcpyHostToHost);
              r->launch = weft::launch(1, 1, [] {});
              r->record = cudaEventRecord(event, 0);
              r->last = cudaGetLastError();
            },
            &r) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(r.sync_stream == cudaErrorNotPermitted);
  CHECK(r.sync_device == cudaErrorNotPermitted);
  CHECK(r.copy == cudaErrorNotPermitted);
  CHECK(r.launch == cudaErrorNotPermitted);
  CHECK(r.record == cudaErrorNotPermitted);
  CHECK(r.last == cudaErrorNotPermitted);
  cudaEventDestroy(e);
}

TEST_CASE("events: queries, synchronisation and elapsed time") {
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  cudaEvent_t start = nullptr, middle = nullptr, stop = nullptr;
  REQUIRE(cudaEventCreate(&start) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&middle, cudaEventBlockingSync) == cudaSuccess);
  REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
  float ms = -1;
  // Never recorded: complete, but without a time.
  CHECK(cudaEventQuery(start) == cudaSuccess);
  CHECK(cudaEventSynchronize(start) == cudaSuccess);
  check_failed_with(cudaEventElapsedTime(&ms, start, stop), cudaErrorInvalidResourceHandle);

  auto sleep_ms = [](int n) { std::this_thread::sleep_for(std::chrono::milliseconds(n)); };
  gate g;
  g.hold(s);
  CHECK(cudaEventRecord(start, s) == cudaSuccess);
  REQUIRE(weft::launch({1, 1, 0, s}, sleep_ms, 20) == cudaSuccess);
  CHECK(cudaEventRecord(middle, s) == cudaSuccess);
  REQUIRE(weft::launch({1, 1, 0, s}, sleep_ms, 10) == cudaSuccess);
  CHECK(cudaEventRecord(stop, s) == cudaSuccess);
  CHECK(cudaEventQuery(stop) == cudaErrorNotReady);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorNotReady);
  CHECK(cudaGetLastError() == cudaSuccess);  // not ready is not an error
  g.open();
  CHECK(cudaEventSynchronize(stop) == cudaSuccess);
  CHECK(cudaEventQuery(stop) == cudaSuccess);
  float first = 0, second = 0, whole = 0;
  REQUIRE(cudaEventElapsedTime(&first, start, middle) == cudaSuccess);
  REQUIRE(cudaEventElapsedTime(&second, middle, stop) == cudaSuccess);
  REQUIRE(cudaEventElapsedTime(&whole, start, stop) == cudaSuccess);
  CHECK(first >= 20.0f);
  CHECK(second >= 10.0f);
  CHECK(whole == doctest::Approx(first + second).epsilon(0.001));
  REQUIRE(cudaEventElapsedTime(&ms, stop, start) == cudaSuccess);
  CHECK(ms == doctest::Approx(-whole).epsilon(0.001));

  // Recorded on stream 0 too.
  CHECK(cudaEventRecord(start) == cudaSuccess);
  CHECK(cudaEventSynchronize(start) == cudaSuccess);

  cudaEvent_t untimed = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming) == cudaSuccess);
  CHECK(cudaEventRecord(untimed, s) == cudaSuccess);
  CHECK(cudaEventSynchronize(untimed) == cudaSuccess);
  check_failed_with(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaEventElapsedTime(nullptr, start, stop), cudaErrorInvalidValue);

  for (cudaEvent_t e : {start, middle, stop, untimed}) CHECK(cudaEventDestroy(e) == cudaSuccess);
  check_failed_with(cudaEventDestroy(start), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaEventRecord(start, s), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaEventQuery(start), cudaErrorInvalidResourceHandle);
  cudaStreamDestroy(s);
}

TEST_CASE("cudaEventCreate(event, flags), the C++ overload of <cuda_runtime.h>, is cudaEventCreateWithFlags") {
  cudaEvent_t timed = nullptr, untimed = nullptr, bad = nullptr;
  REQUIRE(cudaEventCreate(&timed, cudaEventDefault) == cudaSuccess);
  REQUIRE(cudaEventCreate(&untimed, cudaEventDisableTiming) == cudaSuccess);
  CHECK(cudaEventRecord(timed) == cudaSuccess);
  CHECK(cudaEventRecord(untimed) == cudaSuccess);
  CHECK(cudaEventSynchronize(untimed) == cudaSuccess);
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, timed, timed) == cudaSuccess);
  // The flag took effect: an event without timing has no time to compare.
  check_failed_with(cudaEventElapsedTime(&ms, timed, untimed), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaEventCreate(&bad, 0x100), cudaErrorInvalidValue);
  for (cudaEvent_t e : {timed, untimed}) CHECK(cudaEventDestroy(e) == cudaSuccess);
}

TEST_CASE("bad arguments get CUDA's error codes") {
  cudaStream_t s = nullptr;
  check_failed_with(cudaStreamCreate(nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaStreamCreateWithFlags(&s, 0x4), cudaErrorInvalidValue);
  cudaEvent_t e = nullptr;
  check_failed_with(cudaEventCreate(nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaEventCreateWithFlags(&e, 0x100), cudaErrorInvalidValue);
  check_failed_with(cudaEventCreateWithFlags(&e, cudaEventInterprocess), cudaErrorInvalidValue);
  check_failed_with(cudaStreamDestroy(0), cudaErrorInvalidResourceHandle);
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  check_failed_with(cudaStreamAddCallback(s, nullptr, nullptr, 0), cudaErrorInvalidValue);
  check_failed_with(cudaLaunchHostFunc(s, nullptr, nullptr), cudaErrorInvalidValue);
  unsigned flags = 99;
  CHECK(cudaStreamGetFlags(s, &flags) == cudaSuccess);
  CHECK(flags == cudaStreamDefault);
  check_succeeded(cudaStreamDestroy(s));
  // A destroyed stream is no stream.
  check_failed_with(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
  check_failed_with(weft::launch({1, 1, 0, s}, [] {}), cudaErrorInvalidResourceHandle);
  device_buffer<int> d(1);
  check_failed_with(cudaMemsetAsync(d.p, 0, 4, s), cudaErrorInvalidResourceHandle);
  auto made_up = reinterpret_cast<cudaStream_t>(0x1234);
  check_failed_with(cudaStreamSynchronize(made_up), cudaErrorInvalidResourceHandle);
}

TEST_CASE("stream priorities: the range, clamping, and urgent blocks first") {
  int least = 1, greatest = 1;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess);
  CHECK(least == 0);
  CHECK(greatest < 0);
  cudaStream_t low, high, clamped;
  REQUIRE(cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, least) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithPriority(&clamped, cudaStreamDefault, greatest - 10) == cudaSuccess);
  int p = 1;
  CHECK(cudaStreamGetPriority(high, &p) == cudaSuccess);
  CHECK(p == greatest);
  CHECK(cudaStreamGetPriority(clamped, &p) == cudaSuccess);
  CHECK(p == greatest);
  CHECK(cudaStreamGetPriority(0, &p) == cudaSuccess);
  CHECK(p == 0);

  // One worker, held by a gate: when it opens, both grids wait, and the
  // urgent one's blocks all go first although it was launched second.
  {
    exact_workers one(1);
    managed_ints log(41);
    cudaStream_t holder;
    REQUIRE(cudaStreamCreateWithFlags(&holder, cudaStreamNonBlocking) == cudaSuccess);
    gate g;
    g.hold(holder);
    auto append = [](int* l, int tag) {
      if (threadIdx.x == 0) l[1 + std::atomic_ref<int>(l[0]).fetch_add(1)] = tag;
    };
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // let the worker take the gate
    REQUIRE(weft::launch({20, 32, 0, low}, append, log.p, 1) == cudaSuccess);
    REQUIRE(weft::launch({20, 32, 0, high}, append, log.p, 2) == cudaSuccess);
    g.open();
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(log.p[0] == 40);
    for (int i = 0; i < 20; ++i) CHECK(log.p[1 + i] == 2);
    for (int i = 20; i < 40; ++i) CHECK(log.p[1 + i] == 1);
    cudaStreamDestroy(holder);
  }
  for (cudaStream_t s : {low, high, clamped}) CHECK(cudaStreamDestroy(s) == cudaSuccess);
}

TEST_CASE("a stream destroyed while busy returns at once and its work still completes") {
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  managed_ints marks(1);
  gate g;
  g.hold(s);
  mark(s, marks.p, 9);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
  CHECK(read_atomically(marks.p) == 0);
  g.open();
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(read_atomically(marks.p) == 9);
}

TEST_CASE("cudaDeviceSynchronize waits for the work of every host thread") {
  managed_ints marks(1);
  std::atomic<bool> enqueued{false};
  std::thread other([&] {
    cudaStream_t s;
    REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(weft::launch(
                {1, 1, 0, s},
                [](int* m) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(30));
                  std::atomic_ref<int>(*m).store(1);
                },
                marks.p) == cudaSuccess);
    enqueued = true;
    cudaStreamDestroy(s);
  });
  while (!enqueued) std::this_thread::yield();
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(read_atomically(marks.p) == 1);
  other.join();
}

TEST_CASE("a kernel that fails in a stream is reported by later calls") {
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  static callback_log log;
  active_log = &log;
  REQUIRE(weft::launch({2, 32, 0, s}, [] {
            if (threadIdx.x == 1) throw std::runtime_error("failure in a stream");
          }) == cudaSuccess);
  CHECK(cudaStreamAddCallback(s, record_callback, nullptr, 0) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(log.status == cudaErrorLaunchFailure);  // the callback was told
  CHECK(cudaStreamQuery(s) == cudaErrorLaunchFailure);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  active_log = nullptr;
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
  // The reset destroyed the device's streams.
  check_failed_with(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
}

TEST_CASE("stress: 8 host threads x 4 streams x 500 launches with events and callbacks") {
  constexpr int threads = 8, streams = 4, launches = 500;
  std::vector<std::thread> hosts;
  std::atomic<int> failures{0};
  for (int t = 0; t < threads; ++t)
    hosts.emplace_back([&] {
      cudaStream_t s[streams];
      cudaEvent_t e[streams] = {};
      long long* sums = nullptr;
      if (cudaMallocManaged(&sums, streams * sizeof(long long)) != cudaSuccess) return void(++failures);
      struct progress {
        std::atomic<int> callbacks{0};
        std::atomic<int> out_of_order{0};
        long long* sum;
      };
      std::vector<progress> seen(streams);
      for (int k = 0; k < streams; ++k) {
        sums[k] = 0;
        seen[k].sum = &sums[k];
        if (cudaStreamCreateWithFlags(&s[k], k % 2 ? cudaStreamNonBlocking : cudaStreamDefault) != cudaSuccess ||
            cudaEventCreateWithFlags(&e[k], cudaEventDisableTiming) != cudaSuccess)
          return void(++failures);
      }
      for (int i = 0; i < launches; ++i)
        for (int k = 0; k < streams; ++k) {
          // Each kernel adds i to its stream's sum: sequential in the
          // stream, so no atomics are needed if the order holds.
          if (weft::launch(
                  {1, 32, 0, s[k]},
                  [](long long* sum, int value) {
                    if (threadIdx.x == 0) *sum += value;
                  },
                  &sums[k], i + 1) != cudaSuccess)
            ++failures;
          if (i % 50 == 49) {
            // The callback sees exactly the sum so far.
            auto* p = &seen[k];
            if (cudaLaunchHostFunc(
                    s[k],
                    [](void* q) {
                      auto* pr = static_cast<progress*>(q);
                      int n = pr->callbacks.fetch_add(1) + 1;
                      long long want = 1ll * (50 * n) * (50 * n + 1) / 2;
                      if (*pr->sum != want) pr->out_of_order.fetch_add(1);
                    },
                    p) != cudaSuccess)
              ++failures;
          }
          if (i % 100 == 99) {
            // Each stream waits for its neighbour's progress so far.
            if (cudaEventRecord(e[k], s[k]) != cudaSuccess) ++failures;
            if (cudaStreamWaitEvent(s[(k + 1) % streams], e[k], 0) != cudaSuccess) ++failures;
          }
        }
      for (int k = 0; k < streams; ++k) {
        if (cudaStreamSynchronize(s[k]) != cudaSuccess) ++failures;
        if (sums[k] != 1ll * launches * (launches + 1) / 2) ++failures;
        if (seen[k].callbacks != launches / 50 || seen[k].out_of_order != 0) ++failures;
        if (cudaEventQuery(e[k]) != cudaSuccess) ++failures;
        cudaEventDestroy(e[k]);
        cudaStreamDestroy(s[k]);
      }
      cudaFree(sums);
    });
  for (auto& h : hosts) h.join();
  CHECK(failures == 0);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}
