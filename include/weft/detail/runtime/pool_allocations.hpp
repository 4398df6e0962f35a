// Allocations from a memory pool (cudaMallocAsync, cudaMallocFromPoolAsync):
// ordinary device allocations of the pool's device, so that every check
// (argument checks, the memory check, the race check) knows them as it knows
// cudaMalloc's, plus the pool each came from, so that freeing one counts it
// back to its pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "weft/detail/runtime/memory_pools.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail {

struct pool_allocation {
  CUmemPoolHandle_st* pool;
  std::uint64_t bytes;  // as the pool counts them
};

/// Every live pool allocation by address; guarded by memory_pools::mutex().
inline std::map<const void*, pool_allocation>& pool_allocations() {
  static auto* live = new std::map<const void*, pool_allocation>;  // outlives statics freeing late
  return *live;
}

/// `bytes` (> 0) from `pool` (a known pool), or null when the pool's maximum
/// size or the host's memory has no room.
inline void* allocate_from_pool(CUmemPoolHandle_st* pool, std::size_t bytes) {
  auto& pools = memory_pools::instance();
  std::lock_guard lock(pools.mutex());
  std::uint64_t counted = pool_bytes(bytes);
  if (!pool->usage.make_room(counted, pool->max_size)) return nullptr;
  void* p = runtime::get(pool->device).memory().allocate(bytes, memory_kind::device, allocation_registry::from_pool);
  if (!p) return nullptr;
  pool->usage.taken(counted);
  pool_allocations()[p] = {pool, counted};
  return p;
}

/// Runs `release` (which frees device memory at `p` and says whether it
/// did) and, if `p` was a pool's, counts it back to the pool. Under the pools'
/// lock, so that a new allocation at the same address cannot come between.
template <class Release>
bool release_to_pool(const void* p, Release release) {
  auto& pools = memory_pools::instance();
  std::lock_guard lock(pools.mutex());
  if (!release()) return false;
  auto it = pool_allocations().find(p);
  if (it != pool_allocations().end()) {
    it->second.pool->usage.returned(it->second.bytes);
    if (it->second.pool->destroyed) it->second.pool->usage.trim_to(0);
    pool_allocations().erase(it);
  }
  return true;
}

/// The pool `p` (the start of an allocation) came from, or null.
inline CUmemPoolHandle_st* pool_of(const void* p) {
  std::lock_guard lock(memory_pools::instance().mutex());
  auto it = pool_allocations().find(p);
  return it == pool_allocations().end() ? nullptr : it->second.pool;
}

/// cudaDeviceReset freed every allocation of `device`: its pools hold
/// nothing, those the program created are destroyed, and its default pool
/// is as new, as in the fresh context CUDA makes.
inline void reset_device_pools(int device) {
  auto& pools = memory_pools::instance();
  std::lock_guard lock(pools.mutex());
  for (auto it = pool_allocations().begin(); it != pool_allocations().end();) {
    if (it->second.pool->device != device) {
      ++it;
      continue;
    }
    it->second.pool->usage.returned(it->second.bytes);
    it->second.pool->usage.trim_to(0);
    it = pool_allocations().erase(it);
  }
  pools.reset_device_locked(device);
}

}  // namespace weft::detail
