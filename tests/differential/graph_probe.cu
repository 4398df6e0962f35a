// Probe of CUDA graphs where the documentation leaves weft to guess: stream
// capture (fork and join, prohibited calls, invalidation, modes), a diamond
// built by hand, whole-graph and per-node update, enabling nodes,
// conditional nodes, graph memory nodes (copies and sets of them before
// their allocation node has run among them) and programmatic dependent launch.
// Build with `nvcc -arch=sm_90 graph_probe.cu` on a GPU and commit its output
// beside it as graph_probe.expected; weft's build of the same file must print
// the same. Every line is a code or a value that does not depend on timing.
#include <cuda_runtime.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

static void report(const char* what, cudaError_t r) {
  cudaError_t last = cudaGetLastError();
  std::printf("%-72s returned=%d(%s) last=%d\n", what, (int)r, cudaGetErrorName(r), (int)last);
}

#define CALL(expr) report(#expr, (expr))

__global__ void add(int* x, int v) { atomicAdd(x, v); }
__global__ void times(int* x, int v) { *x *= v; }
__global__ void set_to(int* x, int v) { *x = v; }

__global__ void set_condition(cudaGraphConditionalHandle handle, const int* value) {
  cudaGraphSetConditional(handle, *value);
}

// The body of a WHILE node: counts down, and stops the loop at zero.
__global__ void count_down(cudaGraphConditionalHandle handle, int* counter, int* runs) {
  *runs += 1;
  *counter -= 1;
  cudaGraphSetConditional(handle, *counter > 0 ? 1 : 0);
}

// Programmatic dependent launch: the primary lets the secondary start, waits
// a little (the H100 did not start the secondary meanwhile, so whether they
// overlap is not printed: weft's unit test shows its overlap), then writes;
// the secondary waits for the primary's completion and must see the write.
__global__ void primary(volatile int* started, int* data) {
  cudaTriggerProgrammaticLaunchCompletion();
  long long begin = clock64();
  while (*started == 0 && clock64() - begin < 20000000LL) {
  }
  *data = 42;
}

__global__ void secondary(volatile int* started, const int* data, int* seen) {
  *started = 1;
  cudaGridDependencySynchronize();
  *seen = *data;
}

static int read(const int* d) {
  int h = -1;
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  return h;
}

static void counts(const char* what, cudaGraph_t g) {
  size_t nodes = 0, edges = 0, roots = 0;
  cudaGraphGetNodes(g, nullptr, &nodes);
  cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges);
  cudaGraphGetRootNodes(g, nullptr, &roots);
  std::printf("  %s: nodes=%zu edges=%zu roots=%zu\n", what, nodes, edges, roots);
}

