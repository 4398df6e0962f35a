// Programmatic dependent launch (CUDA guide, "Programmatic Dependent Launch
// and Synchronization"): a kernel launched with programmatic stream
// serialization, or after a programmatic event, starts once every block of
// the kernel before it has called cudaTriggerProgrammaticLaunchCompletion or
// exited, and its cudaGridDependencySynchronize waits for that kernel's
// completion. Overlap is shown by handshakes: the primary's blocks wait for
// a flag that only a running secondary can raise, with a time limit so that
// a missing overlap is a failed check, never a hang.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "error_checks.hpp"

namespace {

using std::chrono::milliseconds;

// Waits for `flag` to be raised, at most `limit`; true if it was.
bool wait_for_flag(const int* flag, milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::atomic_ref<const int>(*flag).load() == 0) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

struct handshake {
  int secondary_running = 0;  // raised by the secondary before it synchronises
  int primary_saw_it = 0;     // blocks of the primary that saw it raised
  int value = 0;              // what the primary writes after the handshake
  int read_after_sync = -1;   // what the secondary read after synchronising
  int read_before_sync = -1;
};

// Thread 0 of every `every`-th block triggers (with every < 0: does not),
// then waits for the secondary; the primary's result is written last.
__global__ void primary(handshake* h, int every, long long wait_ms) {
  if (threadIdx.x != 0) return;
  if (every != 0 && blockIdx.x % static_cast<unsigned>(every < 0 ? -every : every) == 0) {
    if (every > 0) cudaTriggerProgrammaticLaunchCompletion();
    if (wait_for_flag(&h->secondary_running, milliseconds(wait_ms))) atomicAdd(&h->primary_saw_it, 1);
  }
  if (blockIdx.x == 0) {
    // Late, so that a secondary that did not wait would read the old value.
    std::this_thread::sleep_for(milliseconds(20));
    std::atomic_ref<int>(h->value).store(42);
  }
}

__global__ void secondary(handshake* h) {
  std::atomic_ref<int>(h->secondary_running).store(1);
  h->read_before_sync = 0;
  cudaGridDependencySynchronize();
  h->read_after_sync = std::atomic_ref<int>(h->value).load();
}

__global__ void secondary_without_sync(handshake* h) { std::atomic_ref<int>(h->secondary_running).store(1); }

__global__ void copy_value(handshake* h, int* out) { *out = std::atomic_ref<int>(h->value).load(); }

cudaLaunchAttribute serialization() {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a.val.programmaticStreamSerializationAllowed = 1;
  return a;
}

template <class... Params, class... Args>
cudaError_t launch_ex(cudaStream_t s, dim3 grid, dim3 block, cudaLaunchAttribute* attrs, unsigned count,
                      void (*kernel)(Params...), Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.stream = s;
  config.attrs = attrs;
  config.numAttrs = count;
  return cudaLaunchKernelEx(&config, kernel, args...);
}

handshake* new_handshake() {
  handshake* h = nullptr;
  REQUIRE(cudaMallocManaged(&h, sizeof *h) == cudaSuccess);
  *h = handshake{};
  return h;
}

}  // namespace

TEST_CASE("a secondary kernel starts before its primary finishes, and synchronises on its completion") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  handshake* h = new_handshake();
  weft::launch(weft::launch_config{2, 32, 0, s}, primary, h, 1, 10'000LL);
  cudaLaunchAttribute attr = serialization();
  check_succeeded(launch_ex(s, 1, 32, &attr, 1, secondary, h));
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 2);    // both primary blocks saw the secondary run
  CHECK(h->read_after_sync == 42);  // and it waited for the primary's completion
  cudaFree(h);
  cudaStreamDestroy(s);
}

TEST_CASE("without the attribute the secondary waits for the primary, and its synchronisation returns at once") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  handshake* h = new_handshake();
  weft::launch(weft::launch_config{1, 32, 0, s}, primary, h, 1, 300LL);
  check_succeeded(launch_ex(s, 1, 32, nullptr, 0, secondary, h));
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 0);
  CHECK(h->read_after_sync == 42);
  // An attribute that is set to 0 allows no overlap either.
  *h = handshake{};
  weft::launch(weft::launch_config{1, 32, 0, s}, primary, h, 1, 300LL);
  cudaLaunchAttribute off = serialization();
  off.val.programmaticStreamSerializationAllowed = 0;
  check_succeeded(launch_ex(s, 1, 32, &off, 1, secondary, h));
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 0);
  cudaFree(h);
  cudaStreamDestroy(s);
}

