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

// The host polls the codes of these two while the graph runs: they are
// stored atomically.
__global__ void launch_one(cudaGraphExec_t g, cudaStream_t mode, int* code) {
  std::atomic_ref<int>(*code).store(cudaGraphLaunch(g, mode));
}

__global__ void launch_two(cudaGraphExec_t first, cudaStream_t first_mode, cudaGraphExec_t second,
                           cudaStream_t second_mode, int* codes) {
  std::atomic_ref<int>(codes[0]).store(cudaGraphLaunch(first, first_mode));
  std::atomic_ref<int>(codes[1]).store(cudaGraphLaunch(second, second_mode));
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

const bool device_launch_kernels_registered =
    weft::register_kernel<&add>() && weft::register_kernel<&append>() && weft::register_kernel<&gated_add>() &&
    weft::register_kernel<&launch_one>() && weft::register_kernel<&launch_two>() &&
    weft::register_kernel<&tail_three>() && weft::register_kernel<&countdown>() &&
    weft::register_kernel<&many_tails>() && weft::register_kernel<&current_graph>() &&
    weft::register_kernel<&copy_value>();

// A stream, and what a test makes: graphs, executable graphs and managed
// memory, all released at its end.
struct device_launch_fixture {
  cudaStream_t s = nullptr;
  std::vector<cudaGraph_t> graphs;
  std::vector<cudaGraphExec_t> execs;
  std::vector<void*> memory;

  device_launch_fixture() { REQUIRE(cudaStreamCreate(&s) == cudaSuccess); }
  ~device_launch_fixture() {
    for (cudaGraphExec_t e : execs) cudaGraphExecDestroy(e);
    for (cudaGraph_t g : graphs) cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    for (void* p : memory) cudaFree(p);
  }

  cudaGraph_t own(cudaGraph_t g) {
    graphs.push_back(g);
    return g;
  }
  cudaGraphExec_t own(cudaGraphExec_t e) {
    if (e) execs.push_back(e);
    return e;
  }

  template <class T>
  T* managed(std::size_t count = 1) {
    T* p = nullptr;
    REQUIRE(cudaMallocManaged(&p, count * sizeof(T)) == cudaSuccess);
    for (std::size_t i = 0; i < count; ++i) p[i] = T{};
    memory.push_back(p);
    return p;
  }

  // A graph of one <<<1, 1>>> kernel node; `args` point to the arguments.
  cudaGraph_t one_kernel(const void* func, std::vector<void*> args) {
    cudaGraph_t g = nullptr;
    REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
    own(g);
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
    return own(e);
  }

  // Instantiated for device launch and uploaded.
  cudaGraphExec_t device_graph(cudaGraph_t g) {
    cudaGraphExec_t e = instantiate(g, cudaGraphInstantiateFlagDeviceLaunch);
    REQUIRE(cudaGraphUpload(e, s) == cudaSuccess);
    return e;
  }

  // Runs `launcher` (a kernel node given its arguments) in a host graph once.
  void run_in_host_graph(const void* launcher, std::vector<void*> args) {
    cudaGraphExec_t e = instantiate(one_kernel(launcher, std::move(args)), 0);
    REQUIRE(cudaGraphLaunch(e, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  }
};

}  // namespace

TEST_CASE_FIXTURE(device_launch_fixture,
                  "device graphs: instantiation accepts kernels, refuses host nodes and AutoFreeOnLaunch") {
  REQUIRE(device_launch_kernels_registered);
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
  cudaGraph_t with_host = nullptr, child = nullptr;
  REQUIRE(cudaGraphCreate(&with_host, 0) == cudaSuccess);
  REQUIRE(cudaGraphCreate(&child, 0) == cudaSuccess);
  own(with_host);
  own(child);
  cudaHostNodeParams h{[](void*) {}, nullptr};
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddHostNode(&n, child, nullptr, 0, &h) == cudaSuccess);
  // A host node nested in a child graph is refused as well.
  REQUIRE(cudaGraphAddChildGraphNode(&n, with_host, nullptr, 0, child) == cudaSuccess);
  check_failed_with(cudaGraphInstantiate(&refused, with_host, cudaGraphInstantiateFlagDeviceLaunch),
                    cudaErrorInvalidValue);
  CHECK(cudaGraphInstantiate(&refused, with_host, 0) == cudaSuccess);
  own(refused);

  // Launched from the host, a device graph runs as any other.
  CHECK(cudaGraphLaunch(e, s) == cudaSuccess);
  CHECK(cudaStreamSynchronize(s) == cudaSuccess);
  CHECK(*x == 1);
}

TEST_CASE_FIXTURE(device_launch_fixture,
                  "device graphs: the launching graph completes only after its fire-and-forget children") {
  REQUIRE(device_launch_kernels_registered);
  enough_workers workers(2);
  gate held;
  int* x = managed<int>();
  int* codes = managed<int>(2);
  cudaGraph_t child_graph = one_kernel(reinterpret_cast<const void*>(&gated_add), {&held.flag, &x});
  cudaGraphExec_t child = device_graph(child_graph);

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
  }
}

