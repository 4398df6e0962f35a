// cooperative_groups::coalesced_group: some lanes of one warp, ranked in
// lane order (coalesced_threads(), labeled_partition, binary_partition, and
// tiled_partition of a coalesced group).
//
// Ranks are compacted: the k-th lane of the mask has rank k. A shuffle by
// rank becomes __shfl_sync with the group's mask and the lane of that rank.
#pragma once

#include <bit>
#include <source_location>

#include "weft/cuda/device/cooperative_groups/thread_group.hpp"

namespace cooperative_groups {

class coalesced_group : public thread_group {
 public:
  unsigned int num_threads() const { return size_; }
  unsigned int size() const { return size_; }
  unsigned int thread_rank() const {
    return static_cast<unsigned>(std::popcount(mask_ & weft::detail::groups::lanes_below()));
  }
  unsigned int meta_group_rank() const { return meta_rank_; }
  unsigned int meta_group_size() const { return meta_size_; }
  void sync(std::source_location where = std::source_location::current()) const { __syncwarp(mask_, where); }

  /// The value of the thread of rank srcRank (taken modulo size(), as a
  /// tile's shuffle takes it modulo the tile's size).
  template <class T>
  T shfl(T var, int srcRank, std::source_location where = std::source_location::current()) const {
    return from_rank(var, lane_of(static_cast<unsigned>(srcRank) % size_), where);
  }
  /// The value of rank thread_rank() + delta; past the last rank, the caller's own.
  template <class T>
  T shfl_down(T var, unsigned int delta, std::source_location where = std::source_location::current()) const {
    unsigned long long source = thread_rank() + static_cast<unsigned long long>(delta);
    return from_rank(var, source < size_ ? lane_of(static_cast<unsigned>(source)) : weft::detail::groups::lane(),
                     where);
  }
  /// The value of rank thread_rank() - delta; before rank 0, the caller's own.
  template <class T>
  T shfl_up(T var, int delta, std::source_location where = std::source_location::current()) const {
    long long source = static_cast<long long>(thread_rank()) - delta;
    return from_rank(
        var, source >= 0 && source < size_ ? lane_of(static_cast<unsigned>(source)) : weft::detail::groups::lane(),
        where);
  }

  int any(int predicate, std::source_location where = std::source_location::current()) const {
    return __any_sync(mask_, predicate, where);
  }
  int all(int predicate, std::source_location where = std::source_location::current()) const {
    return __all_sync(mask_, predicate, where);
  }
  /// Bit k: the thread of rank k passed a non-zero predicate.
  unsigned int ballot(int predicate, std::source_location where = std::source_location::current()) const {
    return weft::detail::groups::pack_by_rank(mask_, __ballot_sync(mask_, predicate, where));
  }
  template <class T>
  unsigned int match_any(T value, std::source_location where = std::source_location::current()) const {
    return weft::detail::groups::pack_by_rank(mask_,
                                              __match_any_sync(mask_, weft::detail::groups::match_key(value), where));
  }
  template <class T>
  unsigned int match_all(T value, int& pred, std::source_location where = std::source_location::current()) const {
    return weft::detail::groups::pack_by_rank(
        mask_, __match_all_sync(mask_, weft::detail::groups::match_key(value), &pred, where));
  }

 private:
  coalesced_group(unsigned mask, unsigned meta_group_rank, unsigned meta_group_size)
      : thread_group(mask, meta_group_rank, meta_group_size) {}
  friend struct weft::detail::groups::access;

  unsigned lane_of(unsigned rank) const { return weft::detail::groups::lane_of_rank(mask_, rank); }

  template <class T>
  T from_rank(const T& var, unsigned source_lane, std::source_location where) const {
    return weft::detail::groups::shuffle_value(
        var, [&](unsigned long long w) { return __shfl_sync(mask_, w, static_cast<int>(source_lane), 32, where); });
  }
};

/// The lanes of the caller's warp that are converged with it, found with
/// __activemask (which waits until the warp's other lanes have arrived at the
/// same call, exited, or gone elsewhere).
inline coalesced_group coalesced_threads(std::source_location where = std::source_location::current()) {
  return weft::detail::groups::access::make<coalesced_group>(__activemask(where), 0u, 1u);
}

}  // namespace cooperative_groups
