// Stream capture (CUDA guide, "Creating a Graph Using Stream Capture"): work
// put into a capturing stream becomes graph nodes instead of running; events
// fork other streams into the capture and join them back; prohibited calls
// fail with CUDA's codes and invalidate the capture; the three capture modes
// decide which other calls are refused. The codes and counts are those an
// H100 gave (tests/differential/graph_probe.expected).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "error_checks.hpp"

namespace {

__global__ void set_to(int* x, int v) { *x = v; }
__global__ void add(int* x, int v) { std::atomic_ref<int>(*x).fetch_add(v); }
__global__ void multiply_captured(int* x, int v) { *x *= v; }
__global__ void add_each(int* data, int amount, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] += amount;
}

const bool capture_kernels_registered = weft::register_kernel<&set_to>() && weft::register_kernel<&add>() &&
                                        weft::register_kernel<&multiply_captured>() &&
                                        weft::register_kernel<&add_each>();

int copy_back(const int* d) {
  int h = -1;
  REQUIRE(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  return h;
}

struct counts {
  std::size_t nodes = 0, edges = 0, roots = 0;
};
counts count(cudaGraph_t g) {
  counts c;
  REQUIRE(cudaGraphGetNodes(g, nullptr, &c.nodes) == cudaSuccess);
  REQUIRE(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &c.edges) == cudaSuccess);
  REQUIRE(cudaGraphGetRootNodes(g, nullptr, &c.roots) == cudaSuccess);
  return c;
}

cudaStreamCaptureStatus status_of(cudaStream_t s) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  REQUIRE(cudaStreamIsCapturing(s, &status) == cudaSuccess);
  return status;
}

void bump(void* counter) { std::atomic_ref<int>(*static_cast<int*>(counter)).fetch_add(1); }

}  // namespace

TEST_CASE("stream capture: a kernel, a copy, a set and a host function captured, then launched many times") {
  REQUIRE(capture_kernels_registered);
  constexpr int n = 64;
  int *d_in = nullptr, *d_out = nullptr;
  REQUIRE(cudaMalloc(&d_in, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&d_out, n * sizeof(int)) == cudaSuccess);
  std::vector<int> host(n, 0), back(n, -1);
  for (int i = 0; i < n; ++i) host[i] = i;
  int calls = 0;
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);

  check_succeeded(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(status_of(s) == cudaStreamCaptureStatusActive);
  check_succeeded(cudaMemsetAsync(d_out, 0, n * sizeof(int), s));
  check_succeeded(cudaMemcpyAsync(d_in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice, s));
  // <<<>>> as weft-port writes it, and by address.
  check_succeeded(weft::launch<add_each>(weft::launch_config{2, 32, 0, s}, d_in, 5, n));
  void* args[] = {&d_in, nullptr, nullptr};
  int amount = 1, count_n = n;
  args[1] = &amount;
  args[2] = &count_n;
  check_succeeded(cudaLaunchKernel(reinterpret_cast<const void*>(&add_each), dim3(2), dim3(32), args, 0, s));
  check_succeeded(cudaMemcpyAsync(d_out, d_in, n * sizeof(int), cudaMemcpyDeviceToDevice, s));
  check_succeeded(cudaMemcpyAsync(back.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  check_succeeded(cudaLaunchHostFunc(s, bump, &calls));
  // Nothing ran: the host copy is untouched, the function not called.
  CHECK(back[0] == -1);
  CHECK(calls == 0);
  cudaGraph_t graph = nullptr;
  check_succeeded(cudaStreamEndCapture(s, &graph));
  REQUIRE(graph != nullptr);
  CHECK(status_of(s) == cudaStreamCaptureStatusNone);
  counts c = count(graph);
  CHECK(c.nodes == 7);
  CHECK(c.edges == 6);
  CHECK(c.roots == 1);
  std::vector<cudaGraphNode_t> nodes(c.nodes);
  REQUIRE(cudaGraphGetNodes(graph, nodes.data(), &c.nodes) == cudaSuccess);
  cudaGraphNodeType type;
  REQUIRE(cudaGraphNodeGetType(nodes[0], &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeMemset);
  REQUIRE(cudaGraphNodeGetType(nodes[2], &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeKernel);
  REQUIRE(cudaGraphNodeGetType(nodes[6], &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeHost);
  cudaKernelNodeParams p{};
  REQUIRE(cudaGraphKernelNodeGetParams(nodes[3], &p) == cudaSuccess);
  CHECK(p.func == reinterpret_cast<void*>(&add_each));
  CHECK(p.gridDim.x == 2);
  CHECK(*static_cast<int*>(p.kernelParams[1]) == 1);

  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int launch = 0; launch < 10; ++launch) {
    std::fill(back.begin(), back.end(), -1);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    for (int i = 0; i < n; ++i) REQUIRE(back[i] == i + 6);
  }
  CHECK(calls == 10);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d_in);
  cudaFree(d_out);
}

TEST_CASE("stream capture: lambda kernels and weft::launch of a function are kernel nodes launched many times") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, sizeof(int)) == cudaSuccess);
  cudaStream_t s;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  int factor = 3;  // copied at the launch: later changes do not reach the node
  weft::launch_config one{1, 1, 0, s};
  REQUIRE(weft::launch(
              one, [](int* x) { *x = 7; }, d) == cudaSuccess);
  REQUIRE(weft::launch(
              one, [factor](int* x) { *x *= factor; }, d) == cudaSuccess);
  REQUIRE(weft::launch(one, add, d, 1) == cudaSuccess);
  factor = 100;
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  CHECK(count(graph).nodes == 3);
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int launch = 0; launch < 5; ++launch) {
    REQUIRE(cudaMemsetAsync(d, 0, sizeof(int), s) == cudaSuccess);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(copy_back(d) == 22);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
}

