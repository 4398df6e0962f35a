// Programmatic dependent launch (CUDA guide, "Programmatic Dependent Launch
// and Synchronization"): a kernel launched with programmatic stream
// serialization, or after a programmatic event, starts once every block of
// the kernel before it has called cudaTriggerProgrammaticLaunchCompletion or
// exited, and its cudaGridDependencySynchronize waits for that kernel's
// completion. Overlap is shown by handshakes (programmatic_handshake.hpp).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "error_checks.hpp"
#include "programmatic_handshake.hpp"

namespace {

using std::chrono::milliseconds;

using programmatic_test::handshake;
using programmatic_test::wait_for_flag;

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

__global__ void programmatic_copy_value(handshake* h, int* out) { *out = std::atomic_ref<int>(h->value).load(); }

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

// One stream and a handshake; the primary and a secondary go into the stream.
struct stream_and_handshake {
  cudaStream_t s = nullptr;
  handshake* h = new_handshake();

  stream_and_handshake() { REQUIRE(cudaStreamCreate(&s) == cudaSuccess); }
  ~stream_and_handshake() {
    cudaFree(h);
    cudaStreamDestroy(s);
  }

  // The primary on `blocks` blocks of 32 threads (see primary for `every`).
  void launch_primary(unsigned blocks, int every, long long wait_ms) {
    weft::launch(weft::launch_config{blocks, 32, 0, s}, primary, h, every, wait_ms);
  }

  // `kernel` after it, with programmatic stream serialization `allowed`
  // (without the attribute when `attribute` is false).
  cudaError_t launch_secondary(void (*kernel)(handshake*), bool attribute = true, int allowed = 1) {
    cudaLaunchAttribute attr = serialization();
    attr.val.programmaticStreamSerializationAllowed = allowed;
    return launch_ex(s, 1, 32, attribute ? &attr : nullptr, attribute ? 1 : 0, kernel, h);
  }
};

// A primary in s1 whose event e a kernel or copy in s2 waits for.
struct two_streams_and_event {
  cudaStream_t s1 = nullptr, s2 = nullptr;
  cudaEvent_t e = nullptr;
  handshake* h = new_handshake();

  two_streams_and_event() {
    REQUIRE(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess);
  }
  ~two_streams_and_event() {
    cudaFree(h);
    cudaEventDestroy(e);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
  }

  // The primary on `blocks` blocks in s1 with `attr`, then s2 waits for e.
  void launch_primary_then_wait(cudaLaunchAttribute attr, unsigned blocks, int every, long long wait_ms) {
    check_succeeded(launch_ex(s1, blocks, 32, &attr, 1, primary, h, every, wait_ms));
    REQUIRE(cudaStreamWaitEvent(s2, e, 0) == cudaSuccess);
  }
};

cudaLaunchAttribute programmatic_event(cudaEvent_t e, int trigger_at_block_start) {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticEvent;
  attr.val.programmaticEvent.event = e;
  attr.val.programmaticEvent.flags = 0;
  attr.val.programmaticEvent.triggerAtBlockStart = trigger_at_block_start;
  return attr;
}

}  // namespace

TEST_CASE_FIXTURE(stream_and_handshake,
                  "a secondary kernel starts before its primary finishes, and synchronises on its completion") {
  launch_primary(2, 1, 10'000);
  check_succeeded(launch_secondary(secondary));
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 2);    // both primary blocks saw the secondary run
  CHECK(h->read_after_sync == 42);  // and it waited for the primary's completion
}

TEST_CASE_FIXTURE(
    stream_and_handshake,
    "without the attribute the secondary waits for the primary, and its synchronisation returns at once") {
  launch_primary(1, 1, 300);
  check_succeeded(launch_secondary(secondary, false));
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 0);
  CHECK(h->read_after_sync == 42);
  // An attribute that is set to 0 allows no overlap either.
  *h = handshake{};
  launch_primary(1, 1, 300);
  check_succeeded(launch_secondary(secondary, true, 0));
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 0);
}

TEST_CASE_FIXTURE(stream_and_handshake, "blocks that exit without triggering count as triggered") {
  // Blocks 0, 3 and 6 trigger and wait; the others exit at once.
  launch_primary(8, 3, 10'000);
  check_succeeded(launch_secondary(secondary));
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 3);
  CHECK(h->read_after_sync == 42);
}

