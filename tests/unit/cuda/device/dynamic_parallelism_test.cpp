// Dynamic parallelism (CUDA 13's CDP2): kernels launching kernels. A child
// grid is part of its parent: the parent completes, as its stream sees it,
// only after its children; a block's launches into the NULL stream run one
// after another; cudaStreamTailLaunch runs after the parent and all its
// children; cudaStreamFireAndForget runs at once. A refused launch sets the
// calling CUDA thread's last error. Orders are checked with gates, never
// times.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <thread>

#include "stream_gates.hpp"

namespace {

__global__ void add(int* x, int v) { std::atomic_ref<int>(*x).fetch_add(v); }

__global__ void append(int* log, int id) {
  int at = std::atomic_ref<int>(log[0]).fetch_add(1);
  log[1 + at] = id;
}

__global__ void gated_add(int* flag, int* x) {
  while (std::atomic_ref<int>(*flag).load() == 0) std::this_thread::yield();
  std::atomic_ref<int>(*x).fetch_add(1);
}

__global__ void copy_value(int* from, int* to) { *to = std::atomic_ref<int>(*from).load(); }

// Launches a child held by the gate into `stream`, and reports it launched.
__global__ void parent_of_gated(int* flag, int* x, cudaStream_t stream, int* launched) {
  weft::launch<gated_add>({1, 1, 0, stream}, flag, x);
  std::atomic_ref<int>(*launched).store(1);
}

__global__ void three_in_null_stream(int* log) {
  for (int id = 1; id <= 3; ++id) weft::launch<append>({1, 1}, log, id);
}

// A tail launch that reads what the fire-and-forget child (held by the gate) wrote.
__global__ void fire_then_tail(int* flag, int* x, int* seen) {
  weft::launch<gated_add>({1, 1, 0, cudaStreamFireAndForget}, flag, x);
  weft::launch<copy_value>({1, 1, 0, cudaStreamTailLaunch}, x, seen);
}

__global__ void tails_in_order(int* log) {
  for (int id = 1; id <= 4; ++id) weft::launch<append>({1, 1, 0, cudaStreamTailLaunch}, log, id);
}

// Thread 0 launches with a bad block, the others a good one; each keeps its
// own last error.
__global__ void per_thread_errors(int* x, int* codes) {
  unsigned block = threadIdx.x == 0 ? 2048 : 1;
  weft::launch<add>({1, block}, x, 1);
  codes[threadIdx.x * 3 + 0] = cudaPeekAtLastError();
  codes[threadIdx.x * 3 + 1] = cudaGetLastError();
  codes[threadIdx.x * 3 + 2] = cudaGetLastError();
}

__global__ void too_much_shared(int* x, int* code) {
  weft::launch<add>({1, 1, 1 << 20}, x, 1);
  *code = cudaGetLastError();
}

// Sums [first, first + count) by halves, one child per half.
__global__ void tree_sum(const int* values, int first, int count, int* total) {
  if (count == 1) {
    std::atomic_ref<int>(*total).fetch_add(values[first]);
    return;
  }
  int half = count / 2;
  weft::launch<tree_sum>({1, 1}, values, first, half, total);
  weft::launch<tree_sum>({1, 1}, values, first + half, count - half, total);
}

__global__ void each_thread_launches(int* x) { weft::launch<add>({1, 1}, x, 1); }

// Tail launches cannot begin before the parent ends: all are pending.
__global__ void launch_many_tails(int* x, int count, int* codes) {
  for (int i = 0; i < count; ++i) {
    weft::launch<add>({1, 1, 0, cudaStreamTailLaunch}, x, 1);
    codes[i] = cudaGetLastError();
  }
}

__global__ void in_created_streams(int* log, int* codes) {
  cudaStream_t s = nullptr;
  codes[0] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (int id = 1; id <= 3; ++id) weft::launch<append>({1, 1, 0, s}, log, id);
  codes[1] = cudaStreamDestroy(s);
  cudaStream_t blocking = nullptr;
  codes[2] = cudaStreamCreateWithFlags(&blocking, cudaStreamDefault);
}

}  // namespace

TEST_CASE("dynamic parallelism: a parent completes only after its children, in every stream") {
  enough_workers workers(2);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  int *x = nullptr, *launched = nullptr;
  REQUIRE(cudaMallocManaged(&x, sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&launched, sizeof(int)) == cudaSuccess);
  for (cudaStream_t child_stream : {cudaStream_t{nullptr}, cudaStreamFireAndForget}) {
    CAPTURE(reinterpret_cast<std::uintptr_t>(child_stream));
    gate held;
    *x = 0;
    *launched = 0;
    REQUIRE(weft::launch<parent_of_gated>({1, 1, 0, s}, held.flag, x, child_stream, launched) == cudaSuccess);
    int* after = nullptr;
    REQUIRE(cudaMallocManaged(&after, sizeof(int)) == cudaSuccess);
    *after = -1;
    // Stream work after the parent waits for the child too.
    REQUIRE(weft::launch<copy_value>({1, 1, 0, s}, x, after) == cudaSuccess);
    while (std::atomic_ref<int>(*launched).load() == 0) std::this_thread::yield();
    CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
    CHECK(std::atomic_ref<int>(*after).load() == -1);
    held.open();
    CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(*x == 1);
    CHECK(*after == 1);
    cudaFree(after);
  }
  cudaStreamDestroy(s);
  cudaFree(x);
  cudaFree(launched);
}