TEST_CASE("stream capture: fork and join across three streams make a diamond") {
  REQUIRE(capture_kernels_registered);
  int* x = nullptr;
  REQUIRE(cudaMalloc(&x, 2 * sizeof(int)) == cudaSuccess);
  cudaStream_t s1, s2, s3;
  REQUIRE(cudaStreamCreate(&s1) == cudaSuccess);
  REQUIRE(cudaStreamCreate(&s2) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t fork, join2, join3;
  cudaEventCreate(&fork);
  cudaEventCreate(&join2);
  cudaEventCreate(&join3);
  REQUIRE(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
  CHECK(status_of(s2) == cudaStreamCaptureStatusNone);
  REQUIRE(weft::launch<set_to>(weft::launch_config{1, 1, 0, s1}, x, 1) == cudaSuccess);
  check_succeeded(cudaEventRecord(fork, s1));
  check_succeeded(cudaStreamWaitEvent(s2, fork, 0));
  check_succeeded(cudaStreamWaitEvent(s3, fork, 0));
  CHECK(status_of(s2) == cudaStreamCaptureStatusActive);
  REQUIRE(weft::launch<add>(weft::launch_config{1, 1, 0, s2}, x, 10) == cudaSuccess);
  REQUIRE(weft::launch<add>(weft::launch_config{1, 1, 0, s3}, x, 100) == cudaSuccess);
  REQUIRE(cudaMemsetAsync(x + 1, 0, sizeof(int), s1) == cudaSuccess);

  cudaStreamCaptureStatus status;
  unsigned long long id1 = 0, id2 = 0;
  cudaGraph_t captured = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  const cudaGraphEdgeData* edges = nullptr;
  std::size_t ndeps = 99;
  check_succeeded(cudaStreamGetCaptureInfo(s1, &status, &id1, &captured, &deps, &edges, &ndeps));
  CHECK(status == cudaStreamCaptureStatusActive);
  CHECK(id1 != 0);
  CHECK(captured != nullptr);
  REQUIRE(ndeps == 1);
  cudaGraphNodeType type;
  REQUIRE(cudaGraphNodeGetType(deps[0], &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeMemset);
  CHECK(edges[0].type == cudaGraphDependencyTypeDefault);
  check_succeeded(cudaStreamGetCaptureInfo(s2, &status, &id2, nullptr, nullptr, nullptr, &ndeps));
  CHECK(id1 == id2);
  CHECK(ndeps == 1);

  REQUIRE(cudaEventRecord(join2, s2) == cudaSuccess);
  REQUIRE(cudaEventRecord(join3, s3) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s1, join2, 0) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s1, join3, 0) == cudaSuccess);
  REQUIRE(weft::launch<multiply_captured>(weft::launch_config{1, 1, 0, s1}, x, 2) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  check_succeeded(cudaStreamEndCapture(s1, &graph));
  CHECK(graph == captured);
  CHECK(status_of(s2) == cudaStreamCaptureStatusNone);
  CHECK(status_of(s3) == cudaStreamCaptureStatusNone);
  counts c = count(graph);
  CHECK(c.nodes == 5);
  CHECK(c.edges == 6);
  CHECK(c.roots == 1);
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int i = 0; i < 3; ++i) REQUIRE(cudaGraphLaunch(exec, s2) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s2) == cudaSuccess);
  CHECK(copy_back(x) == 222);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  for (cudaEvent_t e : {fork, join2, join3}) cudaEventDestroy(e);
  for (cudaStream_t s : {s1, s2, s3}) cudaStreamDestroy(s);
  cudaFree(x);
}

