// Conditional graph nodes (CUDA 13, cudaGraphNodeTypeConditional): IF with
// and without ELSE, WHILE (checked before the first run), SWITCH (a value
// past the last body runs none), handles' defaults and
// cudaGraphCondAssignDefault across launches, nesting, whole-graph update,
// and the codes for what CUDA refuses. The value is set by kernels of the
// same launch, so each decision is made at run time.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <vector>

#include "error_checks.hpp"
#include "graph_building.hpp"
#include "stream_gates.hpp"

namespace {

cudaError_t add_conditional(cudaGraphNode_t* node, cudaGraph_t g, std::vector<cudaGraphNode_t> deps,
                            cudaConditionalNodeParams* p) {
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  if (p) params.conditional = *p;
  cudaError_t e = cudaGraphAddNode(node, g, deps.data(), nullptr, deps.size(), p ? &params : nullptr);
  if (p) *p = params.conditional;
  return e;
}

__global__ void set_from(cudaGraphConditionalHandle h, const int* value) { cudaGraphSetConditional(h, *value); }

__global__ void store(int* out, int value) { *out = value; }

__global__ void conditional_bump(int* counter) { ++*counter; }

__global__ void conditional_copy_value(int* to, const int* from) { *to = *from; }

// One run of a loop body: counts, and ends the loop when `remaining` runs out.
__global__ void count_down(int* remaining, int* runs, cudaGraphConditionalHandle h) {
  ++*runs;
  if (--*remaining == 0) cudaGraphSetConditional(h, 0);
}

// Counts, and clears the handle (the value then lasts unless reset).
__global__ void bump_and_clear(int* counter, cudaGraphConditionalHandle h) {
  ++*counter;
  cudaGraphSetConditional(h, 0);
}

const bool conditional_kernels_registered =
    weft::register_kernel<&set_from>() && weft::register_kernel<&store>() &&
    weft::register_kernel<&conditional_bump>() && weft::register_kernel<&count_down>() &&
    weft::register_kernel<&bump_and_clear>() && weft::register_kernel<&conditional_copy_value>();

template <auto Kernel, class... Args>
cudaGraphNode_t add_node(cudaGraph_t g, std::vector<cudaGraphNode_t> deps, Args... args) {
  void* pointers[] = {&args...};
  return add_kernel(g, deps, reinterpret_cast<const void*>(Kernel), pointers, 1, 1);
}

void run(cudaGraphExec_t exec) {
  REQUIRE(cudaGraphLaunch(exec, nullptr) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(nullptr) == cudaSuccess);
}

struct conditional {
  cudaGraphNode_t node = nullptr;
  std::vector<cudaGraph_t> bodies;
};

conditional add_conditional(cudaGraph_t g, std::vector<cudaGraphNode_t> deps, cudaGraphConditionalHandle h,
                            cudaGraphConditionalNodeType type, unsigned size) {
  cudaConditionalNodeParams p{h, type, size, nullptr};
  conditional c;
  REQUIRE(add_conditional(&c.node, g, deps, &p) == cudaSuccess);
  REQUIRE(p.phGraph_out != nullptr);
  c.bodies.assign(p.phGraph_out, p.phGraph_out + size);
  return c;
}

// Managed ints that a test's kernels read and write, freed at its end.
struct managed_ints {
  std::vector<int*> all;

  int* operator()(int value = 0) {
    int* p = nullptr;
    REQUIRE(cudaMallocManaged(&p, sizeof(int)) == cudaSuccess);
    *p = value;
    all.push_back(p);
    return p;
  }
  ~managed_ints() {
    for (int* p : all) cudaFree(p);
  }
};

// A graph with a conditional handle `h` (its default value and flags as
// given), and the executable graph instantiate() makes of it; both are
// destroyed at the end.
struct conditional_graph {
  cudaGraph_t g = nullptr;
  cudaGraphConditionalHandle h = 0;
  cudaGraphExec_t exec = nullptr;

  explicit conditional_graph(unsigned default_value = 0, unsigned flags = 0) {
    REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
    check_succeeded(cudaGraphConditionalHandleCreate(&h, g, default_value, flags));
  }
  ~conditional_graph() {
    if (exec) cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
  }

