// Region versions of stackless kernels: what weft-port writes beside a
// stackless kernel whose barriers every thread of a block provably reaches
// together, so that a block runs as a loop over its threads per stretch
// between barriers (docs/architecture.md, "Region versions";
// docs/porting.md, "Stackless kernels"). The port writes and registers
// them; a program does not write them by hand. WEFT_EXECUTOR=stackless runs
// the stackless kernels instead, for comparison. A race-check build's
// region versions read some `__shared__` arrays through
// weft::detail::untraced_read (weft-port --race-check).
#pragma once

#include <type_traits>

#include "weft/cuda/device/cooperative_groups/reduce.hpp"
#include "weft/detail/checks/untraced_read.hpp"
#include "weft/detail/coroutine_executor/region_block.hpp"
#include "weft/detail/coroutine_executor/region_exchange.hpp"
#include "weft/detail/coroutine_executor/stackless_grid.hpp"
#include "weft/detail/coroutine_executor/stackless_thread.hpp"

namespace weft {

/// A block's threads, as a region version's first parameter sees them.
using region_block = detail::region_block;

/// The block's operands at a warp shuffle that weft-port split.
using region_exchange = detail::region_exchange;
inline constexpr detail::warp_op region_shfl = detail::warp_op::shfl;
inline constexpr detail::warp_op region_shfl_up = detail::warp_op::shfl_up;
inline constexpr detail::warp_op region_shfl_down = detail::warp_op::shfl_down;
inline constexpr detail::warp_op region_shfl_xor = detail::warp_op::shfl_xor;

/// What thread `t` gets from `cg::reduce(tile, operand, op)` over its tile of
/// `Size` threads, where weft-port split the statement: the region before
/// put every thread's operand in `exchange`.
template <class T, unsigned Size, class Op>
T region_reduce(region_exchange& exchange, unsigned t, Op op) {
  constexpr bool one_instruction = detail::groups::single_instruction_reduction<T, Op>;
  if constexpr (one_instruction && std::is_same_v<Op, cooperative_groups::plus<T>>) {
    // A signed sum wraps, as redux.sync's does, instead of overflowing.
    auto wrapping_sum = [](T a, T b) { return static_cast<T>(static_cast<unsigned>(a) + static_cast<unsigned>(b)); };
    return exchange.reduce<T, Size, true>(t, wrapping_sum);
  } else {
    return exchange.reduce<T, Size, one_instruction>(t, op);
  }
}

/// What a region returns for its thread: region_go, or region_exit where the
/// kernel's `return;` ended it.
using region_step = detail::region_step;
inline constexpr region_step region_go = region_step::go;
inline constexpr region_step region_exit = region_step::exit;

/// What weft-port passes first to `each` for a region whose thread index is
/// unsigned (`unsigned t = threadIdx.x;`, or threadIdx.x itself): the loop
/// then counts the threads in unsigned, as the region does (a region
/// without it counts in int, for `int t = threadIdx.x;`).
inline constexpr detail::thread_counter<unsigned> region_counted_unsigned{};

/// What a region version needs of a launch's blocks (detail::region_shape):
/// region_warps_in_rows where its shuffles stand under an `if` that tests
/// threadIdx.x / 32, which names the warp only where each warp lies in one
/// row of the block; a launch of another shape runs the stackless kernel.
using region_shape = detail::region_shape;
inline constexpr region_shape region_any_block = region_shape::any;
inline constexpr region_shape region_warps_in_rows = region_shape::warps_in_rows;

/// Makes `Regions`, `void (weft::region_block&, Params...)`, run the blocks
/// of the stackless kernel `Kernel`, `weft::stackless_kernel (Params...)`,
/// wherever the stackless executor would run them and their shape fits
/// `Shape`. Returns true.
template <auto Kernel, auto Regions, region_shape Shape = region_any_block>
requires std::is_same_v<decltype(Regions), typename detail::region_function<decltype(Kernel)>::type>
bool register_region_version() {
  detail::region_version_of<Kernel> = Regions;
  detail::region_shape_of<Kernel> = Shape;
  return true;
}

}  // namespace weft
