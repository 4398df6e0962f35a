// Host coroutines (weft/coroutine.hpp): co_await a stream, an event or a
// launch; where coroutines resume; task<T>, when_all and sync_wait.
//
// A test that needs a coroutine to be suspended holds its stream with a
// "gate" kernel that spins on a flag the host sets, and opens the gate from a
// second task that when_all starts only once the first has suspended; so
// what is checked is an order, never a time.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/coroutine.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "error_checks.hpp"
#include "stream_gates.hpp"

namespace {

using std::this_thread::get_id;

struct owned_stream {
  cudaStream_t s = nullptr;
  explicit owned_stream(unsigned flags = cudaStreamDefault) {
    REQUIRE(cudaStreamCreateWithFlags(&s, flags) == cudaSuccess);
  }
  ~owned_stream() { cudaStreamDestroy(s); }
  operator cudaStream_t() const { return s; }
};

weft::task<void> call(std::function<void()> f) {
  f();
  co_return;
}

// Runs `waiter`, whose first suspension must be a co_await on work held by
// a gate, then `open`, which opens it: when_all starts `open` only once
// `waiter` has suspended.
void run_then_open(weft::task<void> waiter, std::function<void()> open) {
  std::vector<weft::task<void>> both;
  both.push_back(std::move(waiter));
  both.push_back(call(std::move(open)));
  weft::sync_wait(weft::when_all(std::move(both)));
}

// Records the thread a kernel or host function ran on.
__global__ void note_thread(std::thread::id* where) { *where = get_id(); }
void note_host_thread(void* where) { *static_cast<std::thread::id*>(where) = get_id(); }

}  // namespace

TEST_CASE("co_await completion(stream): after its kernels, copies and host functions, on the resumption thread") {
  owned_stream s;
  const int n = 4096;
  std::vector<int> in(n), out(n, -1);
  for (int i = 0; i < n; ++i) in[i] = i;
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
  gate g;
  struct {
    std::thread::id before, after, idle, kernel, host_function;
    cudaError_t awaited = cudaErrorUnknown, idle_awaited = cudaErrorUnknown;
    bool gate_was_open = false, results = false;
    cudaError_t synchronize = cudaErrorUnknown, copy = cudaErrorUnknown, launch = cudaErrorUnknown;
  } seen;
  auto waiter = [&]() -> weft::task<void> {
    g.hold(s);
    CHECK(cudaMemcpyAsync(d, in.data(), n * sizeof(int), cudaMemcpyHostToDevice, s) == cudaSuccess);
    REQUIRE(weft::launch(
                {n / 256, 256, 0, s},
                [](int* p) {
                  int i = blockIdx.x * blockDim.x + threadIdx.x;
                  p[i] = p[i] * 2 + 1;
                },
                d) == cudaSuccess);
    REQUIRE(weft::launch({1, 1, 0, s}, note_thread, &seen.kernel) == cudaSuccess);
    CHECK(cudaMemcpyAsync(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s) == cudaSuccess);
    // The stream ends with a host function: resuming where it completes
    // would resume on the host-function thread.
    CHECK(cudaLaunchHostFunc(s, note_host_thread, &seen.host_function) == cudaSuccess);
    seen.before = get_id();
    seen.awaited = co_await weft::completion(s);
    seen.after = get_id();
    seen.gate_was_open = g.opened;
    // Blocking calls would hang where the resumption is wrong: the checks
    // after sync_wait report it instead.
    if (!seen.gate_was_open || seen.after == seen.host_function || seen.after == seen.kernel) co_return;
    seen.results = true;
    for (int i = 0; i < n; ++i) seen.results = seen.results && out[i] == 2 * i + 1;
    // Runtime calls work here, blocking ones included.
    seen.synchronize = cudaStreamSynchronize(s);
    seen.copy = cudaMemcpy(out.data(), d, sizeof(int), cudaMemcpyDeviceToHost);
    seen.launch = weft::launch({1, 1, 0, s}, [] {});
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    // An idle stream: no suspension.
    seen.idle_awaited = co_await weft::completion(s);
    seen.idle = get_id();
  };
  run_then_open(waiter(), [&] { g.open(); });
  CHECK(seen.awaited == cudaSuccess);
  CHECK(seen.gate_was_open);
  CHECK(seen.results);
  CHECK(seen.before == get_id());
  CHECK(seen.after != get_id());
  CHECK(seen.after != seen.kernel);
  CHECK(seen.after != seen.host_function);
  CHECK(seen.synchronize == cudaSuccess);
  CHECK(seen.copy == cudaSuccess);
  CHECK(seen.launch == cudaSuccess);
  CHECK(seen.idle_awaited == cudaSuccess);
  CHECK(seen.idle == seen.after);
  cudaFree(d);
}

