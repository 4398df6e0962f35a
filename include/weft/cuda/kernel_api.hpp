// Kernels through the runtime API: cudaLaunchKernel, cudaFuncGetAttributes,
// cache preferences, and the occupancy calculator.
//
// Occupancy is what weft runs: an SM worker runs one block at a time, so a
// valid block size gives one active block per multiprocessor, and the
// suggested launch is 1024-thread blocks (the most a block may have, which
// amortises the per-block cost best) on worker_count() blocks, one per worker.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "../detail/error_state.hpp"
#include "../detail/kernel_identity.hpp"
#include "../detail/runtime.hpp"
#include "../launch.hpp"
#include "error_codes.hpp"
#include "launch_api.hpp"
#include "stream_types.hpp"

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
cudaError_t launch_from_pointers(void (*func)(Params...), const launch_config& config, void** args,
                                 std::index_sequence<I...>) {
  return weft::launch(config, func, *static_cast<std::remove_cvref_t<Params>*>(args[I])...);
}

}  // namespace weft::detail

/// args[i] points to the i-th argument, of the kernel's i-th parameter type,
/// as in CUDA; the arguments are copied at the launch.
template <class... Params>
cudaError_t cudaLaunchKernel(void (*func)(Params...), dim3 gridDim, dim3 blockDim, void** args,
                             std::size_t sharedMem = 0, cudaStream_t stream = nullptr) {
  if (!func) return weft::detail::record(cudaErrorInvalidDeviceFunction);
  if (sizeof...(Params) > 0 && !args) return weft::detail::record(cudaErrorInvalidValue);
  return weft::detail::launch_from_pointers(func, weft::launch_config{gridDim, blockDim, sharedMem, stream}, args,
                                            std::index_sequence_for<Params...>{});
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
