// Groups cut from other groups at run time: tiled_partition(g, n),
// labeled_partition(g, label), binary_partition(g, pred).
//
// Each result is some lanes of the caller's warp. A tile size that is not a
// power of two from 1 to 32 (CUDA aborts the kernel) fails the launch with a
// report; the partitions by label are warp collectives over the parent's
// lanes, so lanes that do not all take part are reported as for __match_any_sync.
#pragma once

#include <algorithm>
#include <bit>
#include <source_location>
#include <type_traits>

#include "weft/cuda/device/cooperative_groups/coalesced_group.hpp"
#include "weft/cuda/device/cooperative_groups/thread_block.hpp"
#include "weft/cuda/device/cooperative_groups/thread_group.hpp"
#include "weft/cuda/device/cooperative_groups/tiled_partition.hpp"

namespace weft::detail::groups {

// The caller's tile of `tile_size` consecutive ranks of a block; the last
// tile holds what is left.
inline cooperative_groups::thread_group block_tile(unsigned tile_size) {
  check_tile_size("tiled_partition", tile_size);
  unsigned rank = block_rank(), count = block_size();
  unsigned first = rank & ~(tile_size - 1), length = std::min(count - first, tile_size);
  unsigned mask = (length == 32 ? ~0u : (1u << length) - 1) << (lane() & ~(tile_size - 1));
  return access::make<cooperative_groups::coalesced_group>(mask, rank / tile_size, (count + tile_size - 1) / tile_size);
}

// The caller's tile of `tile_size` consecutive ranks of a group of lanes; a
// group no larger than a tile is its own tile, as in CUDA.
inline cooperative_groups::coalesced_group lanes_tile(const cooperative_groups::thread_group& parent,
                                                      unsigned tile_size) {
  check_tile_size("tiled_partition", tile_size);
  unsigned mask = access::mask(parent), count = static_cast<unsigned>(std::popcount(mask));
  if (count <= tile_size)
    return access::make<cooperative_groups::coalesced_group>(mask, access::meta_group_rank(parent),
                                                             access::meta_group_size(parent));
  unsigned rank = static_cast<unsigned>(std::popcount(mask & lanes_below()));
  unsigned first = rank / tile_size * tile_size, tile = 0;
  for (unsigned r = first; r < std::min(first + tile_size, count); ++r) tile |= 1u << lane_of_rank(mask, r);
  return access::make<cooperative_groups::coalesced_group>(tile, rank / tile_size, (count + tile_size - 1) / tile_size);
}

template <class Group>
cooperative_groups::coalesced_group binary_partition(const Group& parent, bool pred, std::source_location where) {
  unsigned mask = access::mask(parent), set = __ballot_sync(mask, pred, where);
  if (set == mask || set == 0) return access::make<cooperative_groups::coalesced_group>(mask, 0u, 1u);
  return access::make<cooperative_groups::coalesced_group>(pred ? set : mask & ~set, pred ? 1u : 0u, 2u);
}

// Subgroups are ranked by their lowest lane.
template <class Group, class Label>
cooperative_groups::coalesced_group labeled_partition(const Group& parent, Label label, std::source_location where) {
  unsigned mask = access::mask(parent), same = __match_any_sync(mask, match_key(label), where);
  unsigned leader = static_cast<unsigned>(std::countr_zero(same));
  unsigned leaders = __ballot_sync(mask, leader == lane(), where);
  return access::make<cooperative_groups::coalesced_group>(
      same, static_cast<unsigned>(std::popcount(leaders & ((1u << leader) - 1))),
      static_cast<unsigned>(std::popcount(leaders)));
}

template <class Label>
inline constexpr bool is_label = std::is_integral_v<Label> || std::is_pointer_v<Label>;

}  // namespace weft::detail::groups

namespace cooperative_groups {

/// The caller's tile of tile_size consecutive ranks (a power of two up to 32)
/// of a block or of a group of lanes; the last tile may be smaller.
inline thread_group tiled_partition(const thread_group& parent, unsigned int tile_size) {
  using weft::detail::groups::access;
  if (access::is_block(parent)) return weft::detail::groups::block_tile(tile_size);
  return weft::detail::groups::lanes_tile(parent, tile_size);
}

inline thread_group tiled_partition(const thread_block&, unsigned int tile_size) {
  return weft::detail::groups::block_tile(tile_size);
}

/// A coalesced group stays one.
inline coalesced_group tiled_partition(const coalesced_group& parent, unsigned int tile_size) {
  return weft::detail::groups::lanes_tile(parent, tile_size);
}

/// The threads of the parent whose pred is the same as the caller's. Its
/// meta_group_rank is pred, with 2 groups, unless all agree (0 of 1).
inline coalesced_group binary_partition(const coalesced_group& parent, bool pred,
                                        std::source_location where = std::source_location::current()) {
  return weft::detail::groups::binary_partition(parent, pred, where);
}
template <unsigned int Size, class ParentT>
coalesced_group binary_partition(const thread_block_tile<Size, ParentT>& parent, bool pred,
                                 std::source_location where = std::source_location::current()) {
  return weft::detail::groups::binary_partition(parent, pred, where);
}

/// The threads of the parent whose label equals the caller's; subgroups are
/// ranked (meta_group_rank) in the order of their first threads.
template <class Label>
requires(weft::detail::groups::is_label<Label>) coalesced_group
    labeled_partition(const coalesced_group& parent, Label label,
                      std::source_location where = std::source_location::current()) {
  if constexpr (std::is_same_v<Label, bool>)
    return weft::detail::groups::binary_partition(parent, label, where);
  else
    return weft::detail::groups::labeled_partition(parent, label, where);
}
template <class Label, unsigned int Size, class ParentT>
requires(weft::detail::groups::is_label<Label>) coalesced_group
    labeled_partition(const thread_block_tile<Size, ParentT>& parent, Label label,
                      std::source_location where = std::source_location::current()) {
  if constexpr (std::is_same_v<Label, bool>)
    return weft::detail::groups::binary_partition(parent, label, where);
  else
    return weft::detail::groups::labeled_partition(parent, label, where);
}

}  // namespace cooperative_groups
