// A memory pool's attributes (cudaMemPoolSetAttribute, cudaMemPoolGetAttribute):
// the reuse policies and release threshold a program sets and reads back,
// and the usage counters, which say what the pool's allocations hold
// (UsedMem) and what the pool holds, cached freed bytes included
// (ReservedMem), in the 512-byte granules weft counts
// (detail/runtime/memory_pool_state.hpp says why not a GPU's 2 MiB).
#pragma once

#include <cstdint>
#include <mutex>

#include "weft/cuda/runtime/driver_types.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/memory_pools.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/memory_pools.hpp"

namespace weft::surface {

/// A reuse policy or the release threshold, which a program sets; false for
/// another attribute.
inline bool set_pool_policy(cudaMemPool_t pool, cudaMemPoolAttr attr, const void* value) {
  switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
      pool->reuse_follow_event_dependencies = *static_cast<const int*>(value) != 0;
      return true;
    case cudaMemPoolReuseAllowOpportunistic:
      pool->reuse_allow_opportunistic = *static_cast<const int*>(value) != 0;
      return true;
    case cudaMemPoolReuseAllowInternalDependencies:
      pool->reuse_allow_internal_dependencies = *static_cast<const int*>(value) != 0;
      return true;
    case cudaMemPoolAttrReleaseThreshold:
      pool->release_threshold = *static_cast<const std::uint64_t*>(value);
      return true;
    default:
      return false;
  }
}

/// A high-water mark, which only resets to 0 (it then reads the current
/// value); false for another attribute or value.
inline bool reset_pool_high_mark(cudaMemPool_t pool, cudaMemPoolAttr attr, const void* value) {
  if (*static_cast<const std::uint64_t*>(value) != 0) return false;
  auto& usage = pool->usage;
  if (attr == cudaMemPoolAttrUsedMemHigh)
    usage.used_high = usage.used;
  else if (attr == cudaMemPoolAttrReservedMemHigh)
    usage.reserved_high = usage.reserved();
  else
    return false;
  return true;
}

/// A usage counter, read with the pools' lock held; false for another attribute.
inline bool read_pool_usage(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  auto& usage = pool->usage;
  auto* out = static_cast<std::uint64_t*>(value);
  switch (attr) {
    case cudaMemPoolAttrReservedMemCurrent:
      *out = usage.reserved();
      return true;
    case cudaMemPoolAttrReservedMemHigh:
      *out = usage.reserved_high;
      return true;
    case cudaMemPoolAttrUsedMemCurrent:
      *out = usage.used;
      return true;
    case cudaMemPoolAttrUsedMemHigh:
      *out = usage.used_high;
      return true;
    default:
      return false;
  }
}

}  // namespace weft::surface

/// The reuse policies take an int, the threshold and counters a 64-bit
/// unsigned integer, as in CUDA. The current counters cannot be set, and
/// the high-water marks only reset to 0.
inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void* value) {
  auto& pools = weft::detail::memory_pools::instance();
  std::lock_guard lock(pools.mutex());
  if (!pools.known_locked(memPool) || !value) return weft::detail::record(cudaErrorInvalidValue);
  if (weft::surface::set_pool_policy(memPool, attr, value) || weft::surface::reset_pool_high_mark(memPool, attr, value))
    return cudaSuccess;
  return weft::detail::record(cudaErrorInvalidValue);
}

inline cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void* value) {
  using weft::detail::record;
  auto& pools = weft::detail::memory_pools::instance();
  std::lock_guard lock(pools.mutex());
  if (!pools.known_locked(memPool) || !value) return record(cudaErrorInvalidValue);
  if (weft::surface::read_pool_usage(memPool, attr, value)) return cudaSuccess;
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
    default:
      return record(cudaErrorInvalidValue);
  }
}
