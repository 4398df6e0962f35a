// Launch attributes of a cudaLaunchKernelEx captured into a graph (CUDA 13):
// programmatic stream serialization after a kernel becomes a programmatic
// edge from that kernel's programmatic port, which the replayed graph
// overlaps as the stream launch would; the attributes CUDA takes for graph
// nodes stay on the captured kernel node and read back.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "error_checks.hpp"

namespace {

using std::chrono::milliseconds;

bool wait_for_flag(const int* flag, milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::atomic_ref<const int>(*flag).load() == 0) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

struct handshake {
  int secondary_running = 0;
  int primary_saw_it = 0;
  int value = 0;
  int read_after_sync = -1;
};

// Triggers, then waits (with a time limit) for the secondary to run; its
// result is written last, late.
__global__ void primary(handshake* h) {
  if (threadIdx.x != 0) return;
  cudaTriggerProgrammaticLaunchCompletion();
  if (wait_for_flag(&h->secondary_running, milliseconds(2000))) atomicAdd(&h->primary_saw_it, 1);
  std::this_thread::sleep_for(milliseconds(20));
  std::atomic_ref<int>(h->value).store(42);
}

__global__ void secondary(handshake* h) {
  std::atomic_ref<int>(h->secondary_running).store(1);
  cudaGridDependencySynchronize();
  h->read_after_sync = std::atomic_ref<int>(h->value).load();
}

__global__ void noop(handshake*) {}

cudaError_t launch_ex(cudaStream_t s, cudaLaunchAttribute* attrs, unsigned count, void (*kernel)(handshake*),
                      handshake* h) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2);
  config.blockDim = dim3(32);
  config.stream = s;
  config.attrs = attrs;
  config.numAttrs = count;
  return cudaLaunchKernelEx(&config, kernel, h);
}

cudaLaunchAttribute serialization() {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a.val.programmaticStreamSerializationAllowed = 1;
  return a;
}

}  // namespace

