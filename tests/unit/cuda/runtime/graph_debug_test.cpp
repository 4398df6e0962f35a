// cudaGraphDebugDotPrint: the DOT text of explicit and captured graphs (node
// kinds, the parameters each flag asks for, edges, programmatic edges drawn
// apart, child graphs and conditional bodies as clusters) and its errors.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "error_checks.hpp"

namespace {

__global__ void scale(float* data, float factor, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] *= factor;
}

__global__ void offset(float* data, float amount, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] += amount;
}

const bool debug_kernels_registered = weft::register_kernel<&scale>() && weft::register_kernel<&offset>();

void nothing(void*) {}

std::string dot_path() {
  return (std::filesystem::temp_directory_path() / ("weft_graph_debug_" + std::to_string(::getpid()) + ".dot"))
      .string();
}

// The DOT text cudaGraphDebugDotPrint writes for `g` with `flags`.
std::string dot_of(cudaGraph_t g, unsigned flags) {
  std::string path = dot_path();
  check_succeeded(cudaGraphDebugDotPrint(g, path.c_str(), flags));
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  std::filesystem::remove(path);
  return text.str();
}

cudaGraphNode_t add_kernel(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t n, void* func, float** data,
                           float* factor, int* count) {
  void* args[] = {data, factor, count};
  cudaKernelNodeParams p{};
  p.func = func;
  p.gridDim = dim3(4, 1, 1);
  p.blockDim = dim3(64, 1, 1);
  p.sharedMemBytes = 128;
  p.kernelParams = args;
  cudaGraphNode_t node = nullptr;
  REQUIRE(cudaGraphAddKernelNode(&node, g, deps, n, &p) == cudaSuccess);
  return node;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

}  // namespace