TEST_CASE("co_await launch_and_await: after the grid, not on an SM worker; one resumption thread") {
  owned_stream s;
  int* value = nullptr;
  REQUIRE(cudaMallocManaged(&value, sizeof(int)) == cudaSuccess);
  *value = 0;
  std::thread::id resumed[2], kernel[2];
  for (int round = 0; round < 2; ++round) {
    gate g;
    cudaError_t awaited = cudaErrorUnknown;
    int seen = -1;
    auto waiter = [&]() -> weft::task<void> {
      g.hold(s);
      awaited = co_await weft::launch_and_await(
          {1, 1, 0, s},
          [](int* v, std::thread::id* where) {
            *where = get_id();
            *v += 1;
          },
          value, &kernel[round]);
      resumed[round] = get_id();
      seen = *value;
    };
    run_then_open(waiter(), [&] { g.open(); });
    CHECK(awaited == cudaSuccess);
    CHECK(seen == round + 1);
    CHECK(resumed[round] != kernel[round]);
    CHECK(resumed[round] != get_id());
  }
  CHECK(resumed[0] == resumed[1]);
  cudaFree(value);
}

TEST_CASE("co_await completion of the legacy stream: after blocking streams' work, not non-blocking streams'") {
  enough_workers workers(2);
  owned_stream blocking, non_blocking(cudaStreamNonBlocking);
  gate held_blocking, held_non_blocking;
  cudaError_t awaited = cudaErrorUnknown, non_blocking_state = cudaErrorUnknown;
  bool blocking_was_open = false;
  auto waiter = [&]() -> weft::task<void> {
    held_blocking.hold(blocking);
    held_non_blocking.hold(non_blocking);
    awaited = co_await weft::completion(nullptr);
    blocking_was_open = held_blocking.opened;
    non_blocking_state = cudaStreamQuery(non_blocking);
  };
  run_then_open(waiter(), [&] { held_blocking.open(); });
  CHECK(awaited == cudaSuccess);
  CHECK(blocking_was_open);
  CHECK(non_blocking_state == cudaErrorNotReady);
  held_non_blocking.open();
  CHECK(cudaStreamSynchronize(non_blocking) == cudaSuccess);
}

