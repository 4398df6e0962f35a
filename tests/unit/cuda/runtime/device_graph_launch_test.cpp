// Device graph launch (CUDA guide, "Device Graph Launch"): graphs
// instantiated with cudaGraphInstantiateFlagDeviceLaunch and launched by
// kernels fire-and-forget, as siblings or as tail launches; the launching
// graph completes only after its children, tail launches run in order after
// its environment, and what CUDA refuses (or leaves undefined) returns an
// error from the device call. Orders are checked with gates, never times.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "error_checks.hpp"
#include "stream_gates.hpp"

namespace {

__global__ void add(int* x, int v) { std::atomic_ref<int>(*x).fetch_add(v); }

// Appends `id` to a log whose first element counts the entries.
__global__ void append(int* log, int id) {
  int at = std::atomic_ref<int>(log[0]).fetch_add(1);
  log[1 + at] = id;
}

// Waits for the host to open the gate, then adds 1.
__global__ void gated_add(int* flag, int* x) {
  while (std::atomic_ref<int>(*flag).load() == 0) std::this_thread::yield();
  std::atomic_ref<int>(*x).fetch_add(1);
}

__global__ void copy_value(const int* from, int* to) { *to = std::atomic_ref<int>(*const_cast<int*>(from)).load(); }

__global__ void launch_one(cudaGraphExec_t g, cudaStream_t mode, int* code) { *code = cudaGraphLaunch(g, mode); }

__global__ void launch_two(cudaGraphExec_t first, cudaStream_t first_mode, cudaGraphExec_t second,
                           cudaStream_t second_mode, int* codes) {
  codes[0] = cudaGraphLaunch(first, first_mode);
  codes[1] = cudaGraphLaunch(second, second_mode);
}

__global__ void tail_three(cudaGraphExec_t a, cudaGraphExec_t b, cudaGraphExec_t c, int* codes) {
  codes[0] = cudaGraphLaunch(a, cudaStreamGraphTailLaunch);
  codes[1] = cudaGraphLaunch(b, cudaStreamGraphTailLaunch);
  codes[2] = cudaGraphLaunch(c, cudaStreamGraphTailLaunch);
}

__global__ void countdown(int* counter, int* runs, int* code) {
  *runs += 1;
  if (--*counter > 0) *code = cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch);
}

__global__ void many_tails(const cudaGraphExec_t* graphs, int count, int* first_refused) {
  first_refused[0] = -1;
  for (int i = 0; i < count; ++i) {
    cudaError_t e = cudaGraphLaunch(graphs[i], cudaStreamGraphTailLaunch);
    if (e != cudaSuccess) {
      first_refused[0] = i;
      first_refused[1] = e;
      return;
    }
  }
}

__global__ void current_graph(cudaGraphExec_t* out) { *out = cudaGetCurrentGraphExec(); }

const bool registered = weft::detail::register_kernel<&add>() && weft::detail::register_kernel<&append>() &&
                        weft::detail::register_kernel<&gated_add>() && weft::detail::register_kernel<&launch_one>() &&
                        weft::detail::register_kernel<&launch_two>() && weft::detail::register_kernel<&tail_three>() &&
                        weft::detail::register_kernel<&countdown>() && weft::detail::register_kernel<&many_tails>() &&
                        weft::detail::register_kernel<&current_graph>() && weft::detail::register_kernel<&copy_value>();

// A graph of one <<<1, 1>>> kernel node; `args` point to the arguments.
cudaGraph_t one_kernel(const void* func, std::vector<void*> args) {
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaKernelNodeParams p{};
  p.func = const_cast<void*>(func);
  p.gridDim = dim3(1);
  p.blockDim = dim3(1);
  p.kernelParams = args.data();
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddKernelNode(&n, g, nullptr, 0, &p) == cudaSuccess);
  return g;
}

cudaGraphExec_t instantiate(cudaGraph_t g, unsigned long long flags) {
  cudaGraphExec_t e = nullptr;
  REQUIRE(cudaGraphInstantiate(&e, g, flags) == cudaSuccess);
  return e;
}

cudaGraphExec_t device_graph(cudaGraph_t g, cudaStream_t s) {
  cudaGraphExec_t e = instantiate(g, cudaGraphInstantiateFlagDeviceLaunch);
  REQUIRE(cudaGraphUpload(e, s) == cudaSuccess);
  return e;
}