TEST_CASE("cudaGraphDebugDotPrint labels nodes by kind and adds the parameters each flag asks for") {
  REQUIRE(debug_kernels_registered);
  float* d = nullptr;
  REQUIRE(cudaMalloc(&d, 256 * sizeof(float)) == cudaSuccess);
  float host[256] = {};
  float factor = 2.0f;
  int n = 256;
  cudaEvent_t event = nullptr;
  REQUIRE(cudaEventCreate(&event) == cudaSuccess);

  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaMemsetParams set{};
  set.dst = d;
  set.value = 7;
  set.elementSize = 4;
  set.width = 256;
  set.height = 1;
  cudaGraphNode_t clear = nullptr, copy = nullptr, host_node = nullptr, record = nullptr, wait = nullptr;
  REQUIRE(cudaGraphAddMemsetNode(&clear, g, nullptr, 0, &set) == cudaSuccess);
  cudaGraphNode_t kernel = add_kernel(g, &clear, 1, reinterpret_cast<void*>(&scale), &d, &factor, &n);
  REQUIRE(cudaGraphAddMemcpyNode1D(&copy, g, &kernel, 1, host, d, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaHostNodeParams h{};
  h.fn = nothing;
  REQUIRE(cudaGraphAddHostNode(&host_node, g, &copy, 1, &h) == cudaSuccess);
  REQUIRE(cudaGraphAddEventRecordNode(&record, g, &host_node, 1, event) == cudaSuccess);
  REQUIRE(cudaGraphAddEventWaitNode(&wait, g, nullptr, 0, event) == cudaSuccess);

  SUBCASE("no flags: kinds, the kernel's name and the edges") {
    std::string dot = dot_of(g, 0);
    CHECK(dot.starts_with("digraph"));
    CHECK(dot.find("MEMSET") != std::string::npos);
    CHECK(dot.find("KERNEL") != std::string::npos);
    CHECK(dot.find("scale") != std::string::npos);
    CHECK(dot.find("MEMCPY") != std::string::npos);
    CHECK(dot.find("HOST") != std::string::npos);
    CHECK(dot.find("EVENT_RECORD") != std::string::npos);
    CHECK(dot.find("WAIT_EVENT") != std::string::npos);
    CHECK(occurrences(dot, " -> ") == 4);
    CHECK(dot.find("grid") == std::string::npos);
    CHECK(dot.find("kind DeviceToHost") == std::string::npos);
    // The node ids name the graph and the node's place in it, so an edge
    // reads back as from -> to.
    std::string prefix = "_node_";
    CHECK(dot.find(prefix + "0\" -> ") != std::string::npos);
    CHECK(dot.find(prefix + "1\" -> ") != std::string::npos);
    CHECK(occurrences(dot, "{") == occurrences(dot, "}"));
  }
  SUBCASE("kernel parameters") {
    std::string dot = dot_of(g, cudaGraphDebugDotFlagsKernelNodeParams);
    CHECK(dot.find("grid (4,1,1) block (64,1,1)") != std::string::npos);
    CHECK(dot.find("sharedMemBytes 128") != std::string::npos);
    CHECK(dot.find("value 7") == std::string::npos);
  }
  SUBCASE("memcpy parameters") {
    std::string dot = dot_of(g, cudaGraphDebugDotFlagsMemcpyNodeParams);
    CHECK(dot.find("extent (1024,1,1)") != std::string::npos);
    CHECK(dot.find("kind DeviceToHost") != std::string::npos);
    CHECK(dot.find("grid") == std::string::npos);
  }
  SUBCASE("memset parameters") {
    std::string dot = dot_of(g, cudaGraphDebugDotFlagsMemsetNodeParams);
    CHECK(dot.find("value 7 elementSize 4") != std::string::npos);
    CHECK(dot.find("width 256 height 1") != std::string::npos);
  }
  SUBCASE("host, event and handle parameters") {
    std::ostringstream fn, ev, node;
    fn << "fn " << reinterpret_cast<const void*>(&nothing);
    ev << "event " << static_cast<const void*>(event);
    node << "node " << static_cast<const void*>(kernel);
    std::string host_dot = dot_of(g, cudaGraphDebugDotFlagsHostNodeParams);
    CHECK(host_dot.find(fn.str()) != std::string::npos);
    std::string event_dot = dot_of(g, cudaGraphDebugDotFlagsEventNodeParams);
    CHECK(occurrences(event_dot, ev.str()) == 2);
    std::string handles = dot_of(g, cudaGraphDebugDotFlagsHandles);
    CHECK(handles.find(node.str()) != std::string::npos);
    CHECK(host_dot.find(node.str()) == std::string::npos);
  }
  SUBCASE("verbose is every flag") {
    std::string dot = dot_of(g, cudaGraphDebugDotFlagsVerbose);
    CHECK(dot.find("grid (4,1,1)") != std::string::npos);
    CHECK(dot.find("kind DeviceToHost") != std::string::npos);
    CHECK(dot.find("value 7") != std::string::npos);
    CHECK(dot.find("event ") != std::string::npos);
  }
  SUBCASE("edge numbers (the driver's ExtraTopoInfo bit)") {
    std::string dot = dot_of(g, 1u << 14);
    CHECK(dot.find("label=\"edge 0\"") != std::string::npos);
    CHECK(dot.find("label=\"edge 3\"") != std::string::npos);
  }
  CHECK(cudaGraphDestroy(g) == cudaSuccess);
  CHECK(cudaEventDestroy(event) == cudaSuccess);
  CHECK(cudaFree(d) == cudaSuccess);
}

TEST_CASE("cudaGraphDebugDotPrint draws child graphs and conditional bodies as clusters, programmatic edges apart") {
  REQUIRE(debug_kernels_registered);
  float* d = nullptr;
  REQUIRE(cudaMalloc(&d, 64 * sizeof(float)) == cudaSuccess);
  float factor = 3.0f;
  int n = 64;
  cudaGraph_t child = nullptr, g = nullptr;
  REQUIRE(cudaGraphCreate(&child, 0) == cudaSuccess);
  add_kernel(child, nullptr, 0, reinterpret_cast<void*>(&offset), &d, &factor, &n);
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t primary = add_kernel(g, nullptr, 0, reinterpret_cast<void*>(&scale), &d, &factor, &n);
  cudaGraphNode_t secondary = add_kernel(g, nullptr, 0, reinterpret_cast<void*>(&scale), &d, &factor, &n);
  cudaGraphEdgeData edge{};
  edge.from_port = cudaGraphKernelNodePortProgrammatic;
  edge.type = cudaGraphDependencyTypeProgrammatic;
  REQUIRE(cudaGraphAddDependencies(g, &primary, &secondary, &edge, 1) == cudaSuccess);
  cudaGraphNode_t embedded = nullptr;
  REQUIRE(cudaGraphAddChildGraphNode(&embedded, g, &secondary, 1, child) == cudaSuccess);

  cudaGraphConditionalHandle handle{};
  REQUIRE(cudaGraphConditionalHandleCreate(&handle, g, 1, cudaGraphCondAssignDefault) == cudaSuccess);
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = handle;
  p.conditional.type = cudaGraphCondTypeIf;
  p.conditional.size = 2;
  cudaGraphNode_t conditional = nullptr;
  REQUIRE(cudaGraphAddNode(&conditional, g, &embedded, nullptr, 1, &p) == cudaSuccess);
  add_kernel(p.conditional.phGraph_out[0], nullptr, 0, reinterpret_cast<void*>(&offset), &d, &factor, &n);

  std::string dot = dot_of(g, 0);
  CHECK(dot.find("GRAPH") != std::string::npos);
  CHECK(dot.find("CONDITIONAL") != std::string::npos);
  CHECK(occurrences(dot, "offset") == 2);               // in the child graph and in the IF body
  CHECK(occurrences(dot, "subgraph \"cluster_") == 4);  // the graph, its child, two bodies
  CHECK(dot.find("style=dashed color=blue label=\"programmatic\"") != std::string::npos);
  CHECK(dot.find("body 0 (if)") != std::string::npos);
  CHECK(dot.find("body 1 (else)") != std::string::npos);
  CHECK(dot.find("compound=true") != std::string::npos);
  CHECK(occurrences(dot, "lhead=") == 3);
  CHECK(dot.find("type IF") == std::string::npos);

  std::string detailed = dot_of(g, cudaGraphDebugDotFlagsConditionalNodeParams);
  CHECK(detailed.find("type IF size 2") != std::string::npos);
  CHECK(detailed.find("default 1 (assigned at launch)") != std::string::npos);
  CHECK(cudaGraphDestroy(g) == cudaSuccess);
  CHECK(cudaGraphDestroy(child) == cudaSuccess);
  CHECK(cudaFree(d) == cudaSuccess);
}

TEST_CASE("cudaGraphDebugDotPrint shows a captured fork and join, and memory nodes with their sizes") {
  REQUIRE(debug_kernels_registered);
  cudaStream_t s = nullptr, side = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t fork = nullptr, join = nullptr;
  REQUIRE(cudaEventCreate(&fork) == cudaSuccess);
  REQUIRE(cudaEventCreate(&join) == cudaSuccess);
  int n = 64;
  float factor = 2.0f;

  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  float* d = nullptr;
  REQUIRE(cudaMallocAsync(&d, n * sizeof(float), s) == cudaSuccess);
  REQUIRE(cudaMemsetAsync(d, 0, n * sizeof(float), s) == cudaSuccess);
  REQUIRE(cudaEventRecord(fork, s) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(side, fork, 0) == cudaSuccess);
  REQUIRE(weft::launch<scale>(weft::launch_config{1, 64, 0, s}, d, factor, n) == cudaSuccess);
  REQUIRE(weft::launch<offset>(weft::launch_config{1, 64, 0, side}, d, factor, n) == cudaSuccess);
  REQUIRE(cudaEventRecord(join, side) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(s, join, 0) == cudaSuccess);
  REQUIRE(cudaFreeAsync(d, s) == cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &g) == cudaSuccess);

  std::string dot = dot_of(g, 0);
  CHECK(dot.find("MEM_ALLOC") != std::string::npos);
  CHECK(dot.find("MEM_FREE") != std::string::npos);
  CHECK(dot.find("scale") != std::string::npos);
  CHECK(dot.find("offset") != std::string::npos);
  // alloc -> memset, memset -> scale, memset -> offset, scale -> free, offset -> free
  CHECK(occurrences(dot, " -> ") == 5);
  std::ostringstream address;
  address << "dptr " << static_cast<const void*>(d);
  CHECK(dot.find(address.str()) == std::string::npos);
  std::string verbose = dot_of(g, cudaGraphDebugDotFlagsVerbose);
  CHECK(verbose.find("bytesize 256") != std::string::npos);
  CHECK(occurrences(verbose, address.str()) == 2);  // the allocation and its free

  CHECK(cudaGraphDestroy(g) == cudaSuccess);
  CHECK(cudaEventDestroy(fork) == cudaSuccess);
  CHECK(cudaEventDestroy(join) == cudaSuccess);
  CHECK(cudaStreamDestroy(s) == cudaSuccess);
  CHECK(cudaStreamDestroy(side) == cudaSuccess);
}

TEST_CASE("cudaGraphDebugDotPrint refuses a null graph or path and a path it cannot write") {
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  std::string path = dot_path();
  check_failed_with(cudaGraphDebugDotPrint(nullptr, path.c_str(), 0), cudaErrorInvalidValue);
  check_failed_with(cudaGraphDebugDotPrint(g, nullptr, 0), cudaErrorInvalidValue);
  check_failed_with(cudaGraphDebugDotPrint(g, "/nonexistent-directory/graph.dot", 0), cudaErrorOperatingSystem);
  // An empty graph is still a graph Graphviz reads.
  std::string dot = dot_of(g, cudaGraphDebugDotFlagsVerbose);
  CHECK(dot.starts_with("digraph"));
  CHECK(occurrences(dot, " -> ") == 0);
  CHECK(cudaGraphDestroy(g) == cudaSuccess);
}

TEST_CASE("cudaGraphDebugDotPrint's output renders with Graphviz where it is installed") {
  if (std::system("command -v dot > /dev/null 2>&1") != 0) {
    MESSAGE("Graphviz's dot is not installed: skipped");
    return;
  }
  REQUIRE(debug_kernels_registered);
  float* d = nullptr;
  REQUIRE(cudaMalloc(&d, 64 * sizeof(float)) == cudaSuccess);
  float factor = 3.0f;
  int n = 64;
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t a = add_kernel(g, nullptr, 0, reinterpret_cast<void*>(&scale), &d, &factor, &n);
  add_kernel(g, &a, 1, reinterpret_cast<void*>(&offset), &d, &factor, &n);
  std::string path = dot_path();
  REQUIRE(cudaGraphDebugDotPrint(g, path.c_str(), cudaGraphDebugDotFlagsVerbose) == cudaSuccess);
  CHECK(std::system(("dot -Tsvg " + path + " -o " + path + ".svg").c_str()) == 0);
  CHECK(std::filesystem::file_size(path + ".svg") > 0);
  std::filesystem::remove(path);
  std::filesystem::remove(path + ".svg");
  CHECK(cudaGraphDestroy(g) == cudaSuccess);
  CHECK(cudaFree(d) == cudaSuccess);
}
