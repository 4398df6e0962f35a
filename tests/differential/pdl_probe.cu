// Probe of programmatic dependent launch and of launch, stream and graph
// kernel node attributes where CUDA's documentation leaves weft to guess:
// which attribute is accepted where, the codes for values out of bounds, what
// reads back, and what a secondary kernel sees after
// cudaGridDependencySynchronize. Build with `nvcc -arch=sm_90 pdl_probe.cu`
// on an H100 and commit its output beside it as pdl_probe.expected; weft's
// build of the same file must print the same. The lines under "-- overlap"
// depend on the GPU's scheduling (whether the secondary ran while the
// primary waited up to 200 ms for it); the others are codes and values.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

static void report(const char* what, cudaError_t r) {
  cudaError_t last = cudaGetLastError();
  std::printf("%-72s returned=%d(%s) last=%d\n", what, (int)r, cudaGetErrorName(r), (int)last);
}

#define CALL(expr) report(#expr, (expr))

__global__ void count_blocks(int* counter) {
  if (threadIdx.x == 0) atomicAdd(counter, 1);
}

__global__ void empty_kernel(int*) {}

// Waits up to `cycles` for the secondary's flag (after triggering, when
// `trigger`), then writes its result late.
__global__ void primary(volatile int* flag, int* saw, int* data, int trigger, long long cycles) {
  if (threadIdx.x == 0) {
    if (trigger) cudaTriggerProgrammaticLaunchCompletion();
    long long begin = clock64();
    while (*flag == 0 && clock64() - begin < cycles) {
    }
    if (*flag != 0) atomicAdd(saw, 1);
    long long pause = clock64();
    while (clock64() - pause < 2000000) {
    }
    if (blockIdx.x == 0) *data = 42;
  }
}

__global__ void secondary(volatile int* flag, const int* data, int* seen) {
  *flag = 1;
  cudaGridDependencySynchronize();
  *seen = *(volatile const int*)data;
}

__global__ void secondary_without_sync(volatile int* flag) { *flag = 1; }

__global__ void copy_value(const int* data, int* out) { *out = *(volatile const int*)data; }

static int read(const int* d) {
  int h = -1;
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  return h;
}

static cudaLaunchAttribute attribute(cudaLaunchAttributeID id) {
  cudaLaunchAttribute a;
  std::memset(&a, 0, sizeof a);
  a.id = id;
  return a;
}

static cudaError_t launch_with(cudaLaunchAttribute a, int* counter) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(4);
  config.blockDim = dim3(32);
  config.attrs = &a;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, count_blocks, counter);
}