  void instantiate() { REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess); }
  void run() { ::run(exec); }
};

// The kernels read a value through a const pointer.
const int* as_input(int* p) { return p; }

}  // namespace

TEST_CASE("IF with ELSE: a kernel of the launch decides which body runs") {
  REQUIRE(conditional_kernels_registered);
  managed_ints ints;
  int *value = ints(), *out = ints();
  conditional_graph graph;
  cudaGraphNode_t decide = add_node<&set_from>(graph.g, {}, graph.h, as_input(value));
  conditional c = add_conditional(graph.g, {decide}, graph.h, cudaGraphCondTypeIf, 2);
  add_node<&store>(c.bodies[0], {}, out, 1);
  add_node<&store>(c.bodies[1], {}, out, 2);
  cudaGraphNodeType type{};
  REQUIRE(cudaGraphNodeGetType(c.node, &type) == cudaSuccess);
  CHECK(type == cudaGraphNodeTypeConditional);

  graph.instantiate();
  *value = 3;
  graph.run();
  CHECK(*out == 1);
  *value = 0;
  graph.run();
  CHECK(*out == 2);
}

TEST_CASE("IF without ELSE runs nothing for zero; later nodes wait for the body") {
  REQUIRE(conditional_kernels_registered);
  managed_ints ints;
  int *value = ints(), *counter = ints(), *after = ints();
  conditional_graph graph;
  cudaGraphNode_t decide = add_node<&set_from>(graph.g, {}, graph.h, as_input(value));
  conditional c = add_conditional(graph.g, {decide}, graph.h, cudaGraphCondTypeIf, 1);
  cudaGraphNode_t first = add_node<&conditional_bump>(c.bodies[0], {}, counter);
  add_node<&conditional_bump>(c.bodies[0], {first}, counter);
  // Runs after the conditional node, so after its body: sees both bumps.
  add_node<&conditional_copy_value>(graph.g, {c.node}, after, as_input(counter));
  graph.instantiate();
  graph.run();
  CHECK(*counter == 0);
  *value = 1;
  graph.run();
  CHECK(*counter == 2);
  CHECK(*after == 2);
}

TEST_CASE("WHILE: the body runs until a kernel in it clears the value, checked before the first run") {
  REQUIRE(conditional_kernels_registered);
  managed_ints ints;
  int *remaining = ints(), *runs = ints();
  {
    conditional_graph graph(1, cudaGraphCondAssignDefault);
    conditional loop = add_conditional(graph.g, {}, graph.h, cudaGraphCondTypeWhile, 1);
    add_node<&count_down>(loop.bodies[0], {}, remaining, runs, graph.h);
    graph.instantiate();
    *remaining = 5;
    graph.run();
    CHECK(*runs == 5);
    CHECK(*remaining == 0);
    // Reset to 1 at the launch: the loop runs again.
    *remaining = 3;
    graph.run();
    CHECK(*runs == 8);
  }
  // Zero before the first run: no run at all.
  conditional_graph graph(0, cudaGraphCondAssignDefault);
  conditional loop = add_conditional(graph.g, {}, graph.h, cudaGraphCondTypeWhile, 1);
  add_node<&count_down>(loop.bodies[0], {}, remaining, runs, graph.h);
  graph.instantiate();
  graph.run();
  CHECK(*runs == 8);
}

TEST_CASE("SWITCH runs body n for the value n, none for a value past the last") {
  REQUIRE(conditional_kernels_registered);
  managed_ints ints;
  int *value = ints(), *out = ints(-1);
  conditional_graph graph;
  cudaGraphNode_t decide = add_node<&set_from>(graph.g, {}, graph.h, as_input(value));
  conditional c = add_conditional(graph.g, {decide}, graph.h, cudaGraphCondTypeSwitch, 3);
  for (int i = 0; i < 3; ++i) add_node<&store>(c.bodies[static_cast<std::size_t>(i)], {}, out, 10 + i);
  graph.instantiate();
  for (int v : {1, 0, 2}) {
    *value = v;
    graph.run();
    CHECK(*out == 10 + v);
  }
  *out = -1;
  *value = 3;
  graph.run();
  CHECK(*out == -1);
}

