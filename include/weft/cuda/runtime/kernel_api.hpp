// Kernels through the runtime API: cudaLaunchKernel, cudaFuncGetAttributes,
// cache preferences, and the occupancy calculator.
//
// Occupancy is what weft runs: an SM worker runs one block at a time, so a
// valid block size gives one active block per multiprocessor, and the
// suggested launch is 1024-thread blocks (the most a block may have, which
// amortises the per-block cost best) on worker_count() blocks, one per worker.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "weft/detail/base/error_state.hpp"
#include "weft/detail/scheduler/kernel_identity.hpp"
#include "weft/detail/runtime/kernel_registry.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/launch.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/launch_api.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"

struct cudaFuncAttributes {
  std::size_t sharedSizeBytes;
  std::size_t constSizeBytes;
  std::size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8,
  cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10,
};

/// The members weft reads; the others a GPU uses for caching and
/// scheduling policies are padding here, as the union is 64 bytes in CUDA.
union cudaLaunchAttributeValue {
  char pad[64];
  int cooperative;
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } clusterDim;
  int programmaticStreamSerializationAllowed;
  int priority;
};

struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
};

// Default member initialisers: `cudaLaunchConfig_t config = {0};`, the
// guide's spelling, then draws no missing-initialiser warning.
struct cudaLaunchConfig_t {
  dim3 gridDim{};
  dim3 blockDim{};
  std::size_t dynamicSmemBytes = 0;
  cudaStream_t stream = nullptr;
  cudaLaunchAttribute* attrs = nullptr;
  unsigned int numAttrs = 0;
};

enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3,
};

namespace weft::detail {

template <class Kernel>
bool is_null_kernel(const Kernel& k) {
  if constexpr (std::is_pointer_v<Kernel>)
    return k == nullptr;
  else
    return false;
}

template <class... Params, std::size_t... I>
cudaError_t launch_from_pointers(void (*func)(Params...), const launch_config& config, const launch_options& options,
                                 void** args, std::index_sequence<I...>) {
  return launch_with(config, options, func, *static_cast<std::remove_cvref_t<Params>*>(args[I])...);
}

template <class... Params>
cudaError_t launch_registered(const void* func, const launch_config& config, const launch_options& options,
                              void** args) {
  auto typed = reinterpret_cast<void (*)(Params...)>(const_cast<void*>(func));
  if (sizeof...(Params) > 0 && !args) return record(cudaErrorInvalidValue);
  return launch_from_pointers(typed, config, options, args, std::index_sequence_for<Params...>{});
}

template <class... Params>
constexpr pointer_launcher launcher_for(void (*)(Params...)) {
  return &launch_registered<Params...>;
}

/// The registration the porting step writes for each non-template
/// __global__ function of a .cu file, `register_kernel<&k>()`: it makes
/// cudaLaunchKernel((void*)k, ...) and cudaLaunchCooperativeKernel work as in
/// CUDA, and every launch of k by address run the grid compiled for k.
template <auto Function>
bool register_kernel() {
  kernel_registry().add(reinterpret_cast<const void*>(Function),
                        {launcher_for(Function), &make_compiled_grid<Function>});
  return true;
}

/// The registration the porting step writes for __cluster_dims__(x, y, z).
template <class... Params>
bool register_cluster_dims(void (*func)(Params...), unsigned x, unsigned y, unsigned z) {
  compiled_cluster_dims().add(reinterpret_cast<const void*>(func), dim3(x, y, z));
  return true;
}

template <class... Params>
cudaError_t launch_by_pointer(void (*func)(Params...), const launch_config& config, const launch_options& options,
                              void** args) {
  if (!func) return record(cudaErrorInvalidDeviceFunction);
  return launch_registered<Params...>(reinterpret_cast<const void*>(func), config, options, args);
}

/// A kernel known by address only: launched if the porting step registered
/// it, else cudaErrorInvalidDeviceFunction (as CUDA reports for an address
/// that is no kernel).
inline cudaError_t launch_by_pointer(const void* func, const launch_config& config, const launch_options& options,
                                     void** args) {
  pointer_launcher launcher = func ? kernel_registry().find(func).launch : nullptr;
  if (!launcher) return record(cudaErrorInvalidDeviceFunction);
  return launcher(func, config, options, args);
}

/// cudaLaunchKernelEx's attributes as weft's launch options.
inline cudaError_t options_of(const cudaLaunchConfig_t* config, launch_options& options) {
  if (!config || (config->numAttrs > 0 && !config->attrs)) return cudaErrorInvalidValue;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    if (a.id == cudaLaunchAttributeCooperative)
      options.cooperative = a.val.cooperative != 0;
    else if (a.id == cudaLaunchAttributeClusterDimension)
      options.cluster = dim3(a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z);
  }
  return cudaSuccess;
}