static void launch_attributes(int* counter) {
  std::printf("-- launch attributes\n");
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  std::printf("  accessPolicyMaxWindowSize=%d persistingL2CacheMaxSize=%d\n", p.accessPolicyMaxWindowSize,
              p.persistingL2CacheMaxSize);
  int domains = -1;
  cudaDeviceGetAttribute(&domains, cudaDevAttrMemSyncDomainCount, 0);
  std::printf("  memSyncDomainCount=%d\n", domains);
  cudaEvent_t untimed, timed, gone;
  cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming);
  cudaEventCreate(&timed);
  cudaEventCreateWithFlags(&gone, cudaEventDisableTiming);
  cudaEventDestroy(gone);
  cudaMemset(counter, 0, sizeof(int));
  cudaLaunchAttribute a = attribute(cudaLaunchAttributeIgnore);
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeAccessPolicyWindow);
  a.val.accessPolicyWindow.base_ptr = counter;
  a.val.accessPolicyWindow.num_bytes = 1 << 20;
  a.val.accessPolicyWindow.hitRatio = 0.5f;
  a.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  a.val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CALL(launch_with(a, counter));
  a.val.accessPolicyWindow.num_bytes = (size_t)p.accessPolicyMaxWindowSize + 1;
  CALL(launch_with(a, counter));
  a.val.accessPolicyWindow.num_bytes = 4096;
  a.val.accessPolicyWindow.hitRatio = 1.5f;
  CALL(launch_with(a, counter));
  a.val.accessPolicyWindow.hitRatio = -0.25f;
  CALL(launch_with(a, counter));
  a.val.accessPolicyWindow.hitRatio = 0.5f;
  a.val.accessPolicyWindow.missProp = cudaAccessPropertyPersisting;
  CALL(launch_with(a, counter));
  a.val.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
  a.val.accessPolicyWindow.hitProp = (cudaAccessProperty)3;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeCooperative);
  a.val.cooperative = 1;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeSynchronizationPolicy);
  a.val.syncPolicy = cudaSyncPolicySpin;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeClusterDimension);
  a.val.clusterDim.x = 2;
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeClusterSchedulingPolicyPreference);
  a.val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicySpread;
  CALL(launch_with(a, counter));
  a.val.clusterSchedulingPolicyPreference = (cudaClusterSchedulingPolicy)3;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeProgrammaticStreamSerialization);
  a.val.programmaticStreamSerializationAllowed = 1;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeProgrammaticEvent);
  a.val.programmaticEvent.event = untimed;
  CALL(launch_with(a, counter));
  a.val.programmaticEvent.triggerAtBlockStart = 1;
  CALL(launch_with(a, counter));
  a.val.programmaticEvent.event = timed;
  CALL(launch_with(a, counter));
  a.val.programmaticEvent.event = untimed;
  a.val.programmaticEvent.flags = 1;
  CALL(launch_with(a, counter));
  a.val.programmaticEvent.flags = 0;
  a.val.programmaticEvent.event = gone;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributePriority);
  a.val.priority = -3;
  CALL(launch_with(a, counter));
  a.val.priority = 100;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeMemSyncDomainMap);
  a.val.memSyncDomainMap.default_ = 0;
  a.val.memSyncDomainMap.remote = 3;
  CALL(launch_with(a, counter));
  a.val.memSyncDomainMap.default_ = 4;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeMemSyncDomain);
  a.val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
  CALL(launch_with(a, counter));
  a.val.memSyncDomain = (cudaLaunchMemSyncDomain)2;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributePreferredClusterDimension);
  a.val.preferredClusterDim.x = 4;
  a.val.preferredClusterDim.y = 1;
  a.val.preferredClusterDim.z = 1;
  CALL(launch_with(a, counter));
  a.val.preferredClusterDim.x = 0;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeLaunchCompletionEvent);
  a.val.launchCompletionEvent.event = untimed;
  CALL(launch_with(a, counter));
  a.val.launchCompletionEvent.event = timed;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeDeviceUpdatableKernelNode);
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributePreferredSharedMemoryCarveout);
  a.val.sharedMemCarveout = 50;
  CALL(launch_with(a, counter));
  a.val.sharedMemCarveout = 101;
  CALL(launch_with(a, counter));
  a = attribute(cudaLaunchAttributeNvlinkUtilCentricScheduling);
  a.val.nvlinkUtilCentricScheduling = 1;
  CALL(launch_with(a, counter));
  a.val.nvlinkUtilCentricScheduling = 2;
  CALL(launch_with(a, counter));
  CALL(launch_with(attribute((cudaLaunchAttributeID)15), counter));
  CALL(launch_with(attribute((cudaLaunchAttributeID)99), counter));
  cudaLaunchAttribute pair[2] = {attribute(cudaLaunchAttributeClusterDimension),
                                 attribute(cudaLaunchAttributePreferredClusterDimension)};
  pair[0].val.clusterDim.x = 2;
  pair[0].val.clusterDim.y = 1;
  pair[0].val.clusterDim.z = 1;
  pair[1].val.preferredClusterDim.x = 3;
  pair[1].val.preferredClusterDim.y = 1;
  pair[1].val.preferredClusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(4);
  config.blockDim = dim3(32);
  config.attrs = pair;
  config.numAttrs = 2;
  CALL(cudaLaunchKernelEx(&config, count_blocks, counter));
  CALL(cudaDeviceSynchronize());
  std::printf("  blocks counted=%d\n", read(counter));
  cudaEventDestroy(untimed);
  cudaEventDestroy(timed);
}

