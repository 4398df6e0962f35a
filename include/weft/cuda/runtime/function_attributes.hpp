// A kernel's attributes: cudaFuncSetAttribute, cudaFuncGetAttributes and the
// cache preferences. A kernel is a __global__ function, as in CUDA, or, as a
// weft extension, a lambda or functor (known by its type). The attributes
// are kept per device (detail/runtime/kernel_attributes.hpp).
#pragma once

#include <cstddef>
#include <type_traits>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/kernel_attributes.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/scheduler/kernel_identity.hpp"
#include "weft/detail/streams/device_control.hpp"

enum cudaFuncAttribute : int {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
  cudaFuncAttributeMax = 16,
};

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

enum cudaFuncCache : int {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3,
};

/// cudaFuncAttributeMaxDynamicSharedMemorySize raises a kernel's dynamic
/// shared memory limit from 48 KiB up to sm_90's 227 KiB;
/// cudaFuncAttributeNonPortableClusterSizeAllowed allows clusters of up to
/// 16 blocks instead of 8. The carveout and cluster scheduling preferences
/// are accepted and have no effect on a CPU; the required cluster shape is
/// the kernel's __cluster_dims__ and cannot be set.
template <class Kernel>
cudaError_t cudaFuncSetAttribute(Kernel&& kernel, cudaFuncAttribute attribute, int value) {
  using namespace weft::detail;
  if (cudaError_t e = check_not_forked()) return e;
  std::decay_t<Kernel> k = kernel;
  const void* id = kernel_identity(k);
  switch (attribute) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      if (value < 0 || static_cast<std::size_t>(value) > runtime::max_dynamic_shared_optin)
        return record(cudaErrorInvalidValue);
      runtime::get().update_attributes(id, [&](kernel_attributes& a) { a.max_dynamic_shared_bytes = value; });
      return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      return value >= -1 && value <= 100 ? cudaSuccess : record(cudaErrorInvalidValue);
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
      if (value != 0 && value != 1) return record(cudaErrorInvalidValue);
      runtime::get().update_attributes(id, [&](kernel_attributes& a) { a.non_portable_cluster_size = value == 1; });
      return cudaSuccess;
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
      return cudaSuccess;  // spreading or not: one block per worker either way
    default:
      return record(cudaErrorInvalidValue);
  }
}

/// No static shared, constant or local memory is counted (weft cannot see
/// a kernel's static __shared__ variables), and registers are not a limit.
template <class Kernel>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, Kernel&& func) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
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
