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
#include <vector>

#include "error_checks.hpp"
#include "programmatic_handshake.hpp"

namespace {

using std::chrono::milliseconds;

using programmatic_test::handshake;
using programmatic_test::wait_for_flag;

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
  // Every thread of both blocks stores what it read: atomically, since they
  // store to one place.
  std::atomic_ref<int>(h->read_after_sync).store(std::atomic_ref<int>(h->value).load());
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

// A handshake, the stream `s` that captures, and for the tests that fork:
// a second stream and two events.
struct capture_fixture {
  handshake* h = nullptr;
  cudaStream_t s = nullptr, side = nullptr;
  cudaEvent_t first = nullptr, join = nullptr;

  capture_fixture() {
    REQUIRE(cudaMallocManaged(&h, sizeof(handshake)) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaEventCreateWithFlags(&first, cudaEventDisableTiming) == cudaSuccess);
    REQUIRE(cudaEventCreateWithFlags(&join, cudaEventDisableTiming) == cudaSuccess);
  }
  ~capture_fixture() {
    cudaEventDestroy(first);
    cudaEventDestroy(join);
    cudaStreamDestroy(side);
    cudaStreamDestroy(s);
    cudaFree(h);
  }

  // The graph that `work` captures from `s`.
  template <class Work>
  cudaGraph_t capture(Work work) {
    REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
    work();
    cudaGraph_t graph = nullptr;
    REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
    return graph;
  }