TEST_CASE("co_await completion(event): its latest record at the time of the co_await") {
  enough_workers workers(2);
  owned_stream s, other;
  cudaEvent_t e;
  REQUIRE(cudaEventCreate(&e) == cudaSuccess);

  SUBCASE("never recorded: complete, without suspending") {
    cudaError_t awaited = cudaErrorUnknown;
    std::thread::id after;
    auto waiter = [&]() -> weft::task<void> {
      awaited = co_await weft::completion(e);
      after = get_id();
    };
    weft::sync_wait(waiter());
    CHECK(awaited == cudaSuccess);
    CHECK(after == get_id());
  }
  SUBCASE("a pending record: resumes once it is done") {
    gate g;
    cudaError_t awaited = cudaErrorUnknown;
    bool gate_was_open = false;
    std::thread::id after;
    auto waiter = [&]() -> weft::task<void> {
      g.hold(s);
      REQUIRE(cudaEventRecord(e, s) == cudaSuccess);
      awaited = co_await weft::completion(e);
      gate_was_open = g.opened;
      after = get_id();
    };
    run_then_open(waiter(), [&] { g.open(); });
    CHECK(awaited == cudaSuccess);
    CHECK(gate_was_open);
    CHECK(after != get_id());
  }
  SUBCASE("recorded again before the co_await: the later record counts") {
    gate g;
    g.hold(s);
    REQUIRE(cudaEventRecord(e, s) == cudaSuccess);  // pending behind the gate
    REQUIRE(cudaEventRecord(e, other) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(other) == cudaSuccess);
    std::thread::id after;
    auto waiter = [&]() -> weft::task<void> {
      CHECK(co_await weft::completion(e) == cudaSuccess);
      after = get_id();
    };
    weft::sync_wait(waiter());
    CHECK(after == get_id());  // no suspension
    CHECK(!g.opened);
  }
  SUBCASE("recorded again after the co_await: the record awaited counts") {
    gate first, second;
    cudaError_t awaited = cudaErrorUnknown, latest = cudaErrorUnknown;
    auto waiter = [&]() -> weft::task<void> {
      first.hold(s);
      REQUIRE(cudaEventRecord(e, s) == cudaSuccess);
      awaited = co_await weft::completion(e);
      latest = cudaEventQuery(e);
    };
    run_then_open(waiter(), [&] {
      second.hold(other);
      REQUIRE(cudaEventRecord(e, other) == cudaSuccess);
      first.open();
    });
    CHECK(awaited == cudaSuccess);
    CHECK(latest == cudaErrorNotReady);
  }
  CHECK(cudaEventDestroy(e) == cudaSuccess);
  SUBCASE("a destroyed event: cudaErrorInvalidResourceHandle, without suspending") {
    auto waiter = [&]() -> weft::task<void> {
      check_failed_with(co_await weft::completion(e), cudaErrorInvalidResourceHandle);
    };
    weft::sync_wait(waiter());
  }
}

TEST_CASE("co_await: errors found before waiting come at once, as the last error") {
  cudaStream_t gone;
  REQUIRE(cudaStreamCreate(&gone) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(gone) == cudaSuccess);
  std::thread::id after;
  auto waiter = [&]() -> weft::task<void> {
    check_failed_with(co_await weft::launch_and_await({1, 2048}, [] {}), cudaErrorInvalidValue);
    check_failed_with(co_await weft::launch_and_await({1, 1, 0, gone}, [] {}), cudaErrorInvalidResourceHandle);
    check_failed_with(co_await weft::completion(gone), cudaErrorInvalidResourceHandle);
    after = get_id();
  };
  weft::sync_wait(waiter());
  CHECK(after == get_id());
}

