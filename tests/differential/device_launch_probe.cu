// Probe of device-side graph launch and dynamic parallelism (CDP2) where the
// documentation leaves weft to guess: which launches are refused and with
// what code, what a tail launch sees, how many can be pending. Build with
// `nvcc -arch=sm_90 -rdc=true device_launch_probe.cu -lcudadevrt` on a GPU and
// commit its output beside it as device_launch_probe.expected; weft's build
// of the same file must print the same. No line depends on timing.
#include <cuda_runtime.h>
#include <cstdio>

static void report(const char* what, cudaError_t r) {
  cudaError_t last = cudaGetLastError();
  std::printf("%-72s returned=%d(%s) last=%d\n", what, (int)r, cudaGetErrorName(r), (int)last);
}

#define CALL(expr) report(#expr, (expr))

__global__ void add(int* x, int v) { atomicAdd(x, v); }
__global__ void copy_value(const int* from, int* to) { *to = *from; }

// Launches `child` fire-and-forget and `checker` as a tail launch.
__global__ void launcher(cudaGraphExec_t child, cudaGraphExec_t checker, int* codes) {
  codes[0] = cudaGraphLaunch(child, cudaStreamGraphFireAndForget);
  codes[1] = cudaGraphLaunch(checker, cudaStreamGraphTailLaunch);
}

__global__ void launch_one(cudaGraphExec_t g, cudaStream_t mode, int* code) { *code = cudaGraphLaunch(g, mode); }

// Relaunches its own graph as a tail launch until the counter reaches zero.
__global__ void countdown(int* counter, int* runs, int* code) {
  *runs += 1;
  if (--*counter > 0) *code = cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch);
}

// Enqueues tail launches of `count` graphs; records the index and code of
// the first one refused.
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

// Dynamic parallelism.
__global__ void child_kernel(int* x) { atomicAdd(x, 5); }
__global__ void read_after(const int* x, int* seen) { *seen = *x; }

__global__ void parent(int* x, int* seen, int* codes) {
  *x = 1;
  child_kernel<<<1, 1>>>(x);
  codes[0] = cudaGetLastError();
  child_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(x);
  codes[1] = cudaGetLastError();
  read_after<<<1, 1, 0, cudaStreamTailLaunch>>>(x, seen);
  codes[2] = cudaGetLastError();
  child_kernel<<<1, 2048>>>(x);
  codes[3] = cudaGetLastError();
  codes[4] = cudaPeekAtLastError();
  child_kernel<<<1, 1, 1 << 20>>>(x);
  codes[5] = cudaGetLastError();
}

__global__ void recurse(int depth, int* deepest) {
  atomicMax(deepest, depth);
  if (depth < 4) recurse<<<1, 1>>>(depth + 1, deepest);
}

static cudaGraph_t single_kernel_graph(void* func, void** args) {
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaKernelNodeParams k = {};
  k.func = func;
  k.gridDim = dim3(1);
  k.blockDim = dim3(1);
  k.kernelParams = args;
  cudaGraphNode_t n;
  cudaGraphAddKernelNode(&n, g, nullptr, 0, &k);
  return g;
}

