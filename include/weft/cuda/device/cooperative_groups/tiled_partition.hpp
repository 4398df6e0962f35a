// cooperative_groups::thread_block_tile<Size>, made by tiled_partition<Size>
// of a block or of a larger tile.
//
// A tile is Size consecutive threads of the block, aligned to Size, so it
// lies within one warp: its lanes are a mask of Size bits, and its
// collectives are weft's warp collectives with that mask and width Size.
#pragma once

#include <source_location>

#include "weft/cuda/device/cooperative_groups/thread_block.hpp"
#include "weft/cuda/device/cooperative_groups/thread_group.hpp"

namespace cooperative_groups {

template <unsigned int Size, class ParentT = void>
class thread_block_tile;

/// A tile whose parent is forgotten; every thread_block_tile<Size, P>
/// converts to it, and it converts to thread_group.
template <unsigned int Size>
class thread_block_tile<Size, void> : public thread_group {
  // CUDA's own limit for tiles of one warp (a compile error there too).
  static_assert(weft::detail::groups::valid_tile_size(Size), "Size must be one of 1/2/4/8/16/32");

 public:
  static constexpr unsigned int num_threads() { return Size; }
  static constexpr unsigned int size() { return Size; }
  static unsigned int thread_rank() { return weft::detail::groups::block_rank() & (Size - 1); }
  static void sync(std::source_location where = std::source_location::current()) { __syncwarp(lanes(), where); }

  /// Which tile of its parent this is, and how many the parent was cut into.
  unsigned int meta_group_rank() const { return meta_rank_; }
  unsigned int meta_group_size() const { return meta_size_; }

  template <class T>
  T shfl(T var, int srcRank, std::source_location where = std::source_location::current()) const {
    return weft::detail::groups::shuffle_value(
        var, [&](unsigned long long w) { return __shfl_sync(mask_, w, srcRank, Size, where); });
  }
  template <class T>
  T shfl_up(T var, unsigned int delta, std::source_location where = std::source_location::current()) const {
    return weft::detail::groups::shuffle_value(
        var, [&](unsigned long long w) { return __shfl_up_sync(mask_, w, delta, Size, where); });
  }
  template <class T>
  T shfl_down(T var, unsigned int delta, std::source_location where = std::source_location::current()) const {
    return weft::detail::groups::shuffle_value(
        var, [&](unsigned long long w) { return __shfl_down_sync(mask_, w, delta, Size, where); });
  }
  template <class T>
  T shfl_xor(T var, unsigned int laneMask, std::source_location where = std::source_location::current()) const {
    return weft::detail::groups::shuffle_value(
        var, [&](unsigned long long w) { return __shfl_xor_sync(mask_, w, static_cast<int>(laneMask), Size, where); });
  }

  int any(int predicate, std::source_location where = std::source_location::current()) const {
    return __any_sync(mask_, predicate, where);
  }
  /// Whether every thread of the tile passed a non-zero predicate: a tile
  /// that is not whole (past the block's end) has threads that pass none,
  /// so it answers 0, as on an H100.
  int all(int predicate, std::source_location where = std::source_location::current()) const {
    return __ballot_sync(mask_, predicate, where) == mask_;
  }
  /// Bit k: the thread of rank k passed a non-zero predicate.
  unsigned int ballot(int predicate, std::source_location where = std::source_location::current()) const {
    return __ballot_sync(mask_, predicate, where) >> first_lane();
  }
  /// The threads (bit k for rank k) whose value has the same bits as the caller's.
  template <class T>
  unsigned int match_any(T value, std::source_location where = std::source_location::current()) const {
    return __match_any_sync(mask_, weft::detail::groups::match_key(value), where) >> first_lane();
  }
  template <class T>
  unsigned int match_all(T value, int& pred, std::source_location where = std::source_location::current()) const {
    return __match_all_sync(mask_, weft::detail::groups::match_key(value), &pred, where) >> first_lane();
  }

 protected:
  thread_block_tile(unsigned meta_group_rank, unsigned meta_group_size)
      : thread_group(lanes(), meta_group_rank, meta_group_size) {}

 private:
  static unsigned lanes() { return weft::detail::groups::tile_lanes<Size>(); }
  static unsigned first_lane() { return weft::detail::groups::lane() & ~(Size - 1); }
};

/// A tile that remembers the type of the group it was cut from.
template <unsigned int Size, class ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
  thread_block_tile(unsigned meta_group_rank, unsigned meta_group_size)
      : thread_block_tile<Size, void>(meta_group_rank, meta_group_size) {}
  friend struct weft::detail::groups::access;
};

/// The caller's tile of Size threads of the block: tile k holds the threads
/// of ranks k*Size to k*Size+Size-1. A last tile that is not whole (the
/// block's size is not a multiple of Size) still says it has Size threads,
/// and its collectives run among the threads it has, as on an H100.
template <unsigned int Size>
requires(weft::detail::groups::valid_tile_size(Size))
    thread_block_tile<Size, thread_block> tiled_partition(const thread_block& parent) {
  return weft::detail::groups::access::make<thread_block_tile<Size, thread_block>>(
      parent.thread_rank() / Size, (parent.num_threads() + Size - 1) / Size);
}

/// The caller's tile of Size threads of a larger tile.
template <unsigned int Size, unsigned int ParentSize, class ParentT>
requires(weft::detail::groups::valid_tile_size(Size) && Size <= ParentSize)
    thread_block_tile<Size, thread_block_tile<ParentSize, ParentT>> tiled_partition(
        const thread_block_tile<ParentSize, ParentT>& parent) {
  return weft::detail::groups::access::make<thread_block_tile<Size, thread_block_tile<ParentSize, ParentT>>>(
      parent.thread_rank() / Size, ParentSize / Size);
}

}  // namespace cooperative_groups