TEST_CASE("co_await from a host function: cudaErrorNotPermitted, without suspending") {
  owned_stream s, other;
  struct result {
    cudaStream_t other;
    cudaError_t stream = cudaErrorUnknown, launch = cudaErrorUnknown;
  } r{other};
  auto in_host_function = [](void* data) {
    auto& r = *static_cast<result*>(data);
    auto waiter = [&]() -> weft::task<void> {
      r.stream = co_await weft::completion(r.other);
      r.launch = co_await weft::launch_and_await({1, 1, 0, r.other}, [] {});
    };
    weft::sync_wait(waiter());
  };
  REQUIRE(cudaLaunchHostFunc(s, in_host_function, &r) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(r.stream == cudaErrorNotPermitted);
  CHECK(r.launch == cudaErrorNotPermitted);
}

TEST_CASE("co_await a kernel that fails: the device's fault, once it has completed") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  cudaError_t awaited = cudaErrorUnknown, last = cudaErrorUnknown, after_last = cudaErrorUnknown;
  cudaError_t again = cudaErrorUnknown;
  bool gate_was_open = false;
  {
    // Destroyed before the reset below: a stream the reset destroyed is an invalid handle.
    owned_stream s;
    gate g;
    auto waiter = [&]() -> weft::task<void> {
      g.hold(s);
      awaited = co_await weft::launch_and_await({2, 32, 0, s}, [] {
        if (threadIdx.x == 1) throw std::runtime_error("failure awaited by a coroutine");
      });
      gate_was_open = g.opened;
      last = cudaGetLastError();
      after_last = cudaGetLastError();
      again = co_await weft::completion(s);  // sticky
      cudaGetLastError();
    };
    run_then_open(waiter(), [&] { g.open(); });
  }
  CHECK(awaited == cudaErrorLaunchFailure);
  CHECK(gate_was_open);
  CHECK(last == cudaErrorLaunchFailure);
  CHECK(after_last == cudaSuccess);
  CHECK(again == cudaErrorLaunchFailure);
  cudaGetLastError();
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("many coroutines interleave over several streams, each with its own results") {
  enough_workers workers(2);
  constexpr int streams = 4, coroutines = 24, rounds = 5, n = 512;
  std::vector<std::unique_ptr<owned_stream>> s;
  for (int i = 0; i < streams; ++i) s.push_back(std::make_unique<owned_stream>());
  // Every stream waits for the gate, so that every coroutine suspends
  // before any resumes.
  gate g;
  g.hold(*s[0]);
  cudaEvent_t opened = nullptr;
  REQUIRE(cudaEventCreate(&opened) == cudaSuccess);
  REQUIRE(cudaEventRecord(opened, *s[0]) == cudaSuccess);
  for (int i = 1; i < streams; ++i) REQUIRE(cudaStreamWaitEvent(*s[i], opened) == cudaSuccess);

  int suspended = 0, most_suspended = 0;
  auto work = [&](int id) -> weft::task<long> {
    cudaStream_t stream = *s[static_cast<std::size_t>(id % streams)];
    std::vector<int> host(n);
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
    long sum = 0;
    for (int round = 0; round < rounds; ++round) {
      for (int i = 0; i < n; ++i) host[i] = id * 1000 + i;
      CHECK(cudaMemcpyAsync(d, host.data(), n * sizeof(int), cudaMemcpyHostToDevice, stream) == cudaSuccess);
      // One thread at a time runs these coroutines: this one until the gate
      // opens, then the resumption thread.
      if (int now = ++suspended; now > most_suspended) most_suspended = now;
      cudaError_t launched = co_await weft::launch_and_await(
          {n / 128, 128, 0, stream},
          [](int* p, int add) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            p[i] += add;
          },
          d, round);
      --suspended;
      CHECK(launched == cudaSuccess);
      CHECK(cudaMemcpyAsync(host.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, stream) == cudaSuccess);
      CHECK(co_await weft::completion(stream) == cudaSuccess);
      for (int i = 0; i < n; ++i) {
        if (host[i] != id * 1000 + i + round) co_return -1;
        sum += host[i];
      }
    }
    cudaFree(d);
    co_return sum;
  };
  std::vector<weft::task<long>> all;
  for (int id = 0; id < coroutines; ++id) all.push_back(work(id));
  auto open = [&]() -> weft::task<long> {
    g.open();
    co_return 0;
  };
  all.push_back(open());
  std::vector<long> sums = weft::sync_wait(weft::when_all(std::move(all)));
  REQUIRE(sums.size() == coroutines + 1);
  for (int id = 0; id < coroutines; ++id) {
    long expected = 0;
    for (int round = 0; round < rounds; ++round) expected += n * (id * 1000L + round) + n * (n - 1L) / 2;
    CHECK(sums[static_cast<std::size_t>(id)] == expected);
  }
  CHECK(most_suspended == coroutines);
  CHECK(cudaEventDestroy(opened) == cudaSuccess);
}