static void host_nothing(void*) {}

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // what was printed survives a hang or a fault
  cudaFree(0);
  int *x, *y, *codes;
  cudaMallocManaged(&x, sizeof(int));
  cudaMallocManaged(&y, sizeof(int));
  cudaMallocManaged(&codes, 8 * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);

  std::printf("-- device graphs: instantiation\n");
  int ten = 10;
  void* add_args[] = {&x, &ten};
  cudaGraph_t child_graph = single_kernel_graph((void*)add, add_args);
  void* copy_args[] = {&x, &y};
  cudaGraph_t checker_graph = single_kernel_graph((void*)copy_value, copy_args);
  cudaGraphExec_t child = nullptr, checker = nullptr, host_only = nullptr;
  CALL(cudaGraphInstantiate(&child, child_graph, cudaGraphInstantiateFlagDeviceLaunch));
  CALL(cudaGraphInstantiate(&checker, checker_graph, cudaGraphInstantiateFlagDeviceLaunch));
  CALL(cudaGraphInstantiate(&host_only, child_graph, 0));
  {
    cudaGraph_t with_host;
    cudaGraphCreate(&with_host, 0);
    cudaHostNodeParams h = {host_nothing, nullptr};
    cudaGraphNode_t n;
    cudaGraphAddHostNode(&n, with_host, nullptr, 0, &h);
    cudaGraphExec_t e = nullptr;
    CALL(cudaGraphInstantiate(&e, with_host, cudaGraphInstantiateFlagDeviceLaunch));
    cudaEvent_t ev;
    cudaEventCreate(&ev);
    cudaGraph_t with_event;
    cudaGraphCreate(&with_event, 0);
    cudaGraphAddEventRecordNode(&n, with_event, nullptr, 0, ev);
    CALL(cudaGraphInstantiate(&e, with_event, cudaGraphInstantiateFlagDeviceLaunch));
    CALL(cudaGraphInstantiate(&e, child_graph, cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagAutoFreeOnLaunch));
    CALL(cudaGraphInstantiate(&e, child_graph, cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagUseNodePriority));
    if (e) cudaGraphExecDestroy(e);
    cudaEventDestroy(ev);
  }
  unsigned long long flags = 0;
  CALL(cudaGraphExecGetFlags(child, &flags));
  std::printf("  flags=%llu\n", flags);

  std::printf("-- fire and forget, then a tail launch\n");
  CALL(cudaGraphUpload(child, s));
  CALL(cudaGraphUpload(checker, s));
  *x = 1;
  *y = 0;
  codes[0] = codes[1] = -1;
  void* launcher_args[] = {&child, &checker, &codes};
  cudaGraph_t outer_graph = single_kernel_graph((void*)launcher, launcher_args);
  cudaGraphExec_t outer;
  CALL(cudaGraphInstantiate(&outer, outer_graph, 0));
  CALL(cudaGraphLaunch(outer, s));
  CALL(cudaStreamSynchronize(s));
  std::printf("  codes=%d,%d x=%d tail saw=%d\n", codes[0], codes[1], *x, *y);
  CALL(cudaGraphLaunch(outer, s));
  CALL(cudaStreamSynchronize(s));
  std::printf("  again: codes=%d,%d x=%d tail saw=%d\n", codes[0], codes[1], *x, *y);

  std::printf("-- refused device launches\n");
  const struct {
    const char* what;
    cudaGraphExec_t* g;
    cudaStream_t mode;
  } refusals[] = {{"a device graph into stream 0", &child, (cudaStream_t)0},
                  {"a device graph, sibling", &child, cudaStreamGraphFireAndForgetAsSibling},
                  {"a device graph, tail", &child, cudaStreamGraphTailLaunch}};
  for (const auto& r : refusals) {
    codes[0] = -1;
    void* args[] = {r.g, (void*)&r.mode, &codes};
    cudaGraph_t g = single_kernel_graph((void*)launch_one, args);
    cudaGraphExec_t e;
    cudaGraphInstantiate(&e, g, 0);
    *x = 0;
    cudaGraphLaunch(e, s);
    CALL(cudaStreamSynchronize(s));
    std::printf("  %s: code=%d x=%d\n", r.what, codes[0], *x);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
  }
  // A device graph launched from the device before any upload hangs the
  // H100 (undefined behaviour): weft refuses it; see docs/graphs.md.

  std::printf("-- a graph that tail-launches itself\n");
  {
    int* runs = codes + 4;
    *x = 5;
    *runs = 0;
    codes[5] = 0;
    int* code = codes + 5;
    void* args[] = {&x, &runs, &code};
    cudaGraph_t g = single_kernel_graph((void*)countdown, args);
    cudaGraphExec_t e;
    CALL(cudaGraphInstantiate(&e, g, cudaGraphInstantiateFlagDeviceLaunch));
    CALL(cudaGraphLaunch(e, s));
    CALL(cudaStreamSynchronize(s));
    std::printf("  runs=%d counter=%d code=%d\n", *runs, *x, *code);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
  }

  std::printf("-- how many tail launches may be pending\n");
  {
    codes[0] = -1;
    void* args[] = {&checker, &checker, &codes};
    cudaGraph_t g = single_kernel_graph((void*)launcher, args);
    cudaGraphExec_t e;
    cudaGraphInstantiate(&e, g, 0);
    CALL(cudaGraphLaunch(e, s));
    CALL(cudaStreamSynchronize(s));
    std::printf("  the same graph fire-and-forget and tail: codes=%d,%d\n", codes[0], codes[1]);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
  }
  {
    int count = 300;
    cudaGraphExec_t* graphs = nullptr;
    cudaMallocManaged(&graphs, count * sizeof(cudaGraphExec_t));
    for (int i = 0; i < count; ++i) {
      cudaGraphInstantiate(&graphs[i], checker_graph, cudaGraphInstantiateFlagDeviceLaunch);
      cudaGraphUpload(graphs[i], s);
    }
    void* args[] = {&graphs, &count, &codes};
    cudaGraph_t g = single_kernel_graph((void*)many_tails, args);
    cudaGraphExec_t e;
    cudaGraphInstantiate(&e, g, 0);
    CALL(cudaGraphLaunch(e, s));
    CALL(cudaStreamSynchronize(s));
    std::printf("  distinct graphs: first refused=%d code=%d\n", codes[0], codes[1]);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    for (int i = 0; i < count; ++i) cudaGraphExecDestroy(graphs[i]);
    cudaFree(graphs);
  }

  std::printf("-- dynamic parallelism\n");
  for (int i = 0; i < 6; ++i) codes[i] = -1;
  *y = -1;
  parent<<<1, 1, 0, s>>>(x, y, codes);
  CALL(cudaStreamSynchronize(s));
  std::printf("  codes=%d,%d,%d,%d,%d,%d x=%d tail saw=%d\n", codes[0], codes[1], codes[2], codes[3], codes[4],
              codes[5], *x, *y);
  *x = 0;
  recurse<<<1, 1, 0, s>>>(1, x);
  CALL(cudaStreamSynchronize(s));
  std::printf("  deepest=%d\n", *x);
  size_t pending = 0;
  CALL(cudaDeviceGetLimit(&pending, cudaLimitDevRuntimePendingLaunchCount));
  std::printf("  pending launch limit=%zu\n", pending);
  size_t depth = 0;
  CALL(cudaDeviceGetLimit(&depth, cudaLimitDevRuntimeSyncDepth));
  std::printf("  sync depth limit=%zu\n", depth);

  cudaGraphExecDestroy(outer);
  cudaGraphExecDestroy(child);
  cudaGraphExecDestroy(checker);
  cudaGraphExecDestroy(host_only);
  cudaGraphDestroy(outer_graph);
  cudaGraphDestroy(child_graph);
  cudaGraphDestroy(checker_graph);
  cudaStreamDestroy(s);
  // A device graph launched from a kernel outside any graph, and a host
  // graph launched from the device, crash the H100's process (undefined
  // behaviour): weft reports them; see docs/graphs.md.
  CALL(cudaFree(x));
  return 0;
}
