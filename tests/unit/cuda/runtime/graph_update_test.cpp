// Updating executable graphs (CUDA guide, "Updating Instantiated Graphs"):
// cudaGraphExecUpdate from a graph of the same topology, refused with
// cudaErrorGraphExecUpdateFailure and the reason and node when it is not;
// the per-node cudaGraphExec*NodeSetParams; cudaGraphNodeSetEnabled; and
// cudaGraphInstantiateWithParams' results. An update reaches later launches
// only: a launch already in a stream keeps its parameters (held back by a
// gate, never timed).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <algorithm>
#include <vector>

#include "error_checks.hpp"
#include "graph_building.hpp"
#include "stream_gates.hpp"

namespace {

__global__ void add_amount(int* data, int amount, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] += amount;
}

__global__ void times(int* data, int factor, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] *= factor;
}

const bool update_kernels_registered = weft::register_kernel<&add_amount>() && weft::register_kernel<&times>();

__device__ int symbol_table[8];

cudaKernelNodeParams kernel_params(const void* func, void** args) {
  cudaKernelNodeParams p{};
  p.func = const_cast<void*>(func);
  p.gridDim = dim3(1);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  return p;
}

cudaGraphNode_t add_memset(cudaGraph_t g, std::vector<cudaGraphNode_t> deps, void* dst, unsigned value,
                           std::size_t width, std::size_t height = 1, std::size_t pitch = 0) {
  cudaMemsetParams p{dst, pitch, value, 4, width, height};
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddMemsetNode(&n, g, deps.data(), deps.size(), &p) == cudaSuccess);
  return n;
}

cudaGraphNode_t update_add_host(cudaGraph_t g, std::vector<cudaGraphNode_t> deps, log_entry* entry) {
  cudaHostNodeParams p{append_to_log, entry};
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddHostNode(&n, g, deps.data(), deps.size(), &p) == cudaSuccess);
  return n;
}

const void* add_fn = reinterpret_cast<const void*>(&add_amount);
const void* times_fn = reinterpret_cast<const void*>(&times);

// memset(value) -> add_amount(amount): every element ends value + amount.
struct set_then_add {
  cudaGraph_t graph = nullptr;
  cudaGraphNode_t set = nullptr, add = nullptr;
  set_then_add(int* data, unsigned value, int amount, int n = 32) {
    REQUIRE(cudaGraphCreate(&graph, 0) == cudaSuccess);
    set = add_memset(graph, {}, data, value, static_cast<std::size_t>(n));
    void* args[] = {&data, &amount, &n};
    add = add_kernel(graph, {set}, add_fn, args, 1, 32);
  }
  ~set_then_add() { cudaGraphDestroy(graph); }
};

std::vector<int> read(const int* d, int n = 32) {
  std::vector<int> h(static_cast<std::size_t>(n));
  REQUIRE(cudaMemcpy(h.data(), d, h.size() * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  return h;
}

void launch_and_wait(cudaGraphExec_t exec) {
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(nullptr) == cudaSuccess);
}

// An update refused with `result`, naming `node`; `info` keeps the rest.
void check_update_refused(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo& info,
                          cudaGraphExecUpdateResult result, cudaGraphNode_t node) {
  check_failed_with(cudaGraphExecUpdate(exec, graph, &info), cudaErrorGraphExecUpdateFailure);
  CHECK(info.result == result);
  CHECK(info.errorNode == node);
}

// What a test makes, released at its end: device buffers, graphs and
// executable graphs.
struct update_fixture {
  std::vector<int*> buffers;
  std::vector<cudaGraph_t> graphs;
  std::vector<cudaGraphExec_t> execs;

  ~update_fixture() {
    for (cudaGraphExec_t e : execs) cudaGraphExecDestroy(e);
    for (cudaGraph_t g : graphs) cudaGraphDestroy(g);
    for (int* d : buffers) cudaFree(d);
  }

  int* device_ints(int n = 32) {
    int* d = nullptr;
    REQUIRE(cudaMalloc(&d, static_cast<std::size_t>(n) * sizeof(int)) == cudaSuccess);
    buffers.push_back(d);
    return d;
  }
  cudaGraph_t new_graph() {
    cudaGraph_t g = nullptr;
    REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
    graphs.push_back(g);
    return g;
  }
  cudaGraphExec_t instantiate(cudaGraph_t g, unsigned long long flags = 0) {
    cudaGraphExec_t e = nullptr;
    REQUIRE(cudaGraphInstantiate(&e, g, flags) == cudaSuccess);
    execs.push_back(e);
    return e;
  }
};

}  // namespace

