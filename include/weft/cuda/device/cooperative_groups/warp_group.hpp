// Which groups cg::reduce and the scans take: those of one warp whose
// threads can exchange values, the tiles and the coalesced groups (as in
// CUDA, a thread_block or a plain thread_group is refused at compile time).
#pragma once

#include <type_traits>

#include "weft/cuda/device/cooperative_groups/coalesced_group.hpp"
#include "weft/cuda/device/cooperative_groups/tiled_partition.hpp"

namespace weft::detail::groups {

template <class Group>
struct is_tile : std::false_type {};
template <unsigned int Size, class ParentT>
struct is_tile<cooperative_groups::thread_block_tile<Size, ParentT>> : std::true_type {};

template <class Group>
concept warp_group = is_tile<Group>::value || std::is_same_v<Group, cooperative_groups::coalesced_group>;

}  // namespace weft::detail::groups
