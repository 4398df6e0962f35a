// One memory pool of the stream-ordered allocator: its attributes, which
// device may reach its memory, and its usage counters.
//
// The counters are CUDA's (cudaMemPoolAttrUsedMem*, cudaMemPoolAttrReservedMem*):
// used is what live allocations hold, reserved is used plus what freed
// allocations left cached in the pool. weft gives freed memory back to the
// host's allocator at once, so that the memory check still sees a use after
// free; the cached bytes are the account a GPU's pool would keep, released as
// CUDA releases them (at a synchronisation, down to the release threshold, or
// by cudaMemPoolTrimTo). Bytes are counted in the 512-byte alignment of every
// device allocation, not in a GPU's 2 MiB granules: weft takes host memory
// allocation by allocation, and the counters say what it holds.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "weft/detail/base/devices.hpp"
#include "weft/detail/runtime/allocation_registry.hpp"

namespace weft::detail {

/// The most devices WEFT_DEVICES may name (devices.hpp's bound).
inline constexpr int max_pool_devices = 64;

/// The bytes a pool counts for an allocation of `bytes`.
inline std::uint64_t pool_bytes(std::size_t bytes) {
  constexpr std::uint64_t granule = allocation_registry::alignment;
  return (static_cast<std::uint64_t>(bytes) + granule - 1) / granule * granule;
}

/// A pool's usage in bytes; the caller serialises access (memory_pools.hpp's lock).
struct pool_usage {
  std::uint64_t used = 0;
  std::uint64_t cached = 0;  // freed, still reserved
  std::uint64_t used_high = 0;
  std::uint64_t reserved_high = 0;
  std::uint64_t live_allocations = 0;

  std::uint64_t reserved() const { return used + cached; }

  /// Whether `bytes` more fit under `limit` (0: no limit), releasing cached
  /// bytes to make room as a GPU's pool would.
  bool make_room(std::uint64_t bytes, std::uint64_t limit) {
    if (limit == 0) return true;
    if (used > limit || bytes > limit - used) return false;
    cached = std::min(cached, limit - used - bytes);
    return true;
  }

  /// An allocation of `bytes`, reusing cached bytes first.
  void taken(std::uint64_t bytes) {
    cached -= std::min(cached, bytes);
    used += bytes;
    ++live_allocations;
    used_high = std::max(used_high, used);
    reserved_high = std::max(reserved_high, reserved());
  }

  /// A free of `bytes`: they stay reserved, cached for the next allocation.
  void returned(std::uint64_t bytes) {
    used -= std::min(used, bytes);
    cached += bytes;
    --live_allocations;
  }

  /// Releases cached bytes until at most `keep` are reserved (never live ones).
  void trim_to(std::uint64_t keep) { cached = keep > used ? std::min(cached, keep - used) : 0; }
};

}  // namespace weft::detail

struct CUmemPoolHandle_st {
  int device = 0;
  bool is_default = false;
  // Destroyed by the program; a pool with live allocations stays until they
  // are freed (CUDA defers the destroy), and its handle is never reused.
  bool destroyed = false;
  std::uint64_t max_size = 0;  // cudaMemPoolProps::maxSize, 0: the host's memory
  // The three reuse policies (CUDA enables them all by default) and the
  // release threshold (0 by default: memory goes back at each synchronisation).
  std::atomic<int> reuse_follow_event_dependencies{1};
  std::atomic<int> reuse_allow_opportunistic{1};
  std::atomic<int> reuse_allow_internal_dependencies{1};
  std::atomic<std::uint64_t> release_threshold{0};
  weft::detail::pool_usage usage;
  // Whether each other device may reach the pool's memory (cudaMemPoolSetAccess):
  // cudaMemAccessFlags as an int, ProtNone (0) until granted.
  std::array<int, weft::detail::max_pool_devices> peer_access{};
};