TEST_CASE_FIXTURE(update_fixture, "cudaGraphExecUpdate takes new kernel arguments and memset values") {
  REQUIRE(update_kernels_registered);
  int* d = device_ints();
  set_then_add first(d, 1, 10);
  cudaGraphExec_t exec = instantiate(first.graph);
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 11));

  set_then_add second(d, 5, 100);
  cudaGraphExecUpdateResultInfo info{};
  info.result = cudaGraphExecUpdateError;
  check_succeeded(cudaGraphExecUpdate(exec, second.graph, &info));
  CHECK(info.result == cudaGraphExecUpdateSuccess);
  CHECK(info.errorNode == nullptr);
  CHECK(info.errorFromNode == nullptr);
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 105));

  // The kernel's function may change too.
  cudaGraph_t third = new_graph();
  cudaGraphNode_t set = add_memset(third, {}, d, 3, 32);
  int n = 32, factor = 7;
  void* args[] = {&d, &factor, &n};
  add_kernel(third, {set}, times_fn, args, 1, 32);
  check_succeeded(cudaGraphExecUpdate(exec, third, &info));
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 21));

  // Per-node calls still name the nodes of the graph it was instantiated from.
  cudaMemsetParams p{d, 0, 2, 4, 32, 1};
  check_succeeded(cudaGraphExecMemsetNodeSetParams(exec, first.set, &p));
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 14));
}