TEST_CASE("a handle's default: kept across launches, or reset at each with cudaGraphCondAssignDefault") {
  REQUIRE(conditional_kernels_registered);
  for (bool reset : {false, true}) {
    CAPTURE(reset);
    managed_ints ints;
    int* counter = ints();
    conditional_graph graph(1, reset ? cudaGraphCondAssignDefault : 0);
    conditional c = add_conditional(graph.g, {}, graph.h, cudaGraphCondTypeIf, 1);
    add_node<&bump_and_clear>(c.bodies[0], {}, counter, graph.h);
    graph.instantiate();
    graph.run();
    graph.run();
    graph.run();
    CHECK(*counter == (reset ? 3 : 1));
    cudaGraphExecDestroy(graph.exec);
    // A new executable graph starts from the default again.
    graph.instantiate();
    graph.run();
    CHECK(*counter == (reset ? 4 : 2));
  }
}

TEST_CASE("nested conditionals: an IF inside a WHILE body, using the outer graph's handles") {
  REQUIRE(conditional_kernels_registered);
  managed_ints ints;
  int *remaining = ints(4), *runs = ints(), *odd_runs = ints();
  conditional_graph graph(1, cudaGraphCondAssignDefault);
  cudaGraphConditionalHandle loop_handle = graph.h, if_handle = 0;
  REQUIRE(cudaGraphConditionalHandleCreate(&if_handle, graph.g) == cudaSuccess);
  conditional loop = add_conditional(graph.g, {}, loop_handle, cudaGraphCondTypeWhile, 1);
  cudaGraph_t body = loop.bodies[0];
  // remaining 4, 3, 2, 1 at each run's start: the IF sees runs 1..4 and
  // takes the odd ones (remaining after the count-down: 3, 2, 1, 0).
  cudaGraphNode_t step = add_node<&count_down>(body, {}, remaining, runs, loop_handle);
  cudaGraphNode_t decide = add_node<&set_from>(body, {step}, if_handle, as_input(runs));
  conditional inner = add_conditional(body, {decide}, if_handle, cudaGraphCondTypeSwitch, 4);
  add_node<&conditional_bump>(inner.bodies[1], {}, odd_runs);
  add_node<&conditional_bump>(inner.bodies[3], {}, odd_runs);
  graph.instantiate();
  graph.run();
  CHECK(*runs == 4);
  CHECK(*odd_runs == 2);
}

TEST_CASE("cudaGraphExecUpdate with conditional nodes: bodies updated, the new graph's handle taken") {
  REQUIRE(conditional_kernels_registered);
  managed_ints ints;
  int* out = ints();
  conditional_graph first(1, cudaGraphCondAssignDefault), second(1, cudaGraphCondAssignDefault), other;
  add_node<&store>(add_conditional(first.g, {}, first.h, cudaGraphCondTypeIf, 1).bodies[0], {}, out, 1);
  add_node<&store>(add_conditional(second.g, {}, second.h, cudaGraphCondTypeIf, 1).bodies[0], {}, out, 2);
  first.instantiate();
  cudaGraphExecUpdateResultInfo info{};
  check_succeeded(cudaGraphExecUpdate(first.exec, second.g, &info));
  first.run();
  CHECK(*out == 2);

  conditional c = add_conditional(other.g, {}, other.h, cudaGraphCondTypeIf, 2);
  check_failed_with(cudaGraphExecUpdate(first.exec, other.g, &info), cudaErrorGraphExecUpdateFailure);
  CHECK(info.result == cudaGraphExecUpdateErrorParametersChanged);
  CHECK(info.errorNode == c.node);
}

