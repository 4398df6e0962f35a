// cooperative_groups::thread_group, the type every group converts to, and
// the free functions that take any group (CUDA guide, "Cooperative Groups").
//
// weft's groups are views onto what already exists: a thread block is the
// block executor's block, and every smaller group (a tile, a coalesced
// group, a partition) is a set of lanes of one warp, named by a lane mask,
// whose collectives are weft's warp collectives with that mask. So a group
// adds no synchronisation machinery, and misuse (lanes that diverge, a lane
// that never arrives) is reported exactly as for __shfl_sync or __syncwarp.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <string>
#include <type_traits>

#include "weft/cuda/device/builtins.hpp"
#include "weft/cuda/device/sync/synchronization.hpp"
#include "weft/cuda/device/sync/warp_functions.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail::groups {

inline unsigned block_rank() { return linear_thread_index(threadIdx, blockDim); }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned lane() { return block_rank() % 32; }
// The lanes of the warp below the caller's.
inline unsigned lanes_below() { return (1u << lane()) - 1; }

// The rank-th lane (counting from 0) that `mask` names.
inline unsigned lane_of_rank(unsigned mask, unsigned rank) {
  for (; rank != 0; --rank) mask &= mask - 1;
  return static_cast<unsigned>(std::countr_zero(mask));
}

// Lanes of `lanes` renumbered by their rank among the lanes of `mask`: what
// a group's ballot and match return, bit k standing for the thread of rank k.
inline unsigned pack_by_rank(unsigned mask, unsigned lanes) {
  unsigned packed = 0, rank = 0;
  for (unsigned m = mask; m != 0; m &= m - 1, ++rank)
    if (lanes >> std::countr_zero(m) & 1) packed |= 1u << rank;
  return packed;
}

[[noreturn]] inline void refuse(const std::string& why) { throw kernel_fault{cudaErrorLaunchFailure, why}; }

inline constexpr bool valid_tile_size(unsigned size) { return size >= 1 && size <= 32 && std::has_single_bit(size); }

// The lanes of the caller's tile of Size threads: Size bits at the caller's
// lane rounded down to Size.
template <unsigned Size>
unsigned tile_lanes() {
  return Size == 32 ? ~0u : ((1u << Size) - 1) << (lane() & ~(Size - 1));
}

inline void check_tile_size(const char* what, unsigned size) {
  if (!valid_tile_size(size))
    refuse(std::string(what) + ": tile size " + std::to_string(size) + " is not a power of two from 1 to 32");
}

// A group's shuffle moves any trivially copyable value, as CUDA's do: its
// bytes travel in 64-bit words, one warp shuffle each. `shuffle` is called
// with each word.
template <class T, class Shuffle>
T shuffle_value(const T& value, Shuffle shuffle) {
  static_assert(std::is_trivially_copyable_v<T>, "a group shuffles only trivially copyable values");
  constexpr std::size_t words = (sizeof(T) + 7) / 8;
  unsigned long long bits[words] = {};
  std::memcpy(bits, &value, sizeof(T));
  for (auto& word : bits) word = shuffle(word);
  std::array<unsigned char, sizeof(T)> bytes;
  std::memcpy(bytes.data(), bits, sizeof(T));
  return std::bit_cast<T>(bytes);
}

// What a match compares: weft's __match_*_sync take the types CUDA declares
// them for; a narrower integer or an enum is widened (equal values stay
// equal, different ones different), a pointer compared by address.
template <class T>
auto match_key(T value) {
  if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<unsigned long long>(value);
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<unsigned long long>(static_cast<std::underlying_type_t<T>>(value));
  } else if constexpr (std::is_floating_point_v<T>) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "match takes float or double");
    return value;
  } else {
    static_assert(std::is_integral_v<T>, "match takes an arithmetic value, an enum or a pointer");
    return static_cast<unsigned long long>(value);
  }
}

// Calls g.sync(where) where the group can name the caller's line (weft's
// groups), else g.sync().
template <class Group>
void sync_group(const Group& g, std::source_location where) {
  if constexpr (requires { g.sync(where); })
    g.sync(where);
  else
    g.sync();
}

struct access;

}  // namespace weft::detail::groups

namespace cooperative_groups {

/// Any group: a thread block, or some lanes of one warp (a tile, a
/// coalesced group, a partition). Groups made at run time
/// (tiled_partition(g, n)) have this type; every other group converts to it.
class thread_group {
 public:
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const { return kind_ == kind::block ? weft::detail::groups::block_size() : size_; }
  unsigned long long thread_rank() const {
    if (kind_ == kind::block) return weft::detail::groups::block_rank();
    return static_cast<unsigned>(std::popcount(mask_ & weft::detail::groups::lanes_below()));
  }
  void sync(std::source_location where = std::source_location::current()) const {
    if (kind_ == kind::block)
      __syncthreads(where);
    else
      __syncwarp(mask_, where);
  }

 protected:
  // What the group is. grid_group and cluster_group (grid_group.hpp,
  // cluster_group.hpp) do not convert to thread_group; a kind each would
  // let them.
  enum class kind : unsigned char { block, lanes };

  explicit thread_group(kind k) : kind_(k) {}
  thread_group(unsigned mask, unsigned meta_group_rank, unsigned meta_group_size)
      : kind_(kind::lanes),
        mask_(mask),
        size_(static_cast<unsigned>(std::popcount(mask))),
        meta_rank_(meta_group_rank),
        meta_size_(meta_group_size) {}

  kind kind_;
  unsigned mask_ = 0;  // for lanes: the lanes of the caller's warp in the group
  unsigned size_ = 0;
  unsigned meta_rank_ = 0;
  unsigned meta_size_ = 1;

  friend struct weft::detail::groups::access;
};

}  // namespace cooperative_groups

namespace weft::detail::groups {

// How the partitioning functions build groups and read their lanes: the
// groups' constructors are not CUDA's API, so they are private.
struct access {
  static bool is_block(const cooperative_groups::thread_group& g) {
    return g.kind_ == cooperative_groups::thread_group::kind::block;
  }
  static unsigned mask(const cooperative_groups::thread_group& g) { return g.mask_; }
  static unsigned meta_group_rank(const cooperative_groups::thread_group& g) { return g.meta_rank_; }
  static unsigned meta_group_size(const cooperative_groups::thread_group& g) { return g.meta_size_; }
  template <class Group, class... Arguments>
  static Group make(Arguments... arguments) {
    return Group(arguments...);
  }
};

}  // namespace weft::detail::groups

namespace cooperative_groups {

/// Synchronises the group, as g.sync().
template <class Group>
void sync(const Group& g, std::source_location where = std::source_location::current()) {
  weft::detail::groups::sync_group(g, where);
}

template <class Group>
auto thread_rank(const Group& g) -> decltype(g.thread_rank()) {
  return g.thread_rank();
}

template <class Group>
auto group_size(const Group& g) -> decltype(g.num_threads()) {
  return g.num_threads();
}

template <class Group>
auto num_threads(const Group& g) -> decltype(g.num_threads()) {
  return g.num_threads();
}

}  // namespace cooperative_groups
