// Launch, stream and graph kernel node attributes (CUDA 13's
// cudaLaunchAttributeID): each is accepted where CUDA 13 takes it and
// refused elsewhere, values out of CUDA's bounds are refused with its codes
// (and become the last error), and what a stream or a node stores reads back.
// The persisting L2 cache limit is bounded by persistingL2CacheMaxSize.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <weft/cuda/device/cooperative_groups.hpp>

#include <atomic>

#include "error_checks.hpp"

namespace cg = cooperative_groups;

namespace {

__global__ void count_blocks(int* counter) {
  if (threadIdx.x == 0) atomicAdd(counter, 1);
}

// Each block writes how many blocks its cluster has.
__global__ void cluster_sizes(int* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<int>(cg::this_cluster().num_blocks());
}

const bool attribute_kernels_registered =
    weft::register_kernel<&count_blocks>() && weft::register_kernel<&cluster_sizes>();

// A launch of count_blocks<<<4, 32>>> with one attribute.
cudaError_t launch_with(const cudaLaunchAttribute& a, int* counter) {
  cudaLaunchAttribute copy = a;
  cudaLaunchConfig_t config = {};
  config.gridDim = 4;
  config.blockDim = 32;
  config.attrs = &copy;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, count_blocks, counter);
}

cudaLaunchAttribute attribute(cudaLaunchAttributeID id) {
  cudaLaunchAttribute a{};
  a.id = id;
  return a;
}

int device_attribute(cudaDeviceAttr what) {
  int v = -1;
  REQUIRE(cudaDeviceGetAttribute(&v, what, 0) == cudaSuccess);
  return v;
}

cudaAccessPolicyWindow window(void* base, std::size_t bytes, float ratio = 0.5f,
                              cudaAccessProperty hit = cudaAccessPropertyPersisting,
                              cudaAccessProperty miss = cudaAccessPropertyStreaming) {
  return {base, bytes, ratio, hit, miss};
}

}  // namespace

TEST_CASE("cudaLaunchKernelEx accepts every launch attribute with a valid value") {
  REQUIRE(attribute_kernels_registered);
  int* counter = nullptr;
  REQUIRE(cudaMallocManaged(&counter, sizeof *counter) == cudaSuccess);
  *counter = 0;
  cudaEvent_t e = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess);
  std::vector<cudaLaunchAttribute> good;
  good.push_back(attribute(cudaLaunchAttributeIgnore));
  auto a = attribute(cudaLaunchAttributeAccessPolicyWindow);
  a.val.accessPolicyWindow = window(counter, 1 << 20);
  good.push_back(a);
  a = attribute(cudaLaunchAttributeCooperative);
  a.val.cooperative = 1;
  good.push_back(a);
  a = attribute(cudaLaunchAttributeClusterDimension);
  a.val.clusterDim = {2, 1, 1};
  good.push_back(a);
  a = attribute(cudaLaunchAttributeClusterSchedulingPolicyPreference);
  a.val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicySpread;
  good.push_back(a);
  a = attribute(cudaLaunchAttributeProgrammaticStreamSerialization);
  a.val.programmaticStreamSerializationAllowed = 1;
  good.push_back(a);
  a = attribute(cudaLaunchAttributeProgrammaticEvent);
  a.val.programmaticEvent.event = e;
  a.val.programmaticEvent.triggerAtBlockStart = 1;
  good.push_back(a);
  a = attribute(cudaLaunchAttributePriority);
  a.val.priority = -3;
  good.push_back(a);
  a = attribute(cudaLaunchAttributeMemSyncDomainMap);
  a.val.memSyncDomainMap = {0, 3};
  good.push_back(a);
  a = attribute(cudaLaunchAttributeMemSyncDomain);
  a.val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
  good.push_back(a);
  a = attribute(cudaLaunchAttributeLaunchCompletionEvent);
  a.val.launchCompletionEvent.event = e;
  good.push_back(a);
  a = attribute(cudaLaunchAttributePreferredSharedMemoryCarveout);
  a.val.sharedMemCarveout = 50;
  good.push_back(a);
  a = attribute(cudaLaunchAttributeNvlinkUtilCentricScheduling);
  a.val.nvlinkUtilCentricScheduling = 1;
  good.push_back(a);
  for (const auto& each : good) {
    CAPTURE(each.id);
    check_succeeded(launch_with(each, counter));
  }
  // All of them on one launch.
  cudaLaunchConfig_t config = {};
  config.gridDim = 4;
  config.blockDim = 32;
  config.attrs = good.data();
  config.numAttrs = static_cast<unsigned>(good.size());
  check_succeeded(cudaLaunchKernelEx(&config, count_blocks, counter));
  // The C form too.
  void* args[] = {&counter};
  check_succeeded(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(count_blocks), args));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*counter == 4 * static_cast<int>(good.size() + 2));
  cudaEventDestroy(e);
  cudaFree(counter);
}

