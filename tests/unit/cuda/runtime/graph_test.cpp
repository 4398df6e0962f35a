// Explicit CUDA graphs (CUDA guide, "CUDA Graphs"): building graphs of
// kernel, memcpy, memset, host, child-graph and empty nodes, querying and
// editing their edges, cloning, instantiating (a snapshot of the nodes'
// parameters) and launching into streams, in the stream's order. Error cases
// return CUDA's codes and set the last error. Orders are checked with gates
// (stream_gates.hpp), never with times.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "error_checks.hpp"
#include "graph_building.hpp"
#include "stream_gates.hpp"

namespace {

__global__ void add_to(int* data, int amount, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] += amount;
}

__global__ void scale_into(int* out, const int* in, int factor, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = in[i] * factor;
}

__global__ void sum_into(int* out, const int* a, const int* b, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = a[i] + b[i];
}

__global__ void unregistered(int*) {}

// Raises flags[mine], then waits for the other flag.
__global__ void graph_handshake(int* flags, int mine) {
  std::atomic_ref<int>(flags[mine]).store(1);
  while (std::atomic_ref<int>(flags[1 - mine]).load() == 0) std::this_thread::yield();
}

const bool graph_kernels_registered = weft::register_kernel<&add_to>() && weft::register_kernel<&scale_into>() &&
                                      weft::register_kernel<&sum_into>() && weft::register_kernel<&graph_handshake>();

void count_up(void* counter) { std::atomic_ref<int>(*static_cast<int*>(counter)).fetch_add(1); }

cudaGraphNode_t add_host(cudaGraph_t g, std::vector<cudaGraphNode_t> deps, cudaHostFn_t fn, void* data) {
  cudaHostNodeParams p{fn, data};
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddHostNode(&n, g, deps.data(), deps.size(), &p) == cudaSuccess);
  return n;
}

cudaGraphNode_t add_empty(cudaGraph_t g, std::vector<cudaGraphNode_t> deps = {}) {
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddEmptyNode(&n, g, deps.data(), deps.size()) == cudaSuccess);
  return n;
}

std::size_t count_nodes(cudaGraph_t g) {
  std::size_t n = 0;
  REQUIRE(cudaGraphGetNodes(g, nullptr, &n) == cudaSuccess);
  return n;
}

}  // namespace

