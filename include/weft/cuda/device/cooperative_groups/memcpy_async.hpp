// cg::memcpy_async, cg::wait and cg::wait_prior<N>.
//
// On a GPU the copy runs in the background and wait makes it visible. Here
// each thread of the group copies its share (the bytes are cut into one
// contiguous piece per rank) at once, in memcpy_async, and wait and
// wait_prior synchronise the group, which is what makes every share visible
// to every thread of it. Reading the destination before the wait is, as in
// CUDA, a race: a thread may find the other threads' shares not yet copied,
// which a race-check build reports (detail/checks/race_async_copy.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "weft/cuda/device/cooperative_groups/thread_group.hpp"
#include "weft/detail/checks/race_async_copy_hooks.hpp"

namespace weft::detail::groups {

template <class Group>
void copy_share(const Group& g, void* dst, const void* src, std::size_t bytes, const std::source_location& where) {
  std::size_t threads = g.num_threads(), rank = g.thread_rank();
  std::size_t share = (bytes + threads - 1) / threads;
  std::size_t first = std::min(bytes, rank * share), last = std::min(bytes, first + share);
  if constexpr (race_check_build)  // every call counts, an empty share too: cg::wait_prior numbers them
    race_copy_async(static_cast<char*>(dst) + first, static_cast<const char*>(src) + first, last - first, 0,
                    {.wait = race_copy_wait::group}, "cg::memcpy_async", where);
  else if (last > first)
    std::memcpy(static_cast<char*>(dst) + first, static_cast<const char*>(src) + first, last - first);
}

/// cg::wait and cg::wait_prior<prior>, before the group's sync (the race
/// check's bookkeeping).
template <class Group>
void copies_waited(const Group& g, std::size_t prior) {
  if constexpr (race_check_build) race_group_copies_waited(prior, g.num_threads());
}

}  // namespace weft::detail::groups

namespace cooperative_groups {

/// Copies `shape` bytes from src to dst, shared among the threads of the
/// group, each of which must call it with the same arguments.
template <class Group, class TyElem, class TyShape>
requires std::is_convertible_v<TyShape, std::size_t>
void memcpy_async(const Group& group, TyElem* dst, const TyElem* src, const TyShape& shape,
                  std::source_location where = std::source_location::current()) {
  weft::detail::groups::copy_share(group, dst, src, static_cast<std::size_t>(shape), where);
}

/// Copies min(dstLayout, srcLayout) elements.
template <class Group, class TyElem, class TyDstLayout, class TySrcLayout>
requires std::is_convertible_v<TyDstLayout, std::size_t> && std::is_convertible_v<TySrcLayout, std::size_t>
void memcpy_async(const Group& group, TyElem* dst, const TyDstLayout& dstLayout, const TyElem* src,
                  const TySrcLayout& srcLayout, std::source_location where = std::source_location::current()) {
  std::size_t count = std::min(static_cast<std::size_t>(dstLayout), static_cast<std::size_t>(srcLayout));
  weft::detail::groups::copy_share(group, dst, src, count * sizeof(TyElem), where);
}

/// Waits for the group's copies: synchronises the group.
template <class Group>
void wait(const Group& group, std::source_location where = std::source_location::current()) {
  weft::detail::groups::copies_waited(group, 0);
  weft::detail::groups::sync_group(group, where);
}

/// Waits for all but the NumStages latest copies; the copies are done
/// already, so this synchronises the group, as wait does.
template <unsigned int NumStages, class Group>
void wait_prior(const Group& group, std::source_location where = std::source_location::current()) {
  weft::detail::groups::copies_waited(group, NumStages);
  weft::detail::groups::sync_group(group, where);
}

}  // namespace cooperative_groups
