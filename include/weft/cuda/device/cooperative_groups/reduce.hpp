// cg::reduce: every thread of a tile or coalesced group gets op applied over
// all the group's values.
//
// Built from the group's shuffles. A tile (a power of two) exchanges values
// with shfl_xor, halving the distance each step, so every thread combines
// the same pairs and gets the same bits. A coalesced group of any size folds
// onto rank 0 with shfl_down and broadcasts the result.
#pragma once

#include <bit>
#include <source_location>
#include <type_traits>

#include "weft/cuda/device/cooperative_groups/functional.hpp"
#include "weft/cuda/device/cooperative_groups/warp_group.hpp"

namespace cooperative_groups {

template <class Group, class T, class Op>
requires weft::detail::groups::warp_group<Group> std::remove_cvref_t<T> reduce(
    const Group& g, T&& val, Op&& op, std::source_location where = std::source_location::current()) {
  using value_type = std::remove_cvref_t<T>;
  static_assert(std::is_convertible_v<decltype(op(val, val)), value_type>, "the operator must return the value's type");
  value_type acc = val;
  if constexpr (weft::detail::groups::is_tile<Group>::value) {
    for (unsigned offset = Group::num_threads() / 2; offset > 0; offset /= 2)
      acc = op(acc, g.shfl_xor(acc, offset, where));
    return acc;
  } else {
    unsigned n = g.num_threads(), rank = g.thread_rank();
    for (unsigned offset = std::bit_ceil(n) / 2; offset > 0; offset /= 2) {
      value_type other = g.shfl_down(acc, offset, where);
      if (rank + offset < n) acc = op(acc, other);
    }
    return g.shfl(acc, 0, where);
  }
}

}  // namespace cooperative_groups