TEST_CASE("a diamond graph: memset, two kernels, a sum, a copy back") {
  REQUIRE(graph_kernels_registered);
  constexpr int n = 1000;
  int *a = nullptr, *left = nullptr, *right = nullptr, *sum = nullptr;
  REQUIRE(cudaMalloc(&a, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&left, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&right, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&sum, n * sizeof(int)) == cudaSuccess);
  std::vector<int> host(n, -1);

  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaMemsetParams set{};
  set.dst = a;
  set.value = 3;
  set.elementSize = 4;
  set.width = n;
  set.height = 1;
  cudaGraphNode_t memset_node = nullptr;
  REQUIRE(cudaGraphAddMemsetNode(&memset_node, g, nullptr, 0, &set) == cudaSuccess);
  int two = 2, five = 5, count = n;
  void* left_args[] = {&left, &a, &two, &count};
  void* right_args[] = {&right, &a, &five, &count};
  cudaGraphNode_t l = add_kernel(g, {memset_node}, reinterpret_cast<const void*>(&scale_into), left_args, 4, 256);
  cudaGraphNode_t r = add_kernel(g, {memset_node}, reinterpret_cast<const void*>(&scale_into), right_args, 4, 256);
  void* sum_args[] = {&sum, &left, &right, &count};
  cudaGraphNode_t s = add_kernel(g, {l, r}, reinterpret_cast<const void*>(&sum_into), sum_args, 4, 256);
  cudaGraphNode_t copy = nullptr;
  REQUIRE(cudaGraphAddMemcpyNode1D(&copy, g, &s, 1, host.data(), sum, n * sizeof(int), cudaMemcpyDeviceToHost) ==
          cudaSuccess);

  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(nullptr) == cudaSuccess);
  for (int v : host) REQUIRE(v == 3 * 2 + 3 * 5);
  CHECK(cudaGetLastError() == cudaSuccess);

  cudaMemcpy3DParms copy_params{};
  REQUIRE(cudaGraphMemcpyNodeGetParams(copy, &copy_params) == cudaSuccess);
  CHECK(copy_params.srcPtr.ptr == sum);
  CHECK(copy_params.dstPtr.ptr == host.data());
  CHECK(copy_params.extent.width == n * sizeof(int));
  CHECK(copy_params.extent.height == 1);
  CHECK(copy_params.kind == cudaMemcpyDeviceToHost);
  // The executable graph keeps the copy it was instantiated with; a new
  // one copies only the first half back.
  std::vector<int> half(n, -1);
  check_succeeded(cudaGraphMemcpyNodeSetParams1D(copy, half.data(), sum, n / 2 * sizeof(int), cudaMemcpyDeviceToHost));
  check_failed_with(cudaGraphMemcpyNodeSetParams1D(copy, half.data(), sum, 2 * n * sizeof(int), cudaMemcpyDeviceToHost),
                    cudaErrorInvalidValue);
  check_failed_with(cudaGraphMemcpyNodeSetParams1D(l, half.data(), sum, 4, cudaMemcpyDeviceToHost),
                    cudaErrorInvalidValue);
  std::fill(host.begin(), host.end(), -1);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  cudaGraphExec_t halves = nullptr;
  REQUIRE(cudaGraphInstantiate(&halves, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(halves, nullptr) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(nullptr) == cudaSuccess);
  for (int v : host) REQUIRE(v == 21);
  for (int i = 0; i < n; ++i) REQUIRE(half[i] == (i < n / 2 ? 21 : -1));
  cudaGraphExecDestroy(halves);

  cudaGraphNodeType type;
  REQUIRE(cudaGraphNodeGetType(memset_node, &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeMemset);
  REQUIRE(cudaGraphNodeGetType(l, &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeKernel);
  REQUIRE(cudaGraphNodeGetType(copy, &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeMemcpy);

  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphDestroy(g) == cudaSuccess);
  for (int* p : {a, left, right, sum}) cudaFree(p);
}

TEST_CASE("memset nodes of 1, 2 and 4 byte elements, with a pitch") {
  unsigned char* d = nullptr;
  REQUIRE(cudaMalloc(&d, 64) == cudaSuccess);
  REQUIRE(cudaMemset(d, 0, 64) == cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaMemsetParams bytes{d, 0, 0x1AB, 1, 4, 1};             // 4 bytes of 0xAB
  cudaMemsetParams halves{d + 16, 8, 0x12345678, 2, 2, 2};  // 2 rows of two 0x5678, 8 bytes apart
  cudaMemsetParams words{d + 32, 0, 0xCAFEF00D, 4, 2, 1};
  cudaGraphNode_t n1, n2, n3;
  REQUIRE(cudaGraphAddMemsetNode(&n1, g, nullptr, 0, &bytes) == cudaSuccess);
  REQUIRE(cudaGraphAddMemsetNode(&n2, g, nullptr, 0, &halves) == cudaSuccess);
  REQUIRE(cudaGraphAddMemsetNode(&n3, g, nullptr, 0, &words) == cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  unsigned char h[64];
  REQUIRE(cudaMemcpy(h, d, 64, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (int i = 0; i < 4; ++i) CHECK(h[i] == 0xAB);
  CHECK(h[4] == 0);
  std::uint16_t half;
  for (int off : {16, 18, 24, 26}) {
    std::memcpy(&half, h + off, 2);
    CHECK(half == 0x5678);
  }
  CHECK(h[20] == 0);
  std::uint32_t word;
  std::memcpy(&word, h + 36, 4);
  CHECK(word == 0xCAFEF00D);

  cudaMemsetParams got{};
  REQUIRE(cudaGraphMemsetNodeGetParams(n2, &got) == cudaSuccess);
  CHECK(got.dst == d + 16);
  CHECK(got.pitch == 8);
  CHECK(got.value == 0x12345678);
  CHECK(got.elementSize == 2);
  CHECK(got.width == 2);
  CHECK(got.height == 2);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaFree(d);
}

TEST_CASE("one executable graph launched 100 times into a stream") {
  int* counter = nullptr;
  REQUIRE(cudaMallocManaged(&counter, sizeof(int)) == cudaSuccess);
  *counter = 0;
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemset(d, 0, sizeof(int)) == cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  int one = 1, count = 1;
  void* args[] = {&d, &one, &count};
  cudaGraphNode_t k = add_kernel(g, {}, reinterpret_cast<const void*>(&add_to), args, 1, 1);
  add_host(g, {k}, count_up, counter);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  for (int i = 0; i < 100; ++i) REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(*counter == 100);
  int result = 0;
  REQUIRE(cudaMemcpy(&result, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(result == 100);  // the launches did not overlap: no increment was lost
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(d);
  cudaFree(counter);
}

// A launch returns before its nodes' commands are made (the device's
// enqueuing thread makes them): destroying the executable graph at once,
// as CUDA allows, must not lose or break the launches already made.
TEST_CASE("an executable graph destroyed right after its launches still runs them all") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemset(d, 0, sizeof(int)) == cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  int one = 1, count = 1;
  void* args[] = {&d, &one, &count};
  cudaGraphNode_t previous = nullptr;
  for (int i = 0; i < 20; ++i)
    previous = add_kernel(g, previous ? std::vector{previous} : std::vector<cudaGraphNode_t>{},
                          reinterpret_cast<const void*>(&add_to), args, 1, 1);
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  for (int round = 0; round < 10; ++round) {
    cudaGraphExec_t exec = nullptr;
    REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
    for (int i = 0; i < 5; ++i) REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  }
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  int result = 0;
  REQUIRE(cudaMemcpy(&result, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(result == 10 * 5 * 20);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(d);
}

TEST_CASE("a launch runs after the stream's earlier work and before its later work") {
  std::vector<int> log;
  log_entry during{&log, 2};
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  add_host(g, {}, append_to_log, &during);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  cudaStream_t s;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  gate held;
  held.hold(s);
  log_entry before{&log, 1}, after{&log, 3};
  REQUIRE(cudaLaunchHostFunc(s, append_to_log, &before) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(cudaLaunchHostFunc(s, append_to_log, &after) == cudaSuccess);
  CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
  held.open();
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(log == std::vector<int>{1, 2, 3});
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
}

TEST_CASE("a second launch of one executable graph waits for the first, even in another stream") {
  std::vector<int> log;
  log_entry entry{&log, 7};
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  add_host(g, {}, append_to_log, &entry);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  cudaStream_t s1, s2;
  REQUIRE(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess);
  gate held;
  held.hold(s1);
  REQUIRE(cudaGraphLaunch(exec, s1) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, s2) == cudaSuccess);
  CHECK(cudaStreamQuery(s2) == cudaErrorNotReady);  // behind the held launch in s1
  CHECK(log.empty());
  held.open();
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(log.size() == 2);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
}

TEST_CASE("two graphs in two streams are independent") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 2 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemset(d, 0, 2 * sizeof(int)) == cudaSuccess);
  cudaStream_t s[2];
  cudaGraph_t g[2];
  cudaGraphExec_t exec[2];
  int* slot[2] = {d, d + 1};
  for (int i = 0; i < 2; ++i) {
    REQUIRE(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaGraphCreate(&g[i], 0) == cudaSuccess);
    int amount = i + 1, one = 1;
    void* args[] = {&slot[i], &amount, &one};
    add_kernel(g[i], {}, reinterpret_cast<const void*>(&add_to), args, 1, 1);
    REQUIRE(cudaGraphInstantiate(&exec[i], g[i], 0) == cudaSuccess);
  }
  gate held0, held1;
  held0.hold(s[0]);
  held1.hold(s[1]);
  REQUIRE(cudaGraphLaunch(exec[0], s[0]) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec[1], s[1]) == cudaSuccess);
  // Opening s[1] alone lets its graph finish while s[0] is still held.
  held1.open();
  REQUIRE(cudaStreamSynchronize(s[1]) == cudaSuccess);
  CHECK(cudaStreamQuery(s[0]) == cudaErrorNotReady);
  held0.open();
  REQUIRE(cudaStreamSynchronize(s[0]) == cudaSuccess);
  int h[2];
  REQUIRE(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(h[0] == 1);
  CHECK(h[1] == 2);
  for (int i = 0; i < 2; ++i) {
    cudaGraphExecDestroy(exec[i]);
    cudaGraphDestroy(g[i]);
    cudaStreamDestroy(s[i]);
  }
  cudaFree(d);
}

TEST_CASE("independent nodes of one graph run at the same time") {
  enough_workers workers(2);
  int* flags = nullptr;
  REQUIRE(cudaMallocManaged(&flags, 2 * sizeof(int)) == cudaSuccess);
  flags[0] = flags[1] = 0;
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  // Two kernels that each raise their own flag, then wait for the other's:
  // a graph that ran them one after the other would never finish.
  int *a = flags, *b = flags + 1;
  int zero = 0, one = 1;
  void* args0[] = {&flags, &zero};
  void* args1[] = {&flags, &one};
  add_kernel(g, {}, reinterpret_cast<const void*>(&graph_handshake), args0, 1, 1);
  add_kernel(g, {}, reinterpret_cast<const void*>(&graph_handshake), args1, 1, 1);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*a == 1);
  CHECK(*b == 1);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaFree(flags);
}

TEST_CASE("child graph nodes run their graph in place, as a copy taken when added") {
  std::vector<int> log;
  log_entry e1{&log, 1}, e2{&log, 2}, e3{&log, 3}, e4{&log, 4}, late{&log, 99};
  cudaGraph_t child = nullptr;
  REQUIRE(cudaGraphCreate(&child, 0) == cudaSuccess);
  cudaGraphNode_t c1 = add_host(child, {}, append_to_log, &e2);
  add_host(child, {c1}, append_to_log, &e3);
  cudaGraph_t parent = nullptr;
  REQUIRE(cudaGraphCreate(&parent, 0) == cudaSuccess);
  cudaGraphNode_t first = add_host(parent, {}, append_to_log, &e1);
  cudaGraphNode_t child_node = nullptr;
  REQUIRE(cudaGraphAddChildGraphNode(&child_node, parent, &first, 1, child) == cudaSuccess);
  add_host(parent, {child_node}, append_to_log, &e4);
  // Added after the child node was made: not part of it.
  add_host(child, {}, append_to_log, &late);

  cudaGraphNodeType type;
  REQUIRE(cudaGraphNodeGetType(child_node, &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeGraph);
  cudaGraph_t embedded = nullptr;
  REQUIRE(cudaGraphChildGraphNodeGetGraph(child_node, &embedded) == cudaSuccess);
  CHECK(embedded != child);
  CHECK(count_nodes(embedded) == 2);

  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, parent, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(log == std::vector<int>{1, 2, 3, 4});

  // An empty child graph only orders.
  cudaGraph_t empty_child = nullptr, outer = nullptr;
  REQUIRE(cudaGraphCreate(&empty_child, 0) == cudaSuccess);
  REQUIRE(cudaGraphCreate(&outer, 0) == cudaSuccess);
  log.clear();
  cudaGraphNode_t o1 = add_host(outer, {}, append_to_log, &e1);
  cudaGraphNode_t mid;
  REQUIRE(cudaGraphAddChildGraphNode(&mid, outer, &o1, 1, empty_child) == cudaSuccess);
  add_host(outer, {mid}, append_to_log, &e2);
  cudaGraphExec_t exec2;
  REQUIRE(cudaGraphInstantiate(&exec2, outer, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec2, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(log == std::vector<int>{1, 2});

  for (auto e : {exec, exec2}) cudaGraphExecDestroy(e);
  for (auto g : {child, parent, empty_child, outer}) cudaGraphDestroy(g);
}

TEST_CASE("dependencies are added, removed and queried") {
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t a = add_empty(g), b = add_empty(g), c = add_empty(g);
  cudaGraphNode_t from[] = {a, a}, to[] = {b, c};
  check_succeeded(cudaGraphAddDependencies(g, from, to, nullptr, 2));
  cudaGraphEdgeData plain[1] = {};
  cudaGraphNode_t bc_from[] = {b}, bc_to[] = {c};
  check_succeeded(cudaGraphAddDependencies(g, bc_from, bc_to, plain, 1));

  std::size_t n = 0;
  REQUIRE(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n) == cudaSuccess);
  CHECK(n == 3);
  std::vector<cudaGraphNode_t> ef(4), et(4);
  std::vector<cudaGraphEdgeData> ed(4);
  n = 4;
  REQUIRE(cudaGraphGetEdges(g, ef.data(), et.data(), ed.data(), &n) == cudaSuccess);
  CHECK(n == 3);
  CHECK(ef[3] == nullptr);  // entries past the edges are nulled
  CHECK(ed[0].type == cudaGraphDependencyTypeDefault);

  std::size_t roots = 0;
  REQUIRE(cudaGraphGetRootNodes(g, nullptr, &roots) == cudaSuccess);
  CHECK(roots == 1);
  cudaGraphNode_t root = nullptr;
  REQUIRE(cudaGraphGetRootNodes(g, &root, &roots) == cudaSuccess);
  CHECK(root == a);

  std::size_t deps = 0;
  REQUIRE(cudaGraphNodeGetDependencies(c, nullptr, nullptr, &deps) == cudaSuccess);
  CHECK(deps == 2);
  cudaGraphNode_t got[2];
  cudaGraphEdgeData got_data[2];
  REQUIRE(cudaGraphNodeGetDependencies(c, got, got_data, &deps) == cudaSuccess);
  CHECK(got[0] == a);
  CHECK(got[1] == b);
  std::size_t dependents = 0;
  REQUIRE(cudaGraphNodeGetDependentNodes(a, nullptr, nullptr, &dependents) == cudaSuccess);
  CHECK(dependents == 2);

  // Asking for fewer than there are gives that many.
  std::size_t one = 1;
  REQUIRE(cudaGraphNodeGetDependentNodes(a, got, nullptr, &one) == cudaSuccess);
  CHECK(one == 1);
  CHECK(got[0] == b);

  check_succeeded(cudaGraphRemoveDependencies(g, bc_from, bc_to, nullptr, 1));
  REQUIRE(cudaGraphNodeGetDependencies(c, nullptr, nullptr, &deps) == cudaSuccess);
  CHECK(deps == 1);
  check_failed_with(cudaGraphRemoveDependencies(g, bc_from, bc_to, nullptr, 1), cudaErrorInvalidValue);

  // Destroying a node takes its edges with it.
  check_succeeded(cudaGraphDestroyNode(a));
  CHECK(count_nodes(g) == 2);
  REQUIRE(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n) == cudaSuccess);
  CHECK(n == 0);
  REQUIRE(cudaGraphGetRootNodes(g, nullptr, &roots) == cudaSuccess);
  CHECK(roots == 2);
  cudaGraphDestroy(g);
}

TEST_CASE("a clone is a separate graph with the same nodes and edges") {
  std::vector<int> log;
  log_entry e1{&log, 1}, e2{&log, 2};
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t first = add_host(g, {}, append_to_log, &e1);
  add_host(g, {first}, append_to_log, &e2);
  cudaGraph_t copy = nullptr;
  check_succeeded(cudaGraphClone(&copy, g));
  CHECK(copy != g);
  CHECK(count_nodes(copy) == 2);
  std::size_t edges = 0;
  REQUIRE(cudaGraphGetEdges(copy, nullptr, nullptr, nullptr, &edges) == cudaSuccess);
  CHECK(edges == 1);
  // The clone's nodes are its own: a node of `g` is no dependency there.
  cudaGraphNode_t n;
  check_failed_with(cudaGraphAddEmptyNode(&n, copy, &first, 1), cudaErrorInvalidValue);
  cudaGraphNode_t found = nullptr;
  check_succeeded(cudaGraphNodeFindInClone(&found, first, copy));
  CHECK(found != first);
  std::size_t roots = 1;
  cudaGraphNode_t root = nullptr;
  REQUIRE(cudaGraphGetRootNodes(copy, &root, &roots) == cudaSuccess);
  CHECK(found == root);
  check_failed_with(cudaGraphNodeFindInClone(&found, first, g), cudaErrorInvalidValue);
  check_failed_with(cudaGraphNodeFindInClone(&found, root, copy), cudaErrorInvalidValue);
  cudaGraphDestroy(g);  // the clone does not depend on the original
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, copy, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(log == std::vector<int>{1, 2});
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(copy);
}

TEST_CASE("instantiation snapshots the graph: later changes reach only later instantiations") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemset(d, 0, sizeof(int)) == cudaSuccess);
  int counter = 0;
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  int amount = 1, n = 1;
  void* args[] = {&d, &amount, &n};
  cudaGraphNode_t k = add_kernel(g, {}, reinterpret_cast<const void*>(&add_to), args, 1, 1);
  amount = 1000;  // the node copied its arguments when it was added
  cudaGraphExec_t before;
  REQUIRE(cudaGraphInstantiate(&before, g, 0) == cudaSuccess);

  cudaKernelNodeParams p{};
  REQUIRE(cudaGraphKernelNodeGetParams(k, &p) == cudaSuccess);
  CHECK(p.func == reinterpret_cast<void*>(&add_to));
  CHECK(p.gridDim.x == 1);
  CHECK(*static_cast<int*>(p.kernelParams[1]) == 1);
  CHECK(p.extra == nullptr);
  int ten = 10;
  void* new_args[] = {&d, &ten, &n};
  p.kernelParams = new_args;
  check_succeeded(cudaGraphKernelNodeSetParams(k, &p));
  add_host(g, {k}, count_up, &counter);

  REQUIRE(cudaGraphLaunch(before, nullptr) == cudaSuccess);  // adds 1, no host node
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  int result = 0;
  REQUIRE(cudaMemcpy(&result, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(result == 1);
  CHECK(counter == 0);

  cudaGraphExec_t after;
  REQUIRE(cudaGraphInstantiate(&after, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(after, nullptr) == cudaSuccess);  // adds 10, counts
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaMemcpy(&result, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(result == 11);
  CHECK(counter == 1);

  // Destroying the graph leaves its executable graphs working.
  cudaGraphDestroy(g);
  REQUIRE(cudaGraphLaunch(after, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaMemcpy(&result, d, sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(result == 21);
  CHECK(counter == 2);

  cudaGraphExecDestroy(before);
  cudaGraphExecDestroy(after);
  cudaFree(d);
}

TEST_CASE("host node parameters are read and replaced") {
  int a = 0, b = 0;
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t h = add_host(g, {}, count_up, &a);
  cudaHostNodeParams p{};
  REQUIRE(cudaGraphHostNodeGetParams(h, &p) == cudaSuccess);
  CHECK((p.fn == &count_up));
  CHECK(p.userData == &a);
  p.userData = &b;
  check_succeeded(cudaGraphHostNodeSetParams(h, &p));
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphUpload(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(a == 0);
  CHECK(b == 1);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
}

TEST_CASE("an empty graph launches and orders the stream") {
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  check_succeeded(cudaGraphLaunch(exec, nullptr));
  CHECK(cudaStreamSynchronize(nullptr) == cudaSuccess);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
}

TEST_CASE("graph calls refuse bad arguments with CUDA's codes") {
  cudaGraph_t g = nullptr, other = nullptr;
  check_failed_with(cudaGraphCreate(nullptr, 0), cudaErrorInvalidValue);
  check_failed_with(cudaGraphCreate(&g, 1), cudaErrorInvalidValue);
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  REQUIRE(cudaGraphCreate(&other, 0) == cudaSuccess);
  check_failed_with(cudaGraphDestroy(nullptr), cudaErrorInvalidValue);
  cudaGraphNode_t n = nullptr;
  cudaGraphNode_t a = add_empty(g), b = add_empty(g);
  cudaGraphNode_t foreign = add_empty(other);

  SUBCASE("adding nodes") {
    check_failed_with(cudaGraphAddEmptyNode(nullptr, g, nullptr, 0), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddEmptyNode(&n, nullptr, nullptr, 0), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddEmptyNode(&n, g, nullptr, 1), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddEmptyNode(&n, g, &foreign, 1), cudaErrorInvalidValue);
    cudaGraphNode_t twice[] = {a, a};
    check_failed_with(cudaGraphAddEmptyNode(&n, g, twice, 2), cudaErrorInvalidValue);
    cudaGraphNode_t with_null[] = {a, nullptr};
    check_failed_with(cudaGraphAddEmptyNode(&n, g, with_null, 2), cudaErrorInvalidValue);

    check_failed_with(cudaGraphAddHostNode(&n, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
    cudaHostNodeParams no_fn{nullptr, nullptr};
    check_failed_with(cudaGraphAddHostNode(&n, g, nullptr, 0, &no_fn), cudaErrorInvalidValue);

    check_failed_with(cudaGraphAddKernelNode(&n, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, 64) == cudaSuccess);
    int amount = 1, count = 1;
    void* args[] = {&d, &amount, &count};
    cudaKernelNodeParams k{reinterpret_cast<void*>(&add_to), dim3(1), dim3(1), 0, args, nullptr};
    cudaKernelNodeParams bad = k;
    bad.func = reinterpret_cast<void*>(&unregistered);
    check_failed_with(cudaGraphAddKernelNode(&n, g, nullptr, 0, &bad), cudaErrorInvalidDeviceFunction);
    bad.func = nullptr;
    check_failed_with(cudaGraphAddKernelNode(&n, g, nullptr, 0, &bad), cudaErrorInvalidDeviceFunction);
    bad = k;
    bad.blockDim = dim3(2048);
    check_failed_with(cudaGraphAddKernelNode(&n, g, nullptr, 0, &bad), cudaErrorInvalidValue);
    bad = k;
    bad.kernelParams = nullptr;
    check_failed_with(cudaGraphAddKernelNode(&n, g, nullptr, 0, &bad), cudaErrorInvalidValue);
    bad = k;
    bad.extra = args;
    check_failed_with(cudaGraphAddKernelNode(&n, g, nullptr, 0, &bad), cudaErrorInvalidValue);
    check_succeeded(cudaGraphAddKernelNode(&n, g, nullptr, 0, &k));

    check_failed_with(cudaGraphAddMemsetNode(&n, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
    cudaMemsetParams set{d, 0, 0, 3, 4, 1};  // element size 3
    check_failed_with(cudaGraphAddMemsetNode(&n, g, nullptr, 0, &set), cudaErrorInvalidValue);
    set = {d, 4, 0, 4, 2, 2};  // a pitch narrower than a row
    check_failed_with(cudaGraphAddMemsetNode(&n, g, nullptr, 0, &set), cudaErrorInvalidValue);
    int host_ints[4];
    set = {host_ints, 0, 0, 4, 4, 1};  // not device memory
    check_failed_with(cudaGraphAddMemsetNode(&n, g, nullptr, 0, &set), cudaErrorInvalidValue);
    set = {d, 0, 0, 4, 64, 1};  // past the allocation
    check_failed_with(cudaGraphAddMemsetNode(&n, g, nullptr, 0, &set), cudaErrorInvalidValue);

    check_failed_with(cudaGraphAddMemcpyNode1D(&n, g, nullptr, 0, host_ints, d, 16, static_cast<cudaMemcpyKind>(9)),
                      cudaErrorInvalidMemcpyDirection);
    check_failed_with(cudaGraphAddMemcpyNode1D(&n, g, nullptr, 0, nullptr, d, 16, cudaMemcpyDeviceToHost),
                      cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddMemcpyNode1D(&n, g, nullptr, 0, host_ints, d, 128, cudaMemcpyDeviceToHost),
                      cudaErrorInvalidValue);

    check_failed_with(cudaGraphAddChildGraphNode(&n, g, nullptr, 0, nullptr), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddChildGraphNode(&n, g, nullptr, 0, g), cudaErrorInvalidValue);
    cudaFree(d);
  }

  SUBCASE("edges") {
    cudaGraphNode_t from[] = {a}, to[] = {b};
    check_failed_with(cudaGraphAddDependencies(nullptr, from, to, nullptr, 1), cudaErrorInvalidValue);
    check_failed_with(cudaGraphAddDependencies(g, nullptr, to, nullptr, 1), cudaErrorInvalidValue);
    check_succeeded(cudaGraphAddDependencies(g, nullptr, nullptr, nullptr, 0));
    cudaGraphNode_t self[] = {a};
    check_failed_with(cudaGraphAddDependencies(g, self, self, nullptr, 1), cudaErrorInvalidValue);
    cudaGraphNode_t foreign_to[] = {foreign};
    check_failed_with(cudaGraphAddDependencies(g, from, foreign_to, nullptr, 1), cudaErrorInvalidValue);
    cudaGraphEdgeData programmatic{};
    programmatic.type = cudaGraphDependencyTypeProgrammatic;
    check_failed_with(cudaGraphAddDependencies(g, from, to, &programmatic, 1), cudaErrorInvalidValue);
    check_succeeded(cudaGraphAddDependencies(g, from, to, nullptr, 1));
    check_failed_with(cudaGraphAddDependencies(g, from, to, nullptr, 1), cudaErrorInvalidValue);  // exists
    cudaGraphNode_t two_from[] = {b, b}, two_to[] = {a, a};
    check_failed_with(cudaGraphAddDependencies(g, two_from, two_to, nullptr, 2), cudaErrorInvalidValue);

    std::size_t count = 0;
    check_failed_with(cudaGraphGetNodes(g, nullptr, nullptr), cudaErrorInvalidValue);
    check_failed_with(cudaGraphGetNodes(nullptr, nullptr, &count), cudaErrorInvalidValue);
    check_failed_with(cudaGraphGetRootNodes(g, nullptr, nullptr), cudaErrorInvalidValue);
    cudaGraphNode_t one;
    check_failed_with(cudaGraphGetEdges(g, &one, nullptr, nullptr, &count), cudaErrorInvalidValue);
    check_failed_with(cudaGraphNodeGetDependencies(nullptr, nullptr, nullptr, &count), cudaErrorInvalidValue);
    check_failed_with(cudaGraphNodeGetDependentNodes(a, nullptr, nullptr, nullptr), cudaErrorInvalidValue);
    cudaGraphNodeType type;
    check_failed_with(cudaGraphNodeGetType(nullptr, &type), cudaErrorInvalidValue);
    check_failed_with(cudaGraphNodeGetType(a, nullptr), cudaErrorInvalidValue);
    check_failed_with(cudaGraphDestroyNode(nullptr), cudaErrorInvalidValue);
  }

  SUBCASE("parameters of a node of another kind") {
    cudaKernelNodeParams k{};
    cudaMemsetParams m{};
    cudaHostNodeParams h{};
    check_failed_with(cudaGraphKernelNodeGetParams(a, &k), cudaErrorInvalidValue);
    check_failed_with(cudaGraphMemsetNodeGetParams(a, &m), cudaErrorInvalidValue);
    check_failed_with(cudaGraphHostNodeGetParams(a, &h), cudaErrorInvalidValue);
    check_failed_with(cudaGraphKernelNodeSetParams(a, &k), cudaErrorInvalidValue);
    check_failed_with(cudaGraphMemsetNodeSetParams(a, &m), cudaErrorInvalidValue);
    check_failed_with(cudaGraphHostNodeSetParams(a, &h), cudaErrorInvalidValue);
    cudaGraph_t child;
    check_failed_with(cudaGraphChildGraphNodeGetGraph(a, &child), cudaErrorInvalidValue);
    check_failed_with(cudaGraphClone(nullptr, g), cudaErrorInvalidValue);
    check_failed_with(cudaGraphClone(&child, nullptr), cudaErrorInvalidValue);
  }

  SUBCASE("instantiation and launch") {
    cudaGraphExec_t exec = nullptr;
    check_failed_with(cudaGraphInstantiate(nullptr, g, 0), cudaErrorInvalidValue);
    check_failed_with(cudaGraphInstantiate(&exec, nullptr, 0), cudaErrorInvalidValue);
    check_failed_with(cudaGraphInstantiate(&exec, g, 0x100), cudaErrorInvalidValue);
    check_failed_with(cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagUpload), cudaErrorInvalidValue);
    // A device graph may not free its allocations on launch.
    check_failed_with(
        cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagAutoFreeOnLaunch),
        cudaErrorInvalidValue);
    // A cycle a -> b -> a.
    cudaGraphNode_t from[] = {a, b}, to[] = {b, a};
    REQUIRE(cudaGraphAddDependencies(g, from, to, nullptr, 2) == cudaSuccess);
    check_failed_with(cudaGraphInstantiate(&exec, g, 0), cudaErrorInvalidValue);
    check_failed_with(cudaGraphInstantiateWithFlags(&exec, g, 0), cudaErrorInvalidValue);
    REQUIRE(cudaGraphRemoveDependencies(g, to, from, nullptr, 1) == cudaSuccess);
    check_succeeded(cudaGraphInstantiateWithFlags(&exec, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));

    check_failed_with(cudaGraphLaunch(nullptr, nullptr), cudaErrorInvalidValue);
    cudaStream_t s;
    REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
    REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
    check_failed_with(cudaGraphLaunch(exec, s), cudaErrorInvalidResourceHandle);
    check_failed_with(cudaGraphUpload(nullptr, nullptr), cudaErrorInvalidValue);
    check_failed_with(cudaGraphUpload(exec, s), cudaErrorInvalidResourceHandle);
    check_failed_with(cudaGraphExecDestroy(nullptr), cudaErrorInvalidValue);
    check_succeeded(cudaGraphExecDestroy(exec));
  }

  cudaGraphDestroy(g);
  cudaGraphDestroy(other);
}

TEST_CASE("a host node may not call the runtime to enqueue work") {
  static cudaError_t seen = cudaSuccess;
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  add_host(
      g, {}, [](void*) { seen = cudaStreamSynchronize(nullptr); }, nullptr);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(seen == cudaErrorNotPermitted);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
}