static void print_window(const char* what, const cudaStreamAttrValue& v) {
  std::printf("  %s: bytes=%zu ratio=%.2f hit=%d miss=%d\n", what, v.accessPolicyWindow.num_bytes,
              v.accessPolicyWindow.hitRatio, (int)v.accessPolicyWindow.hitProp, (int)v.accessPolicyWindow.missProp);
}

static void stream_attributes(int* counter) {
  std::printf("-- stream attributes\n");
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  cudaStream_t s;
  cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -1);
  cudaStreamAttrValue v, back;
  std::memset(&back, 0, sizeof back);
  CALL(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
  print_window("default window", back);
  CALL(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &back));
  std::printf("  default syncPolicy=%d\n", (int)back.syncPolicy);
  CALL(cudaStreamGetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &back));
  std::printf("  default map=%d,%d\n", back.memSyncDomainMap.default_, back.memSyncDomainMap.remote);
  CALL(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &back));
  std::printf("  priority=%d\n", back.priority);
  std::memset(&v, 0, sizeof v);
  v.accessPolicyWindow.base_ptr = counter;
  v.accessPolicyWindow.num_bytes = (size_t)p.accessPolicyMaxWindowSize;
  v.accessPolicyWindow.hitRatio = 1.0f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  v.accessPolicyWindow.num_bytes = (size_t)p.accessPolicyMaxWindowSize + 1;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  v.accessPolicyWindow.num_bytes = 4096;
  v.accessPolicyWindow.hitRatio = 1.01f;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  CALL(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
  print_window("window after refusals", back);
  std::memset(&v, 0, sizeof v);
  v.syncPolicy = cudaSyncPolicySpin;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  v.syncPolicy = (cudaSynchronizationPolicy)0;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  v.syncPolicy = (cudaSynchronizationPolicy)5;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  CALL(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &back));
  std::printf("  syncPolicy=%d\n", (int)back.syncPolicy);
  std::memset(&v, 0, sizeof v);
  v.memSyncDomainMap.default_ = 1;
  v.memSyncDomainMap.remote = 2;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &v));
  v.memSyncDomainMap.remote = 4;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &v));
  CALL(cudaStreamGetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &back));
  std::printf("  map=%d,%d\n", back.memSyncDomainMap.default_, back.memSyncDomainMap.remote);
  std::memset(&v, 0, sizeof v);
  v.memSyncDomain = (cudaLaunchMemSyncDomain)2;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomain, &v));
  std::memset(&v, 0, sizeof v);
  v.priority = -100;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
  CALL(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &back));
  int priority = 99;
  cudaStreamGetPriority(s, &priority);
  std::printf("  priority after -100: attribute=%d stream=%d\n", back.priority, priority);
  v.priority = 10;
  CALL(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
  CALL(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &back));
  std::printf("  priority after 10: attribute=%d\n", back.priority);
  std::memset(&v, 0, sizeof v);
  v.nvlinkUtilCentricScheduling = 1;
  CALL(cudaStreamSetAttribute(s, cudaLaunchAttributeNvlinkUtilCentricScheduling, &v));
  v.programmaticStreamSerializationAllowed = 1;
  CALL(cudaStreamSetAttribute(s, cudaLaunchAttributeProgrammaticStreamSerialization, &v));
  CALL(cudaStreamGetAttribute(s, cudaLaunchAttributeProgrammaticStreamSerialization, &back));
  CALL(cudaStreamSetAttribute(s, cudaLaunchAttributeCooperative, &v));
  CALL(cudaStreamSetAttribute(s, cudaLaunchAttributeClusterDimension, &v));
  CALL(cudaStreamGetAttribute(s, cudaLaunchAttributeIgnore, &back));
  cudaStreamDestroy(s);

  std::printf("-- persisting L2 limit\n");
  size_t limit = 12345;
  CALL(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  std::printf("  default=%zu\n", limit);
  CALL(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)p.persistingL2CacheMaxSize));
  CALL(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  std::printf("  after max=%zu\n", limit);
  CALL(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)p.persistingL2CacheMaxSize + 1));
  CALL(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  std::printf("  after max+1=%zu\n", limit);
  CALL(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  CALL(cudaCtxResetPersistingL2Cache());
}

static cudaGraphNode_t kernel_node(cudaGraph_t g, void* func, void** args, unsigned blocks) {
  cudaKernelNodeParams k = {};
  k.func = func;
  k.gridDim = dim3(blocks);
  k.blockDim = dim3(32);
  k.kernelParams = args;
  cudaGraphNode_t n = nullptr;
  cudaGraphAddKernelNode(&n, g, nullptr, 0, &k);
  return n;
}

static void node_attributes(int* counter) {
  std::printf("-- kernel node attributes\n");
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  void* args[] = {&counter};
  cudaGraphNode_t k = kernel_node(g, (void*)count_blocks, args, 4);
  cudaGraphNode_t other = kernel_node(g, (void*)count_blocks, args, 4);
  cudaGraphNode_t empty;
  cudaGraphAddEmptyNode(&empty, g, nullptr, 0);
  cudaKernelNodeAttrValue v, back;
  std::memset(&v, 0, sizeof v);
  std::memset(&back, 0, sizeof back);
  CALL(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributePriority, &back));
  std::printf("  default priority=%d\n", back.priority);
  CALL(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributeClusterDimension, &back));
  std::printf("  default cluster=%u,%u,%u\n", back.clusterDim.x, back.clusterDim.y, back.clusterDim.z);
  CALL(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributeCooperative, &back));
  std::printf("  default cooperative=%d\n", back.cooperative);
  v.priority = -2;
  CALL(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributePriority, &v));
  CALL(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributePriority, &back));
  std::printf("  priority=%d\n", back.priority);
  std::memset(&v, 0, sizeof v);
  v.clusterDim.x = 3;
  v.clusterDim.y = 1;
  v.clusterDim.z = 1;
  CALL(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeClusterDimension, &v));
  v.clusterDim.x = 2;
  CALL(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeClusterDimension, &v));
  CALL(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributeClusterDimension, &back));
  std::printf("  cluster=%u,%u,%u\n", back.clusterDim.x, back.clusterDim.y, back.clusterDim.z);
  std::memset(&v, 0, sizeof v);
  v.accessPolicyWindow.num_bytes = 4096;
  v.accessPolicyWindow.hitRatio = 2.0f;
  CALL(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeAccessPolicyWindow, &v));
  v.programmaticStreamSerializationAllowed = 1;
  CALL(cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributeProgrammaticStreamSerialization, &v));
  CALL(cudaGraphKernelNodeGetAttribute(k, cudaLaunchAttributeSynchronizationPolicy, &back));
  CALL(cudaGraphKernelNodeSetAttribute(empty, cudaKernelNodeAttributePriority, &v));
  CALL(cudaGraphKernelNodeGetAttribute(empty, cudaKernelNodeAttributePriority, &back));
  CALL(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributePriority, nullptr));
  CALL(cudaGraphKernelNodeCopyAttributes(other, k));
  CALL(cudaGraphKernelNodeGetAttribute(other, cudaKernelNodeAttributePriority, &back));
  std::printf("  copied priority=%d\n", back.priority);
  CALL(cudaGraphKernelNodeGetAttribute(other, cudaKernelNodeAttributeClusterDimension, &back));
  std::printf("  copied cluster=%u,%u,%u\n", back.clusterDim.x, back.clusterDim.y, back.clusterDim.z);
  CALL(cudaGraphKernelNodeCopyAttributes(empty, k));
  cudaKernelNodeParams params = {};
  params.func = (void*)count_blocks;
  params.gridDim = dim3(2);
  params.blockDim = dim3(32);
  params.kernelParams = args;
  CALL(cudaGraphKernelNodeSetParams(k, &params));
  CALL(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributePriority, &back));
  std::printf("  priority after SetParams=%d\n", back.priority);
  cudaMemset(counter, 0, sizeof(int));
  cudaGraphExec_t exec;
  CALL(cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagUseNodePriority));
  CALL(cudaGraphLaunch(exec, 0));
  CALL(cudaDeviceSynchronize());
  std::printf("  blocks counted=%d\n", read(counter));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
}

