// cg::reduce: every thread of a tile or coalesced group gets op applied over
// all the group's values.
//
// Built from the group's shuffles. A tile (a power of two) exchanges values
// with shfl_xor, halving the distance each step, so every thread combines
// the same pairs and gets the same bits. A coalesced group of any size folds
// onto rank 0 with shfl_down and broadcasts the result. A tile's 32-bit
// integer sums, minima, maxima and bitwise reductions are one warp
// reduction instead, as CUDA's are (see single_instruction_reduction).
//
// cg::reduce_store_async(g, dst, val, op) is the same reduction, stored to
// *dst (a pointer, a cuda::atomic or a cuda::atomic_ref) by one thread of
// the group instead of returned, and cg::reduce_update_async(g, atomic,
// val, op) combines it into the atomic with op (relaxed, as CUDA's); as in
// CUDA, the group (or one holding it) synchronises before any thread reads
// the destination.
#pragma once

#include <bit>
#include <source_location>
#include <type_traits>

#include "weft/cuda/device/cooperative_groups/functional.hpp"
#include "weft/cuda/device/cooperative_groups/multi_warp_tile.hpp"
#include "weft/cuda/device/cooperative_groups/warp_group.hpp"
#include "weft/cuda/device/memory/atomic_ref.hpp"
#include "weft/cuda/device/sync/warp_functions.hpp"

namespace weft::detail::groups {

/// The reductions an sm_80 or later GPU does in one instruction (redux.sync):
/// a sum, minimum, maximum or bitwise operation of 32-bit integers. CUDA's
/// cg::reduce uses it for them on a tile, which decides what a tile that is
/// not whole gets: every thread the same result, over the threads it has.
template <class T, class Op>
inline constexpr bool single_instruction_reduction = (std::is_same_v<T, int> || std::is_same_v<T, unsigned>)&&(
    std::is_same_v<Op, cooperative_groups::plus<T>> || std::is_same_v<Op, cooperative_groups::less<T>> ||
    std::is_same_v<Op, cooperative_groups::greater<T>> || std::is_same_v<Op, cooperative_groups::bit_and<T>> ||
    std::is_same_v<Op, cooperative_groups::bit_or<T>> || std::is_same_v<Op, cooperative_groups::bit_xor<T>>);

template <class T, class Op>
T reduce_in_one_instruction(unsigned mask, T value, std::source_location where) {
  using cooperative_groups::bit_and, cooperative_groups::bit_or, cooperative_groups::bit_xor;
  auto bits = static_cast<unsigned>(value);
  if constexpr (std::is_same_v<Op, cooperative_groups::plus<T>>)
    return __reduce_add_sync(mask, value, where);
  else if constexpr (std::is_same_v<Op, cooperative_groups::less<T>>)
    return __reduce_min_sync(mask, value, where);
  else if constexpr (std::is_same_v<Op, cooperative_groups::greater<T>>)
    return __reduce_max_sync(mask, value, where);
  else if constexpr (std::is_same_v<Op, bit_and<T>>)
    return static_cast<T>(__reduce_and_sync(mask, bits, where));
  else if constexpr (std::is_same_v<Op, bit_or<T>>)
    return static_cast<T>(__reduce_or_sync(mask, bits, where));
  else
    return static_cast<T>(__reduce_xor_sync(mask, bits, where));
}

template <class T>
inline constexpr bool is_cuda_atomic = false;
template <class T, cuda::thread_scope Scope>
inline constexpr bool is_cuda_atomic<cuda::atomic<T, Scope>> = true;
template <class T, cuda::thread_scope Scope>
inline constexpr bool is_cuda_atomic<cuda::atomic_ref<T, Scope>> = true;

/// The destination of an atomic store or update, a cuda::atomic or a
/// cuda::atomic_ref, as an atomic_ref.
template <class T, cuda::thread_scope Scope>
cuda::atomic_ref<T, Scope> atomic_view(const cuda::atomic<T, Scope>& a) {
  return a.weft_ref();
}
template <class T, cuda::thread_scope Scope>
cuda::atomic_ref<T, Scope> atomic_view(const cuda::atomic_ref<T, Scope>& a) {
  return a;
}

/// Replaces the atomic's value v by op(v, value), relaxed, as CUDA's
/// update does: one atomic instruction for cg's operators, a
/// compare-and-swap loop for any other; returns the old value.
template <class T, cuda::thread_scope Scope, class Op>
T atomic_fetch_update(cuda::atomic_ref<T, Scope> ref, T value, Op& op) {
  using Fn = std::remove_cvref_t<Op>;
  constexpr auto relaxed = std::memory_order_relaxed;
  if constexpr (std::is_same_v<Fn, cooperative_groups::plus<T>>) {
    return ref.fetch_add(value, relaxed);
  } else if constexpr (std::is_same_v<Fn, cooperative_groups::less<T>>) {
    return ref.fetch_min(value, relaxed);
  } else if constexpr (std::is_same_v<Fn, cooperative_groups::greater<T>>) {
    return ref.fetch_max(value, relaxed);
  } else if constexpr (std::is_same_v<Fn, cooperative_groups::bit_and<T>>) {
    return ref.fetch_and(value, relaxed);
  } else if constexpr (std::is_same_v<Fn, cooperative_groups::bit_or<T>>) {
    return ref.fetch_or(value, relaxed);
  } else if constexpr (std::is_same_v<Fn, cooperative_groups::bit_xor<T>>) {
    return ref.fetch_xor(value, relaxed);
  } else {
    T old = ref.load(relaxed);
    while (!ref.compare_exchange_weak(old, static_cast<T>(op(old, value)), relaxed)) {
    }
    return old;
  }
}

/// The thread that stores or updates an asynchronous reduction's
/// destination: a tile's rank 0, a coalesced group's last rank, the threads
/// CUDA's implementation picks.
template <class Group>
unsigned storing_rank(const Group& g) {
  return is_tile<Group>::value ? 0u : g.num_threads() - 1;
}

}  // namespace weft::detail::groups