TEST_CASE_FIXTURE(update_fixture,
                  "cudaGraphExecUpdate refuses other topologies, types and parameters, changing nothing") {
  REQUIRE(update_kernels_registered);
  int* d = device_ints();
  set_then_add original(d, 1, 10);
  cudaGraphExec_t exec = instantiate(original.graph);
  cudaGraphExecUpdateResultInfo info{};

  SUBCASE("a node more: the counts differ, no node named") {
    set_then_add other(d, 2, 20);
    cudaGraphNode_t extra = nullptr;
    REQUIRE(cudaGraphAddEmptyNode(&extra, other.graph, nullptr, 0) == cudaSuccess);
    check_update_refused(exec, other.graph, info, cudaGraphExecUpdateErrorTopologyChanged, nullptr);
    // The 4-argument form of cuda_runtime.h says the same.
    cudaGraphNode_t error_node = extra;
    cudaGraphExecUpdateResult result = cudaGraphExecUpdateSuccess;
    check_failed_with(cudaGraphExecUpdate(exec, other.graph, &error_node, &result), cudaErrorGraphExecUpdateFailure);
    CHECK(result == cudaGraphExecUpdateErrorTopologyChanged);
    CHECK(error_node == nullptr);
  }
  SUBCASE("an edge missing: the node whose dependencies differ") {
    set_then_add other(d, 2, 20);
    REQUIRE(cudaGraphRemoveDependencies(other.graph, &other.set, &other.add, nullptr, 1) == cudaSuccess);
    check_update_refused(exec, other.graph, info, cudaGraphExecUpdateErrorTopologyChanged, other.add);
  }
  SUBCASE("a node of another type: the node") {
    cudaGraph_t other = new_graph();
    cudaGraphNode_t a = nullptr, b = nullptr;
    REQUIRE(cudaGraphAddEmptyNode(&a, other, nullptr, 0) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&b, other, &a, 1) == cudaSuccess);
    check_update_refused(exec, other, info, cudaGraphExecUpdateErrorNodeTypeChanged, a);
  }
  SUBCASE("edges crossed: the node whose dependency does not pair") {
    cudaGraph_t three = new_graph(), crossed = new_graph();
    cudaGraphNode_t n0, n1, n2, m0, m1, m2;
    REQUIRE(cudaGraphAddEmptyNode(&n0, three, nullptr, 0) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&n1, three, nullptr, 0) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&n2, three, &n0, 1) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&m0, crossed, nullptr, 0) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&m1, crossed, nullptr, 0) == cudaSuccess);
    REQUIRE(cudaGraphAddEmptyNode(&m2, crossed, &m1, 1) == cudaSuccess);
    cudaGraphExec_t e3 = instantiate(three);
    check_update_refused(e3, crossed, info, cudaGraphExecUpdateErrorTopologyChanged, m2);
    CHECK(info.errorFromNode == m1);
  }
  SUBCASE("a memset moved to host memory: parameters changed") {
    cudaGraph_t other = new_graph();
    int* managed = nullptr;
    REQUIRE(cudaMallocManaged(&managed, 32 * sizeof(int)) == cudaSuccess);
    cudaGraphNode_t set = add_memset(other, {}, managed, 2, 32);
    int n = 32, amount = 20;
    void* args[] = {&d, &amount, &n};
    add_kernel(other, {set}, add_fn, args, 1, 32);
    check_update_refused(exec, other, info, cudaGraphExecUpdateErrorParametersChanged, set);
    cudaFree(managed);
  }
  SUBCASE("a memset of another height: parameters changed") {
    cudaGraph_t other = new_graph();
    cudaGraphNode_t set = add_memset(other, {}, d, 2, 8, 2, 16 * sizeof(int));
    int n = 32, amount = 20;
    void* args[] = {&d, &amount, &n};
    add_kernel(other, {set}, add_fn, args, 1, 32);
    check_update_refused(exec, other, info, cudaGraphExecUpdateErrorParametersChanged, set);
  }
  SUBCASE("null arguments") {
    check_failed_with(cudaGraphExecUpdate(exec, nullptr, &info), cudaErrorInvalidValue);
    CHECK(info.result == cudaGraphExecUpdateError);
    check_failed_with(cudaGraphExecUpdate(nullptr, original.graph, &info), cudaErrorInvalidValue);
  }
  // Whatever was refused, the executable graph runs as instantiated (and
  // an update from its own graph, without result info, changes nothing).
  check_succeeded(cudaGraphExecUpdate(exec, original.graph, nullptr));
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 11));
}

TEST_CASE_FIXTURE(update_fixture, "a memcpy node's kind cannot change in an update") {
  int* a = device_ints();
  int* b = device_ints();
  cudaGraph_t g = new_graph(), h = new_graph();
  cudaGraphNode_t c = nullptr, c2 = nullptr;
  REQUIRE(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, b, a, 128, cudaMemcpyDeviceToDevice) == cudaSuccess);
  REQUIRE(cudaGraphAddMemcpyNode1D(&c2, h, nullptr, 0, b, a, 128, cudaMemcpyDefault) == cudaSuccess);
  cudaGraphExec_t exec = instantiate(g);
  cudaGraphExecUpdateResultInfo info{};
  check_update_refused(exec, h, info, cudaGraphExecUpdateErrorParametersChanged, c2);
  // Swapping the addresses is an allowed change.
  std::vector<int> ones(32, 1), twos(32, 2);
  REQUIRE(cudaMemcpy(a, ones.data(), 128, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(b, twos.data(), 128, cudaMemcpyHostToDevice) == cudaSuccess);
  check_succeeded(cudaGraphExecMemcpyNodeSetParams1D(exec, c, a, b, 128, cudaMemcpyDeviceToDevice));
  check_failed_with(cudaGraphExecMemcpyNodeSetParams1D(exec, c, a, b, 128, cudaMemcpyDefault), cudaErrorInvalidValue);
  launch_and_wait(exec);
  CHECK(read(a) == twos);
}