TEST_CASE("dynamic parallelism: a block's NULL-stream launches run in order; tail launches in order, last") {
  int* log = nullptr;
  REQUIRE(cudaMallocManaged(&log, 8 * sizeof(int)) == cudaSuccess);
  for (int round = 0; round < 20; ++round) {
    log[0] = 0;
    REQUIRE(weft::launch<three_in_null_stream>({1, 1}, log) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(log[0] == 3);
    CHECK(log[1] == 1);
    CHECK(log[2] == 2);
    CHECK(log[3] == 3);
    log[0] = 0;
    REQUIRE(weft::launch<tails_in_order>({1, 1}, log) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(log[0] == 4);
    CHECK(log[1] == 1);
    CHECK(log[2] == 2);
    CHECK(log[3] == 3);
    CHECK(log[4] == 4);
  }
  cudaFree(log);
}

TEST_CASE("dynamic parallelism: a tail launch runs after the parent's fire-and-forget children") {
  enough_workers workers(2);
  gate held;
  int *x = nullptr, *seen = nullptr;
  REQUIRE(cudaMallocManaged(&x, sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&seen, sizeof(int)) == cudaSuccess);
  *x = 0;
  *seen = -1;
  REQUIRE(weft::launch<fire_then_tail>({1, 1}, held.flag, x, seen) == cudaSuccess);
  for (int i = 0; i < 100; ++i) std::this_thread::yield();
  CHECK(std::atomic_ref<int>(*seen).load() == -1);
  held.open();
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*seen == 1);
  cudaFree(x);
  cudaFree(seen);
}

TEST_CASE("dynamic parallelism: a bad launch is cudaErrorInvalidConfiguration for the launching CUDA thread only") {
  int *x = nullptr, *codes = nullptr;
  REQUIRE(cudaMallocManaged(&x, sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&codes, 6 * sizeof(int)) == cudaSuccess);
  *x = 0;
  REQUIRE(weft::launch<per_thread_errors>({1, 2}, x, codes) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(codes[0] == cudaErrorInvalidConfiguration);  // peek
  CHECK(codes[1] == cudaErrorInvalidConfiguration);  // get
  CHECK(codes[2] == cudaSuccess);                    // reset by the get
  CHECK(codes[3] == cudaSuccess);
  CHECK(codes[4] == cudaSuccess);
  CHECK(codes[5] == cudaSuccess);
  CHECK(*x == 1);  // only thread 1's launch ran
  REQUIRE(weft::launch<too_much_shared>({1, 1}, x, codes) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(codes[0] == cudaErrorInvalidConfiguration);
  CHECK(*x == 1);
  // The host's last error is its own.
  CHECK(cudaGetLastError() == cudaSuccess);
  cudaFree(x);
  cudaFree(codes);
}

TEST_CASE("dynamic parallelism: a recursive tree sum and many launches from many threads on 2 workers") {
  exact_workers workers(2);
  constexpr int n = 200;
  int *values = nullptr, *total = nullptr;
  REQUIRE(cudaMallocManaged(&values, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&total, sizeof(int)) == cudaSuccess);
  int expected = 0;
  for (int i = 0; i < n; ++i) expected += values[i] = i * 3 + 1;
  *total = 0;
  REQUIRE(weft::launch<tree_sum>({1, 1}, values, 0, n, total) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*total == expected);
  *total = 0;
  REQUIRE(weft::launch<each_thread_launches>({16, 64}, total) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*total == 16 * 64);
  cudaFree(values);
  cudaFree(total);
}

TEST_CASE("dynamic parallelism: the pending launch limit; the sync depth limit does not exist") {
  std::size_t limit = 0;
  REQUIRE(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount) == cudaSuccess);
  CHECK(limit == 2048);
  std::size_t depth = 7;
  CHECK(cudaDeviceGetLimit(&depth, cudaLimitDevRuntimeSyncDepth) == cudaErrorUnsupportedLimit);
  CHECK(cudaGetLastError() == cudaErrorUnsupportedLimit);
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4) == cudaErrorUnsupportedLimit);
  CHECK(cudaGetLastError() == cudaErrorUnsupportedLimit);

  REQUIRE(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 4) == cudaSuccess);
  int *x = nullptr, *codes = nullptr;
  REQUIRE(cudaMallocManaged(&x, sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&codes, 6 * sizeof(int)) == cudaSuccess);
  // Twice: the places of launches that have begun are given back.
  for (int round = 1; round <= 2; ++round) {
    CAPTURE(round);
    *x = 0;
    REQUIRE(weft::launch<launch_many_tails>({1, 1}, x, 6, codes) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    for (int i = 0; i < 4; ++i) CHECK(codes[i] == cudaSuccess);
    CHECK(codes[4] == cudaErrorLaunchPendingCountExceeded);
    CHECK(codes[5] == cudaErrorLaunchPendingCountExceeded);
    CHECK(*x == 4);
  }
  REQUIRE(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2048) == cudaSuccess);
  cudaFree(x);
  cudaFree(codes);
}

TEST_CASE("dynamic parallelism: streams a kernel creates order its launches") {
  int *log = nullptr, *codes = nullptr;
  REQUIRE(cudaMallocManaged(&log, 8 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&codes, 3 * sizeof(int)) == cudaSuccess);
  log[0] = 0;
  REQUIRE(weft::launch<in_created_streams>({1, 1}, log, codes) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(codes[0] == cudaSuccess);
  CHECK(codes[1] == cudaSuccess);
  CHECK(codes[2] == cudaErrorInvalidValue);  // the device runtime's streams are non-blocking
  REQUIRE(log[0] == 3);
  CHECK(log[1] == 1);
  CHECK(log[2] == 2);
  CHECK(log[3] == 3);
  cudaGetLastError();
  cudaFree(log);
  cudaFree(codes);
}