TEST_CASE("cudaLaunchKernelEx refuses attributes CUDA does not take on a launch, and values out of bounds") {
  int* counter = nullptr;
  REQUIRE(cudaMallocManaged(&counter, sizeof *counter) == cudaSuccess);
  *counter = 0;
  cudaEvent_t untimed = nullptr, timed = nullptr, destroyed = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventCreate(&timed) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&destroyed, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventDestroy(destroyed) == cudaSuccess);
  auto max_window = static_cast<std::size_t>(device_attribute(cudaDevAttrMaxAccessPolicyWindowSize));
  CHECK(max_window == 128u << 20);  // an H100's

  struct refusal {
    const char* what;
    cudaLaunchAttribute a;
    cudaError_t code;
  };
  std::vector<refusal> bad;
  auto add = [&](const char* what, cudaLaunchAttribute a, cudaError_t code = cudaErrorInvalidValue) {
    bad.push_back({what, a, code});
  };
  auto a = attribute(cudaLaunchAttributeSynchronizationPolicy);
  a.val.syncPolicy = cudaSyncPolicySpin;
  add("a stream's synchronisation policy", a);
  a = attribute(cudaLaunchAttributeDeviceUpdatableKernelNode);
  add("a graph-only attribute (an H100's code)", a, cudaErrorNotSupported);
  add("an unknown ID", attribute(static_cast<cudaLaunchAttributeID>(15)));
  add("an ID past the last", attribute(static_cast<cudaLaunchAttributeID>(99)));
  a = attribute(cudaLaunchAttributeAccessPolicyWindow);
  a.val.accessPolicyWindow = window(counter, max_window + 1);
  add("a window larger than the device allows", a);
  a.val.accessPolicyWindow = window(counter, 4096, 1.5f);
  add("a hit ratio above 1", a);
  a.val.accessPolicyWindow = window(counter, 4096, -0.25f);
  add("a negative hit ratio", a);
  a.val.accessPolicyWindow = window(counter, 4096, 0.5f, cudaAccessPropertyNormal, cudaAccessPropertyPersisting);
  add("a persisting miss property", a);
  a = attribute(cudaLaunchAttributeClusterSchedulingPolicyPreference);
  a.val.clusterSchedulingPolicyPreference = static_cast<cudaClusterSchedulingPolicy>(3);
  add("an unknown cluster scheduling policy", a);
  a = attribute(cudaLaunchAttributeMemSyncDomain);
  a.val.memSyncDomain = static_cast<cudaLaunchMemSyncDomain>(2);
  add("an unknown domain", a);
  a = attribute(cudaLaunchAttributeMemSyncDomainMap);
  a.val.memSyncDomainMap = {4, 0};
  add("a domain past the H100's four", a);
  a = attribute(cudaLaunchAttributePreferredSharedMemoryCarveout);
  a.val.sharedMemCarveout = 101;
  add("a carveout above 100%", a);
  a = attribute(cudaLaunchAttributeNvlinkUtilCentricScheduling);
  a.val.nvlinkUtilCentricScheduling = 2;
  add("an NVLink hint other than 0 or 1", a);
  a = attribute(cudaLaunchAttributePreferredClusterDimension);
  a.val.preferredClusterDim = {0, 1, 1};
  add("a zero preferred cluster", a, cudaErrorInvalidClusterSize);
  a.val.preferredClusterDim = {4, 1, 1};
  add("a preferred cluster without a cluster (as an H100 answers)", a, cudaErrorInvalidClusterSize);
  a = attribute(cudaLaunchAttributeProgrammaticEvent);
  a.val.programmaticEvent.event = timed;
  add("a programmatic event that keeps timing (an H100's code)", a, cudaErrorNotSupported);
  a.val.programmaticEvent.event = untimed;
  a.val.programmaticEvent.flags = 1;
  add("a programmatic event with record flags (an H100's code)", a, cudaErrorIllegalState);
  a.val.programmaticEvent.event = destroyed;
  a.val.programmaticEvent.flags = 0;
  add("a destroyed programmatic event", a, cudaErrorInvalidResourceHandle);
  a = attribute(cudaLaunchAttributeLaunchCompletionEvent);
  a.val.launchCompletionEvent.event = timed;
  add("a launch completion event that keeps timing (an H100's code)", a, cudaErrorNotSupported);
  a = attribute(cudaLaunchAttributeClusterDimension);
  a.val.clusterDim = {3, 1, 1};
  add("a cluster that does not divide the grid", a, cudaErrorInvalidClusterSize);
  for (const auto& each : bad) {
    CAPTURE(each.what);
    check_failed_with(launch_with(each.a, counter), each.code);
  }
  // A preferred cluster must group whole clusters and divide the grid.
  cudaLaunchAttribute pair[2] = {attribute(cudaLaunchAttributeClusterDimension),
                                 attribute(cudaLaunchAttributePreferredClusterDimension)};
  pair[0].val.clusterDim = {2, 1, 1};
  pair[1].val.preferredClusterDim = {3, 1, 1};
  cudaLaunchConfig_t config = {};
  config.gridDim = 4;
  config.blockDim = 32;
  config.attrs = pair;
  config.numAttrs = 2;
  check_failed_with(cudaLaunchKernelEx(&config, count_blocks, counter), cudaErrorInvalidClusterSize);
  // Attributes without an array.
  config.attrs = nullptr;
  check_failed_with(cudaLaunchKernelEx(&config, count_blocks, counter), cudaErrorInvalidValue);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*counter == 0);  // no refused launch ran
  cudaEventDestroy(untimed);
  cudaEventDestroy(timed);
  cudaFree(counter);
}