TEST_CASE_FIXTURE(update_fixture,
                  "per-node updates reach later launches; a launch already enqueued keeps its parameters") {
  REQUIRE(update_kernels_registered);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  int* d = device_ints();
  REQUIRE(cudaMemset(d, 0, 32 * sizeof(int)) == cudaSuccess);
  std::vector<int> log;
  log_entry first{&log, 1}, second{&log, 2};

  cudaGraph_t g = new_graph();
  int n = 32, amount = 1;
  void* args[] = {&d, &amount, &n};
  cudaGraphNode_t k = add_kernel(g, {}, add_fn, args, 1, 32);
  cudaGraphNode_t h = update_add_host(g, {k}, &first);
  cudaGraphExec_t exec = instantiate(g);

  {
    gate held;
    held.hold(s);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);  // waits behind the gate
    amount = 100;
    cudaKernelNodeParams kp = kernel_params(add_fn, args);
    check_succeeded(cudaGraphExecKernelNodeSetParams(exec, k, &kp));
    cudaHostNodeParams hp{append_to_log, &second};
    check_succeeded(cudaGraphExecHostNodeSetParams(exec, h, &hp));
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    held.open();
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  }
  CHECK(log == std::vector<int>{1, 2});
  CHECK(read(d) == std::vector<int>(32, 101));

  // The graph's own node is untouched by the executable graph's update.
  cudaHostNodeParams own{};
  REQUIRE(cudaGraphHostNodeGetParams(h, &own) == cudaSuccess);
  CHECK(own.userData == &first);

  SUBCASE("nodes of other graphs, nodes of another kind, bad parameters") {
    cudaGraph_t other = new_graph();
    cudaGraphNode_t stranger = add_kernel(other, {}, add_fn, args, 1, 32);
    cudaKernelNodeParams kp = kernel_params(add_fn, args);
    check_failed_with(cudaGraphExecKernelNodeSetParams(exec, stranger, &kp), cudaErrorInvalidValue);
    check_failed_with(cudaGraphExecKernelNodeSetParams(exec, h, &kp), cudaErrorInvalidValue);
    check_failed_with(cudaGraphExecKernelNodeSetParams(nullptr, k, &kp), cudaErrorInvalidValue);
    check_failed_with(cudaGraphExecKernelNodeSetParams(exec, k, nullptr), cudaErrorInvalidValue);
    cudaHostNodeParams none{nullptr, nullptr};
    check_failed_with(cudaGraphExecHostNodeSetParams(exec, h, &none), cudaErrorInvalidValue);
    cudaMemsetParams mp{d, 0, 0, 4, 32, 1};
    check_failed_with(cudaGraphExecMemsetNodeSetParams(exec, k, &mp), cudaErrorInvalidValue);
  }
  cudaStreamDestroy(s);
}

TEST_CASE_FIXTURE(update_fixture,
                  "cudaGraphExecMemsetNodeSetParams: value, address and 1D width may change, the height may not") {
  int* a = device_ints(64);
  cudaGraph_t g = new_graph();
  cudaGraphNode_t set = add_memset(g, {}, a, 7, 32);
  cudaGraphExec_t exec = instantiate(g);
  REQUIRE(cudaMemset(a, 0, 64 * sizeof(int)) == cudaSuccess);
  cudaMemsetParams wider{a, 0, 9, 4, 64, 1};
  check_succeeded(cudaGraphExecMemsetNodeSetParams(exec, set, &wider));
  launch_and_wait(exec);
  CHECK(read(a, 64) == std::vector<int>(64, 9));
  cudaMemsetParams two_rows{a, 32 * sizeof(int), 9, 4, 32, 2};
  check_failed_with(cudaGraphExecMemsetNodeSetParams(exec, set, &two_rows), cudaErrorInvalidValue);
}