TEST_CASE_FIXTURE(device_launch_fixture,
                  "device graphs: tail launches run in order after the launching graph and its children") {
  REQUIRE(device_launch_kernels_registered);
  int* log = managed<int>(8);
  int* codes = managed<int>(3);
  int ids[] = {1, 2, 3};
  std::vector<cudaGraphExec_t> tails;
  for (int& id : ids) tails.push_back(device_graph(one_kernel(reinterpret_cast<const void*>(&append), {&log, &id})));
  run_in_host_graph(reinterpret_cast<const void*>(&tail_three), {&tails[0], &tails[1], &tails[2], &codes});
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
  cudaGraphExec_t add_exec = device_graph(adder);
  cudaGraph_t reader = one_kernel(reinterpret_cast<const void*>(&copy_value), {&x, &seen});
  cudaGraphExec_t read_exec = device_graph(reader);
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
}

TEST_CASE_FIXTURE(device_launch_fixture,
                  "device graphs: a graph relaunching itself as a tail launch loops, and the host waits for the loop") {
  REQUIRE(device_launch_kernels_registered);
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
}

TEST_CASE_FIXTURE(device_launch_fixture,
                  "device graphs: at most 255 pending tail launches; the 256th is cudaErrorInvalidValue") {
  REQUIRE(device_launch_kernels_registered);
  int* x = managed<int>();
  int one = 1;
  cudaGraph_t g = one_kernel(reinterpret_cast<const void*>(&add), {&x, &one});
  int count = 260;
  auto* pending = managed<cudaGraphExec_t>(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) pending[i] = device_graph(g);
  int* refused = managed<int>(2);
  run_in_host_graph(reinterpret_cast<const void*>(&many_tails), {&pending, &count, &refused});
  CHECK(refused[0] == 255);
  CHECK(refused[1] == cudaErrorInvalidValue);
  CHECK(*x == 255);
}

TEST_CASE_FIXTURE(device_launch_fixture,
                  "device graphs: refused device launches return their code and launch nothing") {
  REQUIRE(device_launch_kernels_registered);
  int* x = managed<int>();
  int* codes = managed<int>(2);
  int one = 1;
  cudaGraph_t g = one_kernel(reinterpret_cast<const void*>(&add), {&x, &one});
  cudaGraphExec_t uploaded = device_graph(g);
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
    run_in_host_graph(reinterpret_cast<const void*>(&launch_one),
                      {r.graph, const_cast<cudaStream_t*>(&r.mode), &codes});
    CHECK(codes[0] == r.code);
    CHECK(*x == 0);
  }
  // The same graph pending twice: the second launch is refused.
  cudaStream_t ff = cudaStreamGraphFireAndForget, tl = cudaStreamGraphTailLaunch;
  *x = 0;
  run_in_host_graph(reinterpret_cast<const void*>(&launch_two), {&uploaded, &ff, &uploaded, &tl, &codes});
  CHECK(codes[0] == cudaSuccess);
  CHECK(codes[1] == cudaErrorInvalidValue);
  CHECK(*x == 1);
  // Once it has completed, it may be launched again.
  run_in_host_graph(reinterpret_cast<const void*>(&launch_one), {&uploaded, &ff, &codes});
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
}

TEST_CASE_FIXTURE(device_launch_fixture,
                  "device graphs: cudaGetCurrentGraphExec names the device graph a kernel runs in") {
  REQUIRE(device_launch_kernels_registered);
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
}