namespace {

weft::task<int> forty_two() { co_return 42; }
weft::task<int> add(weft::task<int> a, int b) { co_return co_await a + b; }
weft::task<std::unique_ptr<std::string>> boxed(std::string text) { co_return std::make_unique<std::string>(text); }
weft::task<int> fails() {
  throw std::runtime_error("task failed");
  co_return 0;
}
weft::task<int> catches() {
  try {
    co_await fails();
  } catch (const std::runtime_error& e) {
    co_return std::string(e.what()) == "task failed" ? 1 : 0;
  }
  co_return 0;
}
weft::task<void> nothing(int& runs) {
  ++runs;
  co_return;
}

}  // namespace

TEST_CASE("task<T>: values, nesting, laziness, exceptions") {
  CHECK(weft::sync_wait(forty_two()) == 42);
  CHECK(weft::sync_wait(add(add(forty_two(), 1), 2)) == 45);
  CHECK(*weft::sync_wait(boxed("moved out")) == "moved out");
  int runs = 0;
  { auto never_awaited = nothing(runs); }
  CHECK(runs == 0);
  weft::sync_wait(nothing(runs));
  CHECK(runs == 1);
  CHECK_THROWS_WITH_AS(weft::sync_wait(fails()), "task failed", std::runtime_error);
  CHECK(weft::sync_wait(catches()) == 1);
  std::vector<weft::task<int>> some;
  some.push_back(forty_two());
  some.push_back(fails());
  CHECK_THROWS_AS(weft::sync_wait(weft::when_all(std::move(some))), std::runtime_error);
  CHECK(weft::sync_wait(weft::when_all(std::vector<weft::task<int>>{})).empty());
}

TEST_CASE("task<T>: a million awaits of tasks that finish at once do not grow the stack") {
  auto loop = []() -> weft::task<long> {
    long sum = 0;
    for (int i = 0; i < 1000000; ++i) sum += co_await forty_two();
    co_return sum;
  };
  CHECK(weft::sync_wait(loop()) == 42000000L);
}

TEST_CASE("sync_wait: resumption on the calling thread; never waiting for the resumption thread on it") {
  owned_stream s;
  gate g;
  std::thread::id after;
  bool gate_was_open = false;
  auto waiter = [&]() -> weft::task<void> {
    g.hold(s);
    CHECK(co_await weft::completion(s) == cudaSuccess);
    gate_was_open = g.opened;
    after = get_id();
  };
  std::vector<weft::task<void>> both;
  both.push_back(waiter());
  both.push_back(call([&] { g.open(); }));
  weft::sync_wait(weft::when_all(std::move(both)), weft::resume_on::calling_thread);
  CHECK(gate_was_open);
  CHECK(after == get_id());

  gate g2;
  bool refused = false;
  int nested = 0;
  auto on_resumption_thread = [&]() -> weft::task<void> {
    g2.hold(s);
    co_await weft::completion(s);
    try {
      weft::sync_wait(forty_two());
    } catch (const std::logic_error&) {
      refused = true;
    }
    nested = weft::sync_wait(forty_two(), weft::resume_on::calling_thread);
  };
  run_then_open(on_resumption_thread(), [&] { g2.open(); });
  CHECK(refused);
  CHECK(nested == 42);
}

TEST_CASE("multi_device: a coroutine keeps its current device when it resumes" * doctest::test_suite("multi_device")) {
  int n = 0;
  REQUIRE(cudaGetDeviceCount(&n) == cudaSuccess);
  if (n < 2) return;  // run by the WEFT_DEVICES=3 ctest test
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  {
    owned_stream s;
    gate g;
    int device = -1;
    std::thread::id after;
    auto waiter = [&]() -> weft::task<void> {
      g.hold(s);
      CHECK(co_await weft::completion(s) == cudaSuccess);
      after = get_id();
      cudaGetDevice(&device);
    };
    run_then_open(waiter(), [&] { g.open(); });
    CHECK(after != get_id());
    CHECK(device == 1);
  }
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
}
