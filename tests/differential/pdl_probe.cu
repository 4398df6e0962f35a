// Probe of programmatic dependent launch and of launch, stream and graph
// kernel node attributes where CUDA's documentation leaves weft to guess:
// which attribute is accepted where, the codes for values out of bounds, what
// reads back, and what a secondary kernel sees after
// cudaGridDependencySynchronize. Build with `nvcc -arch=sm_90 pdl_probe.cu`
// on an H100 and commit its output beside it as pdl_probe.expected; weft's
// build of the same file must print the same. The lines under "-- overlap"
// depend on the GPU's scheduling (whether the secondary ran while the
// primary waited up to 200 ms for it) and go to stderr; stdout holds the
// codes and values, the lines to compare.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

// The overlap section goes to stderr: its lines depend on the GPU's
// scheduling, and only stdout is compared.
static FILE* out = stdout;

static void report(const char* what, cudaError_t r) {
  cudaError_t last = cudaGetLastError();
  std::fprintf(out, "%-72s returned=%d(%s) last=%d\n", what, (int)r, cudaGetErrorName(r), (int)last);
}

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

// One thread stores the flag and the value seen, as a real kernel would:
// 32 threads' plain stores of one word race under CUDA's memory model, and
// the race check, which cannot tell volatile stores from plain ones, would
// report the flag's too (docs/debugging.md, "Race check").
__global__ void secondary(volatile int* flag, const int* data, int* seen) {
  if (threadIdx.x == 0) *flag = 1;
  cudaGridDependencySynchronize();
  if (threadIdx.x == 0) *seen = *(volatile const int*)data;
}