TEST_CASE("conditional nodes: what CUDA refuses") {
  REQUIRE(conditional_kernels_registered);
  conditional_graph graph, stranger;
  cudaGraph_t g = graph.g;
  cudaGraphConditionalHandle h = graph.h, foreign = stranger.h, made = 0;
  check_failed_with(cudaGraphConditionalHandleCreate(nullptr, g), cudaErrorInvalidValue);
  check_failed_with(cudaGraphConditionalHandleCreate(&made, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaGraphConditionalHandleCreate(&made, g, 0, 2), cudaErrorInvalidValue);

  cudaGraphNode_t node = nullptr;
  auto refused = [&](cudaConditionalNodeParams p) {
    check_failed_with(add_conditional(&node, g, {}, &p), cudaErrorInvalidValue);
  };
  refused({h, cudaGraphCondTypeIf, 0, nullptr});
  refused({h, cudaGraphCondTypeIf, 3, nullptr});
  refused({h, cudaGraphCondTypeWhile, 2, nullptr});
  refused({h, cudaGraphCondTypeSwitch, 0, nullptr});
  refused({h, static_cast<cudaGraphConditionalNodeType>(7), 1, nullptr});
  refused({h + 8, cudaGraphCondTypeIf, 1, nullptr});    // no handle
  refused({foreign, cudaGraphCondTypeIf, 1, nullptr});  // another graph's
  check_failed_with(add_conditional(&node, g, {}, nullptr), cudaErrorInvalidValue);
  cudaGraphNodeParams with_reserved{};
  with_reserved.type = cudaGraphNodeTypeConditional;
  with_reserved.conditional = {h, cudaGraphCondTypeIf, 1, nullptr};
  with_reserved.reserved2 = 1;
  check_failed_with(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &with_reserved), cudaErrorInvalidValue);

  conditional c = add_conditional(g, {}, h, cudaGraphCondTypeIf, 1);
  // A body may not hold a host node.
  cudaHostNodeParams hp{[](void*) {}, nullptr};
  cudaGraphNode_t host = nullptr;
  REQUIRE(cudaGraphAddHostNode(&host, c.bodies[0], nullptr, 0, &hp) == cudaSuccess);
  cudaGraphInstantiateParams ip{};
  cudaGraphExec_t exec = nullptr;
  check_failed_with(cudaGraphInstantiateWithParams(&exec, g, &ip), cudaErrorNotSupported);
  CHECK(ip.result_out == cudaGraphInstantiateNodeOperationNotSupported);
  CHECK(ip.errNode_out == host);
  REQUIRE(cudaGraphDestroyNode(host) == cudaSuccess);

  // A handle that no conditional node uses.
  cudaGraphConditionalHandle unused = 0;
  REQUIRE(cudaGraphConditionalHandleCreate(&unused, g) == cudaSuccess);
  ip = {};
  check_failed_with(cudaGraphInstantiateWithParams(&exec, g, &ip), cudaErrorInvalidValue);
  CHECK(ip.result_out == cudaGraphInstantiateConditionalHandleUnused);
  add_conditional(g, {}, unused, cudaGraphCondTypeWhile, 1);

  // One executable graph at a time; no clones; no child graph nodes of it.
  graph.instantiate();
  cudaGraphExec_t second = nullptr;
  check_failed_with(cudaGraphInstantiate(&second, g, 0), cudaErrorNotSupported);
  cudaGraph_t copy = nullptr;
  check_failed_with(cudaGraphClone(&copy, g), cudaErrorNotSupported);
  cudaGraphNode_t child = nullptr;
  check_failed_with(cudaGraphAddChildGraphNode(&child, stranger.g, nullptr, 0, g), cudaErrorNotSupported);
  graph.run();
  REQUIRE(cudaGraphExecDestroy(graph.exec) == cudaSuccess);
  graph.exec = nullptr;
  check_succeeded(cudaGraphInstantiate(&second, g, 0));
  cudaGraphExecDestroy(second);
}