TEST_CASE("blocks that exit without triggering count as triggered") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  handshake* h = new_handshake();
  // Blocks 0, 3 and 6 trigger and wait; the others exit at once.
  weft::launch(weft::launch_config{8, 32, 0, s}, primary, h, 3, 10'000LL);
  cudaLaunchAttribute attr = serialization();
  check_succeeded(launch_ex(s, 1, 32, &attr, 1, secondary, h));
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 3);
  CHECK(h->read_after_sync == 42);
  cudaFree(h);
  cudaStreamDestroy(s);
}

TEST_CASE("a primary that never triggers lets the secondary start only as its blocks exit") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  handshake* h = new_handshake();
  weft::launch(weft::launch_config{1, 32, 0, s}, primary, h, 0, 0LL);
  cudaLaunchAttribute attr = serialization();
  check_succeeded(launch_ex(s, 1, 32, &attr, 1, secondary, h));
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->read_after_sync == 42);
  cudaFree(h);
  cudaStreamDestroy(s);
}

TEST_CASE("a secondary that does not synchronise still completes after its primary") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  handshake* h = new_handshake();
  int* out = nullptr;
  REQUIRE(cudaMallocManaged(&out, sizeof *out) == cudaSuccess);
  *out = -1;
  weft::launch(weft::launch_config{1, 32, 0, s}, primary, h, 1, 10'000LL);
  cudaLaunchAttribute attr = serialization();
  check_succeeded(launch_ex(s, 1, 32, &attr, 1, secondary_without_sync, h));
  // Stream order after the secondary includes its primary.
  weft::launch(weft::launch_config{1, 1, 0, s}, copy_value, h, out);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 1);
  CHECK(*out == 42);
  cudaFree(out);
  cudaFree(h);
  cudaStreamDestroy(s);
}

