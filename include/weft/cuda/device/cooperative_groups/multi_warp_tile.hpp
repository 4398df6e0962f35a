// cooperative_groups::thread_block_tile<Size> for Size 64 to 1024 (CUDA's
// multi-warp tiles), block_tile_memory, and this_thread_block(scratch).
//
// A multi-warp tile is Size consecutive threads of the block, aligned to
// Size: whole warps. Its collectives cannot be one warp collective, so they
// meet at a barrier of the tile's threads (a cuda::barrier per tile) and
// pass values through a scratch area, both kept by the worker that runs the
// block, as its __shared__ variables are, and made anew for each block.
// block_tile_memory is the scratch CUDA asks programs to declare for that
// on GPUs older than sm_80; weft needs none, so it is an empty marker.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>
#include <vector>

#include "weft/cuda/device/async/barrier.hpp"
#include "weft/cuda/device/cooperative_groups/thread_block.hpp"
#include "weft/cuda/device/cooperative_groups/tiled_partition.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"

namespace weft::detail::groups {

inline constexpr bool multi_warp_tile_size(unsigned size) {
  return size >= 64 && size <= 1024 && std::has_single_bit(size);
}

/// The running block's multi-warp tiles: a barrier and a scratch area each.
class multi_warp_tiles {
 public:
  static constexpr unsigned max_tiles = 1024 / 64;

  /// The running block's tiles of `size` threads, made anew when a new block
  /// (or a tile size not seen in this block) first asks.
  static multi_warp_tiles& of_running_block(unsigned size);

  void sync(unsigned tile, std::source_location where) { barriers_[tile].arrive_and_wait(where); }

  /// Tile `tile`'s barrier, which a stackless kernel awaits (weft/stackless_groups.hpp).
  cuda::barrier<cuda::thread_scope_block>& barrier(unsigned tile) { return barriers_[tile]; }

  /// Room for `count` values of `bytes` each, for tile `tile`.
  unsigned char* scratch(unsigned tile, std::size_t bytes) {
    std::vector<unsigned char>& area = scratch_[tile];
    if (area.size() < bytes) area.resize(bytes);
    return area.data();
  }

 private:
  const void* executor_ = nullptr;
  std::uint64_t block_ = ~0ull;
  unsigned size_ = 0;
  std::array<cuda::barrier<cuda::thread_scope_block>, max_tiles> barriers_;
  std::array<std::vector<unsigned char>, max_tiles> scratch_;
};

inline thread_local multi_warp_tiles worker_multi_warp_tiles;
// weft's state, not the kernel's shared memory (race_check.hpp).
inline const bool worker_multi_warp_tiles_untraced =
    !race_check_build ||
    race_untraced([]() -> const void* { return &worker_multi_warp_tiles; }, sizeof worker_multi_warp_tiles);

inline multi_warp_tiles& multi_warp_tiles::of_running_block(unsigned size) {
  multi_warp_tiles& tiles = worker_multi_warp_tiles;
  // The fiber executor's block, or the stackless executor's.
  const void* executor = running_block ? static_cast<const void*>(running_block) : running_stackless_block;
  std::uint64_t block = running_block             ? running_block->blocks_started()
                        : running_stackless_block ? running_stackless_block->blocks_started()
                                                  : 0;
  if (tiles.executor_ != executor || tiles.block_ != block || tiles.size_ != size) {
    tiles.executor_ = executor;
    tiles.block_ = block;
    tiles.size_ = size;
    for (auto& b : tiles.barriers_) init(&b, static_cast<std::ptrdiff_t>(size));
  }
  return tiles;
}

/// How cg::reduce and the scans reach a multi-warp tile's fold and scan,
/// which are not CUDA's API.
struct multi_warp_access {
  template <class Tile, class T, class Op>
  static T fold(const Tile& tile, T value, Op&& op, std::source_location where) {
    return tile.fold(value, op, where);
  }
  template <class Tile, class T, class Op>
  static T scan(const Tile& tile, T value, Op&& op, bool exclusive, std::source_location where) {
    return tile.scan(value, op, exclusive, where);
  }
};

/// What a thread of a multi-warp tile's scan gets from its warp's scan and
/// the totals of the warps below it, the same on both executors. `below`
/// is the inclusive value of the lane below in the warp (lane > 0).
/// `prefix` (op over the lower warps' totals) is there only for warp > 0;
/// it is the left operand, so an associative operator need not commute.
/// The exclusive scan gives rank 0 a value-initialised T, as cg::exclusive_scan does.
template <class T, class Op>
T multi_warp_scan_result(T inclusive, T below, unsigned lane, bool has_prefix, T prefix, Op& op, bool exclusive) {
  if (!exclusive) return has_prefix ? op(prefix, inclusive) : inclusive;
  if (lane > 0) return has_prefix ? op(prefix, below) : below;
  return has_prefix ? prefix : T{};
}

template <class T>
void store_value(unsigned char* slot, const T& value) {
  std::memcpy(slot, &value, sizeof(T));
}
template <class T>
T load_value(const unsigned char* slot) {
  T value;
  std::memcpy(&value, slot, sizeof(T));
  return value;
}

}  // namespace weft::detail::groups

namespace cooperative_groups {

/// Scratch for multi-warp tiles, which CUDA needs on GPUs before sm_80.
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {
 private:
  unsigned char unused_ = 0;
};

template <unsigned int MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
  return this_thread_block();
}