TEST_CASE("body nodes take per-node updates and enabling; a launch in flight keeps its body") {
  REQUIRE(conditional_kernels_registered);
  managed_ints ints;
  int *out = ints(), *counter = ints();
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  conditional_graph graph(1, cudaGraphCondAssignDefault);
  conditional c = add_conditional(graph.g, {}, graph.h, cudaGraphCondTypeIf, 1);
  cudaGraphNode_t stored = add_node<&store>(c.bodies[0], {}, out, 1);
  cudaGraphNode_t bumped = add_node<&conditional_bump>(c.bodies[0], {stored}, counter);
  graph.instantiate();

  {
    gate held;
    held.hold(s);
    REQUIRE(cudaGraphLaunch(graph.exec, s) == cudaSuccess);  // its body is decided after the gate
    int* target = out;
    int two = 2;
    void* args[] = {&target, &two};
    cudaKernelNodeParams p{};
    p.func = reinterpret_cast<void*>(&store);
    p.gridDim = dim3(1);
    p.blockDim = dim3(1);
    p.kernelParams = args;
    check_succeeded(cudaGraphExecKernelNodeSetParams(graph.exec, stored, &p));
    check_succeeded(cudaGraphNodeSetEnabled(graph.exec, bumped, 0));
    held.open();
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  }
  CHECK(*out == 1);
  CHECK(*counter == 1);
  REQUIRE(cudaGraphLaunch(graph.exec, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(*out == 2);
  CHECK(*counter == 1);
  // A conditional node is none of the kinds that can be disabled.
  check_failed_with(cudaGraphNodeSetEnabled(graph.exec, c.node, 0), cudaErrorInvalidValue);
  cudaStreamDestroy(s);
}

TEST_CASE("bodies filled by stream capture, and a conditional node added to a capturing stream's graph") {
  REQUIRE(conditional_kernels_registered);
  managed_ints ints;
  int *remaining = ints(3), *runs = ints();
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);

  // The capture's graph receives the handle and the node; the capture goes
  // on after the node, and the body is captured on its own.
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess);
  cudaStreamCaptureStatus status{};
  cudaGraph_t capturing = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  std::size_t count = 0;
  REQUIRE(cudaStreamGetCaptureInfo(s, &status, nullptr, &capturing, &deps, nullptr, &count) == cudaSuccess);
  REQUIRE(status == cudaStreamCaptureStatusActive);
  cudaGraphConditionalHandle h = 0;
  REQUIRE(cudaGraphConditionalHandleCreate(&h, capturing, 1, cudaGraphCondAssignDefault) == cudaSuccess);
  conditional loop =
      add_conditional(capturing, std::vector<cudaGraphNode_t>(deps, deps + count), h, cudaGraphCondTypeWhile, 1);
  REQUIRE(cudaStreamUpdateCaptureDependencies(s, &loop.node, nullptr, 1, cudaStreamSetCaptureDependencies) ==
          cudaSuccess);
  void* bump_args[] = {&runs};
  REQUIRE(cudaLaunchKernel(reinterpret_cast<const void*>(&conditional_bump), dim3(1), dim3(1), bump_args, 0, s) ==
          cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaStreamEndCapture(s, &g) == cudaSuccess);
  REQUIRE(g == capturing);

  cudaStream_t body_stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&body_stream, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaStreamBeginCaptureToGraph(body_stream, loop.bodies[0], nullptr, nullptr, 0,
                                        cudaStreamCaptureModeGlobal) == cudaSuccess);
  void* loop_args[] = {&remaining, &runs, &h};
  REQUIRE(cudaLaunchKernel(reinterpret_cast<const void*>(&count_down), dim3(1), dim3(1), loop_args, 0, body_stream) ==
          cudaSuccess);
  REQUIRE(cudaStreamEndCapture(body_stream, nullptr) == cudaSuccess);

  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(*runs == 4);  // three runs of the loop, then the conditional_bump after it
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaStreamDestroy(body_stream);
}

TEST_CASE("a conditional node is decided after the nodes placed before it, even with no edge between them") {
  REQUIRE(conditional_kernels_registered);
  // cuda-samples' graphConditionalNodes adds its IF node with no dependency
  // on the kernel that sets the value; an H100 still decides by that value.
  managed_ints ints;
  int *value = ints(), *out = ints();
  conditional_graph graph;
  add_node<&set_from>(graph.g, {}, graph.h, as_input(value));
  conditional c = add_conditional(graph.g, {}, graph.h, cudaGraphCondTypeIf, 2);
  add_node<&store>(c.bodies[0], {}, out, 1);
  add_node<&store>(c.bodies[1], {}, out, 2);
  graph.instantiate();
  for (int v : {1, 0, 1}) {
    *value = v;
    graph.run();
    CHECK(*out == (v ? 1 : 2));
  }
}