static cudaGraphEdgeData edge(unsigned char from_port, unsigned char type) {
  cudaGraphEdgeData d;
  std::memset(&d, 0, sizeof d);
  d.from_port = from_port;
  d.type = type;
  return d;
}

static void programmatic_edges(int* counter) {
  std::printf("-- programmatic edges\n");
  cudaGraph_t g;
  cudaGraphCreate(&g, 0);
  void* args[] = {&counter};
  cudaGraphNode_t a = kernel_node(g, (void*)empty_kernel, args, 1);
  cudaGraphNode_t b = kernel_node(g, (void*)empty_kernel, args, 1);
  cudaGraphNode_t c = kernel_node(g, (void*)empty_kernel, args, 1);
  cudaGraphNode_t empty;
  cudaGraphAddEmptyNode(&empty, g, nullptr, 0);
  cudaGraphEdgeData d = edge(cudaGraphKernelNodePortProgrammatic, cudaGraphDependencyTypeProgrammatic);
  CALL(cudaGraphAddDependencies(g, &a, &empty, &d, 1));
  CALL(cudaGraphAddDependencies(g, &empty, &b, &d, 1));
  d = edge(cudaGraphKernelNodePortDefault, cudaGraphDependencyTypeProgrammatic);
  CALL(cudaGraphAddDependencies(g, &a, &b, &d, 1));
  d = edge(cudaGraphKernelNodePortProgrammatic, cudaGraphDependencyTypeDefault);
  CALL(cudaGraphAddDependencies(g, &a, &b, &d, 1));
  d = edge(3, cudaGraphDependencyTypeProgrammatic);
  CALL(cudaGraphAddDependencies(g, &a, &b, &d, 1));
  d = edge(cudaGraphKernelNodePortProgrammatic, cudaGraphDependencyTypeProgrammatic);
  d.to_port = 1;
  CALL(cudaGraphAddDependencies(g, &a, &b, &d, 1));
  d = edge(cudaGraphKernelNodePortProgrammatic, cudaGraphDependencyTypeProgrammatic);
  CALL(cudaGraphAddDependencies(g, &a, &b, &d, 1));
  d = edge(cudaGraphKernelNodePortLaunchCompletion, cudaGraphDependencyTypeProgrammatic);
  CALL(cudaGraphAddDependencies(g, &b, &c, &d, 1));
  cudaGraphNode_t from[4], to[4];
  cudaGraphEdgeData data[4];
  size_t count = 4;
  CALL(cudaGraphGetEdges(g, from, to, data, &count));
  for (size_t i = 0; i < count; ++i)
    std::printf("  edge %s->%s from_port=%d to_port=%d type=%d\n", from[i] == a ? "a" : from[i] == b ? "b" : "?",
                to[i] == b ? "b" : to[i] == c ? "c" : "?", data[i].from_port, data[i].to_port, data[i].type);
  cudaGraphEdgeData ordinary = edge(0, 0);
  CALL(cudaGraphRemoveDependencies(g, &a, &b, &ordinary, 1));
  CALL(cudaGraphRemoveDependencies(g, &a, &b, nullptr, 1));
  cudaGraphExec_t exec;
  CALL(cudaGraphInstantiate(&exec, g, 0));
  CALL(cudaGraphLaunch(exec, 0));
  CALL(cudaDeviceSynchronize());
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
}