TEST_CASE("a launch's cluster dimension attribute shapes its clusters") {
  int* sizes = nullptr;
  REQUIRE(cudaMallocManaged(&sizes, 4 * sizeof(int)) == cudaSuccess);
  auto a = attribute(cudaLaunchAttributeClusterDimension);
  a.val.clusterDim = {2, 1, 1};
  cudaLaunchConfig_t config = {};
  config.gridDim = 4;
  config.blockDim = 32;
  config.attrs = &a;
  config.numAttrs = 1;
  check_succeeded(cudaLaunchKernelEx(&config, cluster_sizes, sizes));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int b = 0; b < 4; ++b) CHECK(sizes[b] == 2);
  cudaFree(sizes);
}

TEST_CASE("stream attributes are checked, stored per stream and read back") {
  cudaStream_t s = nullptr, other = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  REQUIRE(cudaStreamCreate(&other) == cudaSuccess);
  int data[64];
  auto max_window = static_cast<std::size_t>(device_attribute(cudaDevAttrMaxAccessPolicyWindowSize));
  cudaStreamAttrValue v{}, back{};

  v.accessPolicyWindow = window(data, max_window, 1.0f, cudaAccessPropertyPersisting, cudaAccessPropertyNormal);
  check_succeeded(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
  cudaStreamAttrValue too_big = v;
  too_big.accessPolicyWindow.num_bytes = max_window + 1;
  check_failed_with(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &too_big), cudaErrorInvalidValue);
  cudaStreamAttrValue bad_ratio = v;
  bad_ratio.accessPolicyWindow.hitRatio = 1.01f;
  check_failed_with(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &bad_ratio),
                    cudaErrorInvalidValue);
  // A refused value leaves the stored one.
  check_succeeded(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
  CHECK(back.accessPolicyWindow.num_bytes == max_window);
  CHECK(back.accessPolicyWindow.hitRatio == 1.0f);
  // Another stream has its own.
  check_succeeded(cudaStreamGetAttribute(other, cudaStreamAttributeAccessPolicyWindow, &back));
  CHECK(back.accessPolicyWindow.num_bytes == 0);

  v = {};
  v.syncPolicy = cudaSyncPolicySpin;
  check_succeeded(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
  check_succeeded(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &back));
  CHECK(back.syncPolicy == cudaSyncPolicySpin);
  v.syncPolicy = static_cast<cudaSynchronizationPolicy>(5);
  check_failed_with(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v), cudaErrorInvalidValue);
  v.syncPolicy = static_cast<cudaSynchronizationPolicy>(0);
  check_failed_with(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v), cudaErrorInvalidValue);

  v = {};
  v.memSyncDomainMap = {1, 2};
  check_succeeded(cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &v));
  check_succeeded(cudaStreamGetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &back));
  CHECK(back.memSyncDomainMap.default_ == 1);
  CHECK(back.memSyncDomainMap.remote == 2);
  v.memSyncDomainMap = {0, 4};
  check_failed_with(cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomainMap, &v), cudaErrorInvalidValue);
  CHECK(device_attribute(cudaDevAttrMemSyncDomainCount) == 4);

  v = {};
  check_succeeded(cudaStreamGetAttribute(s, cudaStreamAttributeMemSyncDomain, &back));
  CHECK(back.memSyncDomain == cudaLaunchMemSyncDomainDefault);
  v.memSyncDomain = cudaLaunchMemSyncDomainRemote;
  check_succeeded(cudaStreamSetAttribute(s, cudaStreamAttributeMemSyncDomain, &v));
  check_succeeded(cudaStreamGetAttribute(s, cudaStreamAttributeMemSyncDomain, &back));
  CHECK(back.memSyncDomain == cudaLaunchMemSyncDomainRemote);

  // An H100 takes no NVLink hint on a stream.
  v = {};
  v.nvlinkUtilCentricScheduling = 1;
  check_failed_with(cudaStreamSetAttribute(s, cudaLaunchAttributeNvlinkUtilCentricScheduling, &v),
                    cudaErrorInvalidValue);

  // Launch-only and node-only attributes are not a stream's.
  for (auto id : {cudaLaunchAttributeProgrammaticStreamSerialization, cudaLaunchAttributeProgrammaticEvent,
                  cudaLaunchAttributeClusterDimension, cudaLaunchAttributeCooperative, cudaLaunchAttributeIgnore}) {
    CAPTURE(id);
    v = {};
    check_failed_with(cudaStreamSetAttribute(s, id, &v), cudaErrorInvalidValue);
    check_failed_with(cudaStreamGetAttribute(s, id, &back), cudaErrorInvalidValue);
  }
  cudaStreamDestroy(s);
  cudaStreamDestroy(other);
}

