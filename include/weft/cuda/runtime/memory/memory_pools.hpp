// Memory pools: each device's default pool and its attributes
// (cudaDeviceGetDefaultMemPool, cudaMemPoolSetAttribute, ...). weft makes a
// stream-ordered allocation at once from ordinary memory, so a pool only
// keeps what a program sets and reads back; the usage counters read 0.
// Pools of a program's own (cudaMemPoolCreate) are not provided.
#pragma once

#include <cstddef>
#include <cstdint>

#include "weft/cuda/runtime/driver_types.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/managed_memory.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/memory_pools.hpp"

struct cudaMemAccessDesc {
  cudaMemLocation location;
  cudaMemAccessFlags flags;
};

struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  cudaMemAllocationHandleType handleTypes;
  cudaMemLocation location;
  void* win32SecurityAttributes;
  std::size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};

inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  if (!memPool) return weft::detail::record(cudaErrorInvalidValue);
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  *memPool = weft::detail::default_memory_pool(device);
  return cudaSuccess;
}

/// The pool cudaMallocAsync uses on `device`: always its default pool.
inline cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device) {
  return cudaDeviceGetDefaultMemPool(memPool, device);
}

/// Accepts only the device's own default pool, the one pool weft has.
inline cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  if (memPool != weft::detail::default_memory_pool(device)) return weft::detail::record(cudaErrorInvalidValue);
  return cudaSuccess;
}

/// The reuse policies take an int, the threshold and counters a 64-bit
/// unsigned integer, as in CUDA. The current counters cannot be set, and
/// the high-water marks only reset to 0.
inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void* value) {
  using weft::detail::record;
  if (!weft::detail::known_memory_pool(memPool) || !value) return record(cudaErrorInvalidValue);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
      memPool->reuse_follow_event_dependencies = *static_cast<int*>(value) != 0;
      return cudaSuccess;
    case cudaMemPoolReuseAllowOpportunistic:
      memPool->reuse_allow_opportunistic = *static_cast<int*>(value) != 0;
      return cudaSuccess;
    case cudaMemPoolReuseAllowInternalDependencies:
      memPool->reuse_allow_internal_dependencies = *static_cast<int*>(value) != 0;
      return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
      memPool->release_threshold = *static_cast<std::uint64_t*>(value);
      return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
      return *static_cast<std::uint64_t*>(value) == 0 ? cudaSuccess : record(cudaErrorInvalidValue);
    default:
      return record(cudaErrorInvalidValue);
  }
}

inline cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void* value) {
  using weft::detail::record;
  if (!weft::detail::known_memory_pool(memPool) || !value) return record(cudaErrorInvalidValue);
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
      *static_cast<int*>(value) = memPool->reuse_follow_event_dependencies;
      return cudaSuccess;
    case cudaMemPoolReuseAllowOpportunistic:
      *static_cast<int*>(value) = memPool->reuse_allow_opportunistic;
      return cudaSuccess;
    case cudaMemPoolReuseAllowInternalDependencies:
      *static_cast<int*>(value) = memPool->reuse_allow_internal_dependencies;
      return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
      *static_cast<std::uint64_t*>(value) = memPool->release_threshold;
      return cudaSuccess;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemCurrent:
    case cudaMemPoolAttrUsedMemHigh:
      *static_cast<std::uint64_t*>(value) = 0;
      return cudaSuccess;
    default:
      return record(cudaErrorInvalidValue);
  }
}

/// A pool keeps no memory to release.
inline cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, std::size_t /*minBytesToKeep*/) {
  if (!weft::detail::known_memory_pool(memPool)) return weft::detail::record(cudaErrorInvalidValue);
  return cudaSuccess;
}
