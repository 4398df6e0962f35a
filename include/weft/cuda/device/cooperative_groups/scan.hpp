// cg::inclusive_scan and cg::exclusive_scan over a tile or coalesced group,
// in rank order, with plus unless an operator is given.
//
// Built from the group's shfl_up (Hillis and Steele): after the step of
// distance d each thread holds op over the 2d values ending at its own,
// lower ranks as op's left operand, so an associative operator need not
// commute. The exclusive scan gives rank 0 a value-initialised T (0 for
// numbers), as CUDA's implementation does. A tile of 64 to 1024 threads
// scans each warp so, then folds the totals of the warps below through the
// tile's scratch (multi_warp_tile.hpp), as cg::reduce does there.
//
// cg::inclusive_scan_update and exclusive_scan_update(g, atomic, val[, op])
// do as CUDA's documentation writes them out: rank 0 combines the group's
// reduction into the atomic (relaxed), every thread gets the atomic's old
// value from it, and returns op(old, its scan); exclusive rank 0 gets old.
#pragma once

#include <source_location>
#include <type_traits>

#include "weft/cuda/device/cooperative_groups/functional.hpp"
#include "weft/cuda/device/cooperative_groups/multi_warp_tile.hpp"
#include "weft/cuda/device/cooperative_groups/reduce.hpp"
#include "weft/cuda/device/cooperative_groups/warp_group.hpp"

namespace weft::detail::groups {

/// Where a scan update starts: rank 0 combines the group's reduction into
/// the atomic with op; every thread gets the atomic's value from before.
template <class Group, class Atomic, class T, class Op>
T combine_reduction_into(const Group& g, Atomic& dst, const T& val, Op& op, std::source_location where) {
  T total = cooperative_groups::reduce(g, val, op, where), old{};
  if (g.thread_rank() == 0) old = atomic_fetch_update(atomic_view(dst), total, op);
  return g.shfl(old, 0, where);
}

}  // namespace weft::detail::groups

namespace cooperative_groups {

template <class Group, class T, class Op>
requires weft::detail::groups::warp_group<Group> std::remove_cvref_t<T> inclusive_scan(
    const Group& g, T&& val, Op&& op, std::source_location where = std::source_location::current()) {
  using value_type = std::remove_cvref_t<T>;
  static_assert(std::is_convertible_v<decltype(op(val, val)), value_type>, "the operator must return the value's type");
  value_type acc = val;
  if constexpr (weft::detail::groups::is_multi_warp_tile<Group>::value) {
    return weft::detail::groups::multi_warp_access::scan(g, acc, op, false, where);
  } else {
    unsigned n = g.num_threads(), rank = g.thread_rank();
    for (unsigned d = 1; d < n; d *= 2) {
      value_type lower = g.shfl_up(acc, d, where);
      if (rank >= d) acc = op(lower, acc);
    }
    return acc;
  }
}

template <class Group, class T>
requires weft::detail::groups::warp_group<Group> std::remove_cvref_t<T> inclusive_scan(
    const Group& g, T&& val, std::source_location where = std::source_location::current()) {
  return inclusive_scan(g, val, plus<std::remove_cvref_t<T>>(), where);
}

template <class Group, class T, class Op>
requires weft::detail::groups::warp_group<Group> std::remove_cvref_t<T> exclusive_scan(
    const Group& g, T&& val, Op&& op, std::source_location where = std::source_location::current()) {
  using value_type = std::remove_cvref_t<T>;
  static_assert(std::is_convertible_v<decltype(op(val, val)), value_type>, "the operator must return the value's type");
  if constexpr (weft::detail::groups::is_multi_warp_tile<Group>::value) {
    return weft::detail::groups::multi_warp_access::scan(g, value_type(val), op, true, where);
  } else {
    value_type inclusive = inclusive_scan(g, val, op, where);
    value_type lower = g.shfl_up(inclusive, 1, where);
    return g.thread_rank() == 0 ? value_type{} : lower;
  }
}

template <class Group, class T>
requires weft::detail::groups::warp_group<Group> std::remove_cvref_t<T> exclusive_scan(
    const Group& g, T&& val, std::source_location where = std::source_location::current()) {
  return exclusive_scan(g, val, plus<std::remove_cvref_t<T>>(), where);
}

template <class Group, class Atomic, class TyInputVal, class TyFn>
requires(weft::detail::groups::warp_group<Group>&& weft::detail::groups::is_cuda_atomic<std::remove_cvref_t<Atomic>>)
    typename std::remove_cvref_t<Atomic>::value_type
    inclusive_scan_update(const Group& g, Atomic&& dst, TyInputVal&& val, TyFn&& op,
                          std::source_location where = std::source_location::current()) {
  using value_type = typename std::remove_cvref_t<Atomic>::value_type;
  static_assert(std::is_same_v<value_type, std::remove_cvref_t<TyInputVal>>,
                "the atomic's type and the value's differ");
  value_type old = weft::detail::groups::combine_reduction_into(g, dst, val, op, where);
  return op(old, inclusive_scan(g, val, op, where));
}

template <class Group, class Atomic, class TyInputVal>
requires(weft::detail::groups::warp_group<Group>&& weft::detail::groups::is_cuda_atomic<std::remove_cvref_t<Atomic>>)
    typename std::remove_cvref_t<Atomic>::value_type
    inclusive_scan_update(const Group& g, Atomic&& dst, TyInputVal&& val,
                          std::source_location where = std::source_location::current()) {
  return inclusive_scan_update(g, dst, val, plus<std::remove_cvref_t<TyInputVal>>(), where);
}

template <class Group, class Atomic, class TyInputVal, class TyFn>
requires(weft::detail::groups::warp_group<Group>&& weft::detail::groups::is_cuda_atomic<std::remove_cvref_t<Atomic>>)
    typename std::remove_cvref_t<Atomic>::value_type
    exclusive_scan_update(const Group& g, Atomic&& dst, TyInputVal&& val, TyFn&& op,
                          std::source_location where = std::source_location::current()) {
  using value_type = typename std::remove_cvref_t<Atomic>::value_type;
  static_assert(std::is_same_v<value_type, std::remove_cvref_t<TyInputVal>>,
                "the atomic's type and the value's differ");
  value_type old = weft::detail::groups::combine_reduction_into(g, dst, val, op, where);
  value_type below = exclusive_scan(g, val, op, where);
  return g.thread_rank() == 0 ? old : op(old, below);
}

template <class Group, class Atomic, class TyInputVal>
requires(weft::detail::groups::warp_group<Group>&& weft::detail::groups::is_cuda_atomic<std::remove_cvref_t<Atomic>>)
    typename std::remove_cvref_t<Atomic>::value_type
    exclusive_scan_update(const Group& g, Atomic&& dst, TyInputVal&& val,
                          std::source_location where = std::source_location::current()) {
  return exclusive_scan_update(g, dst, val, plus<std::remove_cvref_t<TyInputVal>>(), where);
}

}  // namespace cooperative_groups