TEST_CASE_FIXTURE(stream_and_handshake,
                  "a primary that never triggers lets the secondary start only as its blocks exit") {
  launch_primary(1, 0, 0);
  check_succeeded(launch_secondary(secondary));
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->read_after_sync == 42);
}

TEST_CASE_FIXTURE(stream_and_handshake, "a secondary that does not synchronise still completes after its primary") {
  int* out = nullptr;
  REQUIRE(cudaMallocManaged(&out, sizeof *out) == cudaSuccess);
  *out = -1;
  launch_primary(1, 1, 10'000);
  check_succeeded(launch_secondary(secondary_without_sync));
  // Stream order after the secondary includes its primary.
  weft::launch(weft::launch_config{1, 1, 0, s}, programmatic_copy_value, h, out);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 1);
  CHECK(*out == 42);
  cudaFree(out);
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

TEST_CASE_FIXTURE(two_streams_and_event, "a programmatic event lets a kernel in another stream overlap the primary") {
  for (int at_start = 0; at_start < 2; ++at_start) {
    *h = handshake{};
    // With triggerAtBlockStart the blocks need not trigger themselves.
    launch_primary_then_wait(programmatic_event(e, at_start), 2, at_start ? 0 : 1, 10'000);
    weft::launch(weft::launch_config{1, 32, 0, s2}, secondary, h);
    REQUIRE(cudaStreamSynchronize(s2) == cudaSuccess);
    // The secondary waited for the primary's completion in its synchronisation.
    CHECK(h->read_after_sync == 42);
    REQUIRE(cudaStreamSynchronize(s1) == cudaSuccess);
    if (!at_start) CHECK(h->primary_saw_it == 2);
    CHECK(cudaEventQuery(e) == cudaSuccess);
  }
}

TEST_CASE_FIXTURE(two_streams_and_event, "a launch completion event is recorded once every block has begun") {
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeLaunchCompletionEvent;
  attr.val.launchCompletionEvent.event = e;
  // Blocks wait for the kernel in s2 without triggering: only their start counts.
  launch_primary_then_wait(attr, 2, -1, 10'000);
  weft::launch(weft::launch_config{1, 32, 0, s2}, secondary_without_sync, h);
  REQUIRE(cudaStreamSynchronize(s1) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s2) == cudaSuccess);
  CHECK(h->primary_saw_it == 2);
}

TEST_CASE_FIXTURE(two_streams_and_event, "a copy after a programmatic event waits for the primary's completion") {
  int out = -1;
  launch_primary_then_wait(programmatic_event(e, 0), 1, 1, 300);
  REQUIRE(cudaMemcpyAsync(&out, &h->value, sizeof out, cudaMemcpyDefault, s2) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s2) == cudaSuccess);
  CHECK(out == 42);
  REQUIRE(cudaStreamSynchronize(s1) == cudaSuccess);
}

TEST_CASE("outside a kernel the trigger and the synchronisation do nothing") {
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
  CHECK(cudaGetLastError() == cudaSuccess);
}

namespace {

const bool pdl_kernels_registered = weft::register_kernel<&primary>() && weft::register_kernel<&secondary>();

cudaGraphNode_t programmatic_add_kernel_node(cudaGraph_t g, void* kernel, unsigned blocks, void** args) {
  cudaKernelNodeParams p = {};
  p.func = kernel;
  p.gridDim = blocks;
  p.blockDim = 32;
  p.kernelParams = args;
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddKernelNode(&n, g, nullptr, 0, &p) == cudaSuccess);
  return n;
}

// A graph of two kernel nodes without an edge yet: the primary (2 blocks;
// see primary for `every`) and the secondary, over one handshake.
struct primary_and_secondary_nodes {
  handshake* h = new_handshake();
  cudaGraph_t g = nullptr;
  cudaGraphNode_t from = nullptr, to = nullptr;

  primary_and_secondary_nodes(int every, long long wait_ms) {
    REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
    void* primary_args[] = {&h, &every, &wait_ms};
    from = programmatic_add_kernel_node(g, reinterpret_cast<void*>(primary), 2, primary_args);
    void* secondary_args[] = {&h};
    to = programmatic_add_kernel_node(g, reinterpret_cast<void*>(secondary), 1, secondary_args);
  }
  ~primary_and_secondary_nodes() {
    cudaGraphDestroy(g);
    cudaFree(h);
  }
};

cudaGraphEdgeData programmatic_edge(unsigned char port) {
  cudaGraphEdgeData d{};
  d.from_port = port;
  d.type = cudaGraphDependencyTypeProgrammatic;
  return d;
}

// The data of the one edge that `g` has.
cudaGraphEdgeData only_edge(cudaGraph_t g) {
  cudaGraphNode_t f = nullptr, t = nullptr;
  cudaGraphEdgeData back{};
  std::size_t count = 1;
  check_succeeded(cudaGraphGetEdges(g, &f, &t, &back, &count));
  CHECK(count == 1);
  return back;
}

}  // namespace