inline launch_config config_of(const cudaLaunchConfig_t* c) {
  return launch_config{c->gridDim, c->blockDim, c->dynamicSmemBytes, c->stream};
}

}  // namespace weft::detail

/// args[i] points to the i-th argument, of the kernel's i-th parameter type,
/// as in CUDA; the arguments are copied at the launch. A kernel given as
/// `(void*)kernel` must be one the porting step registered (every
/// non-template __global__ function of a ported .cu file).
template <class... Params>
cudaError_t cudaLaunchKernel(void (*func)(Params...), dim3 gridDim, dim3 blockDim, void** args,
                             std::size_t sharedMem = 0, cudaStream_t stream = nullptr) {
  return weft::detail::launch_by_pointer(func, {gridDim, blockDim, sharedMem, stream}, {}, args);
}

inline cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                    std::size_t sharedMem = 0, cudaStream_t stream = nullptr) {
  return weft::detail::launch_by_pointer(func, {gridDim, blockDim, sharedMem, stream}, {}, args);
}

/// All blocks run at the same time, so that they may wait for each other
/// (this_grid().sync()). A grid larger than the SM workers can hold at once
/// (one block each) is refused with cudaErrorCooperativeLaunchTooLarge.
template <class... Params>
cudaError_t cudaLaunchCooperativeKernel(void (*func)(Params...), dim3 gridDim, dim3 blockDim, void** args,
                                        std::size_t sharedMem = 0, cudaStream_t stream = nullptr) {
  return weft::detail::launch_by_pointer(func, {gridDim, blockDim, sharedMem, stream}, {true}, args);
}

inline cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                               std::size_t sharedMem = 0, cudaStream_t stream = nullptr) {
  return weft::detail::launch_by_pointer(func, {gridDim, blockDim, sharedMem, stream}, {true}, args);
}

/// The extensible launch: cudaLaunchAttributeClusterDimension and
/// cudaLaunchAttributeCooperative take effect; the other attributes are
/// accepted and change nothing on a CPU.
template <class... Params, class... Args>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(Params...), Args&&... args) {
  weft::detail::launch_options options;
  if (cudaError_t e = weft::detail::options_of(config, options)) return weft::detail::record(e);
  if (!kernel) return weft::detail::record(cudaErrorInvalidDeviceFunction);
  return weft::detail::launch_with(weft::detail::config_of(config), options, kernel, std::forward<Args>(args)...);
}

inline cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  weft::detail::launch_options options;
  if (cudaError_t e = weft::detail::options_of(config, options)) return weft::detail::record(e);
  return weft::detail::launch_by_pointer(func, weft::detail::config_of(config), options, args);
}

/// No static shared, constant or local memory is counted (weft cannot see
/// a kernel's static __shared__ variables), and registers are not a limit.
template <class Kernel>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, Kernel&& func) {
  std::decay_t<Kernel> k = func;
  if (!attr) return weft::detail::record(cudaErrorInvalidValue);
  if (weft::detail::is_null_kernel(k)) return weft::detail::record(cudaErrorInvalidDeviceFunction);
  auto limit = weft::detail::runtime::get().attributes(weft::detail::kernel_identity(k)).max_dynamic_shared_bytes;
  *attr = {};
  attr->maxThreadsPerBlock = 1024;
  attr->ptxVersion = 90;
  attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = static_cast<int>(limit);
  attr->preferredShmemCarveout = -1;
  return cudaSuccess;
}

/// Cache preferences are accepted and change nothing on a CPU.
template <class Kernel>
cudaError_t cudaFuncSetCacheConfig(Kernel&& func, cudaFuncCache cacheConfig) {
  std::decay_t<Kernel> k = func;
  if (weft::detail::is_null_kernel(k)) return weft::detail::record(cudaErrorInvalidDeviceFunction);
  if (cacheConfig < cudaFuncCachePreferNone || cacheConfig > cudaFuncCachePreferEqual)
    return weft::detail::record(cudaErrorInvalidValue);
  return cudaSuccess;
}