TEST_CASE_FIXTURE(update_fixture, "cudaGraphExecChildGraphNodeSetParams updates the child's nodes") {
  REQUIRE(update_kernels_registered);
  int* d = device_ints();
  set_then_add child(d, 1, 10), replacement(d, 4, 40);
  cudaGraph_t g = new_graph();
  cudaGraphNode_t node = nullptr;
  REQUIRE(cudaGraphAddChildGraphNode(&node, g, nullptr, 0, child.graph) == cudaSuccess);
  cudaGraphExec_t exec = instantiate(g);
  check_succeeded(cudaGraphExecChildGraphNodeSetParams(exec, node, replacement.graph));
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 44));

  cudaGraph_t lonely = new_graph();
  cudaGraphNode_t e = nullptr;
  REQUIRE(cudaGraphAddEmptyNode(&e, lonely, nullptr, 0) == cudaSuccess);
  check_failed_with(cudaGraphExecChildGraphNodeSetParams(exec, node, lonely), cudaErrorInvalidValue);
  // The child graph's own nodes are nodes of the executable graph too.
  cudaGraph_t embedded = nullptr;
  REQUIRE(cudaGraphChildGraphNodeGetGraph(node, &embedded) == cudaSuccess);
  cudaGraphNode_t inner[2];
  std::size_t count = 2;
  REQUIRE(cudaGraphGetNodes(embedded, inner, &count) == cudaSuccess);
  cudaMemsetParams p{d, 0, 3, 4, 32, 1};
  check_succeeded(cudaGraphExecMemsetNodeSetParams(exec, inner[0], &p));
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 43));
}

TEST_CASE_FIXTURE(update_fixture,
                  "cudaGraphNodeSetEnabled: a disabled node runs as an empty one and keeps later updates") {
  REQUIRE(update_kernels_registered);
  int* d = device_ints();
  set_then_add graph(d, 1, 10);
  cudaGraphExec_t exec = instantiate(graph.graph);
  unsigned enabled = 7;
  check_succeeded(cudaGraphNodeGetEnabled(exec, graph.add, &enabled));
  CHECK(enabled == 1);
  check_succeeded(cudaGraphNodeSetEnabled(exec, graph.add, 0));
  check_succeeded(cudaGraphNodeGetEnabled(exec, graph.add, &enabled));
  CHECK(enabled == 0);
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 1));

  int n = 32, amount = 5;
  void* args[] = {&d, &amount, &n};
  cudaKernelNodeParams kp = kernel_params(add_fn, args);
  check_succeeded(cudaGraphExecKernelNodeSetParams(exec, graph.add, &kp));
  // Still disabled after an update.
  set_then_add same(d, 2, 10);
  cudaGraphExecUpdateResultInfo info{};
  check_succeeded(cudaGraphExecUpdate(exec, same.graph, &info));
  check_succeeded(cudaGraphNodeGetEnabled(exec, graph.add, &enabled));
  CHECK(enabled == 0);
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 2));
  check_succeeded(cudaGraphNodeSetEnabled(exec, graph.add, 1));
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 12));

  // Only kernel, memcpy and memset nodes.
  cudaGraph_t g = new_graph();
  std::vector<int> log;
  log_entry entry{&log, 1};
  cudaGraphNode_t h = update_add_host(g, {}, &entry);
  cudaGraphExec_t host_exec = instantiate(g);
  check_failed_with(cudaGraphNodeSetEnabled(host_exec, h, 0), cudaErrorInvalidValue);
  check_failed_with(cudaGraphNodeGetEnabled(host_exec, h, &enabled), cudaErrorInvalidValue);
  check_failed_with(cudaGraphNodeSetEnabled(exec, h, 0), cudaErrorInvalidValue);
  check_failed_with(cudaGraphNodeGetEnabled(exec, graph.add, nullptr), cudaErrorInvalidValue);
}