static void capture_probe(int* x) {
  std::printf("-- capture with fork and join\n");
  cudaStream_t s1, s2, s3;
  cudaStreamCreate(&s1);
  cudaStreamCreate(&s2);
  cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking);
  cudaEvent_t fork, join2, join3;
  cudaEventCreate(&fork);
  cudaEventCreate(&join2);
  cudaEventCreate(&join3);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CALL(cudaStreamIsCapturing(s1, &status));
  std::printf("  status=%d\n", (int)status);
  CALL(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CALL(cudaStreamIsCapturing(s1, &status));
  std::printf("  status=%d\n", (int)status);
  CALL(cudaStreamIsCapturing(s2, &status));
  std::printf("  s2 status=%d\n", (int)status);
  set_to<<<1, 1, 0, s1>>>(x, 1);
  CALL(cudaGetLastError());
  CALL(cudaEventRecord(fork, s1));
  CALL(cudaStreamWaitEvent(s2, fork, 0));
  CALL(cudaStreamWaitEvent(s3, fork, 0));
  CALL(cudaStreamIsCapturing(s2, &status));
  std::printf("  s2 status=%d\n", (int)status);
  add<<<1, 1, 0, s2>>>(x, 10);
  add<<<1, 1, 0, s3>>>(x, 100);
  CALL(cudaMemsetAsync(x + 1, 0, sizeof(int), s1));
  {
    unsigned long long id = 0;
    cudaGraph_t g = nullptr;
    const cudaGraphNode_t* deps = nullptr;
    size_t ndeps = 99;
    CALL(cudaStreamGetCaptureInfo(s1, &status, &id, &g, &deps, nullptr, &ndeps));
    std::printf("  status=%d id_nonzero=%d graph_nonnull=%d dependencies=%zu\n", (int)status, id != 0, g != nullptr,
                ndeps);
    unsigned long long id2 = 0;
    CALL(cudaStreamGetCaptureInfo(s2, &status, &id2, nullptr, nullptr, nullptr, &ndeps));
    std::printf("  s2 same id=%d dependencies=%zu\n", id == id2, ndeps);
  }
  CALL(cudaEventRecord(join2, s2));
  CALL(cudaEventRecord(join3, s3));
  CALL(cudaStreamWaitEvent(s1, join2, 0));
  CALL(cudaStreamWaitEvent(s1, join3, 0));
  times<<<1, 1, 0, s1>>>(x, 2);
  cudaGraph_t graph = nullptr;
  CALL(cudaStreamEndCapture(s1, &graph));
  CALL(cudaStreamIsCapturing(s2, &status));
  std::printf("  s2 status after end=%d\n", (int)status);
  counts("fork/join graph", graph);
  cudaGraphExec_t exec = nullptr;
  CALL(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i) CALL(cudaGraphLaunch(exec, s2));
  CALL(cudaStreamSynchronize(s2));
  std::printf("  x=%d\n", read(x));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);

  std::printf("-- unjoined fork\n");
  CALL(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CALL(cudaEventRecord(fork, s1));
  CALL(cudaStreamWaitEvent(s2, fork, 0));
  add<<<1, 1, 0, s2>>>(x, 1);
  graph = nullptr;
  CALL(cudaStreamEndCapture(s1, &graph));
  std::printf("  graph_nonnull=%d\n", graph != nullptr);
  CALL(cudaStreamIsCapturing(s2, &status));
  std::printf("  s2 status=%d\n", (int)status);
  CALL(cudaStreamEndCapture(s2, &graph));
  CALL(cudaStreamIsCapturing(s2, &status));
  std::printf("  s2 status=%d\n", (int)status);

  std::printf("-- capture state errors\n");
  CALL(cudaStreamEndCapture(s1, &graph));
  CALL(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal));
  CALL(cudaStreamBeginCapture(s1, (cudaStreamCaptureMode)7));
  CALL(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CALL(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CALL(cudaStreamEndCapture(s1, nullptr));
  CALL(cudaStreamEndCapture(s1, &graph));
  counts("empty capture", graph);
  cudaGraphDestroy(graph);

  std::printf("-- prohibited calls during a global capture\n");
  struct probe {
    const char* name;
    int which;
  };
  const probe probes[] = {{"cudaStreamSynchronize(capturing)", 0}, {"cudaStreamQuery(capturing)", 1},
                          {"cudaDeviceSynchronize", 2},            {"cudaMalloc", 3},
                          {"cudaMemcpy (synchronous)", 4},         {"kernel into legacy stream", 5},
                          {"cudaEventSynchronize(captured)", 6},   {"cudaEventQuery(captured)", 7},
                          {"cudaStreamWaitEvent(outside event)", 8}, {"cudaMemsetAsync into legacy", 9},
                          {"cudaMallocHost", 10},                  {"cudaStreamSynchronize(other)", 11},
                          {"kernel into non-blocking stream", 12},  {"cudaFree", 13},
                          {"cudaEventRecord(captured ev, other)", 14}};
  cudaEvent_t outside;
  cudaEventCreate(&outside);
  cudaEventRecord(outside, s3);
  cudaStreamSynchronize(s3);
  for (const probe& p : probes) {
    std::printf("  %s\n", p.name);
    CALL(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    add<<<1, 1, 0, s1>>>(x, 1);
    CALL(cudaEventRecord(fork, s1));
    int* m = nullptr;
    int h = 0;
    switch (p.which) {
      case 0: CALL(cudaStreamSynchronize(s1)); break;
      case 1: CALL(cudaStreamQuery(s1)); break;
      case 2: CALL(cudaDeviceSynchronize()); break;
      case 3: CALL(cudaMalloc(&m, 4)); if (m) cudaFree(m); break;
      case 4: CALL(cudaMemcpy(&h, x, sizeof(int), cudaMemcpyDeviceToHost)); break;
      case 5: add<<<1, 1>>>(x, 1); CALL(cudaGetLastError()); break;
      case 6: CALL(cudaEventSynchronize(fork)); break;
      case 7: CALL(cudaEventQuery(fork)); break;
      case 8: CALL(cudaStreamWaitEvent(s1, outside, 0)); break;
      case 9: CALL(cudaMemsetAsync(x, 0, sizeof(int), 0)); break;
      case 10: CALL(cudaMallocHost(&m, 4)); if (m) cudaFreeHost(m); break;
      case 11: CALL(cudaStreamSynchronize(s2)); break;
      case 12: add<<<1, 1, 0, s3>>>(x, 1); CALL(cudaGetLastError()); break;
      case 13: CALL(cudaFree(nullptr)); break;
      case 14: CALL(cudaEventRecord(fork, s3)); break;
    }
    add<<<1, 1, 0, s1>>>(x, 1);
    CALL(cudaGetLastError());
    CALL(cudaStreamIsCapturing(s1, &status));
    std::printf("    status=%d\n", (int)status);
    graph = nullptr;
    CALL(cudaStreamEndCapture(s1, &graph));
    std::printf("    graph_nonnull=%d\n", graph != nullptr);
    if (graph) cudaGraphDestroy(graph);
    cudaDeviceSynchronize();
    cudaGetLastError();
  }

  std::printf("-- capture modes\n");
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CALL(cudaThreadExchangeStreamCaptureMode(&mode));
  std::printf("  previous=%d\n", (int)mode);
  CALL(cudaThreadExchangeStreamCaptureMode(&mode));
  std::printf("  previous=%d\n", (int)mode);
  mode = (cudaStreamCaptureMode)9;
  CALL(cudaThreadExchangeStreamCaptureMode(&mode));
  const cudaStreamCaptureMode modes[] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal,
                                         cudaStreamCaptureModeRelaxed};
  for (cudaStreamCaptureMode m : modes) {
    std::printf("  capture mode %d\n", (int)m);
    CALL(cudaStreamBeginCapture(s1, m));
    add<<<1, 1, 0, s1>>>(x, 1);
    cudaError_t other_thread = cudaSuccess, other_end = cudaSuccess;
    std::thread t([&] {
      int* p = nullptr;
      other_thread = cudaMalloc(&p, 4);
      if (p) cudaFree(p);
      cudaGraph_t g = nullptr;
      other_end = cudaStreamEndCapture(s2, &g);
      cudaGetLastError();
    });
    t.join();
    std::printf("    cudaMalloc on another thread=%d end of a non-capturing stream there=%d\n", (int)other_thread,
                (int)other_end);
    cudaError_t wrong_thread = cudaSuccess;
    std::thread t2([&] {
      cudaGraph_t g = nullptr;
      wrong_thread = cudaStreamEndCapture(s1, &g);
      if (g) cudaGraphDestroy(g);
      cudaGetLastError();
    });
    t2.join();
    std::printf("    cudaStreamEndCapture on another thread=%d\n", (int)wrong_thread);
    CALL(cudaStreamIsCapturing(s1, &status));
    std::printf("    status=%d\n", (int)status);
    int* p = nullptr;
    CALL(cudaMalloc(&p, 4));
    if (p) cudaFree(p);
    graph = nullptr;
    CALL(cudaStreamEndCapture(s1, &graph));
    if (graph) cudaGraphDestroy(graph);
    cudaDeviceSynchronize();
    cudaGetLastError();
  }
  {
    std::printf("  relaxed capturer, this thread exchanged to relaxed\n");
    CALL(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    mode = cudaStreamCaptureModeRelaxed;
    CALL(cudaThreadExchangeStreamCaptureMode(&mode));
    int* p = nullptr;
    CALL(cudaMalloc(&p, 4));
    if (p) cudaFree(p);
    CALL(cudaThreadExchangeStreamCaptureMode(&mode));
    CALL(cudaStreamEndCapture(s1, &graph));
    if (graph) cudaGraphDestroy(graph);
  }

  std::printf("-- update capture dependencies and capture to graph\n");
  {
    cudaGraph_t target;
    cudaGraphCreate(&target, 0);
    cudaGraphNode_t empty;
    CALL(cudaGraphAddEmptyNode(&empty, target, nullptr, 0));
    CALL(cudaStreamBeginCaptureToGraph(s1, target, &empty, nullptr, 1, cudaStreamCaptureModeGlobal));
    set_to<<<1, 1, 0, s1>>>(x, 5);
    const cudaGraphNode_t* deps = nullptr;
    size_t ndeps = 0;
    CALL(cudaStreamGetCaptureInfo(s1, &status, nullptr, nullptr, &deps, nullptr, &ndeps));
    std::printf("  dependencies=%zu\n", ndeps);
    // set_to's node, so that add can be ordered after it below: without that
    // edge the two nodes race (on a GPU too) and x is 5 or 6.
    cudaGraphNode_t set_node = ndeps == 1 ? deps[0] : nullptr;
    cudaGraphNode_t extra;
    CALL(cudaGraphAddEmptyNode(&extra, target, nullptr, 0));
    CALL(cudaStreamUpdateCaptureDependencies(s1, &extra, nullptr, 1, cudaStreamAddCaptureDependencies));
    CALL(cudaStreamGetCaptureInfo(s1, &status, nullptr, nullptr, &deps, nullptr, &ndeps));
    std::printf("  dependencies after add=%zu\n", ndeps);
    CALL(cudaStreamUpdateCaptureDependencies(s1, &extra, nullptr, 1, cudaStreamSetCaptureDependencies));
    CALL(cudaStreamGetCaptureInfo(s1, &status, nullptr, nullptr, &deps, nullptr, &ndeps));
    std::printf("  dependencies after set=%zu first_is_extra=%d\n", ndeps, ndeps > 0 && deps[0] == extra);
    CALL(cudaStreamUpdateCaptureDependencies(s1, &extra, nullptr, 1, 7));
    CALL(cudaStreamUpdateCaptureDependencies(s1, &set_node, nullptr, 1, cudaStreamAddCaptureDependencies));
    add<<<1, 1, 0, s1>>>(x, 1);
    cudaGraph_t out = nullptr;
    CALL(cudaStreamEndCapture(s1, &out));
    std::printf("  same graph=%d\n", out == target);
    counts("captured into", target);
    cudaGraphExec_t e;
    CALL(cudaGraphInstantiate(&e, target, 0));
    CALL(cudaGraphLaunch(e, s1));
    CALL(cudaStreamSynchronize(s1));
    std::printf("  x=%d\n", read(x));
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(target);
  }
  cudaEventDestroy(outside);
  cudaEventDestroy(fork);
  cudaEventDestroy(join2);
  cudaEventDestroy(join3);
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  cudaStreamDestroy(s3);
}

static cudaGraph_t capture_one(cudaStream_t s, int* x, int which) {
  cudaGraph_t g = nullptr;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  switch (which) {
    case 0: add<<<1, 1, 0, s>>>(x, 1); break;
    case 1: add<<<1, 1, 0, s>>>(x, 7); break;
    case 2: add<<<1, 1, 0, s>>>(x, 1); add<<<1, 1, 0, s>>>(x, 1); break;
    case 3: cudaMemsetAsync(x, 0, sizeof(int), s); break;
    case 4: times<<<1, 1, 0, s>>>(x, 3); break;
    case 5: add<<<2, 1, 0, s>>>(x, 1); break;
    case 6: add<<<1, 1, 0, s>>>(x + 1, 1); break;
  }
  cudaStreamEndCapture(s, &g);
  return g;
}

static void update_probe(int* x) {
  std::printf("-- whole-graph update\n");
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t base = capture_one(s, x, 0);
  cudaGraphExec_t exec;
  CALL(cudaGraphInstantiate(&exec, base, 0));
  const char* names[] = {"", "new argument", "extra node", "memset for kernel", "other function", "other grid",
                         "other pointer"};
  for (int which = 1; which <= 6; ++which) {
    cudaGraph_t g = capture_one(s, x, which);
    cudaGraphExecUpdateResultInfo info;
    info.result = (cudaGraphExecUpdateResult)99;
    info.errorNode = (cudaGraphNode_t)1;
    info.errorFromNode = (cudaGraphNode_t)1;
    std::printf("  %s\n", names[which]);
    CALL(cudaGraphExecUpdate(exec, g, &info));
    std::printf("    result=%d errorNode_nonnull=%d errorFromNode_nonnull=%d\n", (int)info.result,
                info.errorNode != nullptr, info.errorFromNode != nullptr);
    cudaMemset(x, 0, 2 * sizeof(int));
    CALL(cudaGraphLaunch(exec, s));
    cudaStreamSynchronize(s);
    std::printf("    x=%d\n", read(x));
    cudaGraphDestroy(g);
  }
  CALL(cudaGraphExecUpdate(exec, base, nullptr));

  std::printf("-- per-node update and enabling\n");
  cudaGraphNode_t nodes[4];
  size_t n = 4;
  CALL(cudaGraphGetNodes(base, nodes, &n));
  cudaKernelNodeParams p;
  CALL(cudaGraphKernelNodeGetParams(nodes[0], &p));
  int* target = x;
  int v = 1000;
  void* args[] = {&target, &v};
  p.kernelParams = args;
  CALL(cudaGraphExecKernelNodeSetParams(exec, nodes[0], &p));
  v = 5;  // arguments are copied at the call
  cudaMemset(x, 0, sizeof(int));
  CALL(cudaGraphLaunch(exec, s));
  cudaStreamSynchronize(s);
  std::printf("  x=%d\n", read(x));
  unsigned enabled = 9;
  CALL(cudaGraphNodeGetEnabled(exec, nodes[0], &enabled));
  std::printf("  enabled=%u\n", enabled);
  CALL(cudaGraphNodeSetEnabled(exec, nodes[0], 0));
  CALL(cudaGraphNodeGetEnabled(exec, nodes[0], &enabled));
  std::printf("  enabled=%u\n", enabled);
  cudaMemset(x, 0, sizeof(int));
  CALL(cudaGraphLaunch(exec, s));
  cudaStreamSynchronize(s);
  std::printf("  x=%d\n", read(x));
  CALL(cudaGraphNodeSetEnabled(exec, nodes[0], 1));
  cudaGraph_t other = capture_one(s, x, 0);
  cudaGraphNode_t foreign;
  n = 1;
  cudaGraphGetNodes(other, &foreign, &n);
  CALL(cudaGraphExecKernelNodeSetParams(exec, foreign, &p));
  CALL(cudaGraphNodeSetEnabled(exec, foreign, 0));
  p.gridDim = dim3(2);
  CALL(cudaGraphExecKernelNodeSetParams(exec, nodes[0], &p));
  p.func = (void*)times;
  p.gridDim = dim3(1);
  CALL(cudaGraphExecKernelNodeSetParams(exec, nodes[0], &p));
  cudaMemset(x, 0, sizeof(int));
  CALL(cudaGraphLaunch(exec, s));
  cudaStreamSynchronize(s);
  std::printf("  x=%d\n", read(x));
  CALL(cudaGraphExecDestroy(exec));
  cudaGraphDestroy(other);
  cudaGraphDestroy(base);

  std::printf("-- instantiate with params\n");
  cudaGraph_t g = capture_one(s, x, 0);
  cudaGraphInstantiateParams ip = {};
  ip.flags = cudaGraphInstantiateFlagUpload;
  ip.uploadStream = s;
  ip.result_out = (cudaGraphInstantiateResult)99;
  CALL(cudaGraphInstantiateWithParams(&exec, g, &ip));
  std::printf("  result=%d errNode_nonnull=%d\n", (int)ip.result_out, ip.errNode_out != nullptr);
  unsigned long long flags = 99;
  CALL(cudaGraphExecGetFlags(exec, &flags));
  std::printf("  flags=%llu\n", flags);
  cudaGraphExecDestroy(exec);
  ip.flags = cudaGraphInstantiateFlagDeviceLaunch;
  CALL(cudaGraphInstantiateWithParams(&exec, g, &ip));
  std::printf("  device launch result=%d\n", (int)ip.result_out);
  if (ip.result_out == cudaGraphInstantiateSuccess) cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
}

static void diamond_probe(int* x) {
  std::printf("-- diamond by hand\n");
  cudaGraph_t g;
  CALL(cudaGraphCreate(&g, 0));
  cudaMemsetParams ms = {};
  ms.dst = x;
  ms.value = 3;
  ms.elementSize = 4;
  ms.width = 1;
  ms.height = 1;
  cudaGraphNode_t top, left, right, bottom;
  CALL(cudaGraphAddMemsetNode(&top, g, nullptr, 0, &ms));
  int ten = 10, two = 2;
  void* a1[] = {&x, &ten};
  void* a2[] = {&x, &two};
  cudaKernelNodeParams k = {};
  k.func = (void*)add;
  k.gridDim = dim3(1);
  k.blockDim = dim3(1);
  k.kernelParams = a1;
  CALL(cudaGraphAddKernelNode(&left, g, &top, 1, &k));
  k.kernelParams = a2;
  CALL(cudaGraphAddKernelNode(&right, g, &top, 1, &k));
  cudaGraphNode_t both[] = {left, right};
  k.func = (void*)times;
  CALL(cudaGraphAddKernelNode(&bottom, g, both, 2, &k));
  counts("diamond", g);
  cudaGraphExec_t e;
  CALL(cudaGraphInstantiate(&e, g, 0));
  CALL(cudaGraphLaunch(e, 0));
  CALL(cudaDeviceSynchronize());
  std::printf("  x=%d\n", read(x));
  CALL(cudaGraphAddDependencies(g, &bottom, &top, nullptr, 1));
  cudaGraphExec_t cyclic = nullptr;
  CALL(cudaGraphInstantiate(&cyclic, g, 0));
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
}

static void conditional_probe(int* x) {
  std::printf("-- conditional nodes\n");
  int* value;
  cudaMalloc(&value, 2 * sizeof(int));
  const int types[] = {cudaGraphCondTypeIf, cudaGraphCondTypeWhile, cudaGraphCondTypeSwitch};
  for (int type : types) {
    for (int v : {0, 1, 2, 5}) {
      cudaGraph_t g;
      cudaGraphCreate(&g, 0);
      cudaGraphConditionalHandle handle;
      CALL(cudaGraphConditionalHandleCreate(&handle, g, 0, 0));
      cudaMemcpy(value, &v, sizeof(int), cudaMemcpyHostToDevice);
      cudaMemset(x, 0, 2 * sizeof(int));
      cudaGraphNode_t setter, cond;
      cudaGraphNodeParams sp = {};
      sp.type = cudaGraphNodeTypeKernel;
      void* sargs[] = {&handle, &value};
      sp.kernel.func = type == cudaGraphCondTypeWhile ? (void*)set_condition : (void*)set_condition;
      sp.kernel.gridDim = dim3(1);
      sp.kernel.blockDim = dim3(1);
      sp.kernel.kernelParams = sargs;
      CALL(cudaGraphAddNode(&setter, g, nullptr, nullptr, 0, &sp));
      cudaGraphNodeParams cp = {};
      cp.type = cudaGraphNodeTypeConditional;
      cp.conditional.handle = handle;
      cp.conditional.type = (cudaGraphConditionalNodeType)type;
      cp.conditional.size = type == cudaGraphCondTypeWhile ? 1 : (type == cudaGraphCondTypeIf ? 2 : 3);
      CALL(cudaGraphAddNode(&cond, g, &setter, nullptr, 1, &cp));
      for (unsigned b = 0; b < cp.conditional.size; ++b) {
        cudaGraph_t body = cp.conditional.phGraph_out[b];
        cudaGraphNode_t node;
        cudaGraphNodeParams bp = {};
        bp.type = cudaGraphNodeTypeKernel;
        int* counter = x;
        int* runs = x + 1;
        int inc = 1 << (4 * b);
        void* wargs[] = {&handle, &counter, &runs};
        void* aargs[] = {&runs, &inc};
        bp.kernel.func = type == cudaGraphCondTypeWhile ? (void*)count_down : (void*)add;
        bp.kernel.gridDim = dim3(1);
        bp.kernel.blockDim = dim3(1);
        bp.kernel.kernelParams = type == cudaGraphCondTypeWhile ? wargs : aargs;
        CALL(cudaGraphAddNode(&node, body, nullptr, nullptr, 0, &bp));
      }
      if (type == cudaGraphCondTypeWhile) cudaMemcpy(x, &v, sizeof(int), cudaMemcpyHostToDevice);
      cudaGraphExec_t e;
      CALL(cudaGraphInstantiate(&e, g, 0));
      CALL(cudaGraphLaunch(e, 0));
      CALL(cudaDeviceSynchronize());
      int h[2];
      cudaMemcpy(h, x, sizeof(h), cudaMemcpyDeviceToHost);
      std::printf("  type=%d value=%d runs=0x%x\n", type, v, h[1]);
      cudaGraphExecDestroy(e);
      cudaGraphDestroy(g);
    }
  }
  {
    std::printf("  default value and reset flag\n");
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    cudaGraphConditionalHandle handle;
    CALL(cudaGraphConditionalHandleCreate(&handle, g, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = handle;
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 1;
    cudaGraphNode_t cond;
    CALL(cudaGraphAddNode(&cond, g, nullptr, nullptr, 0, &cp));
    cudaGraphNodeParams bp = {};
    bp.type = cudaGraphNodeTypeKernel;
    int one = 1;
    void* aargs[] = {&x, &one};
    bp.kernel.func = (void*)add;
    bp.kernel.gridDim = dim3(1);
    bp.kernel.blockDim = dim3(1);
    bp.kernel.kernelParams = aargs;
    cudaGraphNode_t node;
    CALL(cudaGraphAddNode(&node, cp.conditional.phGraph_out[0], nullptr, nullptr, 0, &bp));
    cudaGraphExec_t e;
    CALL(cudaGraphInstantiate(&e, g, 0));
    cudaMemset(x, 0, sizeof(int));
    for (int i = 0; i < 3; ++i) CALL(cudaGraphLaunch(e, 0));
    CALL(cudaDeviceSynchronize());
    std::printf("  x=%d\n", read(x));
    cudaGraphExecDestroy(e);
    CALL(cudaGraphConditionalHandleCreate(nullptr, g, 0, 0));
    CALL(cudaGraphConditionalHandleCreate(&handle, g, 0, 5));
    cp.conditional.size = 0;
    CALL(cudaGraphAddNode(&cond, g, nullptr, nullptr, 0, &cp));
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 2;
    CALL(cudaGraphAddNode(&cond, g, nullptr, nullptr, 0, &cp));
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 3;
    CALL(cudaGraphAddNode(&cond, g, nullptr, nullptr, 0, &cp));
    cudaGraphDestroy(g);
  }
  cudaFree(value);
}

static void memory_node_probe() {
  std::printf("-- graph memory nodes\n");
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = 1 << 20;
  cudaGraphNode_t alloc;
  CALL(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  std::printf("  dptr_nonnull=%d\n", ap.dptr != nullptr);
  void* first = ap.dptr;
  int seven = 7;
  int* p = static_cast<int*>(ap.dptr);
  void* args[] = {&p, &seven};
  cudaKernelNodeParams k = {};
  k.func = (void*)set_to;
  k.gridDim = dim3(1);
  k.blockDim = dim3(1);
  k.kernelParams = args;
  cudaGraphNode_t kernel;
  CALL(cudaGraphAddKernelNode(&kernel, g, &alloc, 1, &k));
  cudaGraphExec_t e;
  CALL(cudaGraphInstantiate(&e, g, 0));
  CALL(cudaGraphLaunch(e, s));
  CALL(cudaStreamSynchronize(s));
  std::printf("  value=%d\n", read(p));
  CALL(cudaGraphLaunch(e, s));
  CALL(cudaStreamSynchronize(s));
  cudaGraphExec_t second = nullptr;
  CALL(cudaGraphInstantiate(&second, g, 0));
  CALL(cudaFreeAsync(first, s));
  CALL(cudaStreamSynchronize(s));
  CALL(cudaGraphLaunch(e, s));
  CALL(cudaStreamSynchronize(s));
  CALL(cudaFree(first));
  CALL(cudaDeviceGraphMemTrim(0));
  cudaGraphExecDestroy(e);
  CALL(cudaGraphInstantiate(&e, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
  CALL(cudaGraphLaunch(e, s));
  CALL(cudaGraphLaunch(e, s));
  CALL(cudaStreamSynchronize(s));
  unsigned long long used = 0, reserved = 0;
  CALL(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  CALL(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
  std::printf("  used=%llu reserved_at_least_used=%d\n", used, reserved >= used);
  CALL(cudaFree(first));
  CALL(cudaDeviceGraphMemTrim(0));
  CALL(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  CALL(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
  std::printf("  used=%llu reserved=%llu\n", used, reserved);
  unsigned long long zero = 0, one = 1;
  CALL(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
  CALL(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one));
  CALL(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero));
  cudaGraphNode_t freeing;
  CALL(cudaGraphAddMemFreeNode(&freeing, g, &kernel, 1, first));
  CALL(cudaGraphAddMemFreeNode(&freeing, g, &kernel, 1, first));
  CALL(cudaGraphAddMemFreeNode(&freeing, g, &kernel, 1, nullptr));
  ap.bytesize = 0;
  CALL(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  cudaGraphExecDestroy(e);
  std::printf("  without an executable graph\n");
  CALL(cudaGraphAddMemFreeNode(&freeing, g, &kernel, 1, first));
  cudaGraphDestroy(g);

  std::printf("  a free node added after an instantiation\n");
  for (int instantiate_first : {0, 1}) {
    cudaGraphCreate(&g, 0);
    ap.bytesize = 4096;
    CALL(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
    p = static_cast<int*>(ap.dptr);
    CALL(cudaGraphAddKernelNode(&kernel, g, &alloc, 1, &k));
    if (instantiate_first) {
      CALL(cudaGraphInstantiate(&e, g, 0));
      CALL(cudaGraphExecDestroy(e));
    }
    CALL(cudaGraphAddMemFreeNode(&freeing, g, &kernel, 1, ap.dptr));
    cudaGraphDestroy(g);
  }

  std::printf("  how much a launch reserves\n");
  for (size_t bytes : {size_t(1) << 20, size_t(33) << 20, size_t(100) << 20}) {
    cudaGraphCreate(&g, 0);
    ap.bytesize = bytes;
    cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap);
    cudaGraphAddMemFreeNode(&freeing, g, &alloc, 1, ap.dptr);
    cudaGraphInstantiate(&e, g, 0);
    cudaGraphLaunch(e, s);
    cudaStreamSynchronize(s);
    unsigned long long used_high = 0;
    cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used);
    cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &used_high);
    cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved);
    std::printf("  %zu bytes: used=%llu used_high=%llu reserved=%llu\n", bytes, used, used_high, reserved);
    cudaGraphExecDestroy(e);
    cudaGraphDestroy(g);
    cudaDeviceGraphMemTrim(0);
    cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero);
  }
  cudaStreamDestroy(s);
}

static void programmatic_probe() {
  std::printf("-- programmatic dependent launch\n");
  int *started, *data, *seen;
  cudaMalloc(&started, sizeof(int));
  cudaMalloc(&data, sizeof(int));
  cudaMalloc(&seen, sizeof(int));
  cudaMemset(started, 0, sizeof(int));
  cudaMemset(data, 0, sizeof(int));
  cudaMemset(seen, 0, sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  primary<<<1, 1, 0, s>>>(started, data);
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(1);
  config.stream = s;
  config.attrs = attribute;
  config.numAttrs = 1;
  CALL(cudaLaunchKernelEx(&config, secondary, (volatile int*)started, (const int*)data, seen));
  CALL(cudaStreamSynchronize(s));
  int h_started = read(started), h_seen = read(seen);
  std::printf("  secondary started=%d seen=%d\n", h_started, h_seen);
  cudaFree(started);
  cudaFree(data);
  cudaFree(seen);
  cudaStreamDestroy(s);
}

// Holds a stream until the probe opens the gate (at most 10 s): work queued
// behind it is known not to have run when the calls that follow return.
static void CUDART_CB wait_for_gate(void* gate) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (static_cast<std::atomic<int>*>(gate)->load() == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::yield();
}

// The address of a graph's allocation is reserved from the node's creation:
// a copy or set may name it while the allocation node that maps it is still
// waiting in the stream before the copy.
static void unallocated_graph_memory_probe() {
  std::printf("-- copies and sets of graph memory before its allocation node has run\n");
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = 4096;
  cudaGraphNode_t alloc;
  CALL(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  int* p = static_cast<int*>(ap.dptr);
  cudaGraphExec_t e;
  CALL(cudaGraphInstantiate(&e, g, 0));
  int* host = nullptr;
  cudaMallocHost(&host, 4 * sizeof(int));
  host[0] = 5;
  host[1] = host[2] = host[3] = -1;
  std::atomic<int> gate{0};
  CALL(cudaLaunchHostFunc(s, wait_for_gate, &gate));
  CALL(cudaGraphLaunch(e, s));
  CALL(cudaMemsetAsync(p, 0, 2 * sizeof(int), s));
  CALL(cudaMemcpyAsync(p, host, sizeof(int), cudaMemcpyHostToDevice, s));
  CALL(cudaMemcpyAsync(host + 2, p, 2 * sizeof(int), cudaMemcpyDeviceToHost, s));
  gate = 1;
  CALL(cudaStreamSynchronize(s));
  std::printf("  copied back=%d,%d\n", host[2], host[3]);
  CALL(cudaFreeAsync(p, s));
  CALL(cudaStreamSynchronize(s));
  int* freed = p;

  // Memory of a graph never launched, then memory freed (its graph still
  // alive): nothing in the stream maps it. Last in the probe, since a GPU's
  // copy of unmapped memory may leave a sticky fault.
  std::printf("  a graph never launched\n");
  cudaGraph_t never;
  cudaGraphCreate(&never, 0);
  CALL(cudaGraphAddMemAllocNode(&alloc, never, nullptr, 0, &ap));
  p = static_cast<int*>(ap.dptr);
  CALL(cudaMemset(p, 0, sizeof(int)));
  CALL(cudaMemsetAsync(p, 0, sizeof(int), s));
  CALL(cudaStreamSynchronize(s));
  CALL(cudaGetLastError());
  cudaGraphDestroy(never);
  std::printf("  an allocation freed\n");
  CALL(cudaMemset(freed, 0, sizeof(int)));
  CALL(cudaMemsetAsync(freed, 0, sizeof(int), s));
  CALL(cudaStreamSynchronize(s));
  CALL(cudaGetLastError());
  cudaGraphExecDestroy(e);
  cudaGraphDestroy(g);
  cudaFreeHost(host);
  cudaStreamDestroy(s);
}

int main() {
  cudaFree(0);
  int* x;
  cudaMalloc(&x, 4 * sizeof(int));
  cudaMemset(x, 0, 4 * sizeof(int));
  capture_probe(x);
  diamond_probe(x);
  update_probe(x);
  conditional_probe(x);
  memory_node_probe();
  programmatic_probe();
  unallocated_graph_memory_probe();
  CALL(cudaFree(x));
  return 0;
}