TEST_CASE("a stream's priority attribute is its priority, clamped to the device's range") {
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -1) == cudaSuccess);
  cudaStreamAttrValue v{}, back{};
  check_succeeded(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &back));
  CHECK(back.priority == -1);
  v.priority = -3;
  check_succeeded(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
  int priority = 0;
  REQUIRE(cudaStreamGetPriority(s, &priority) == cudaSuccess);
  CHECK(priority == -3);
  int least = 0, greatest = 0;
  REQUIRE(cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess);
  v.priority = greatest - 10;
  check_succeeded(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
  check_succeeded(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &back));
  CHECK(back.priority == greatest);
  v.priority = least + 10;
  check_succeeded(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
  check_succeeded(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &back));
  CHECK(back.priority == least);
  cudaStreamDestroy(s);
}

TEST_CASE("the persisting L2 cache limit is bounded by persistingL2CacheMaxSize") {
  auto most = static_cast<std::size_t>(device_attribute(cudaDevAttrMaxPersistingL2CacheSize));
  REQUIRE(most > 0);
  std::size_t before = 0, now = 0;
  check_succeeded(cudaDeviceGetLimit(&before, cudaLimitPersistingL2CacheSize));
  CHECK(before <= most);
  check_succeeded(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, most));
  check_succeeded(cudaDeviceGetLimit(&now, cudaLimitPersistingL2CacheSize));
  CHECK(now == most);
  check_failed_with(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, most + 1), cudaErrorInvalidValue);
  check_succeeded(cudaDeviceGetLimit(&now, cudaLimitPersistingL2CacheSize));
  CHECK(now == most);
  check_succeeded(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  check_succeeded(cudaDeviceGetLimit(&now, cudaLimitPersistingL2CacheSize));
  CHECK(now == 0);
  check_succeeded(cudaCtxResetPersistingL2Cache());
  check_succeeded(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, before));
}