TEST_CASE_FIXTURE(update_fixture,
                  "cudaGraphInstantiateWithParams reports its result and error node; cudaGraphExecGetFlags") {
  cudaGraph_t g = new_graph();
  cudaGraphNode_t a = nullptr, b = nullptr;
  REQUIRE(cudaGraphAddEmptyNode(&a, g, nullptr, 0) == cudaSuccess);
  REQUIRE(cudaGraphAddEmptyNode(&b, g, &a, 1) == cudaSuccess);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);

  cudaGraphInstantiateParams p{};
  p.flags = cudaGraphInstantiateFlagUpload | cudaGraphInstantiateFlagAutoFreeOnLaunch;
  p.uploadStream = s;
  p.errNode_out = a;
  p.result_out = cudaGraphInstantiateError;
  cudaGraphExec_t exec = nullptr;
  check_succeeded(cudaGraphInstantiateWithParams(&exec, g, &p));
  CHECK(p.result_out == cudaGraphInstantiateSuccess);
  CHECK(p.errNode_out == nullptr);
  unsigned long long flags = 0;
  check_succeeded(cudaGraphExecGetFlags(exec, &flags));
  CHECK(flags == cudaGraphInstantiateFlagAutoFreeOnLaunch);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  check_failed_with(cudaGraphExecGetFlags(exec, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaGraphExecGetFlags(nullptr, &flags), cudaErrorInvalidValue);
  cudaGraphExecDestroy(exec);

  // The 5-argument form of CUDA before 12, which cuda_runtime.h keeps.
  check_succeeded(cudaGraphInstantiate(&exec, g, nullptr, nullptr, 0));
  cudaGraphExecDestroy(exec);

  // A cycle: invalid structure, a node of it named.
  REQUIRE(cudaGraphAddDependencies(g, &b, &a, nullptr, 1) == cudaSuccess);
  p = {};
  check_failed_with(cudaGraphInstantiateWithParams(&exec, g, &p), cudaErrorInvalidValue);
  CHECK(p.result_out == cudaGraphInstantiateInvalidStructure);
  CHECK((p.errNode_out == a || p.errNode_out == b));
  REQUIRE(cudaGraphRemoveDependencies(g, &b, &a, nullptr, 1) == cudaSuccess);

  p = {};
  p.flags = cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagAutoFreeOnLaunch;
  check_failed_with(cudaGraphInstantiateWithParams(&exec, g, &p), cudaErrorInvalidValue);
  CHECK(p.result_out == cudaGraphInstantiateError);
  p = {};
  p.flags = 1ull << 40;
  check_failed_with(cudaGraphInstantiateWithParams(&exec, g, &p), cudaErrorInvalidValue);
  check_failed_with(cudaGraphInstantiateWithParams(&exec, g, nullptr), cudaErrorInvalidValue);
  p = {};
  check_failed_with(cudaGraphInstantiateWithParams(nullptr, g, &p), cudaErrorInvalidValue);
  CHECK(p.result_out == cudaGraphInstantiateError);
  // Upload belongs to cudaGraphInstantiateWithParams only.
  check_failed_with(cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagUpload), cudaErrorInvalidValue);
  cudaStreamDestroy(s);
}

TEST_CASE_FIXTURE(
    update_fixture,
    "cudaGraphExecUpdate: a kernel may not change cooperative launch, nor priority under node priorities") {
  REQUIRE(update_kernels_registered);
  int* d = device_ints();
  set_then_add plain(d, 1, 10), cooperative(d, 1, 10), urgent(d, 1, 10);
  cudaKernelNodeAttrValue yes{};
  yes.cooperative = 1;
  REQUIRE(cudaGraphKernelNodeSetAttribute(cooperative.add, cudaLaunchAttributeCooperative, &yes) == cudaSuccess);
  cudaKernelNodeAttrValue high{};
  high.priority = -1;
  REQUIRE(cudaGraphKernelNodeSetAttribute(urgent.add, cudaLaunchAttributePriority, &high) == cudaSuccess);

  cudaGraphExec_t exec = instantiate(plain.graph);
  cudaGraphExecUpdateResultInfo info{};
  check_update_refused(exec, cooperative.graph, info, cudaGraphExecUpdateErrorAttributesChanged, cooperative.add);
  // Without cudaGraphInstantiateFlagUseNodePriority, the priority is the stream's.
  check_succeeded(cudaGraphExecUpdate(exec, urgent.graph, &info));

  exec = instantiate(plain.graph, cudaGraphInstantiateFlagUseNodePriority);
  check_update_refused(exec, urgent.graph, info, cudaGraphExecUpdateErrorAttributesChanged, urgent.add);

  // Per-node parameters keep the node's attributes: the priority stays,
  // so the graph it came from still updates it.
  exec = instantiate(urgent.graph, cudaGraphInstantiateFlagUseNodePriority);
  int n = 32, amount = 3;
  void* args[] = {&d, &amount, &n};
  cudaKernelNodeParams kp = kernel_params(add_fn, args);
  check_succeeded(cudaGraphExecKernelNodeSetParams(exec, urgent.add, &kp));
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 4));
  check_succeeded(cudaGraphExecUpdate(exec, urgent.graph, &info));
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 11));
}