TEST_CASE("a captured launch with programmatic stream serialization is a programmatic edge that overlaps on replay") {
  handshake* h = nullptr;
  REQUIRE(cudaMallocManaged(&h, sizeof(handshake)) == cudaSuccess);
  cudaStream_t s;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE(launch_ex(s, nullptr, 0, primary, h) == cudaSuccess);
  cudaLaunchAttribute serial = serialization();
  REQUIRE(launch_ex(s, &serial, 1, secondary, h) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);

  cudaGraphNode_t from[2], to[2];
  cudaGraphEdgeData data[2] = {};
  size_t count = 2;
  REQUIRE(cudaGraphGetEdges(graph, from, to, data, &count) == cudaSuccess);
  REQUIRE(count == 1);
  CHECK(data[0].type == cudaGraphDependencyTypeProgrammatic);
  CHECK(data[0].from_port == cudaGraphKernelNodePortProgrammatic);
  CHECK(data[0].to_port == 0);
  cudaGraphNodeType type;
  REQUIRE(cudaGraphNodeGetType(from[0], &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeKernel);

  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    *h = handshake{};
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(h->primary_saw_it == 2);    // both primary blocks saw the secondary running
    CHECK(h->read_after_sync == 42);  // and it still waited for the primary's result
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(h);
}

TEST_CASE("captured serialization after a node that is not a kernel, or without the attribute, is an ordinary edge") {
  handshake* h = nullptr;
  REQUIRE(cudaMallocManaged(&h, sizeof(handshake)) == cudaSuccess);
  cudaStream_t s;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE(cudaMemsetAsync(h, 0, sizeof(handshake), s) == cudaSuccess);
  cudaLaunchAttribute serial = serialization();
  REQUIRE(launch_ex(s, &serial, 1, noop, h) == cudaSuccess);
  REQUIRE(launch_ex(s, nullptr, 0, noop, h) == cudaSuccess);
  serial.val.programmaticStreamSerializationAllowed = 0;
  REQUIRE(launch_ex(s, &serial, 1, noop, h) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  cudaGraphNode_t from[4], to[4];
  cudaGraphEdgeData data[4] = {};
  size_t count = 4;
  REQUIRE(cudaGraphGetEdges(graph, from, to, data, &count) == cudaSuccess);
  REQUIRE(count == 3);
  for (size_t i = 0; i < count; ++i) {
    CHECK(data[i].type == cudaGraphDependencyTypeDefault);
    CHECK(data[i].from_port == 0);
  }
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(h);
}

TEST_CASE("a captured kernel node keeps the launch attributes CUDA takes for graph nodes") {
  handshake* h = nullptr;
  REQUIRE(cudaMallocManaged(&h, sizeof(handshake)) == cudaSuccess);
  cudaStream_t s;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  cudaLaunchAttribute attrs[4] = {};
  attrs[0].id = cudaLaunchAttributeAccessPolicyWindow;
  attrs[0].val.accessPolicyWindow.base_ptr = h;
  attrs[0].val.accessPolicyWindow.num_bytes = 4096;
  attrs[0].val.accessPolicyWindow.hitRatio = 0.5f;
  attrs[0].val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attrs[0].val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  attrs[1].id = cudaLaunchAttributeMemSyncDomain;
  attrs[1].val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
  attrs[2].id = cudaLaunchAttributePriority;
  attrs[2].val.priority = -2;
  attrs[3].id = cudaLaunchAttributeClusterDimension;
  attrs[3].val.clusterDim.x = 2;
  attrs[3].val.clusterDim.y = 1;
  attrs[3].val.clusterDim.z = 1;
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE(launch_ex(s, attrs, 4, noop, h) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  cudaGraphNode_t node;
  size_t count = 1;
  REQUIRE(cudaGraphGetNodes(graph, &node, &count) == cudaSuccess);
  REQUIRE(count == 1);
  cudaKernelNodeAttrValue v = {};
  REQUIRE(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeAccessPolicyWindow, &v) == cudaSuccess);
  CHECK(v.accessPolicyWindow.base_ptr == h);
  CHECK(v.accessPolicyWindow.num_bytes == 4096);
  CHECK(v.accessPolicyWindow.hitRatio == 0.5f);
  CHECK(v.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting);
  CHECK(v.accessPolicyWindow.missProp == cudaAccessPropertyStreaming);
  REQUIRE(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeMemSyncDomain, &v) == cudaSuccess);
  CHECK(v.memSyncDomain == cudaLaunchMemSyncDomainRemote);
  REQUIRE(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributePriority, &v) == cudaSuccess);
  CHECK(v.priority == -2);
  REQUIRE(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeClusterDimension, &v) == cudaSuccess);
  CHECK(v.clusterDim.x == 2);
  CHECK(v.clusterDim.y == 1);
  CHECK(v.clusterDim.z == 1);
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
  cudaFree(h);
}

namespace {

cudaLaunchAttribute event_attribute(cudaLaunchAttributeID id, cudaEvent_t e) {
  cudaLaunchAttribute a{};
  a.id = id;
  if (id == cudaLaunchAttributeProgrammaticEvent)
    a.val.programmaticEvent.event = e;
  else
    a.val.launchCompletionEvent.event = e;
  return a;
}

}  // namespace