namespace cooperative_groups {

template <class Group, class T, class Op>
requires weft::detail::groups::warp_group<Group> std::remove_cvref_t<T> reduce(
    const Group& g, T&& val, Op&& op, std::source_location where = std::source_location::current()) {
  using value_type = std::remove_cvref_t<T>;
  static_assert(std::is_convertible_v<decltype(op(val, val)), value_type>, "the operator must return the value's type");
  value_type acc = val;
  if constexpr (weft::detail::groups::is_multi_warp_tile<Group>::value) {
    return weft::detail::groups::multi_warp_access::fold(g, acc, op, where);
  } else if constexpr (weft::detail::groups::is_tile<Group>::value &&
                       weft::detail::groups::single_instruction_reduction<value_type, std::remove_cvref_t<Op>>) {
    return weft::detail::groups::reduce_in_one_instruction<value_type, std::remove_cvref_t<Op>>(
        weft::detail::groups::tile_lanes<Group::num_threads()>(), acc, where);
  } else if constexpr (weft::detail::groups::is_tile<Group>::value) {
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

/// One thread stores cg::reduce(g, val, op) to *dst: a tile's rank 0 (any
/// tile size) or a coalesced group's last rank, the threads CUDA's
/// implementation picks. The others return without waiting for the store.
template <class Group, class TyVal, class TyInputVal, class TyFn>
requires weft::detail::groups::warp_group<Group>
void reduce_store_async(const Group& g, TyVal* dst, TyInputVal&& val, TyFn&& op,
                        std::source_location where = std::source_location::current()) {
  static_assert(std::is_same_v<TyVal, std::remove_cvref_t<TyInputVal>>,
                "the destination's type and the value's differ");
  TyVal result = reduce(g, val, op, where);
  if (g.thread_rank() == weft::detail::groups::storing_rank(g)) *dst = result;
}

/// One thread stores cg::reduce(g, val, op) to a cuda::atomic or
/// cuda::atomic_ref (relaxed).
template <class Group, class Atomic, class TyInputVal, class TyFn>
requires(weft::detail::groups::warp_group<Group>&& weft::detail::groups::is_cuda_atomic<
         std::remove_cvref_t<Atomic>>) void reduce_store_async(const Group& g, Atomic&& dst, TyInputVal&& val,
                                                               TyFn&& op,
                                                               std::source_location where =
                                                                   std::source_location::current()) {
  using value_type = typename std::remove_cvref_t<Atomic>::value_type;
  static_assert(std::is_same_v<value_type, std::remove_cvref_t<TyInputVal>>,
                "the atomic's type and the value's differ");
  value_type result = reduce(g, val, op, where);
  if (g.thread_rank() == weft::detail::groups::storing_rank(g))
    weft::detail::groups::atomic_view(dst).store(result, std::memory_order_relaxed);
}

/// One thread combines cg::reduce(g, val, op) into a cuda::atomic or
/// cuda::atomic_ref with op (with cg::plus, the sum is added to it).
template <class Group, class Atomic, class TyInputVal, class TyFn>
requires(weft::detail::groups::warp_group<Group>&& weft::detail::groups::is_cuda_atomic<
         std::remove_cvref_t<Atomic>>) void reduce_update_async(const Group& g, Atomic&& dst, TyInputVal&& val,
                                                                TyFn&& op,
                                                                std::source_location where =
                                                                    std::source_location::current()) {
  using value_type = typename std::remove_cvref_t<Atomic>::value_type;
  static_assert(std::is_same_v<value_type, std::remove_cvref_t<TyInputVal>>,
                "the atomic's type and the value's differ");
  value_type result = reduce(g, val, op, where);
  if (g.thread_rank() == weft::detail::groups::storing_rank(g))
    weft::detail::groups::atomic_fetch_update(weft::detail::groups::atomic_view(dst), result, op);
}

}  // namespace cooperative_groups