TEST_CASE_FIXTURE(update_fixture, "memcpy nodes in an executable graph: 3D-form and symbol setters, 1D only") {
  int* a = device_ints();
  int* b = device_ints();
  std::vector<int> ones(32, 1), twos(32, 2);
  REQUIRE(cudaMemcpy(a, ones.data(), 128, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(b, twos.data(), 128, cudaMemcpyHostToDevice) == cudaSuccess);
  cudaGraph_t g = new_graph();
  cudaGraphNode_t c = nullptr;
  REQUIRE(cudaGraphAddMemcpyNode1D(&c, g, nullptr, 0, b, a, 32, cudaMemcpyDeviceToDevice) == cudaSuccess);
  cudaGraphExec_t exec = instantiate(g);

  // 16 bytes from b to a, as one row of a cudaMemcpy3DParms.
  cudaMemcpy3DParms p{};
  p.srcPtr = make_cudaPitchedPtr(b, 16, 16, 1);
  p.dstPtr = make_cudaPitchedPtr(a, 16, 16, 1);
  p.extent = make_cudaExtent(16, 1, 1);
  p.kind = cudaMemcpyDeviceToDevice;
  check_succeeded(cudaGraphExecMemcpyNodeSetParams(exec, c, &p));
  launch_and_wait(exec);
  std::vector<int> expected(32, 1);
  std::fill_n(expected.begin(), 4, 2);
  CHECK(read(a) == expected);
  // Two rows: not a 1D copy.
  p.srcPtr = make_cudaPitchedPtr(b, 64, 16, 2);
  p.dstPtr = make_cudaPitchedPtr(a, 64, 16, 2);
  p.extent = make_cudaExtent(16, 2, 1);
  check_failed_with(cudaGraphExecMemcpyNodeSetParams(exec, c, &p), cudaErrorInvalidValue);
  check_failed_with(cudaGraphExecMemcpyNodeSetParams(exec, c, nullptr), cudaErrorInvalidValue);

  // To and from a __device__ array.
  check_succeeded(
      cudaGraphExecMemcpyNodeSetParamsToSymbol(exec, c, symbol_table, b, 8 * sizeof(int), 0, cudaMemcpyDeviceToDevice));
  launch_and_wait(exec);
  int host[8] = {};
  REQUIRE(cudaMemcpyFromSymbol(host, symbol_table, sizeof host) == cudaSuccess);
  CHECK(std::vector<int>(host, host + 8) == std::vector<int>(8, 2));
  check_succeeded(cudaGraphExecMemcpyNodeSetParamsFromSymbol(exec, c, a + 8, symbol_table, 4 * sizeof(int),
                                                             4 * sizeof(int), cudaMemcpyDeviceToDevice));
  REQUIRE(cudaMemcpy(a, ones.data(), 128, cudaMemcpyHostToDevice) == cudaSuccess);
  launch_and_wait(exec);
  expected.assign(32, 1);
  std::fill_n(expected.begin() + 8, 4, 2);
  CHECK(read(a) == expected);
  check_failed_with(
      cudaGraphExecMemcpyNodeSetParamsToSymbol(exec, c, symbol_table, b, 9 * sizeof(int), 0, cudaMemcpyDeviceToDevice),
      cudaErrorInvalidValue);
}

TEST_CASE_FIXTURE(update_fixture, "event record and wait nodes take other events in an executable graph") {
  cudaEvent_t first = nullptr, second = nullptr;
  REQUIRE(cudaEventCreate(&first) == cudaSuccess);
  REQUIRE(cudaEventCreate(&second) == cudaSuccess);
  cudaGraph_t g = new_graph();
  cudaGraphNode_t recording = nullptr, waiting = nullptr;
  REQUIRE(cudaGraphAddEventRecordNode(&recording, g, nullptr, 0, first) == cudaSuccess);
  REQUIRE(cudaGraphAddEventWaitNode(&waiting, g, nullptr, 0, first) == cudaSuccess);
  cudaGraphExec_t exec = instantiate(g);
  check_succeeded(cudaGraphExecEventRecordNodeSetEvent(exec, recording, second));
  check_succeeded(cudaGraphExecEventWaitNodeSetEvent(exec, waiting, second));
  launch_and_wait(exec);
  float ms = -1;
  // Only `second` was recorded: an elapsed time needs both ends recorded.
  CHECK(cudaEventElapsedTime(&ms, second, second) == cudaSuccess);
  CHECK(cudaEventElapsedTime(&ms, first, first) != cudaSuccess);
  cudaGetLastError();
  check_failed_with(cudaGraphExecEventRecordNodeSetEvent(exec, waiting, second), cudaErrorInvalidValue);
  check_failed_with(cudaGraphExecEventWaitNodeSetEvent(exec, recording, second), cudaErrorInvalidValue);
  cudaEvent_t gone = nullptr;
  REQUIRE(cudaEventCreate(&gone) == cudaSuccess);
  REQUIRE(cudaEventDestroy(gone) == cudaSuccess);
  check_failed_with(cudaGraphExecEventRecordNodeSetEvent(exec, recording, gone), cudaErrorInvalidResourceHandle);
  cudaEventDestroy(first);
  cudaEventDestroy(second);
}

TEST_CASE_FIXTURE(update_fixture, "cudaGraphExecNodeSetParams by node type") {
  REQUIRE(update_kernels_registered);
  int* d = device_ints();
  set_then_add graph(d, 1, 10);
  cudaGraphNode_t empty = nullptr;
  REQUIRE(cudaGraphAddEmptyNode(&empty, graph.graph, &graph.add, 1) == cudaSuccess);
  cudaGraphExec_t exec = instantiate(graph.graph);

  int n = 32, amount = 20;
  void* args[] = {&d, &amount, &n};
  cudaGraphNodeParams p{};
  p.type = cudaGraphNodeTypeKernel;
  p.kernel.func = const_cast<void*>(add_fn);
  p.kernel.gridDim = dim3(1);
  p.kernel.blockDim = dim3(32);
  p.kernel.kernelParams = args;
  check_succeeded(cudaGraphExecNodeSetParams(exec, graph.add, &p));
  cudaGraphNodeParams m{};
  m.type = cudaGraphNodeTypeMemset;
  m.memset.dst = d;
  m.memset.value = 3;
  m.memset.elementSize = 4;
  m.memset.width = 32;
  m.memset.height = 1;
  check_succeeded(cudaGraphExecNodeSetParams(exec, graph.set, &m));
  launch_and_wait(exec);
  CHECK(read(d) == std::vector<int>(32, 23));

  cudaGraphNodeParams e{};
  e.type = cudaGraphNodeTypeEmpty;
  check_succeeded(cudaGraphExecNodeSetParams(exec, empty, &e));
  check_failed_with(cudaGraphExecNodeSetParams(exec, graph.add, &e), cudaErrorInvalidValue);  // not its type
  check_failed_with(cudaGraphExecNodeSetParams(exec, graph.set, &p), cudaErrorInvalidValue);
  check_failed_with(cudaGraphExecNodeSetParams(exec, graph.add, nullptr), cudaErrorInvalidValue);
  p.reserved0[1] = 1;
  check_failed_with(cudaGraphExecNodeSetParams(exec, graph.add, &p), cudaErrorInvalidValue);
}
