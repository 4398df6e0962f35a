// The stream-ordered allocator's pools: each device's default pool, the
// pools a program creates (cudaMemPoolCreate), and each device's current
// pool, the one cudaMallocAsync draws from. Pools are never deleted, only
// marked destroyed, so that a destroyed pool's handle is refused instead of
// naming memory that a new pool reuses; each keeps a few hundred bytes for
// the life of the process.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "weft/detail/base/devices.hpp"
#include "weft/detail/runtime/memory_pool_state.hpp"

namespace weft::detail {

class memory_pools {
 public:
  static memory_pools& instance() {
    // Never destroyed: allocations freed after main (a static's destructor)
    // still find their pool.
    static auto* pools = new memory_pools;
    return *pools;
  }

  /// Serialises every pool's usage, the current pools and the pool
  /// allocations (pool_allocations.hpp).
  std::mutex& mutex() { return mutex_; }

  /// The default pool of `device` (a valid device).
  CUmemPoolHandle_st* default_pool(int device) {
    std::lock_guard lock(mutex_);
    return default_pool_locked(device);
  }

  CUmemPoolHandle_st* current_pool(int device) {
    std::lock_guard lock(mutex_);
    CUmemPoolHandle_st* pool = current_.size() > static_cast<std::size_t>(device) ? current_[device] : nullptr;
    return pool ? pool : default_pool_locked(device);
  }

  void set_current_pool(int device, CUmemPoolHandle_st* pool) {
    std::lock_guard lock(mutex_);
    current_.resize(static_cast<std::size_t>(device_count()), nullptr);
    current_[static_cast<std::size_t>(device)] = pool;
  }

  CUmemPoolHandle_st* create(int device, std::uint64_t max_size) {
    std::lock_guard lock(mutex_);
    CUmemPoolHandle_st& pool = pools_.emplace_back();
    pool.device = device;
    pool.max_size = max_size;
    live_.insert(&pool);
    return &pool;
  }

  /// A pool the program may use: one of the default pools or a created pool
  /// not destroyed.
  bool known(const CUmemPoolHandle_st* pool) {
    std::lock_guard lock(mutex_);
    return known_locked(pool);
  }

  /// Destroys a created pool; its memory goes once its last allocation is
  /// freed. A device whose current pool it was goes back to its default pool.
  void destroy(CUmemPoolHandle_st* pool) {
    std::lock_guard lock(mutex_);
    destroy_locked(pool);
  }

  /// cudaDeviceReset, with mutex() held and the device's allocations gone:
  /// its created pools are destroyed and its default pool is as new.
  void reset_device_locked(int device) {
    std::vector<CUmemPoolHandle_st*> doomed;
    for (CUmemPoolHandle_st* pool : live_)
      if (pool->device == device) doomed.push_back(pool);
    for (CUmemPoolHandle_st* pool : doomed) destroy_locked(pool);
    CUmemPoolHandle_st& fresh = *default_pool_locked(device);
    fresh.reuse_follow_event_dependencies = fresh.reuse_allow_opportunistic = fresh.reuse_allow_internal_dependencies =
        1;
    fresh.release_threshold = 0;
    fresh.usage = {};
    fresh.peer_access = {};
  }

  /// At a synchronisation: each pool releases what it holds above its
  /// release threshold (CUDA's cudaMemPoolAttrReleaseThreshold).
  void release_above_thresholds() {
    std::lock_guard lock(mutex_);
    for (auto& pool : defaults_) pool.usage.trim_to(pool.release_threshold);
    // A destroyed pool caches nothing (destroy_locked, release_to_pool).
    for (CUmemPoolHandle_st* pool : live_) pool->usage.trim_to(pool->release_threshold);
  }

  /// With mutex() held.
  bool known_locked(const CUmemPoolHandle_st* pool) {
    if (!pool) return false;
    for (auto& p : defaults_)
      if (&p == pool) return true;
    return live_.contains(const_cast<CUmemPoolHandle_st*>(pool));  // only looked up
  }

 private:
  void destroy_locked(CUmemPoolHandle_st* pool) {
    pool->destroyed = true;
    live_.erase(pool);
    pool->usage.trim_to(0);
    for (auto& current : current_)
      if (current == pool) current = nullptr;
  }

  CUmemPoolHandle_st* default_pool_locked(int device) {
    while (defaults_.size() < static_cast<std::size_t>(device_count())) {
      CUmemPoolHandle_st& pool = defaults_.emplace_back();
      pool.device = static_cast<int>(defaults_.size()) - 1;
      pool.is_default = true;
    }
    return &defaults_[static_cast<std::size_t>(device)];
  }

  std::mutex mutex_;
  std::deque<CUmemPoolHandle_st> defaults_;   // a deque never moves its elements
  std::deque<CUmemPoolHandle_st> pools_;      // created by the program
  std::vector<CUmemPoolHandle_st*> current_;  // null: the device's default pool
  // The created pools not destroyed, so that a handle is checked at once
  // however many pools a program has made.
  std::unordered_set<CUmemPoolHandle_st*> live_;
};

/// The default pool of `device` (a valid device), kept for the life of the process.
inline CUmemPoolHandle_st* default_memory_pool(int device) { return memory_pools::instance().default_pool(device); }

inline bool known_memory_pool(const CUmemPoolHandle_st* pool) { return memory_pools::instance().known(pool); }

}  // namespace weft::detail