TEST_CASE("a programmatic graph edge lets the dependent kernel node overlap its primary") {
  REQUIRE(pdl_kernels_registered);
  for (unsigned char port : {cudaGraphKernelNodePortProgrammatic, cudaGraphKernelNodePortLaunchCompletion}) {
    CAPTURE(static_cast<int>(port));
    // Through the launch completion port the primary's blocks need not trigger.
    primary_and_secondary_nodes graph(port == cudaGraphKernelNodePortProgrammatic ? 1 : -1, 10'000);
    auto& [h, g, from, to] = graph;
    cudaGraphEdgeData edge = programmatic_edge(port);
    check_succeeded(cudaGraphAddDependencies(g, &from, &to, &edge, 1));

    // The edge reads back with its data, from the graph, both nodes and a clone.
    cudaGraphEdgeData back = only_edge(g);
    CHECK(back.from_port == port);
    CHECK(back.type == cudaGraphDependencyTypeProgrammatic);
    cudaGraphNode_t other = nullptr;
    back = {};
    std::size_t count = 1;
    check_succeeded(cudaGraphNodeGetDependencies(to, &other, &back, &count));
    CHECK(back.from_port == port);
    back = {};
    count = 1;
    check_succeeded(cudaGraphNodeGetDependentNodes(from, &other, &back, &count));
    CHECK(back.type == cudaGraphDependencyTypeProgrammatic);
    cudaGraph_t copy = nullptr;
    REQUIRE(cudaGraphClone(&copy, g) == cudaSuccess);
    CHECK(only_edge(copy).from_port == port);

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
  }
}

TEST_CASE("programmatic edges are checked as CUDA 13 checks them") {
  REQUIRE(pdl_kernels_registered);
  primary_and_secondary_nodes graph(1, 0);
  auto& [h, g, from, to] = graph;
  cudaGraphNode_t empty = nullptr;
  REQUIRE(cudaGraphAddEmptyNode(&empty, g, nullptr, 0) == cudaSuccess);
  cudaGraphEdgeData edge = programmatic_edge(cudaGraphKernelNodePortProgrammatic);
  // Only between kernel nodes.
  check_failed_with(cudaGraphAddDependencies(g, &from, &empty, &edge, 1), cudaErrorInvalidValue);
  check_failed_with(cudaGraphAddDependencies(g, &empty, &to, &edge, 1), cudaErrorInvalidValue);
  // A programmatic edge names a port; a port needs a programmatic edge; no
  // node has an incoming port; reserved bytes are zero.
  auto refused = [&](cudaGraphEdgeData bad) {
    check_failed_with(cudaGraphAddDependencies(g, &from, &to, &bad, 1), cudaErrorInvalidValue);
  };
  refused(programmatic_edge(cudaGraphKernelNodePortDefault));
  cudaGraphEdgeData bad{};
  bad.from_port = cudaGraphKernelNodePortProgrammatic;
  refused(bad);
  refused(programmatic_edge(3));
  bad = edge;
  bad.to_port = 1;
  refused(bad);
  bad = edge;
  bad.reserved[0] = 1;
  refused(bad);
  bad = edge;
  bad.type = 2;
  refused(bad);
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
  cudaGraphEdgeData back = only_edge(g);
  CHECK(back.from_port == 0);
  CHECK(back.type == cudaGraphDependencyTypeDefault);
}