inline cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache cacheConfig) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (cacheConfig < cudaFuncCachePreferNone || cacheConfig > cudaFuncCachePreferEqual)
    return weft::detail::record(cudaErrorInvalidValue);
  return cudaSuccess;
}

inline cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* cacheConfig) {
  if (!cacheConfig) return weft::detail::record(cudaErrorInvalidValue);
  *cacheConfig = cudaFuncCachePreferNone;
  return cudaSuccess;
}

/// 1 for a block the kernel can be launched with; 0 for one it cannot (too
/// many threads or too much dynamic shared memory), which is what CUDA's
/// calculator reports for a block that does not fit. A block size of 0 or
/// less is refused with cudaErrorInvalidValue.
template <class Kernel>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, Kernel&& func, int blockSize,
                                                          std::size_t dynamicSMemSize) {
  std::decay_t<Kernel> k = func;
  if (!numBlocks || blockSize <= 0) return weft::detail::record(cudaErrorInvalidValue);
  if (weft::detail::is_null_kernel(k)) return weft::detail::record(cudaErrorInvalidDeviceFunction);
  auto limit = weft::detail::runtime::get().attributes(weft::detail::kernel_identity(k)).max_dynamic_shared_bytes;
  *numBlocks = blockSize <= 1024 && dynamicSMemSize <= limit ? 1 : 0;
  return cudaSuccess;
}

/// The block size that uses a worker best (1024, or blockSizeLimit if it is
/// smaller) and the grid that keeps every worker busy (worker_count()).
template <class Kernel>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, Kernel func,
                                               std::size_t dynamicSMemSize = 0, int blockSizeLimit = 0) {
  if (!minGridSize || !blockSize || blockSizeLimit < 0) return weft::detail::record(cudaErrorInvalidValue);
  if (weft::detail::is_null_kernel(func)) return weft::detail::record(cudaErrorInvalidDeviceFunction);
  auto& rt = weft::detail::runtime::get();
  auto limit = rt.attributes(weft::detail::kernel_identity(func)).max_dynamic_shared_bytes;
  if (dynamicSMemSize > limit) {
    *minGridSize = 0;
    *blockSize = 0;
    return cudaSuccess;
  }
  *blockSize = blockSizeLimit > 0 && blockSizeLimit < 1024 ? blockSizeLimit : 1024;
  *minGridSize = static_cast<int>(rt.worker_count());
  return cudaSuccess;
}

namespace weft::detail {

/// The most blocks a cluster of `kernel` may have here: 8 (16 once the kernel
/// allows non-portable sizes, as on an H100), and no more than there are SM
/// workers to run them at once.
inline int max_cluster_size(const void* kernel) {
  auto& rt = runtime::get();
  int limit = rt.attributes(kernel).non_portable_cluster_size ? 16 : 8;
  return std::min(limit, static_cast<int>(rt.worker_count()));
}

}  // namespace weft::detail

template <class Kernel>
cudaError_t cudaOccupancyMaxPotentialClusterSize(int* clusterSize, Kernel func, const cudaLaunchConfig_t* config) {
  if (!clusterSize || !config) return weft::detail::record(cudaErrorInvalidValue);
  if (weft::detail::is_null_kernel(func)) return weft::detail::record(cudaErrorInvalidDeviceFunction);
  *clusterSize = weft::detail::max_cluster_size(weft::detail::kernel_identity(func));
  return cudaSuccess;
}

/// How many clusters of the configured shape can run at once: one block per
/// SM worker.
template <class Kernel>
cudaError_t cudaOccupancyMaxActiveClusters(int* numClusters, Kernel func, const cudaLaunchConfig_t* config) {
  using namespace weft::detail;
  if (!numClusters) return record(cudaErrorInvalidValue);
  launch_options options;
  if (cudaError_t e = options_of(config, options)) return record(e);
  if (is_null_kernel(func)) return record(cudaErrorInvalidDeviceFunction);
  const void* id = kernel_identity(func);
  dim3 cluster = options.cluster.x ? options.cluster : compiled_cluster_dims().find(id, dim3(0, 0, 0));
  if (cluster.x == 0) cluster = dim3(1, 1, 1);
  int size = static_cast<int>(weft::volume(cluster));
  *numClusters = size <= max_cluster_size(id) ? static_cast<int>(runtime::get().worker_count()) / size : 0;
  return cudaSuccess;
}