namespace {

// Every block triggers at once, then fills its part of `data` slowly.
__global__ void fill_slowly(int* data, int n) {
  cudaTriggerProgrammaticLaunchCompletion();
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (threadIdx.x == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
  __syncthreads();
  if (i < n) data[i] = i * 3;
}

// Waits for the primary, then doubles what it wrote; a chain's middle
// kernel triggers its own dependent first.
__global__ void double_after_sync(int* out, const int* in, int n) {
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = in[i] * 2;
}

}  // namespace

TEST_CASE("many blocks on few workers: every secondary block sees all of the primary's writes") {
  constexpr int blocks = 96, threads = 64, n = blocks * threads;
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  int *a = nullptr, *b = nullptr, *c = nullptr;
  REQUIRE(cudaMallocManaged(&a, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&b, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&c, n * sizeof(int)) == cudaSuccess);
  for (int round = 0; round < 3; ++round) {
    weft::launch(weft::launch_config{blocks, threads, 0, s}, fill_slowly, a, n);
    cudaLaunchAttribute attr = serialization();
    check_succeeded(launch_ex(s, blocks, threads, &attr, 1, double_after_sync, b, static_cast<const int*>(a), n));
    check_succeeded(launch_ex(s, blocks, threads, &attr, 1, double_after_sync, c, static_cast<const int*>(b), n));
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += b[i] != i * 6 || c[i] != i * 12;
    CHECK(wrong == 0);
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaStreamDestroy(s);
}

TEST_CASE("a programmatic event lets a kernel in another stream overlap the primary") {
  cudaStream_t s1 = nullptr, s2 = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t e = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess);
  for (int at_start = 0; at_start < 2; ++at_start) {
    handshake* h = new_handshake();
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticEvent;
    attr.val.programmaticEvent.event = e;
    attr.val.programmaticEvent.flags = 0;
    attr.val.programmaticEvent.triggerAtBlockStart = at_start;
    // With triggerAtBlockStart the blocks need not trigger themselves.
    check_succeeded(launch_ex(s1, 2, 32, &attr, 1, primary, h, at_start ? 0 : 1, 10'000LL));
    REQUIRE(cudaStreamWaitEvent(s2, e, 0) == cudaSuccess);
    weft::launch(weft::launch_config{1, 32, 0, s2}, secondary, h);
    REQUIRE(cudaStreamSynchronize(s2) == cudaSuccess);
    // The secondary waited for the primary's completion in its synchronisation.
    CHECK(h->read_after_sync == 42);
    REQUIRE(cudaStreamSynchronize(s1) == cudaSuccess);
    if (!at_start) CHECK(h->primary_saw_it == 2);
    CHECK(cudaEventQuery(e) == cudaSuccess);
    cudaFree(h);
  }
  cudaEventDestroy(e);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

TEST_CASE("a launch completion event is recorded once every block has begun") {
  cudaStream_t s1 = nullptr, s2 = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t e = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess);
  handshake* h = new_handshake();
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeLaunchCompletionEvent;
  attr.val.launchCompletionEvent.event = e;
  // Blocks wait for the kernel in s2 without triggering: only their start counts.
  check_succeeded(launch_ex(s1, 2, 32, &attr, 1, primary, h, -1, 10'000LL));
  REQUIRE(cudaStreamWaitEvent(s2, e, 0) == cudaSuccess);
  weft::launch(weft::launch_config{1, 32, 0, s2}, secondary_without_sync, h);
  REQUIRE(cudaStreamSynchronize(s1) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s2) == cudaSuccess);
  CHECK(h->primary_saw_it == 2);
  cudaFree(h);
  cudaEventDestroy(e);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

TEST_CASE("a copy after a programmatic event waits for the primary's completion") {
  cudaStream_t s1 = nullptr, s2 = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t e = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess);
  handshake* h = new_handshake();
  int out = -1;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticEvent;
  attr.val.programmaticEvent.event = e;
  check_succeeded(launch_ex(s1, 1, 32, &attr, 1, primary, h, 1, 300LL));
  REQUIRE(cudaStreamWaitEvent(s2, e, 0) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(&out, &h->value, sizeof out, cudaMemcpyDefault, s2) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s2) == cudaSuccess);
  CHECK(out == 42);
  REQUIRE(cudaStreamSynchronize(s1) == cudaSuccess);
  cudaFree(h);
  cudaEventDestroy(e);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

TEST_CASE("outside a kernel the trigger and the synchronisation do nothing") {
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
  CHECK(cudaGetLastError() == cudaSuccess);
}

namespace {

const bool registered = weft::detail::register_kernel<&primary>() && weft::detail::register_kernel<&secondary>();

cudaGraphNode_t add_primary(cudaGraph_t g, handshake*& h, int& every, long long& wait_ms) {
  void* args[] = {&h, &every, &wait_ms};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(primary);
  p.gridDim = 2;
  p.blockDim = 32;
  p.kernelParams = args;
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddKernelNode(&n, g, nullptr, 0, &p) == cudaSuccess);
  return n;
}

cudaGraphNode_t add_secondary(cudaGraph_t g, handshake*& h) {
  void* args[] = {&h};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(secondary);
  p.gridDim = 1;
  p.blockDim = 32;
  p.kernelParams = args;
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddKernelNode(&n, g, nullptr, 0, &p) == cudaSuccess);
  return n;
}

cudaGraphEdgeData programmatic_edge(unsigned char port) {
  cudaGraphEdgeData d{};
  d.from_port = port;
  d.type = cudaGraphDependencyTypeProgrammatic;
  return d;
}

}  // namespace

TEST_CASE("a programmatic graph edge lets the dependent kernel node overlap its primary") {
  REQUIRE(registered);
  for (unsigned char port : {cudaGraphKernelNodePortProgrammatic, cudaGraphKernelNodePortLaunchCompletion}) {
    CAPTURE(static_cast<int>(port));
    handshake* h = new_handshake();
    // Through the launch completion port the primary's blocks need not trigger.
    int every = port == cudaGraphKernelNodePortProgrammatic ? 1 : -1;
    long long wait_ms = 10'000;
    cudaGraph_t g = nullptr;
    REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
    cudaGraphNode_t from = add_primary(g, h, every, wait_ms), to = add_secondary(g, h);
    cudaGraphEdgeData edge = programmatic_edge(port);
    check_succeeded(cudaGraphAddDependencies(g, &from, &to, &edge, 1));

    // The edge reads back with its data, from the graph, both nodes and a clone.
    cudaGraphNode_t f = nullptr, t = nullptr;
    cudaGraphEdgeData back{};
    std::size_t count = 1;
    check_succeeded(cudaGraphGetEdges(g, &f, &t, &back, &count));
    CHECK(count == 1);
    CHECK(back.from_port == port);
    CHECK(back.type == cudaGraphDependencyTypeProgrammatic);
    back = {};
    count = 1;
    check_succeeded(cudaGraphNodeGetDependencies(to, &f, &back, &count));
    CHECK(back.from_port == port);
    back = {};
    count = 1;
    check_succeeded(cudaGraphNodeGetDependentNodes(from, &t, &back, &count));
    CHECK(back.type == cudaGraphDependencyTypeProgrammatic);
    cudaGraph_t copy = nullptr;
    REQUIRE(cudaGraphClone(&copy, g) == cudaSuccess);
    back = {};
    count = 1;
    check_succeeded(cudaGraphGetEdges(copy, &f, &t, &back, &count));
    CHECK(back.from_port == port);

    cudaGraphExec_t exec = nullptr;
    REQUIRE(cudaGraphInstantiate(&exec, copy, 0) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(h->primary_saw_it == 2);
    CHECK(h->read_after_sync == 42);
    // The graph's stream order after it still includes the primary.
    *h = handshake{};
    REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(h->read_after_sync == 42);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(copy);
    cudaGraphDestroy(g);
    cudaFree(h);
  }
}

TEST_CASE("programmatic edges are checked as CUDA 13 checks them") {
  REQUIRE(registered);
  handshake* h = new_handshake();
  int every = 1;
  long long wait_ms = 0;
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t from = add_primary(g, h, every, wait_ms), to = add_secondary(g, h), empty = nullptr;
  REQUIRE(cudaGraphAddEmptyNode(&empty, g, nullptr, 0) == cudaSuccess);
  cudaGraphEdgeData edge = programmatic_edge(cudaGraphKernelNodePortProgrammatic);
  // Only between kernel nodes.
  check_failed_with(cudaGraphAddDependencies(g, &from, &empty, &edge, 1), cudaErrorInvalidValue);
  check_failed_with(cudaGraphAddDependencies(g, &empty, &to, &edge, 1), cudaErrorInvalidValue);
  // A programmatic edge names a port; a port needs a programmatic edge; no
  // node has an incoming port; reserved bytes are zero.
  cudaGraphEdgeData bad = programmatic_edge(cudaGraphKernelNodePortDefault);
  check_failed_with(cudaGraphAddDependencies(g, &from, &to, &bad, 1), cudaErrorInvalidValue);
  bad = {};
  bad.from_port = cudaGraphKernelNodePortProgrammatic;
  check_failed_with(cudaGraphAddDependencies(g, &from, &to, &bad, 1), cudaErrorInvalidValue);
  bad = programmatic_edge(3);
  check_failed_with(cudaGraphAddDependencies(g, &from, &to, &bad, 1), cudaErrorInvalidValue);
  bad = edge;
  bad.to_port = 1;
  check_failed_with(cudaGraphAddDependencies(g, &from, &to, &bad, 1), cudaErrorInvalidValue);
  bad = edge;
  bad.reserved[0] = 1;
  check_failed_with(cudaGraphAddDependencies(g, &from, &to, &bad, 1), cudaErrorInvalidValue);
  bad = edge;
  bad.type = 2;
  check_failed_with(cudaGraphAddDependencies(g, &from, &to, &bad, 1), cudaErrorInvalidValue);
  std::size_t count = 0;
  check_succeeded(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &count));
  CHECK(count == 0);  // nothing refused was added

  check_succeeded(cudaGraphAddDependencies(g, &from, &to, &edge, 1));
  // An H100 removes it named as an ordinary edge too (pdl_probe.expected).
  cudaGraphEdgeData ordinary{};
  check_succeeded(cudaGraphRemoveDependencies(g, &from, &to, &ordinary, 1));
  check_failed_with(cudaGraphRemoveDependencies(g, &from, &to, &edge, 1), cudaErrorInvalidValue);
  // Added again as an ordinary edge, it reads back as one.
  check_succeeded(cudaGraphAddDependencies(g, &from, &to, nullptr, 1));
  cudaGraphNode_t f = nullptr, t = nullptr;
  cudaGraphEdgeData back = edge;
  count = 1;
  check_succeeded(cudaGraphGetEdges(g, &f, &t, &back, &count));
  CHECK(back.from_port == 0);
  CHECK(back.type == cudaGraphDependencyTypeDefault);
  cudaGraphDestroy(g);
  cudaFree(h);
}