namespace {

cudaGraphNode_t add_kernel_node(cudaGraph_t g, void* kernel, int* arg, unsigned blocks) {
  void* args[] = {&arg};
  cudaKernelNodeParams p = {};
  p.func = kernel;
  p.gridDim = blocks;
  p.blockDim = 32;
  p.kernelParams = args;
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddKernelNode(&n, g, nullptr, 0, &p) == cudaSuccess);
  return n;
}

}  // namespace

TEST_CASE("kernel node attributes are checked, stored on the node and copied between nodes") {
  REQUIRE(attribute_kernels_registered);
  int* counter = nullptr;
  REQUIRE(cudaMallocManaged(&counter, sizeof *counter) == cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t k = add_kernel_node(g, reinterpret_cast<void*>(count_blocks), counter, 4);
  cudaGraphNode_t other = add_kernel_node(g, reinterpret_cast<void*>(count_blocks), counter, 4);
  cudaGraphNode_t empty = nullptr;
  REQUIRE(cudaGraphAddEmptyNode(&empty, g, nullptr, 0) == cudaSuccess);

  cudaKernelNodeAttrValue v{}, back{};
  // Unset attributes read as zero.
  check_succeeded(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributePriority, &back));
  CHECK(back.priority == 0);
  check_succeeded(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributeAccessPolicyWindow, &back));
  CHECK(back.accessPolicyWindow.num_bytes == 0);

  v.priority = -2;
  check_succeeded(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributePriority, &v));
  check_succeeded(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributePriority, &back));
  CHECK(back.priority == -2);
  v = {};
  v.accessPolicyWindow = window(counter, 4096, 0.25f);
  check_succeeded(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeAccessPolicyWindow, &v));
  check_succeeded(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributeAccessPolicyWindow, &back));
  CHECK(back.accessPolicyWindow.base_ptr == counter);
  CHECK(back.accessPolicyWindow.hitRatio == 0.25f);
  v = {};
  v.memSyncDomain = cudaLaunchMemSyncDomainRemote;
  check_succeeded(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeMemSyncDomain, &v));

  // Refused: bad values, attributes of launches or streams only, other nodes.
  v = {};
  v.accessPolicyWindow = window(counter, 4096, 2.0f);
  check_failed_with(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeAccessPolicyWindow, &v),
                    cudaErrorInvalidValue);
  v = {};
  v.programmaticStreamSerializationAllowed = 1;
  check_failed_with(cudaGraphKernelNodeSetAttribute(k, cudaLaunchAttributeProgrammaticStreamSerialization, &v),
                    cudaErrorInvalidValue);
  check_failed_with(cudaGraphKernelNodeGetAttribute(k, cudaLaunchAttributeSynchronizationPolicy, &back),
                    cudaErrorInvalidValue);
  check_failed_with(cudaGraphKernelNodeSetAttribute(empty, cudaKernelNodeAttributePriority, &v), cudaErrorInvalidValue);
  check_failed_with(cudaGraphKernelNodeGetAttribute(empty, cudaKernelNodeAttributePriority, &back),
                    cudaErrorInvalidValue);
  check_failed_with(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributePriority, nullptr),
                    cudaErrorInvalidValue);
  check_failed_with(cudaGraphKernelNodeSetAttribute(nullptr, cudaKernelNodeAttributePriority, &v),
                    cudaErrorInvalidValue);
  v = {};
  v.clusterDim = {3, 1, 1};
  check_failed_with(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeClusterDimension, &v),
                    cudaErrorInvalidClusterSize);
  // The refused window left the stored one.
  check_succeeded(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributeAccessPolicyWindow, &back));
  CHECK(back.accessPolicyWindow.hitRatio == 0.25f);

  check_succeeded(cudaGraphKernelNodeCopyAttributes(other, k));
  check_succeeded(cudaGraphKernelNodeGetAttribute(other, cudaKernelNodeAttributePriority, &back));
  CHECK(back.priority == -2);
  check_succeeded(cudaGraphKernelNodeGetAttribute(other, cudaKernelNodeAttributeMemSyncDomain, &back));
  CHECK(back.memSyncDomain == cudaLaunchMemSyncDomainRemote);
  check_failed_with(cudaGraphKernelNodeCopyAttributes(empty, k), cudaErrorInvalidValue);

  // Setting parameters keeps the attributes.
  void* args[] = {&counter};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(count_blocks);
  p.gridDim = 2;
  p.blockDim = 32;
  p.kernelParams = args;
  check_succeeded(cudaGraphKernelNodeSetParams(k, &p));
  check_succeeded(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributePriority, &back));
  CHECK(back.priority == -2);

  // The graph runs with them: 2 + 4 blocks.
  *counter = 0;
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, cudaGraphInstantiateFlagUseNodePriority) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(*counter == 6);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
  cudaFree(counter);
}