__global__ void secondary_without_sync(volatile int* flag) {
  if (threadIdx.x == 0) *flag = 1;
}

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
  std::memset(&p, 0, sizeof p);
  cudaGetDeviceProperties(&p, 0);
  std::printf("  accessPolicyMaxWindowSize=%d persistingL2CacheMaxSize=%d\n", p.accessPolicyMaxWindowSize,
              p.persistingL2CacheMaxSize);
  int domains = -1;
  cudaDeviceGetAttribute(&domains, cudaDevAttrMemSyncDomainCount, 0);
  std::printf("  memSyncDomainCount=%d\n", domains);
  // No destroyed event is tried: CUDA's runtime dereferences the stale
  // handle (the H100 run ended in a segmentation fault there).
  cudaEvent_t untimed = nullptr, timed = nullptr;
  cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming);
  cudaEventCreate(&timed);
  cudaMemset(counter, 0, sizeof(int));
  cudaLaunchAttribute a = attribute(cudaLaunchAttributeIgnore);
  report("launch Ignore", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeAccessPolicyWindow);
  a.val.accessPolicyWindow.base_ptr = counter;
  a.val.accessPolicyWindow.num_bytes = 1 << 20;
  a.val.accessPolicyWindow.hitRatio = 0.5f;
  a.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  a.val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  report("launch AccessPolicyWindow 1 MiB ratio=0.5 hit=persisting miss=streaming", launch_with(a, counter));
  a.val.accessPolicyWindow.num_bytes = (size_t)p.accessPolicyMaxWindowSize + 1;
  report("launch AccessPolicyWindow bytes=max+1", launch_with(a, counter));
  a.val.accessPolicyWindow.num_bytes = 4096;
  a.val.accessPolicyWindow.hitRatio = 1.5f;
  report("launch AccessPolicyWindow 4096 bytes ratio=1.5", launch_with(a, counter));
  a.val.accessPolicyWindow.hitRatio = -0.25f;
  report("launch AccessPolicyWindow ratio=-0.25", launch_with(a, counter));
  a.val.accessPolicyWindow.hitRatio = 0.5f;
  a.val.accessPolicyWindow.missProp = cudaAccessPropertyPersisting;
  report("launch AccessPolicyWindow ratio=0.5 miss=persisting", launch_with(a, counter));
  a.val.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
  a.val.accessPolicyWindow.hitProp = (cudaAccessProperty)3;
  report("launch AccessPolicyWindow miss=normal hit=3", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeCooperative);
  a.val.cooperative = 1;
  report("launch Cooperative=1", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeSynchronizationPolicy);
  a.val.syncPolicy = cudaSyncPolicySpin;
  report("launch SynchronizationPolicy=spin (stream-only)", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeClusterDimension);
  a.val.clusterDim.x = 2;
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  report("launch ClusterDimension=2,1,1", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeClusterSchedulingPolicyPreference);
  a.val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicySpread;
  report("launch ClusterSchedulingPolicyPreference=spread", launch_with(a, counter));
  a.val.clusterSchedulingPolicyPreference = (cudaClusterSchedulingPolicy)3;
  report("launch ClusterSchedulingPolicyPreference=3", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeProgrammaticStreamSerialization);
  a.val.programmaticStreamSerializationAllowed = 1;
  report("launch ProgrammaticStreamSerialization=1", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeProgrammaticEvent);
  a.val.programmaticEvent.event = untimed;
  report("launch ProgrammaticEvent untimed event", launch_with(a, counter));
  a.val.programmaticEvent.triggerAtBlockStart = 1;
  report("launch ProgrammaticEvent untimed event triggerAtBlockStart=1", launch_with(a, counter));
  a.val.programmaticEvent.event = timed;
  report("launch ProgrammaticEvent timed event triggerAtBlockStart=1", launch_with(a, counter));
  a.val.programmaticEvent.event = untimed;
  a.val.programmaticEvent.flags = 1;
  report("launch ProgrammaticEvent untimed event flags=1", launch_with(a, counter));
  a = attribute(cudaLaunchAttributePriority);
  a.val.priority = -3;
  report("launch Priority=-3", launch_with(a, counter));
  a.val.priority = 100;
  report("launch Priority=100", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeMemSyncDomainMap);
  a.val.memSyncDomainMap.default_ = 0;
  a.val.memSyncDomainMap.remote = 3;
  report("launch MemSyncDomainMap default=0 remote=3", launch_with(a, counter));
  a.val.memSyncDomainMap.default_ = 4;
  report("launch MemSyncDomainMap default=4 remote=3", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeMemSyncDomain);
  a.val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
  report("launch MemSyncDomain=remote", launch_with(a, counter));
  a.val.memSyncDomain = (cudaLaunchMemSyncDomain)2;
  report("launch MemSyncDomain=2", launch_with(a, counter));
  a = attribute(cudaLaunchAttributePreferredClusterDimension);
  a.val.preferredClusterDim.x = 4;
  a.val.preferredClusterDim.y = 1;
  a.val.preferredClusterDim.z = 1;
  report("launch PreferredClusterDimension=4,1,1", launch_with(a, counter));
  a.val.preferredClusterDim.x = 0;
  report("launch PreferredClusterDimension=0,1,1", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeLaunchCompletionEvent);
  a.val.launchCompletionEvent.event = untimed;
  report("launch LaunchCompletionEvent untimed event", launch_with(a, counter));
  a.val.launchCompletionEvent.event = timed;
  report("launch LaunchCompletionEvent timed event", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeDeviceUpdatableKernelNode);
  report("launch DeviceUpdatableKernelNode=0", launch_with(a, counter));
  a = attribute(cudaLaunchAttributePreferredSharedMemoryCarveout);
  a.val.sharedMemCarveout = 50;
  report("launch PreferredSharedMemoryCarveout=50", launch_with(a, counter));
  a.val.sharedMemCarveout = 101;
  report("launch PreferredSharedMemoryCarveout=101", launch_with(a, counter));
  a = attribute(cudaLaunchAttributeNvlinkUtilCentricScheduling);
  a.val.nvlinkUtilCentricScheduling = 1;
  report("launch NvlinkUtilCentricScheduling=1", launch_with(a, counter));
  a.val.nvlinkUtilCentricScheduling = 2;
  report("launch NvlinkUtilCentricScheduling=2", launch_with(a, counter));
  report("launch attribute ID 15", launch_with(attribute((cudaLaunchAttributeID)15), counter));
  report("launch attribute ID 99", launch_with(attribute((cudaLaunchAttributeID)99), counter));
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
  report("launch ClusterDimension=2,1,1 with PreferredClusterDimension=3,1,1", cudaLaunchKernelEx(&config, count_blocks, counter));
  report("synchronize after the launches", cudaDeviceSynchronize());
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
  std::memset(&p, 0, sizeof p);
  cudaGetDeviceProperties(&p, 0);
  cudaStream_t s = nullptr;
  cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -1);
  cudaStreamAttrValue v, back;
  std::memset(&back, 0, sizeof back);
  report("stream get AccessPolicyWindow (default)", cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
  print_window("default window", back);
  report("stream get SynchronizationPolicy (default)", cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &back));
  std::printf("  default syncPolicy=%d\n", (int)back.syncPolicy);
  report("stream get MemSyncDomainMap (default)", cudaStreamGetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &back));
  std::printf("  default map=%d,%d\n", back.memSyncDomainMap.default_, back.memSyncDomainMap.remote);
  report("stream get Priority (created with -1)", cudaStreamGetAttribute(s, cudaStreamAttributePriority, &back));
  std::printf("  priority=%d\n", back.priority);
  std::memset(&v, 0, sizeof v);
  v.accessPolicyWindow.base_ptr = counter;
  v.accessPolicyWindow.num_bytes = (size_t)p.accessPolicyMaxWindowSize;
  v.accessPolicyWindow.hitRatio = 1.0f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
  report("stream set AccessPolicyWindow bytes=max ratio=1 hit=persisting", cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  v.accessPolicyWindow.num_bytes = (size_t)p.accessPolicyMaxWindowSize + 1;
  report("stream set AccessPolicyWindow bytes=max+1", cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  v.accessPolicyWindow.num_bytes = 4096;
  v.accessPolicyWindow.hitRatio = 1.01f;
  report("stream set AccessPolicyWindow 4096 bytes ratio=1.01", cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  report("stream get AccessPolicyWindow after refusals", cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
  print_window("window after refusals", back);
  std::memset(&v, 0, sizeof v);
  v.syncPolicy = cudaSyncPolicySpin;
  report("stream set SynchronizationPolicy=spin", cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  v.syncPolicy = (cudaSynchronizationPolicy)0;
  report("stream set SynchronizationPolicy=0", cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  v.syncPolicy = (cudaSynchronizationPolicy)5;
  report("stream set SynchronizationPolicy=5", cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  report("stream get SynchronizationPolicy", cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &back));
  std::printf("  syncPolicy=%d\n", (int)back.syncPolicy);
  std::memset(&v, 0, sizeof v);
  v.memSyncDomainMap.default_ = 1;
  v.memSyncDomainMap.remote = 2;
  report("stream set MemSyncDomainMap default=1 remote=2", cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &v));
  v.memSyncDomainMap.remote = 4;
  report("stream set MemSyncDomainMap default=1 remote=4", cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &v));
  report("stream get MemSyncDomainMap", cudaStreamGetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &back));
  std::printf("  map=%d,%d\n", back.memSyncDomainMap.default_, back.memSyncDomainMap.remote);
  std::memset(&v, 0, sizeof v);
  v.memSyncDomain = (cudaLaunchMemSyncDomain)2;
  report("stream set MemSyncDomain=2", cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomain, &v));
  std::memset(&v, 0, sizeof v);
  v.priority = -100;
  report("stream set Priority=-100", cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
  report("stream get Priority after -100", cudaStreamGetAttribute(s, cudaStreamAttributePriority, &back));
  int priority = 99;
  cudaStreamGetPriority(s, &priority);
  std::printf("  priority after -100: attribute=%d stream=%d\n", back.priority, priority);
  v.priority = 10;
  report("stream set Priority=10", cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
  report("stream get Priority after 10", cudaStreamGetAttribute(s, cudaStreamAttributePriority, &back));
  std::printf("  priority after 10: attribute=%d\n", back.priority);
  std::memset(&v, 0, sizeof v);
  v.nvlinkUtilCentricScheduling = 1;
  report("stream set NvlinkUtilCentricScheduling=1", cudaStreamSetAttribute(s, cudaLaunchAttributeNvlinkUtilCentricScheduling, &v));
  v.programmaticStreamSerializationAllowed = 1;
  report("stream set ProgrammaticStreamSerialization=1 (launch-only)", cudaStreamSetAttribute(s, cudaLaunchAttributeProgrammaticStreamSerialization, &v));
  report("stream get ProgrammaticStreamSerialization (launch-only)", cudaStreamGetAttribute(s, cudaLaunchAttributeProgrammaticStreamSerialization, &back));
  report("stream set Cooperative (launch-only)", cudaStreamSetAttribute(s, cudaLaunchAttributeCooperative, &v));
  report("stream set ClusterDimension (launch-only)", cudaStreamSetAttribute(s, cudaLaunchAttributeClusterDimension, &v));
  report("stream get Ignore", cudaStreamGetAttribute(s, cudaLaunchAttributeIgnore, &back));
  cudaStreamDestroy(s);

  std::printf("-- persisting L2 limit\n");
  size_t limit = 12345;
  report("get limit PersistingL2CacheSize (default)", cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  std::printf("  default=%zu\n", limit);
  report("set limit PersistingL2CacheSize=persistingL2CacheMaxSize", cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)p.persistingL2CacheMaxSize));
  report("get limit PersistingL2CacheSize after max", cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  std::printf("  after max=%zu\n", limit);
  report("set limit PersistingL2CacheSize=persistingL2CacheMaxSize+1", cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)p.persistingL2CacheMaxSize + 1));
  report("get limit PersistingL2CacheSize after max+1", cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  std::printf("  after max+1=%zu\n", limit);
  report("set limit PersistingL2CacheSize=0", cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  report("reset persisting L2", cudaCtxResetPersistingL2Cache());
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
  cudaGraph_t g = nullptr;
  cudaGraphCreate(&g, 0);
  void* args[] = {&counter};
  cudaGraphNode_t k = kernel_node(g, (void*)count_blocks, args, 4);
  cudaGraphNode_t other = kernel_node(g, (void*)count_blocks, args, 4);
  cudaGraphNode_t empty = nullptr;
  cudaGraphAddEmptyNode(&empty, g, nullptr, 0);
  cudaKernelNodeAttrValue v, back;
  std::memset(&v, 0, sizeof v);
  std::memset(&back, 0, sizeof back);
  report("node get Priority (default)", cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributePriority, &back));
  std::printf("  default priority=%d\n", back.priority);
  report("node get ClusterDimension (default)", cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributeClusterDimension, &back));
  std::printf("  default cluster=%u,%u,%u\n", back.clusterDim.x, back.clusterDim.y, back.clusterDim.z);
  report("node get Cooperative (default)", cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributeCooperative, &back));
  std::printf("  default cooperative=%d\n", back.cooperative);
  v.priority = -2;
  report("node set Priority=-2", cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributePriority, &v));
  report("node get Priority", cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributePriority, &back));
  std::printf("  priority=%d\n", back.priority);
  std::memset(&v, 0, sizeof v);
  v.clusterDim.x = 3;
  v.clusterDim.y = 1;
  v.clusterDim.z = 1;
  report("node set ClusterDimension=3,1,1 (grid of 4)", cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeClusterDimension, &v));
  v.clusterDim.x = 2;
  report("node set ClusterDimension=2,1,1", cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeClusterDimension, &v));
  report("node get ClusterDimension", cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributeClusterDimension, &back));
  std::printf("  cluster=%u,%u,%u\n", back.clusterDim.x, back.clusterDim.y, back.clusterDim.z);
  std::memset(&v, 0, sizeof v);
  v.accessPolicyWindow.num_bytes = 4096;
  v.accessPolicyWindow.hitRatio = 2.0f;
  report("node set AccessPolicyWindow ratio=2", cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeAccessPolicyWindow, &v));
  v.programmaticStreamSerializationAllowed = 1;
  report("node set ProgrammaticStreamSerialization=1", cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributeProgrammaticStreamSerialization, &v));
  report("node get SynchronizationPolicy (stream-only)", cudaGraphKernelNodeGetAttribute(k, cudaLaunchAttributeSynchronizationPolicy, &back));
  report("empty node set Priority", cudaGraphKernelNodeSetAttribute(empty, cudaKernelNodeAttributePriority, &v));
  report("empty node get Priority", cudaGraphKernelNodeGetAttribute(empty, cudaKernelNodeAttributePriority, &back));
  // A null value crashes CUDA's runtime (it reads through it): not probed;
  // weft refuses it with cudaErrorInvalidValue.
  report("node CopyAttributes(other, k)", cudaGraphKernelNodeCopyAttributes(other, k));
  report("node get Priority of the copy", cudaGraphKernelNodeGetAttribute(other, cudaKernelNodeAttributePriority, &back));
  std::printf("  copied priority=%d\n", back.priority);
  report("node get ClusterDimension of the copy", cudaGraphKernelNodeGetAttribute(other, cudaKernelNodeAttributeClusterDimension, &back));
  std::printf("  copied cluster=%u,%u,%u\n", back.clusterDim.x, back.clusterDim.y, back.clusterDim.z);
  report("node CopyAttributes(empty node, k)", cudaGraphKernelNodeCopyAttributes(empty, k));
  cudaKernelNodeParams params = {};
  params.func = (void*)count_blocks;
  params.gridDim = dim3(2);
  params.blockDim = dim3(32);
  params.kernelParams = args;
  report("node SetParams grid of 2 (cluster 2 kept)", cudaGraphKernelNodeSetParams(k, &params));
  report("node get Priority after SetParams", cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributePriority, &back));
  std::printf("  priority after SetParams=%d\n", back.priority);
  cudaMemset(counter, 0, sizeof(int));
  cudaGraphExec_t exec = nullptr;
  report("instantiate with UseNodePriority", cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagUseNodePriority));
  report("launch the node attribute graph", cudaGraphLaunch(exec, 0));
  report("synchronize after the node attribute graph", cudaDeviceSynchronize());
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
  cudaGraph_t g = nullptr;
  cudaGraphCreate(&g, 0);
  void* args[] = {&counter};
  cudaGraphNode_t a = kernel_node(g, (void*)empty_kernel, args, 1);
  cudaGraphNode_t b = kernel_node(g, (void*)empty_kernel, args, 1);
  cudaGraphNode_t c = kernel_node(g, (void*)empty_kernel, args, 1);
  cudaGraphNode_t empty = nullptr;
  cudaGraphAddEmptyNode(&empty, g, nullptr, 0);
  cudaGraphEdgeData d = edge(cudaGraphKernelNodePortProgrammatic, cudaGraphDependencyTypeProgrammatic);
  report("edge programmatic port kernel->empty node", cudaGraphAddDependencies(g, &a, &empty, &d, 1));
  report("edge programmatic port empty node->kernel", cudaGraphAddDependencies(g, &empty, &b, &d, 1));
  d = edge(cudaGraphKernelNodePortDefault, cudaGraphDependencyTypeProgrammatic);
  report("edge type programmatic, default port", cudaGraphAddDependencies(g, &a, &b, &d, 1));
  d = edge(cudaGraphKernelNodePortProgrammatic, cudaGraphDependencyTypeDefault);
  report("edge type default, programmatic port", cudaGraphAddDependencies(g, &a, &b, &d, 1));
  d = edge(3, cudaGraphDependencyTypeProgrammatic);
  report("edge type programmatic, port 3", cudaGraphAddDependencies(g, &a, &b, &d, 1));
  d = edge(cudaGraphKernelNodePortProgrammatic, cudaGraphDependencyTypeProgrammatic);
  d.to_port = 1;
  report("edge programmatic to_port=1", cudaGraphAddDependencies(g, &a, &b, &d, 1));
  d = edge(cudaGraphKernelNodePortProgrammatic, cudaGraphDependencyTypeProgrammatic);
  report("edge a->b programmatic", cudaGraphAddDependencies(g, &a, &b, &d, 1));
  d = edge(cudaGraphKernelNodePortLaunchCompletion, cudaGraphDependencyTypeProgrammatic);
  report("edge b->c launch completion port", cudaGraphAddDependencies(g, &b, &c, &d, 1));
  cudaGraphNode_t from[4], to[4];
  cudaGraphEdgeData data[4];
  size_t count = 4;
  report("get edges", cudaGraphGetEdges(g, from, to, data, &count));
  for (size_t i = 0; i < count; ++i)
    std::printf("  edge %s->%s from_port=%d to_port=%d type=%d\n", from[i] == a ? "a" : from[i] == b ? "b" : "?",
                to[i] == b ? "b" : to[i] == c ? "c" : "?", data[i].from_port, data[i].to_port, data[i].type);
  cudaGraphEdgeData ordinary = edge(0, 0);
  report("remove a->b as an ordinary edge", cudaGraphRemoveDependencies(g, &a, &b, &ordinary, 1));
  report("remove a->b with null edge data", cudaGraphRemoveDependencies(g, &a, &b, nullptr, 1));
  cudaGraphExec_t exec = nullptr;
  report("instantiate the programmatic edge graph", cudaGraphInstantiate(&exec, g, 0));
  report("launch the programmatic edge graph", cudaGraphLaunch(exec, 0));
  report("synchronize after the programmatic edge graph", cudaDeviceSynchronize());
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
  out = overlap_lines ? stderr : stdout;
  std::fprintf(out, overlap_lines ? "-- overlap (scheduling)\n" : "-- programmatic dependent launch\n");
  cudaStream_t s = nullptr, s2 = nullptr;
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
  report("secondary with serialization, primary triggers", cudaLaunchKernelEx(&config, secondary, (volatile int*)st.flag, (const int*)st.data, st.seen));
  report("synchronize (trigger)", cudaStreamSynchronize(s));
  if (overlap_lines)
    std::fprintf(out, "  serialization: overlap=%s\n", read(st.saw) == 2 ? "yes" : "no");
  else
    std::fprintf(out, "  serialization: seen after sync=%d\n", read(st.seen));

  fresh(st);
  primary<<<2, 32, 0, s>>>(st.flag, st.saw, st.data, 0, wait_cycles);
  report("secondary with serialization, primary never triggers", cudaLaunchKernelEx(&config, secondary, (volatile int*)st.flag, (const int*)st.data, st.seen));
  report("synchronize (no trigger)", cudaStreamSynchronize(s));
  if (overlap_lines)
    std::fprintf(out, "  no trigger: overlap=%s\n", read(st.saw) == 2 ? "yes" : "no");
  else
    std::fprintf(out, "  no trigger: seen after sync=%d\n", read(st.seen));

  fresh(st);
  primary<<<1, 32, 0, s>>>(st.flag, st.saw, st.data, 1, wait_cycles);
  secondary<<<1, 32, 0, s>>>(st.flag, st.data, st.seen);
  report("synchronize (secondary without the attribute)", cudaStreamSynchronize(s));
  if (overlap_lines)
    std::fprintf(out, "  without the attribute: overlap=%s\n", read(st.saw) == 1 ? "yes" : "no");
  else
    std::fprintf(out, "  without the attribute: seen=%d\n", read(st.seen));

  fresh(st);
  primary<<<1, 32, 0, s>>>(st.flag, st.saw, st.data, 1, wait_cycles);
  report("secondary without sync, with serialization", cudaLaunchKernelEx(&config, secondary_without_sync, (volatile int*)st.flag));
  copy_value<<<1, 1, 0, s>>>(st.data, st.seen);
  report("synchronize (secondary without sync)", cudaStreamSynchronize(s));
  if (!overlap_lines) std::fprintf(out, "  after a secondary without sync: next kernel saw=%d\n", read(st.seen));

  cudaEvent_t e = nullptr;
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
  report("primary with ProgrammaticEvent", cudaLaunchKernelEx(&primary_config, primary, (volatile int*)st.flag, st.saw, st.data, 1, wait_cycles));
  report("wait for the programmatic event in another stream", cudaStreamWaitEvent(s2, e, 0));
  secondary<<<1, 32, 0, s2>>>(st.flag, st.data, st.seen);
  report("synchronize the waiting stream", cudaStreamSynchronize(s2));
  report("synchronize the primary's stream", cudaStreamSynchronize(s));
  if (overlap_lines)
    std::fprintf(out, "  programmatic event: overlap=%s\n", read(st.saw) == 2 ? "yes" : "no");
  else
    std::fprintf(out, "  programmatic event: seen after sync=%d\n", read(st.seen));
  cudaEventDestroy(e);
  cudaStreamDestroy(s);
  cudaStreamDestroy(s2);
}

int main() {
  // Unbuffered, so that a crash leaves every line printed before it.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::setvbuf(stderr, nullptr, _IONBF, 0);
  cudaFree(0);
  int* counter = nullptr;
  cudaMalloc(&counter, sizeof(int));
  launch_attributes(counter);
  stream_attributes(counter);
  node_attributes(counter);
  programmatic_edges(counter);
  pdl_state st = {};
  cudaMalloc(&st.flag, sizeof(int));
  cudaMalloc(&st.saw, sizeof(int));
  cudaMalloc(&st.data, sizeof(int));
  cudaMalloc(&st.seen, sizeof(int));
  // About 200 ms of an H100's 1.98 GHz clock; 0 for the value lines, so
  // that nothing waits.
  dependent_launch(st, 0, false);
  dependent_launch(st, 400000000LL, true);
  out = stdout;
  report("free", cudaFree(counter));
  return 0;
}