TEST_CASE("stream capture: a fork not joined back fails the capture and ends it in every stream") {
  int* x = nullptr;
  REQUIRE(cudaMalloc(&x, sizeof(int)) == cudaSuccess);
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaEvent_t fork;
  cudaEventCreate(&fork);
  REQUIRE(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE(cudaEventRecord(fork, s1) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s2, fork, 0) == cudaSuccess);
  REQUIRE(weft::launch<add>(weft::launch_config{1, 1, 0, s2}, x, 1) == cudaSuccess);
  cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(1);
  // The capture ends in the origin stream only.
  check_failed_with(cudaStreamEndCapture(s2, &graph), cudaErrorStreamCaptureUnmatched);
  check_failed_with(cudaStreamEndCapture(s1, &graph), cudaErrorStreamCaptureUnjoined);
  CHECK(graph == nullptr);
  CHECK(status_of(s2) == cudaStreamCaptureStatusNone);
  check_failed_with(cudaStreamEndCapture(s2, &graph), cudaErrorIllegalState);
  cudaEventDestroy(fork);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFree(x);
}

TEST_CASE("stream capture: beginning and ending in the wrong state") {
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t graph = nullptr;
  check_failed_with(cudaStreamEndCapture(s, &graph), cudaErrorIllegalState);
  check_failed_with(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
  check_failed_with(cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal),
                    cudaErrorStreamCaptureUnsupported);
  check_failed_with(cudaStreamBeginCapture(s, static_cast<cudaStreamCaptureMode>(7)), cudaErrorInvalidValue);
  check_succeeded(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  check_failed_with(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
  // A null graph pointer ends the capture and discards the graph.
  check_succeeded(cudaStreamEndCapture(s, nullptr));
  check_failed_with(cudaStreamEndCapture(s, &graph), cudaErrorIllegalState);
  // An empty capture is an empty graph.
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  check_succeeded(cudaStreamEndCapture(s, &graph));
  REQUIRE(graph != nullptr);
  CHECK(count(graph).nodes == 0);
  cudaGraphDestroy(graph);
  cudaStreamCaptureStatus status;
  check_failed_with(cudaStreamIsCapturing(s, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaStreamGetCaptureInfo(s, nullptr), cudaErrorInvalidValue);
  const cudaGraphEdgeData* edges = nullptr;
  check_failed_with(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, nullptr, &edges), cudaErrorInvalidValue);
  cudaGraphNode_t none = nullptr;
  check_failed_with(cudaStreamUpdateCaptureDependencies(s, &none, nullptr, 0, cudaStreamAddCaptureDependencies),
                    cudaErrorIllegalState);
  cudaStreamDestroy(s);
}

namespace {

// One prohibited call during a global capture of a blocking stream that
// already holds a kernel and a recorded event.
struct prohibited {
  const char* name;
  cudaError_t code;
  cudaError_t (*call)(cudaStream_t capturing, cudaStream_t other, cudaEvent_t captured, cudaEvent_t outside, int* x);
};

void never_called(cudaStream_t, cudaError_t, void*) {}

const prohibited prohibited_calls[] = {
    {"cudaStreamSynchronize(capturing)", cudaErrorStreamCaptureUnsupported,
     [](cudaStream_t s, cudaStream_t, cudaEvent_t, cudaEvent_t, int*) { return cudaStreamSynchronize(s); }},
    {"cudaStreamQuery(capturing)", cudaErrorStreamCaptureUnsupported,
     [](cudaStream_t s, cudaStream_t, cudaEvent_t, cudaEvent_t, int*) { return cudaStreamQuery(s); }},
    {"cudaDeviceSynchronize", cudaErrorStreamCaptureUnsupported,
     [](cudaStream_t, cudaStream_t, cudaEvent_t, cudaEvent_t, int*) { return cudaDeviceSynchronize(); }},
    {"cudaMalloc", cudaErrorStreamCaptureUnsupported,
     [](cudaStream_t, cudaStream_t, cudaEvent_t, cudaEvent_t, int*) {
       void* p = nullptr;
       return cudaMalloc(&p, 4);
     }},
    {"cudaMemcpy", cudaErrorStreamCaptureImplicit,
     [](cudaStream_t, cudaStream_t, cudaEvent_t, cudaEvent_t, int* x) {
       int h;
       return cudaMemcpy(&h, x, sizeof(int), cudaMemcpyDeviceToHost);
     }},
    {"kernel into the legacy stream", cudaErrorStreamCaptureImplicit,
     [](cudaStream_t, cudaStream_t, cudaEvent_t, cudaEvent_t, int* x) {
       return weft::launch<add>(weft::launch_config{1, 1}, x, 1);
     }},
    {"cudaEventSynchronize(captured)", cudaErrorCapturedEvent,
     [](cudaStream_t, cudaStream_t, cudaEvent_t e, cudaEvent_t, int*) { return cudaEventSynchronize(e); }},
    {"cudaEventQuery(captured)", cudaErrorCapturedEvent,
     [](cudaStream_t, cudaStream_t, cudaEvent_t e, cudaEvent_t, int*) { return cudaEventQuery(e); }},
    {"cudaStreamWaitEvent(outside event)", cudaErrorStreamCaptureIsolation,
     [](cudaStream_t s, cudaStream_t, cudaEvent_t, cudaEvent_t outside, int*) {
       return cudaStreamWaitEvent(s, outside, 0);
     }},
    {"cudaMemsetAsync into the legacy stream", cudaErrorStreamCaptureImplicit,
     [](cudaStream_t, cudaStream_t, cudaEvent_t, cudaEvent_t, int* x) { return cudaMemsetAsync(x, 0, 4, nullptr); }},
    {"cudaMallocHost", cudaErrorStreamCaptureUnsupported,
     [](cudaStream_t, cudaStream_t, cudaEvent_t, cudaEvent_t, int*) {
       void* p = nullptr;
       return cudaMallocHost(&p, 4);
     }},
    {"cudaStreamSynchronize(other)", cudaErrorStreamCaptureUnsupported,
     [](cudaStream_t, cudaStream_t other, cudaEvent_t, cudaEvent_t, int*) { return cudaStreamSynchronize(other); }},
    {"cudaFree(nullptr)", cudaErrorStreamCaptureUnsupported,
     [](cudaStream_t, cudaStream_t, cudaEvent_t, cudaEvent_t, int*) { return cudaFree(nullptr); }},
    {"cudaStreamAddCallback", cudaErrorStreamCaptureUnsupported,
     [](cudaStream_t s, cudaStream_t, cudaEvent_t, cudaEvent_t, int*) {
       return cudaStreamAddCallback(s, never_called, nullptr, 0);
     }},
};

}  // namespace

TEST_CASE("stream capture: prohibited calls fail with CUDA's code and invalidate the capture") {
  REQUIRE(capture_kernels_registered);
  int* x = nullptr;
  REQUIRE(cudaMalloc(&x, sizeof(int)) == cudaSuccess);
  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaEvent_t captured, outside;
  cudaEventCreate(&captured);
  cudaEventCreate(&outside);
  cudaEventRecord(outside, s2);
  cudaStreamSynchronize(s2);
  for (const prohibited& p : prohibited_calls) {
    CAPTURE(p.name);
    REQUIRE(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(weft::launch<add>(weft::launch_config{1, 1, 0, s1}, x, 1) == cudaSuccess);
    REQUIRE(cudaEventRecord(captured, s1) == cudaSuccess);
    check_failed_with(p.call(s1, s2, captured, outside, x), p.code);
    // Further work in the capture is refused until it ends, without a graph.
    check_failed_with(weft::launch<add>(weft::launch_config{1, 1, 0, s1}, x, 1), cudaErrorStreamCaptureInvalidated);
    CHECK(status_of(s1) == cudaStreamCaptureStatusInvalidated);
    cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(1);
    check_failed_with(cudaStreamEndCapture(s1, &graph), cudaErrorStreamCaptureInvalidated);
    CHECK(graph == nullptr);
    CHECK(status_of(s1) == cudaStreamCaptureStatusNone);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  }
  cudaEventDestroy(captured);
  cudaEventDestroy(outside);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaFree(x);
}

TEST_CASE("stream capture: work elsewhere that does not touch the capture is allowed") {
  int* x = nullptr;
  REQUIRE(cudaMalloc(&x, sizeof(int)) == cudaSuccess);
  cudaStream_t s1, other;
  cudaStreamCreate(&s1);
  cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  cudaEvent_t e;
  cudaEventCreate(&e);
  REQUIRE(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE(cudaEventRecord(e, s1) == cudaSuccess);
  check_succeeded(weft::launch<set_to>(weft::launch_config{1, 1, 0, other}, x, 9));
  // Recording a captured event again outside the capture makes it ordinary.
  check_succeeded(cudaEventRecord(e, other));
  CHECK(status_of(s1) == cudaStreamCaptureStatusActive);
  cudaGraph_t graph = nullptr;
  check_succeeded(cudaStreamEndCapture(s1, &graph));
  REQUIRE(graph != nullptr);
  cudaGraphDestroy(graph);
  REQUIRE(cudaStreamSynchronize(other) == cudaSuccess);
  CHECK(copy_back(x) == 9);
  cudaEventDestroy(e);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(other);
  cudaFree(x);
}

TEST_CASE("stream capture: the modes decide whether another thread's cudaMalloc is refused") {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  check_succeeded(cudaThreadExchangeStreamCaptureMode(&mode));
  CHECK(mode == cudaStreamCaptureModeGlobal);
  check_succeeded(cudaThreadExchangeStreamCaptureMode(&mode));
  CHECK(mode == cudaStreamCaptureModeRelaxed);
  check_failed_with(cudaThreadExchangeStreamCaptureMode(nullptr), cudaErrorInvalidValue);

  cudaStream_t s1, s2;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  struct expected {
    cudaStreamCaptureMode mode;
    cudaError_t other_malloc, other_end;
  };
  // Global: another thread's cudaMalloc is refused and invalidates the
  // capture; ThreadLocal: it is allowed, and ending the capture there is the
  // wrong thread; Relaxed: both are allowed. Either way the capture ends.
  for (expected x :
       {expected{cudaStreamCaptureModeGlobal, cudaErrorStreamCaptureUnsupported, cudaErrorStreamCaptureInvalidated},
        expected{cudaStreamCaptureModeThreadLocal, cudaSuccess, cudaErrorStreamCaptureWrongThread},
        expected{cudaStreamCaptureModeRelaxed, cudaSuccess, cudaSuccess}}) {
    CAPTURE(x.mode);
    REQUIRE(cudaStreamBeginCapture(s1, x.mode) == cudaSuccess);
    cudaError_t other_malloc = cudaErrorUnknown, other_end_unrelated = cudaErrorUnknown, other_end = cudaErrorUnknown;
    std::thread([&] {
      void* p = nullptr;
      other_malloc = cudaMalloc(&p, 4);
      if (p) cudaFree(p);
      cudaGraph_t g = nullptr;
      other_end_unrelated = cudaStreamEndCapture(s2, &g);
    }).join();
    std::thread([&] {
      cudaGraph_t g = nullptr;
      other_end = cudaStreamEndCapture(s1, &g);
      if (g) cudaGraphDestroy(g);
    }).join();
    CHECK(other_malloc == x.other_malloc);
    CHECK(other_end_unrelated == cudaErrorIllegalState);
    CHECK(other_end == x.other_end);
    CHECK(status_of(s1) == cudaStreamCaptureStatusNone);
    void* p = nullptr;
    check_succeeded(cudaMalloc(&p, 4));
    cudaFree(p);
  }

  // A thread in the Relaxed interaction mode may allocate during its own
  // global capture.
  REQUIRE(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal) == cudaSuccess);
  mode = cudaStreamCaptureModeRelaxed;
  REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
  void* p = nullptr;
  check_succeeded(cudaMalloc(&p, 4));
  check_succeeded(cudaFree(p));
  REQUIRE(cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess);
  // Back in Global, it may not.
  check_failed_with(cudaMalloc(&p, 4), cudaErrorStreamCaptureUnsupported);
  cudaGraph_t graph = nullptr;
  check_failed_with(cudaStreamEndCapture(s1, &graph), cudaErrorStreamCaptureInvalidated);

  // A thread-local capture on another thread does not forbid this one.
  std::atomic<int> phase{0};
  std::thread capturer([&] {
    REQUIRE(cudaStreamBeginCapture(s2, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    phase = 1;
    while (phase != 2) std::this_thread::yield();
    cudaGraph_t g = nullptr;
    CHECK(cudaStreamEndCapture(s2, &g) == cudaSuccess);
    cudaGraphDestroy(g);
  });
  while (phase != 1) std::this_thread::yield();
  check_succeeded(cudaMalloc(&p, 4));
  check_succeeded(cudaFree(p));
  phase = 2;
  capturer.join();
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

TEST_CASE("stream capture: updating the dependencies and capturing into an existing graph") {
  REQUIRE(capture_kernels_registered);
  int* x = nullptr;
  REQUIRE(cudaMalloc(&x, 2 * sizeof(int)) == cudaSuccess);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t target;
  cudaGraphCreate(&target, 0);
  cudaGraphNode_t empty, extra;
  REQUIRE(cudaGraphAddEmptyNode(&empty, target, nullptr, 0) == cudaSuccess);
  check_succeeded(cudaStreamBeginCaptureToGraph(s, target, &empty, nullptr, 1, cudaStreamCaptureModeGlobal));
  REQUIRE(weft::launch<set_to>(weft::launch_config{1, 1, 0, s}, x, 5) == cudaSuccess);
  cudaStreamCaptureStatus status;
  const cudaGraphNode_t* deps = nullptr;
  std::size_t ndeps = 0;
  REQUIRE(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr, &ndeps) == cudaSuccess);
  CHECK(ndeps == 1);
  REQUIRE(cudaGraphAddEmptyNode(&extra, target, nullptr, 0) == cudaSuccess);
  check_succeeded(cudaStreamUpdateCaptureDependencies(s, &extra, nullptr, 1, cudaStreamAddCaptureDependencies));
  REQUIRE(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr, &ndeps) == cudaSuccess);
  CHECK(ndeps == 2);
  check_succeeded(cudaStreamUpdateCaptureDependencies(s, &extra, nullptr, 1, cudaStreamSetCaptureDependencies));
  REQUIRE(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr, &ndeps) == cudaSuccess);
  REQUIRE(ndeps == 1);
  CHECK(deps[0] == extra);
  check_failed_with(cudaStreamUpdateCaptureDependencies(s, &extra, nullptr, 1, 7), cudaErrorInvalidValue);
  cudaGraph_t elsewhere;
  cudaGraphCreate(&elsewhere, 0);
  cudaGraphNode_t foreign;
  cudaGraphAddEmptyNode(&foreign, elsewhere, nullptr, 0);
  check_failed_with(cudaStreamUpdateCaptureDependencies(s, &foreign, nullptr, 1, 0), cudaErrorInvalidValue);
  // No path joins this node to the first kernel's: it writes elsewhere.
  REQUIRE(weft::launch<set_to>(weft::launch_config{1, 1, 0, s}, x + 1, 6) == cudaSuccess);
  cudaGraph_t out = nullptr;
  check_succeeded(cudaStreamEndCapture(s, &out));
  CHECK(out == target);
  counts c = count(target);
  CHECK(c.nodes == 4);
  CHECK(c.edges == 2);
  CHECK(c.roots == 2);
  cudaGraphExec_t e;
  REQUIRE(cudaGraphInstantiate(&e, target, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(e, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(copy_back(x) == 5);
  CHECK(copy_back(x + 1) == 6);
  std::size_t before = 0;
  REQUIRE(cudaGraphNodeGetDependentNodes(extra, nullptr, nullptr, &before) == cudaSuccess);
  CHECK(before == 1);
  REQUIRE(cudaGraphNodeGetDependentNodes(empty, nullptr, nullptr, &before) == cudaSuccess);
  CHECK(before == 1);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(target);
  cudaGraphDestroy(elsewhere);
  cudaStreamDestroy(s);
  cudaFree(x);
}

TEST_CASE("stream capture: the per-thread default stream captures, and the legacy stream is then unusable") {
  REQUIRE(capture_kernels_registered);
  int* x = nullptr;
  REQUIRE(cudaMalloc(&x, sizeof(int)) == cudaSuccess);
  check_succeeded(cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeGlobal));
  CHECK(status_of(cudaStreamPerThread) == cudaStreamCaptureStatusActive);
  check_succeeded(cudaMemsetAsync(x, 0, sizeof(int), cudaStreamPerThread));
  check_succeeded(weft::launch<add>(weft::launch_config{1, 1, 0, cudaStreamPerThread}, x, 4));
  // The per-thread stream is blocking, so the legacy stream would depend on it.
  cudaStreamCaptureStatus status;
  check_failed_with(cudaStreamIsCapturing(cudaStreamLegacy, &status), cudaErrorStreamCaptureImplicit);
  CHECK(status_of(cudaStreamPerThread) == cudaStreamCaptureStatusActive);
  cudaGraph_t graph = nullptr;
  check_succeeded(cudaStreamEndCapture(cudaStreamPerThread, &graph));
  CHECK(count(graph).nodes == 2);
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int i = 0; i < 3; ++i) REQUIRE(cudaGraphLaunch(exec, cudaStreamPerThread) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess);
  CHECK(copy_back(x) == 4);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(x);
}

TEST_CASE("stream capture: a graph launch becomes a child graph node; external events become event nodes") {
  REQUIRE(capture_kernels_registered);
  int* x = nullptr;
  REQUIRE(cudaMalloc(&x, sizeof(int)) == cudaSuccess);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t inner = nullptr;
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE(weft::launch<add>(weft::launch_config{1, 1, 0, s}, x, 1) == cudaSuccess);
  REQUIRE(weft::launch<multiply_captured>(weft::launch_config{1, 1, 0, s}, x, 10) == cudaSuccess);
  REQUIRE(cudaStreamEndCapture(s, &inner) == cudaSuccess);
  cudaGraphExec_t inner_exec;
  REQUIRE(cudaGraphInstantiate(&inner_exec, inner, 0) == cudaSuccess);

  cudaEvent_t done, outside;
  cudaEventCreate(&done);
  cudaEventCreate(&outside);
  cudaGraph_t outer = nullptr;
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  check_succeeded(cudaStreamWaitEvent(s, outside, cudaEventWaitExternal));
  check_succeeded(cudaMemsetAsync(x, 0, sizeof(int), s));
  check_succeeded(cudaGraphLaunch(inner_exec, s));
  check_succeeded(cudaGraphLaunch(inner_exec, s));
  check_succeeded(cudaEventRecordWithFlags(done, s, cudaEventRecordExternal));
  check_failed_with(cudaEventRecordWithFlags(done, s, 5), cudaErrorInvalidValue);
  REQUIRE(cudaStreamEndCapture(s, &outer) == cudaSuccess);
  counts c = count(outer);
  CHECK(c.nodes == 5);
  CHECK(c.edges == 4);
  std::vector<cudaGraphNode_t> nodes(c.nodes);
  REQUIRE(cudaGraphGetNodes(outer, nodes.data(), &c.nodes) == cudaSuccess);
  const cudaGraphNodeType expected[] = {cudaGraphNodeTypeWaitEvent, cudaGraphNodeTypeMemset, cudaGraphNodeTypeGraph,
                                        cudaGraphNodeTypeGraph, cudaGraphNodeTypeEventRecord};
  for (std::size_t i = 0; i < c.nodes; ++i) {
    cudaGraphNodeType type;
    REQUIRE(cudaGraphNodeGetType(nodes[i], &type) == cudaSuccess);
    CHECK(type == expected[i]);
  }
  cudaGraphExec_t outer_exec;
  REQUIRE(cudaGraphInstantiate(&outer_exec, outer, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(outer_exec, s) == cudaSuccess);
  REQUIRE(cudaEventSynchronize(done) == cudaSuccess);
  CHECK(copy_back(x) == 110);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  cudaGraphExecDestroy(outer_exec);
  cudaGraphExecDestroy(inner_exec);
  cudaGraphDestroy(outer);
  cudaGraphDestroy(inner);
  cudaEventDestroy(done);
  cudaEventDestroy(outside);
  cudaStreamDestroy(s);
  cudaFree(x);
}

namespace {
__device__ int captured_symbol[4];
}

TEST_CASE("stream capture: 2D and 3D copies and sets, symbol copies and peer copies are nodes replayed each launch") {
  constexpr std::size_t width = 8, height = 3, depth = 2;
  std::size_t pitch = 0;
  char* d2 = nullptr;
  REQUIRE(cudaMallocPitch(reinterpret_cast<void**>(&d2), &pitch, width, height) == cudaSuccess);
  cudaPitchedPtr box;
  REQUIRE(cudaMalloc3D(&box, make_cudaExtent(width, height + 1, depth)) == cudaSuccess);
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 8 * sizeof(int)) == cudaSuccess);
  std::vector<char> rows(width * height), back(width * height);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<char>(i);
  int values[4] = {1, 2, 3, 4}, symbol_back[4] = {};
  std::vector<char> slices(box.pitch * (height + 1) * depth);

  cudaStream_t s;
  cudaStreamCreate(&s);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  check_succeeded(cudaMemset2DAsync(d2, pitch, 0, width, height, s));
  check_succeeded(cudaMemcpy2DAsync(d2, pitch, rows.data(), width, width, height, cudaMemcpyHostToDevice, s));
  check_succeeded(cudaMemcpy2DAsync(back.data(), width, d2, pitch, width, height, cudaMemcpyDeviceToHost, s));
  // Slices with a gap row between them: one memset node per slice.
  check_succeeded(cudaMemset3DAsync(box, 0, make_cudaExtent(width, height + 1, depth), s));
  check_succeeded(cudaMemset3DAsync(box, 7, make_cudaExtent(width, height, depth), s));
  cudaMemcpy3DParms p{};
  p.srcPtr = box;
  p.dstPtr = make_cudaPitchedPtr(slices.data(), box.pitch, width, height + 1);
  p.extent = make_cudaExtent(box.pitch, height + 1, depth);
  p.kind = cudaMemcpyDeviceToHost;
  check_succeeded(cudaMemcpy3DAsync(&p, s));
  check_succeeded(cudaMemcpyToSymbolAsync(captured_symbol, values, sizeof values, 0, cudaMemcpyHostToDevice, s));
  check_succeeded(cudaMemcpyFromSymbolAsync(d, captured_symbol, sizeof values, 0, cudaMemcpyDeviceToDevice, s));
  check_succeeded(cudaMemcpyPeerAsync(d + 4, 0, d, 0, sizeof values, s));
  check_succeeded(cudaMemcpyAsync(symbol_back, d + 4, sizeof symbol_back, cudaMemcpyDeviceToHost, s));
  // Refused arguments are refused as without a capture, and do not invalidate it.
  check_failed_with(cudaMemcpyAsync(d, values, sizeof values, static_cast<cudaMemcpyKind>(9), s),
                    cudaErrorInvalidMemcpyDirection);
  check_failed_with(cudaMemsetAsync(values, 0, sizeof values, s), cudaErrorInvalidValue);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  counts c = count(graph);
  CHECK(c.nodes == 11);
  CHECK(c.edges == 10);
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    std::fill(back.begin(), back.end(), 0);
    std::fill(slices.begin(), slices.end(), 1);
    std::fill(symbol_back, symbol_back + 4, 0);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(back == rows);
    for (std::size_t z = 0; z < depth; ++z)
      for (std::size_t y = 0; y <= height; ++y)
        for (std::size_t x = 0; x < width; ++x)
          REQUIRE(slices[(z * (height + 1) + y) * box.pitch + x] == (y < height ? 7 : 0));
    for (int i = 0; i < 4; ++i) CHECK(symbol_back[i] == i + 1);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(d);
  cudaFree(d2);
  cudaFree(box.ptr);
}

TEST_CASE("stream capture: cudaLaunchKernelEx and cooperative launches are captured as kernel nodes") {
  REQUIRE(capture_kernels_registered);
  int* x = nullptr;
  REQUIRE(cudaMalloc(&x, sizeof(int)) == cudaSuccess);
  cudaStream_t s;
  cudaStreamCreate(&s);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1);
  config.blockDim = dim3(1);
  config.stream = s;
  check_succeeded(cudaLaunchKernelEx(&config, set_to, x, 3));
  int five = 5;
  void* args[] = {&x, &five};
  check_succeeded(
      cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&multiply_captured), dim3(1), dim3(1), args, 0, s));
  // A bad launch is refused as without a capture, and leaves it valid.
  check_failed_with(weft::launch<add>(weft::launch_config{1, 2048, 0, s}, x, 1), cudaErrorInvalidValue);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  CHECK(count(graph).nodes == 2);
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(copy_back(x) == 15);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(x);
}