TEST_CASE("a kernel node's cluster dimension attribute shapes its clusters when the graph runs") {
  REQUIRE(attribute_kernels_registered);
  int* sizes = nullptr;
  REQUIRE(cudaMallocManaged(&sizes, 4 * sizeof(int)) == cudaSuccess);
  cudaGraph_t g = nullptr;
  REQUIRE(cudaGraphCreate(&g, 0) == cudaSuccess);
  cudaGraphNode_t k = add_kernel_node(g, reinterpret_cast<void*>(cluster_sizes), sizes, 4);
  cudaKernelNodeAttrValue v{}, back{};
  v.clusterDim = {4, 1, 1};
  check_succeeded(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeClusterDimension, &v));
  check_succeeded(cudaGraphKernelNodeGetAttribute(k, cudaKernelNodeAttributeClusterDimension, &back));
  CHECK(back.clusterDim.x == 4);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, g, 0) == cudaSuccess);
  // Instantiation took a snapshot: a later change does not reach it.
  v.clusterDim = {2, 1, 1};
  check_succeeded(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeClusterDimension, &v));
  REQUIRE(cudaGraphLaunch(exec, 0) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int b = 0; b < 4; ++b) CHECK(sizes[b] == 4);
  cudaGraphExec_t second = nullptr;
  REQUIRE(cudaGraphInstantiate(&second, g, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(second, 0) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int b = 0; b < 4; ++b) CHECK(sizes[b] == 2);
  cudaGraphExecDestroy(exec);
  cudaGraphExecDestroy(second);
  cudaGraphDestroy(g);
  cudaFree(sizes);
}