template <unsigned int Size>
requires(weft::detail::groups::multi_warp_tile_size(Size)) class thread_block_tile<Size, void> {
 public:
  static constexpr unsigned int num_threads() { return Size; }
  static constexpr unsigned int size() { return Size; }
  static unsigned int thread_rank() { return weft::detail::groups::block_rank() & (Size - 1); }
  unsigned int meta_group_rank() const { return meta_rank_; }
  unsigned int meta_group_size() const { return meta_size_; }

  void sync(std::source_location where = std::source_location::current()) const { tiles().sync(meta_rank_, where); }

  /// The value of the thread of rank `srcRank`.
  template <class T>
  T shfl(T var, unsigned int srcRank, std::source_location where = std::source_location::current()) const {
    static_assert(std::is_trivially_copyable_v<T>, "shfl moves trivially copyable values");
    auto& t = tiles();
    unsigned char* slot = t.scratch(meta_rank_, sizeof(T));
    if (thread_rank() == srcRank % Size) weft::detail::groups::store_value(slot, var);
    t.sync(meta_rank_, where);
    T value = weft::detail::groups::load_value<T>(slot);
    t.sync(meta_rank_, where);  // before the next collective writes the slot again
    return value;
  }

  int any(int predicate, std::source_location where = std::source_location::current()) const {
    return fold(
        predicate != 0 ? 1 : 0, [](int a, int b) { return a | b; }, where);
  }
  int all(int predicate, std::source_location where = std::source_location::current()) const {
    return fold(
        predicate != 0 ? 1 : 0, [](int a, int b) { return a & b; }, where);
  }

 protected:
  thread_block_tile(unsigned meta_group_rank, unsigned meta_group_size)
      : meta_rank_(meta_group_rank), meta_size_(meta_group_size) {}

 private:
  /// op over the tile's values, the same result (bit for bit) on every
  /// thread: each warp reduces its own lanes, then every thread folds the
  /// warps' results in order.
  template <class T, class Op>
  T fold(T value, Op&& op, std::source_location where) const {
    static_assert(std::is_trivially_copyable_v<T>, "reduce moves trivially copyable values");
    constexpr unsigned warps = Size / 32;
    for (unsigned offset = 16; offset > 0; offset /= 2) {
      T other = weft::detail::groups::shuffle_value(value, [&](unsigned long long w) {
        return __shfl_xor_sync(0xffffffffu, w, static_cast<int>(offset), 32, where);
      });
      value = op(value, other);
    }
    auto& t = tiles();
    unsigned char* slots = t.scratch(meta_rank_, warps * sizeof(T));
    unsigned warp = thread_rank() / 32;
    if (thread_rank() % 32 == 0) weft::detail::groups::store_value(slots + warp * sizeof(T), value);
    t.sync(meta_rank_, where);
    T result = weft::detail::groups::load_value<T>(slots);
    for (unsigned w = 1; w < warps; ++w)
      result = op(result, weft::detail::groups::load_value<T>(slots + w * sizeof(T)));
    t.sync(meta_rank_, where);
    return result;
  }

  /// op over the values of ranks up to the caller's (or below it, for
  /// `exclusive`): each warp scans its lanes with shfl_up, its last lane
  /// leaves the warp's total in the scratch, and every thread folds, in
  /// order, the totals of the warps below its own.
  template <class T, class Op>
  T scan(T value, Op&& op, bool exclusive, std::source_location where) const {
    static_assert(std::is_trivially_copyable_v<T>, "a scan moves trivially copyable values");
    constexpr unsigned warps = Size / 32;
    unsigned lane = thread_rank() % 32, warp = thread_rank() / 32;
    auto shfl_up_in_warp = [&](const T& v, unsigned delta) {
      return weft::detail::groups::shuffle_value(
          v, [&](unsigned long long w) { return __shfl_up_sync(0xffffffffu, w, delta, 32, where); });
    };
    T inclusive = value;
    for (unsigned d = 1; d < 32; d *= 2) {
      T lower = shfl_up_in_warp(inclusive, d);
      if (lane >= d) inclusive = op(lower, inclusive);
    }
    T below = shfl_up_in_warp(inclusive, 1);
    auto& t = tiles();
    unsigned char* totals = t.scratch(meta_rank_, warps * sizeof(T));
    if (lane == 31) weft::detail::groups::store_value(totals + warp * sizeof(T), inclusive);
    t.sync(meta_rank_, where);
    T prefix = weft::detail::groups::load_value<T>(totals);
    for (unsigned w = 1; w < warp; ++w)
      prefix = op(prefix, weft::detail::groups::load_value<T>(totals + w * sizeof(T)));
    t.sync(meta_rank_, where);  // before the next collective writes the totals again
    return weft::detail::groups::multi_warp_scan_result(inclusive, below, lane, warp > 0, prefix, op, exclusive);
  }

  static weft::detail::groups::multi_warp_tiles& tiles() {
    return weft::detail::groups::multi_warp_tiles::of_running_block(Size);
  }
  unsigned meta_rank_;
  unsigned meta_size_;
  friend struct weft::detail::groups::access;
  friend struct weft::detail::groups::multi_warp_access;
};

/// The caller's tile of Size (64 to 1024) threads of the block. The block's
/// size must be a multiple of Size, as CUDA requires: the tiles' barriers
/// count Size threads.
template <unsigned int Size>
requires(weft::detail::groups::multi_warp_tile_size(Size))
    thread_block_tile<Size, thread_block> tiled_partition(const thread_block& parent) {
  return weft::detail::groups::access::make<thread_block_tile<Size, thread_block>>(
      parent.thread_rank() / Size, (parent.num_threads() + Size - 1) / Size);
}

}  // namespace cooperative_groups

namespace weft::detail::groups {

template <class Group>
struct is_multi_warp_tile : std::false_type {};
template <unsigned int Size, class ParentT>
struct is_multi_warp_tile<cooperative_groups::thread_block_tile<Size, ParentT>>
    : std::bool_constant<multi_warp_tile_size(Size)> {};

}  // namespace weft::detail::groups
