// Each device's default memory pool, the one cudaMallocAsync draws from. In
// weft a stream-ordered allocation is an ordinary allocation made at once
// (cuda/runtime/managed_memory.hpp), so a pool holds no memory of its own:
// it keeps the attributes a program sets, so that reading them back gives
// what was set, as CUDA does.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>

#include "weft/detail/base/devices.hpp"

struct CUmemPoolHandle_st {
  int device = 0;
  // The three reuse policies (CUDA enables them all by default) and the
  // release threshold (0 by default: memory goes back at each synchronisation).
  std::atomic<int> reuse_follow_event_dependencies{1};
  std::atomic<int> reuse_allow_opportunistic{1};
  std::atomic<int> reuse_allow_internal_dependencies{1};
  std::atomic<std::uint64_t> release_threshold{0};
};

namespace weft::detail {

/// The default pool of `device` (a valid device), made on first use and
/// kept for the life of the process, so that its handle stays valid.
inline CUmemPoolHandle_st* default_memory_pool(int device) {
  static std::mutex mutex;
  static std::deque<CUmemPoolHandle_st> pools;  // a deque never moves its elements
  std::lock_guard lock(mutex);
  while (pools.size() < static_cast<std::size_t>(device_count())) {
    pools.emplace_back();
    pools.back().device = static_cast<int>(pools.size()) - 1;
  }
  return &pools[static_cast<std::size_t>(device)];
}

/// Whether `pool` is one of the default pools.
inline bool known_memory_pool(const CUmemPoolHandle_st* pool) {
  if (!pool) return false;
  for (int d = 0; d < device_count(); ++d)
    if (pool == default_memory_pool(d)) return true;
  return false;
}

}  // namespace weft::detail