struct pdl_state {
  int* flag;
  int* saw;
  int* data;
  int* seen;
};

static pdl_state fresh(pdl_state s) {
  cudaMemset(s.flag, 0, sizeof(int));
  cudaMemset(s.saw, 0, sizeof(int));
  cudaMemset(s.data, 0, sizeof(int));
  cudaMemset(s.seen, 0, sizeof(int));
  cudaDeviceSynchronize();
  return s;
}

static void dependent_launch(pdl_state st, long long wait_cycles, bool overlap_lines) {
  std::printf(overlap_lines ? "-- overlap (scheduling)\n" : "-- programmatic dependent launch\n");
  cudaStream_t s, s2;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
  cudaLaunchAttribute serial = attribute(cudaLaunchAttributeProgrammaticStreamSerialization);
  serial.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.stream = s;
  config.attrs = &serial;
  config.numAttrs = 1;

  fresh(st);
  primary<<<2, 32, 0, s>>>(st.flag, st.saw, st.data, 1, wait_cycles);
  CALL(cudaLaunchKernelEx(&config, secondary, (volatile int*)st.flag, (const int*)st.data, st.seen));
  CALL(cudaStreamSynchronize(s));
  if (overlap_lines)
    std::printf("  serialization: overlap=%s\n", read(st.saw) == 2 ? "yes" : "no");
  else
    std::printf("  serialization: seen after sync=%d\n", read(st.seen));

  fresh(st);
  primary<<<2, 32, 0, s>>>(st.flag, st.saw, st.data, 0, wait_cycles);
  CALL(cudaLaunchKernelEx(&config, secondary, (volatile int*)st.flag, (const int*)st.data, st.seen));
  CALL(cudaStreamSynchronize(s));
  if (overlap_lines)
    std::printf("  no trigger: overlap=%s\n", read(st.saw) == 2 ? "yes" : "no");
  else
    std::printf("  no trigger: seen after sync=%d\n", read(st.seen));

  fresh(st);
  primary<<<1, 32, 0, s>>>(st.flag, st.saw, st.data, 1, wait_cycles);
  secondary<<<1, 32, 0, s>>>(st.flag, st.data, st.seen);
  CALL(cudaStreamSynchronize(s));
  if (overlap_lines)
    std::printf("  without the attribute: overlap=%s\n", read(st.saw) == 1 ? "yes" : "no");
  else
    std::printf("  without the attribute: seen=%d\n", read(st.seen));

  fresh(st);
  primary<<<1, 32, 0, s>>>(st.flag, st.saw, st.data, 1, wait_cycles);
  CALL(cudaLaunchKernelEx(&config, secondary_without_sync, (volatile int*)st.flag));
  copy_value<<<1, 1, 0, s>>>(st.data, st.seen);
  CALL(cudaStreamSynchronize(s));
  if (!overlap_lines) std::printf("  after a secondary without sync: next kernel saw=%d\n", read(st.seen));

  cudaEvent_t e;
  cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  cudaLaunchAttribute event = attribute(cudaLaunchAttributeProgrammaticEvent);
  event.val.programmaticEvent.event = e;
  cudaLaunchConfig_t primary_config = {};
  primary_config.gridDim = dim3(2);
  primary_config.blockDim = dim3(32);
  primary_config.stream = s;
  primary_config.attrs = &event;
  primary_config.numAttrs = 1;
  fresh(st);
  CALL(cudaLaunchKernelEx(&primary_config, primary, (volatile int*)st.flag, st.saw, st.data, 1, wait_cycles));
  CALL(cudaStreamWaitEvent(s2, e, 0));
  secondary<<<1, 32, 0, s2>>>(st.flag, st.data, st.seen);
  CALL(cudaStreamSynchronize(s2));
  CALL(cudaStreamSynchronize(s));
  if (overlap_lines)
    std::printf("  programmatic event: overlap=%s\n", read(st.saw) == 2 ? "yes" : "no");
  else
    std::printf("  programmatic event: seen after sync=%d\n", read(st.seen));
  cudaEventDestroy(e);
  cudaStreamDestroy(s);
  cudaStreamDestroy(s2);
}

int main() {
  cudaFree(0);
  int* counter;
  cudaMalloc(&counter, sizeof(int));
  launch_attributes(counter);
  stream_attributes(counter);
  node_attributes(counter);
  programmatic_edges(counter);
  pdl_state st;
  cudaMalloc(&st.flag, sizeof(int));
  cudaMalloc(&st.saw, sizeof(int));
  cudaMalloc(&st.data, sizeof(int));
  cudaMalloc(&st.seen, sizeof(int));
  // About 200 ms of an H100's 1.98 GHz clock; 0 for the value lines, so
  // that nothing waits.
  dependent_launch(st, 0, false);
  dependent_launch(st, 400000000LL, true);
  CALL(cudaFree(counter));
  return 0;
}