TEST_CASE("a wait for a captured launch's programmatic event is an edge from the kernel node's port") {
  handshake* h = nullptr;
  REQUIRE(cudaMallocManaged(&h, sizeof(handshake)) == cudaSuccess);
  cudaStream_t s, side;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t programmatic, join;
  REQUIRE(cudaEventCreateWithFlags(&programmatic, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&join, cudaEventDisableTiming) == cudaSuccess);

  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  cudaLaunchAttribute event = event_attribute(cudaLaunchAttributeProgrammaticEvent, programmatic);
  REQUIRE(launch_ex(s, &event, 1, primary, h) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(side, programmatic, 0) == cudaSuccess);
  cudaStreamCaptureStatus status;
  const cudaGraphNode_t* deps = nullptr;
  const cudaGraphEdgeData* edge_data = nullptr;
  size_t count = 0;
  REQUIRE(cudaStreamGetCaptureInfo(side, &status, nullptr, nullptr, &deps, &edge_data, &count) == cudaSuccess);
  REQUIRE(count == 1);
  REQUIRE(edge_data != nullptr);
  CHECK(edge_data[0].type == cudaGraphDependencyTypeProgrammatic);
  CHECK(edge_data[0].from_port == cudaGraphKernelNodePortProgrammatic);
  cudaGraphNode_t primary_node = deps[0];
  REQUIRE(launch_ex(side, nullptr, 0, secondary, h) == cudaSuccess);
  REQUIRE(cudaEventRecord(join, side) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s, join, 0) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);

  cudaGraphNode_t from[2], to[2];
  cudaGraphEdgeData data[2] = {};
  count = 2;
  REQUIRE(cudaGraphGetEdges(graph, from, to, data, &count) == cudaSuccess);
  REQUIRE(count == 1);
  CHECK(from[0] == primary_node);
  CHECK(data[0].type == cudaGraphDependencyTypeProgrammatic);
  CHECK(data[0].from_port == cudaGraphKernelNodePortProgrammatic);

  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  *h = handshake{};
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(h->primary_saw_it == 2);
  CHECK(h->read_after_sync == 42);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaEventDestroy(programmatic);
  cudaEventDestroy(join);
  cudaStreamDestroy(side);
  cudaStreamDestroy(s);
  cudaFree(h);
}

TEST_CASE("a launch completion event captured: a kernel waiting for it gets the port edge, other work a full one") {
  handshake* h = nullptr;
  REQUIRE(cudaMallocManaged(&h, sizeof(handshake)) == cudaSuccess);
  cudaStream_t s, side;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t begun, join;
  REQUIRE(cudaEventCreateWithFlags(&begun, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&join, cudaEventDisableTiming) == cudaSuccess);

  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  cudaLaunchAttribute event = event_attribute(cudaLaunchAttributeLaunchCompletionEvent, begun);
  REQUIRE(launch_ex(s, &event, 1, noop, h) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(side, begun, 0) == cudaSuccess);
  REQUIRE(launch_ex(side, nullptr, 0, noop, h) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s, begun, 0) == cudaSuccess);  // s depends on the kernel in full already
  REQUIRE(cudaMemsetAsync(&h->value, 0, sizeof(int), s) == cudaSuccess);
  REQUIRE(cudaEventRecord(join, side) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s, join, 0) == cudaSuccess);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);

  cudaGraphNode_t from[4], to[4];
  cudaGraphEdgeData data[4] = {};
  size_t count = 4;
  REQUIRE(cudaGraphGetEdges(graph, from, to, data, &count) == cudaSuccess);
  REQUIRE(count == 2);
  int ported = 0;
  for (size_t i = 0; i < count; ++i) {
    cudaGraphNodeType type;
    REQUIRE(cudaGraphNodeGetType(to[i], &type) == cudaSuccess);
    if (type == cudaGraphNodeTypeKernel) {
      CHECK(data[i].type == cudaGraphDependencyTypeProgrammatic);
      CHECK(data[i].from_port == cudaGraphKernelNodePortLaunchCompletion);
      ++ported;
    } else {
      CHECK(type == cudaGraphNodeTypeMemset);
      CHECK(data[i].type == cudaGraphDependencyTypeDefault);
      CHECK(data[i].from_port == 0);
    }
  }
  CHECK(ported == 1);
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaEventDestroy(begun);
  cudaEventDestroy(join);
  cudaStreamDestroy(side);
  cudaStreamDestroy(s);
  cudaFree(h);
}