  // Instantiates `graph`, launches it into `s` `launches` times, each with a
  // fresh handshake and followed by `check()`, and destroys both.
  template <class Check>
  void replay(cudaGraph_t graph, int launches, Check check) {
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    for (int launch = 0; launch < launches; ++launch) {
      *h = handshake{};
      REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
      CHECK(cudaStreamSynchronize(s) == cudaSuccess);
      check();
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
};

struct graph_edges {
  std::vector<cudaGraphNode_t> from, to;
  std::vector<cudaGraphEdgeData> data;
};

// The edges of `graph`, which must be `expected` many.
graph_edges edges_of(cudaGraph_t graph, size_t expected) {
  graph_edges e{std::vector<cudaGraphNode_t>(expected + 1), std::vector<cudaGraphNode_t>(expected + 1),
                std::vector<cudaGraphEdgeData>(expected + 1)};
  size_t count = expected + 1;
  REQUIRE(cudaGraphGetEdges(graph, e.from.data(), e.to.data(), e.data.data(), &count) == cudaSuccess);
  REQUIRE(count == expected);
  e.from.resize(count);
  e.to.resize(count);
  e.data.resize(count);
  return e;
}

}  // namespace

TEST_CASE_FIXTURE(capture_fixture,
                  "a captured launch with programmatic stream serialization is a programmatic edge that overlaps on "
                  "replay") {
  cudaGraph_t graph = capture([&] {
    REQUIRE(launch_ex(s, nullptr, 0, primary, h) == cudaSuccess);
    cudaLaunchAttribute serial = serialization();
    REQUIRE(launch_ex(s, &serial, 1, secondary, h) == cudaSuccess);
  });
  graph_edges edges = edges_of(graph, 1);
  CHECK(edges.data[0].type == cudaGraphDependencyTypeProgrammatic);
  CHECK(edges.data[0].from_port == cudaGraphKernelNodePortProgrammatic);
  CHECK(edges.data[0].to_port == 0);
  cudaGraphNodeType type;
  REQUIRE(cudaGraphNodeGetType(edges.from[0], &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeKernel);

  replay(graph, 2, [&] {
    CHECK(h->primary_saw_it == 2);    // both primary blocks saw the secondary running
    CHECK(h->read_after_sync == 42);  // and it still waited for the primary's result
  });
}

TEST_CASE_FIXTURE(capture_fixture,
                  "captured serialization after a node that is not a kernel, or without the attribute, is an ordinary "
                  "edge") {
  cudaGraph_t graph = capture([&] {
    REQUIRE(cudaMemsetAsync(h, 0, sizeof(handshake), s) == cudaSuccess);
    cudaLaunchAttribute serial = serialization();
    REQUIRE(launch_ex(s, &serial, 1, noop, h) == cudaSuccess);
    REQUIRE(launch_ex(s, nullptr, 0, noop, h) == cudaSuccess);
    serial.val.programmaticStreamSerializationAllowed = 0;
    REQUIRE(launch_ex(s, &serial, 1, noop, h) == cudaSuccess);
  });
  for (const cudaGraphEdgeData& data : edges_of(graph, 3).data) {
    CHECK(data.type == cudaGraphDependencyTypeDefault);
    CHECK(data.from_port == 0);
  }
  cudaGraphDestroy(graph);
}

TEST_CASE_FIXTURE(capture_fixture, "a captured kernel node keeps the launch attributes CUDA takes for graph nodes") {
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
  cudaGraph_t graph = capture([&] { REQUIRE(launch_ex(s, attrs, 4, noop, h) == cudaSuccess); });
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
  replay(graph, 1, [] {});
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

TEST_CASE_FIXTURE(capture_fixture,
                  "a wait for a captured launch's programmatic event is an edge from the kernel node's port") {
  cudaGraphNode_t primary_node = nullptr;
  cudaGraph_t graph = capture([&] {
    cudaLaunchAttribute event = event_attribute(cudaLaunchAttributeProgrammaticEvent, first);
    REQUIRE(launch_ex(s, &event, 1, primary, h) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(side, first, 0) == cudaSuccess);
    cudaStreamCaptureStatus status;
    const cudaGraphNode_t* deps = nullptr;
    const cudaGraphEdgeData* edge_data = nullptr;
    size_t count = 0;
    REQUIRE(cudaStreamGetCaptureInfo(side, &status, nullptr, nullptr, &deps, &edge_data, &count) == cudaSuccess);
    REQUIRE(count == 1);
    REQUIRE(edge_data != nullptr);
    CHECK(edge_data[0].type == cudaGraphDependencyTypeProgrammatic);
    CHECK(edge_data[0].from_port == cudaGraphKernelNodePortProgrammatic);
    primary_node = deps[0];
    REQUIRE(launch_ex(side, nullptr, 0, secondary, h) == cudaSuccess);
    REQUIRE(cudaEventRecord(join, side) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(s, join, 0) == cudaSuccess);
  });

  graph_edges edges = edges_of(graph, 1);
  CHECK(edges.from[0] == primary_node);
  CHECK(edges.data[0].type == cudaGraphDependencyTypeProgrammatic);
  CHECK(edges.data[0].from_port == cudaGraphKernelNodePortProgrammatic);

  replay(graph, 1, [&] {
    CHECK(h->primary_saw_it == 2);
    CHECK(h->read_after_sync == 42);
  });
}

TEST_CASE_FIXTURE(capture_fixture,
                  "a launch completion event captured: a kernel waiting for it gets the port edge, other work a full "
                  "one") {
  cudaGraph_t graph = capture([&] {
    cudaLaunchAttribute event = event_attribute(cudaLaunchAttributeLaunchCompletionEvent, first);
    REQUIRE(launch_ex(s, &event, 1, noop, h) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(side, first, 0) == cudaSuccess);
    REQUIRE(launch_ex(side, nullptr, 0, noop, h) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(s, first, 0) == cudaSuccess);  // s depends on the kernel in full already
    REQUIRE(cudaMemsetAsync(&h->value, 0, sizeof(int), s) == cudaSuccess);
    REQUIRE(cudaEventRecord(join, side) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(s, join, 0) == cudaSuccess);
  });

  graph_edges edges = edges_of(graph, 2);
  int ported = 0;
  for (size_t i = 0; i < edges.data.size(); ++i) {
    cudaGraphNodeType type;
    REQUIRE(cudaGraphNodeGetType(edges.to[i], &type) == cudaSuccess);
    if (type == cudaGraphNodeTypeKernel) {
      CHECK(edges.data[i].type == cudaGraphDependencyTypeProgrammatic);
      CHECK(edges.data[i].from_port == cudaGraphKernelNodePortLaunchCompletion);
      ++ported;
    } else {
      CHECK(type == cudaGraphNodeTypeMemset);
      CHECK(edges.data[i].type == cudaGraphDependencyTypeDefault);
      CHECK(edges.data[i].from_port == 0);
    }
  }
  CHECK(ported == 1);
  replay(graph, 1, [] {});
}