template <class T>
T* managed(std::size_t count = 1) {
  T* p = nullptr;
  REQUIRE(cudaMallocManaged(&p, count * sizeof(T)) == cudaSuccess);
  for (std::size_t i = 0; i < count; ++i) p[i] = T{};
  return p;
}

// Runs `launcher` (a kernel node given its arguments) in a host graph once.
void run_in_host_graph(const void* launcher, std::vector<void*> args, cudaStream_t s) {
  cudaGraph_t g = one_kernel(launcher, std::move(args));
  cudaGraphExec_t e = instantiate(g, 0);
  REQUIRE(cudaGraphLaunch(e, s) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
}

}  // namespace

TEST_CASE("device graphs: instantiation accepts kernels, refuses host nodes and AutoFreeOnLaunch") {
  REQUIRE(registered);
  int* x = managed<int>();
  int one = 1;
  cudaGraph_t g = one_kernel(reinterpret_cast<const void*>(&add), {&x, &one});
  cudaGraphExec_t e = instantiate(g, cudaGraphInstantiateFlagDeviceLaunch);
  unsigned long long flags = 0;
  CHECK(cudaGraphExecGetFlags(e, &flags) == cudaSuccess);
  CHECK(flags == cudaGraphInstantiateFlagDeviceLaunch);

  cudaGraphExec_t refused = nullptr;
  check_failed_with(cudaGraphInstantiate(
                        &refused, g, cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagAutoFreeOnLaunch),
                    cudaErrorInvalidValue);
  cudaGraph_t with_host = nullptr;
  REQUIRE(cudaGraphCreate(&with_host, 0) == cudaSuccess);
  cudaGraph_t child = nullptr;
  REQUIRE(cudaGraphCreate(&child, 0) == cudaSuccess);
  cudaHostNodeParams h{[](void*) {}, nullptr};
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddHostNode(&n, child, nullptr, 0, &h) == cudaSuccess);
  // A host node nested in a child graph is refused as well.
  REQUIRE(cudaGraphAddChildGraphNode(&n, with_host, nullptr, 0, child) == cudaSuccess);
  check_failed_with(cudaGraphInstantiate(&refused, with_host, cudaGraphInstantiateFlagDeviceLaunch),
                    cudaErrorInvalidValue);
  CHECK(cudaGraphInstantiate(&refused, with_host, 0) == cudaSuccess);

  // Launched from the host, a device graph runs as any other.
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  CHECK(cudaGraphLaunch(e, s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(*x == 1);
  cudaGraphExecDestroy(refused);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(with_host);
  cudaGraphDestroy(child);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(x);
}

TEST_CASE("device graphs: the launching graph completes only after its fire-and-forget children") {
  REQUIRE(registered);
  enough_workers workers(2);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  gate held;
  int* x = managed<int>();
  int* codes = managed<int>(2);
  cudaGraph_t child_graph = one_kernel(reinterpret_cast<const void*>(&gated_add), {&held.flag, &x});
  cudaGraphExec_t child = device_graph(child_graph, s);

  for (cudaStream_t mode : {cudaStreamGraphFireAndForget, cudaStreamGraphFireAndForgetAsSibling}) {
    CAPTURE(reinterpret_cast<std::uintptr_t>(mode));
    *x = 0;
    std::atomic_ref<int>(*held.flag).store(0);
    codes[0] = -1;
    cudaGraph_t g = one_kernel(reinterpret_cast<const void*>(&launch_one), {&child, &mode, &codes});
    cudaGraphExec_t e = instantiate(g, 0);
    REQUIRE(cudaGraphLaunch(e, s) == cudaSuccess);
    // The launching kernel has returned, but its graph waits for the child.
    while (std::atomic_ref<int>(codes[0]).load() == -1) std::this_thread::yield();
    CHECK(codes[0] == cudaSuccess);
    CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
    held.open();
    CHECK(cudaStreamSynchronize(s) == cudaSuccess);
    CHECK(*x == 1);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
  }
  cudaGraphExecDestroy(child);
  cudaGraphDestroy(child_graph);
  cudaStreamDestroy(s);
  cudaFree(x);
  cudaFree(codes);
}

TEST_CASE("device graphs: tail launches run in order after the launching graph and its children") {
  REQUIRE(registered);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  int* log = managed<int>(8);
  int* codes = managed<int>(3);
  int ids[] = {1, 2, 3};
  std::vector<cudaGraph_t> graphs;
  std::vector<cudaGraphExec_t> execs;
  for (int& id : ids) {
    graphs.push_back(one_kernel(reinterpret_cast<const void*>(&append), {&log, &id}));
    execs.push_back(device_graph(graphs.back(), s));
  }
  run_in_host_graph(reinterpret_cast<const void*>(&tail_three), {&execs[0], &execs[1], &execs[2], &codes}, s);
  CHECK(codes[0] == cudaSuccess);
  CHECK(codes[1] == cudaSuccess);
  CHECK(codes[2] == cudaSuccess);
  CHECK(log[0] == 3);
  CHECK(log[1] == 1);
  CHECK(log[2] == 2);
  CHECK(log[3] == 3);

  // A tail launch sees the work of the fire-and-forget launch made before
  // it, even one held back until after the launching kernel returned.
  enough_workers workers(2);
  gate held;
  int* x = managed<int>();
  int* seen = managed<int>();
  cudaGraph_t adder = one_kernel(reinterpret_cast<const void*>(&gated_add), {&held.flag, &x});
  cudaGraphExec_t add_exec = device_graph(adder, s);
  cudaGraph_t reader = one_kernel(reinterpret_cast<const void*>(&copy_value), {&x, &seen});
  cudaGraphExec_t read_exec = device_graph(reader, s);
  cudaStream_t ff = cudaStreamGraphFireAndForget, tl = cudaStreamGraphTailLaunch;
  cudaGraph_t g = one_kernel(reinterpret_cast<const void*>(&launch_two), {&add_exec, &ff, &read_exec, &tl, &codes});
  cudaGraphExec_t e = instantiate(g, 0);
  codes[1] = -1;
  *seen = -1;
  REQUIRE(cudaGraphLaunch(e, s) == cudaSuccess);
  while (std::atomic_ref<int>(codes[1]).load() == -1) std::this_thread::yield();
  CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
  CHECK(std::atomic_ref<int>(*seen).load() == -1);
  held.open();
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(codes[0] == cudaSuccess);
  CHECK(codes[1] == cudaSuccess);
  CHECK(*seen == 1);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  cudaGraphExecDestroy(read_exec);
  cudaGraphDestroy(reader);
  for (auto e : execs) cudaGraphExecDestroy(e);
  for (auto g : graphs) cudaGraphDestroy(g);
  cudaGraphExecDestroy(add_exec);
  cudaGraphDestroy(adder);
  cudaStreamDestroy(s);
  cudaFree(log);
  cudaFree(codes);
  cudaFree(x);
  cudaFree(seen);
}

TEST_CASE("device graphs: a graph relaunching itself as a tail launch loops, and the host waits for the loop") {
  REQUIRE(registered);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  int* counter = managed<int>();
  int* runs = managed<int>();
  int* code = managed<int>();
  *counter = 40;
  cudaGraph_t g = one_kernel(reinterpret_cast<const void*>(&countdown), {&counter, &runs, &code});
  cudaGraphExec_t e = instantiate(g, cudaGraphInstantiateFlagDeviceLaunch);
  CHECK(cudaGraphLaunch(e, s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(*runs == 40);
  CHECK(*counter == 0);
  CHECK(*code == cudaSuccess);
  // Launched twice from the host: each loop runs to its end in turn.
  *counter = 3;
  *runs = 0;
  CHECK(cudaGraphLaunch(e, s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(*runs == 3);
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(counter);
  cudaFree(runs);
  cudaFree(code);
}

TEST_CASE("device graphs: at most 255 pending tail launches; the 256th is cudaErrorInvalidValue") {
  REQUIRE(registered);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  int* x = managed<int>();
  int one = 1;
  cudaGraph_t g = one_kernel(reinterpret_cast<const void*>(&add), {&x, &one});
  int count = 260;
  auto* graphs = managed<cudaGraphExec_t>(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) graphs[i] = device_graph(g, s);
  int* refused = managed<int>(2);
  run_in_host_graph(reinterpret_cast<const void*>(&many_tails), {&graphs, &count, &refused}, s);
  CHECK(refused[0] == 255);
  CHECK(refused[1] == cudaErrorInvalidValue);
  CHECK(*x == 255);
  for (int i = 0; i < count; ++i) cudaGraphExecDestroy(graphs[i]);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(graphs);
  cudaFree(x);
  cudaFree(refused);
}

TEST_CASE("device graphs: refused device launches return their code and launch nothing") {
  REQUIRE(registered);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  int* x = managed<int>();
  int* codes = managed<int>(2);
  int one = 1;
  cudaGraph_t g = one_kernel(reinterpret_cast<const void*>(&add), {&x, &one});
  cudaGraphExec_t uploaded = device_graph(g, s);
  cudaGraphExec_t host_graph = instantiate(g, 0);
  cudaGraphExec_t never_uploaded = instantiate(g, cudaGraphInstantiateFlagDeviceLaunch);
  cudaGraphExec_t null_graph = nullptr;
  struct refusal {
    const char* what;
    cudaGraphExec_t* graph;
    cudaStream_t mode;
    cudaError_t code;
  } refusals[] = {
      {"into stream 0", &uploaded, nullptr, cudaErrorInvalidValue},
      {"into a host stream", &uploaded, s, cudaErrorInvalidValue},
      {"a host graph", &host_graph, cudaStreamGraphFireAndForget, cudaErrorInvalidValue},
      {"a graph never uploaded", &never_uploaded, cudaStreamGraphFireAndForget, cudaErrorInvalidValue},
      {"a null graph", &null_graph, cudaStreamGraphTailLaunch, cudaErrorInvalidValue},
  };
  for (const refusal& r : refusals) {
    CAPTURE(r.what);
    *x = 0;
    codes[0] = -1;
    run_in_host_graph(reinterpret_cast<const void*>(&launch_one), {r.graph, const_cast<cudaStream_t*>(&r.mode), &codes},
                      s);
    CHECK(codes[0] == r.code);
    CHECK(*x == 0);
  }
  // The same graph pending twice: the second launch is refused.
  cudaStream_t ff = cudaStreamGraphFireAndForget, tl = cudaStreamGraphTailLaunch;
  *x = 0;
  run_in_host_graph(reinterpret_cast<const void*>(&launch_two), {&uploaded, &ff, &uploaded, &tl, &codes}, s);
  CHECK(codes[0] == cudaSuccess);
  CHECK(codes[1] == cudaErrorInvalidValue);
  CHECK(*x == 1);
  // Once it has completed, it may be launched again.
  run_in_host_graph(reinterpret_cast<const void*>(&launch_one), {&uploaded, &ff, &codes}, s);
  CHECK(codes[0] == cudaSuccess);
  CHECK(*x == 2);
  // From a kernel launched into a stream, outside any graph.
  codes[0] = -1;
  REQUIRE(weft::launch<launch_one>({1, 1, 0, s}, uploaded, ff, codes) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(codes[0] == cudaErrorNotPermitted);
  CHECK(*x == 2);
  // The host's last error is untouched by refusals on the device.
  CHECK(cudaGetLastError() == cudaSuccess);
  cudaGraphExecDestroy(uploaded);
  cudaGraphExecDestroy(host_graph);
  cudaGraphExecDestroy(never_uploaded);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(x);
  cudaFree(codes);
}

TEST_CASE("device graphs: cudaGetCurrentGraphExec names the device graph a kernel runs in") {
  REQUIRE(registered);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  auto* out = managed<cudaGraphExec_t>();
  cudaGraph_t g = one_kernel(reinterpret_cast<const void*>(&current_graph), {&out});
  cudaGraphExec_t device = instantiate(g, cudaGraphInstantiateFlagDeviceLaunch);
  cudaGraphExec_t host = instantiate(g, 0);
  CHECK(cudaGraphLaunch(device, s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(*out == device);
  CHECK(cudaGraphLaunch(host, s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(*out == nullptr);
  *out = device;
  REQUIRE(weft::launch<current_graph>({1, 1, 0, s}, out) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(*out == nullptr);
  CHECK(cudaGetCurrentGraphExec() == nullptr);
  cudaGraphExecDestroy(device);
  cudaGraphExecDestroy(host);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(out);
}