TEST_CASE("stream capture: destroying a capturing stream") {
  REQUIRE(capture_kernels_registered);
  int* x = nullptr;
  REQUIRE(cudaMalloc(&x, sizeof(int)) == cudaSuccess);
  cudaStream_t origin, side, later;
  cudaStreamCreate(&origin);
  cudaEvent_t fork, join;
  cudaEventCreate(&fork);
  cudaEventCreate(&join);
  // A forked stream whose work the origin joined leaves the capture, which
  // goes on (cuda-samples' graphMemoryNodes does so); one with work not
  // joined leaves it invalidated.
  for (bool joined : {true, false}) {
    CAPTURE(joined);
    cudaStreamCreate(&side);
    REQUIRE(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(cudaEventRecord(fork, origin) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(side, fork, 0) == cudaSuccess);
    REQUIRE(weft::launch<set_to>(weft::launch_config{1, 1, 0, side}, x, 8) == cudaSuccess);
    if (joined) {
      REQUIRE(cudaEventRecord(join, side) == cudaSuccess);
      REQUIRE(cudaStreamWaitEvent(origin, join, 0) == cudaSuccess);
    }
    check_succeeded(cudaStreamDestroy(side));
    cudaGraph_t graph = nullptr;
    if (joined) {
      CHECK(status_of(origin) == cudaStreamCaptureStatusActive);
      check_succeeded(cudaStreamEndCapture(origin, &graph));
      REQUIRE(graph != nullptr);
      CHECK(count(graph).nodes == 1);
      cudaGraphDestroy(graph);
    } else {
      CHECK(status_of(origin) == cudaStreamCaptureStatusInvalidated);
      cudaStreamCaptureStatus status;
      check_succeeded(cudaStreamGetCaptureInfo(origin, &status));
      CHECK(status == cudaStreamCaptureStatusInvalidated);
      check_failed_with(cudaStreamEndCapture(origin, &graph), cudaErrorStreamCaptureInvalidated);
    }
  }
  // Destroying the origin ends the capture in every stream.
  cudaStreamCreate(&later);
  REQUIRE(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE(cudaEventRecord(fork, origin) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(later, fork, 0) == cudaSuccess);
  check_succeeded(cudaStreamDestroy(origin));
  CHECK(status_of(later) == cudaStreamCaptureStatusNone);
  check_succeeded(cudaMemsetAsync(nullptr, 0, 0, later));
  void* p = nullptr;
  check_succeeded(cudaMalloc(&p, 4));
  cudaFree(p);
  cudaEventDestroy(fork);
  cudaEventDestroy(join);
  cudaStreamDestroy(later);
  cudaFree(x);
}
