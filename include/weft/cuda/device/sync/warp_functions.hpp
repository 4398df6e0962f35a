// Warp-level primitives (CUDA guide, "Warp Shuffle Functions", "Warp Vote
// Functions", "Warp Match Functions", "Warp Reduce Functions",
// "__syncwarp()"), as on sm_90.
//
// A warp is 32 consecutive linear thread ids of a block; the last warp may
// be partial. Each collective is a rendezvous of the lanes its mask names:
// lanes park until the last one arrives, which computes every lane's result
// (see block_executor::warp_collective). Lanes in different branches calling
// with disjoint masks complete among themselves, as with Volta's independent
// thread scheduling. A mask that omits the caller, names lanes past the
// block's end or lanes that have exited, and lanes that disagree on the
// collective or its mask, fail the launch with a report naming the kernel,
// block, warp, lanes and line: never a hang or silent garbage.
#pragma once

#include <bit>
#include <cstdint>
#include <source_location>
#include <stdexcept>
#include <string>

#include "weft/cuda/device/builtins.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

inline block_executor& warp_block(const char* what) {
  auto* block = running_block;
  if (!block) {
    if (running_stackless_block) refuse_blocking_call(what);
    throw std::logic_error(std::string(what) + " can only be called inside a kernel");
  }
  return *block;
}

// In a race-check build the collective is a call: inlined into the kernel
// (block_executor::warp_collective is always_inline), the executor's
// bookkeeping would be traced as the kernel's own accesses
// (cmake/weft_race_check_ignore.txt leaves out weft's functions only).
[[gnu::noinline]] inline warp_result untraced_warp_collective(block_executor& block, warp_op op, unsigned mask,
                                                              warp_operand operand, std::source_location where) {
  return block.warp_collective(op, mask, operand, where);
}

inline warp_result warp_call(warp_op op, unsigned mask, warp_operand operand, std::source_location where) {
  block_executor& block = warp_block("warp collectives");
  if constexpr (race_check_build)
    return untraced_warp_collective(block, op, mask, operand, where);
  else
    return block.warp_collective(op, mask, operand, where);
}

template <class T>
T shuffle(warp_op op, unsigned mask, T var, int lane, int width, std::source_location where) {
  check_shuffle_width(width);
  return from_bits<T>(warp_call(op, mask, {to_bits(var), lane, width}, where).value);
}

}  // namespace weft::detail

/// Waits until every lane `mask` names has reached a __syncwarp with that
/// mask (any call site, as on sm_70 and later), ordering their memory accesses.
inline void __syncwarp(unsigned mask = 0xffffffffu, std::source_location where = std::source_location::current()) {
  weft::detail::warp_call(weft::detail::warp_op::sync, mask, {}, where);
}

// Shuffles for each type CUDA declares them for. A source lane outside
// `mask` (undefined in CUDA) gives 0, as an H100 did.
#define WEFT_SHUFFLES(T)                                                                                              \
  inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize,                                       \
                       std::source_location where = std::source_location::current()) {                                \
    return weft::detail::shuffle(weft::detail::warp_op::shfl, mask, var, srcLane, width, where);                      \
  }                                                                                                                   \
  inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize,                                 \
                          std::source_location where = std::source_location::current()) {                             \
    return weft::detail::shuffle(weft::detail::warp_op::shfl_up, mask, var, static_cast<int>(delta), width, where);   \
  }                                                                                                                   \
  inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize,                               \
                            std::source_location where = std::source_location::current()) {                           \
    return weft::detail::shuffle(weft::detail::warp_op::shfl_down, mask, var, static_cast<int>(delta), width, where); \
  }                                                                                                                   \
  inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize,                                  \
                           std::source_location where = std::source_location::current()) {                            \
    return weft::detail::shuffle(weft::detail::warp_op::shfl_xor, mask, var, laneMask, width, where);                 \
  }
WEFT_SHUFFLES(int)
WEFT_SHUFFLES(unsigned int)
WEFT_SHUFFLES(long)
WEFT_SHUFFLES(unsigned long)
WEFT_SHUFFLES(long long)
WEFT_SHUFFLES(unsigned long long)
WEFT_SHUFFLES(float)
WEFT_SHUFFLES(double)
#undef WEFT_SHUFFLES

/// Bit n set iff lane n of `mask` passed a non-zero predicate.
inline unsigned __ballot_sync(unsigned mask, int predicate,
                              std::source_location where = std::source_location::current()) {
  return static_cast<unsigned>(
      weft::detail::warp_call(weft::detail::warp_op::ballot, mask, {predicate != 0}, where).value);
}

inline int __any_sync(unsigned mask, int predicate, std::source_location where = std::source_location::current()) {
  return static_cast<int>(weft::detail::warp_call(weft::detail::warp_op::any, mask, {predicate != 0}, where).value);
}

inline int __all_sync(unsigned mask, int predicate, std::source_location where = std::source_location::current()) {
  return static_cast<int>(weft::detail::warp_call(weft::detail::warp_op::all, mask, {predicate != 0}, where).value);
}

/// The lanes of the caller's warp converged with it. weft runs lanes one
/// after another, so it finds them by waiting: the caller parks until no
/// other thread of the block can run, then gets the lanes of its warp waiting
/// at the same __activemask call (lanes that exited or are in another branch
/// are left out, as on a GPU). Costs a context switch per lane, like a shuffle.
inline unsigned __activemask(std::source_location where = std::source_location::current()) {
  return weft::detail::warp_block("__activemask").active_mask(where);
}

// Match: the lanes of `mask` whose value has the same bits as the caller's.
#define WEFT_MATCHES(T)                                                                                                \
  inline unsigned __match_any_sync(unsigned mask, T value,                                                             \
                                   std::source_location where = std::source_location::current()) {                     \
    return static_cast<unsigned>(                                                                                      \
        weft::detail::warp_call(weft::detail::warp_op::match_any, mask, {weft::detail::to_bits(value)}, where).value); \
  }                                                                                                                    \
  inline unsigned __match_all_sync(unsigned mask, T value, int* pred,                                                  \
                                   std::source_location where = std::source_location::current()) {                     \
    auto r = weft::detail::warp_call(weft::detail::warp_op::match_all, mask, {weft::detail::to_bits(value)}, where);   \
    *pred = r.predicate;                                                                                               \
    return static_cast<unsigned>(r.value);                                                                             \
  }
WEFT_MATCHES(int)
WEFT_MATCHES(unsigned int)
WEFT_MATCHES(long)
WEFT_MATCHES(unsigned long)
WEFT_MATCHES(long long)
WEFT_MATCHES(unsigned long long)
WEFT_MATCHES(float)
WEFT_MATCHES(double)
#undef WEFT_MATCHES

// Reductions over the lanes of `mask` (sm_80 and later). Signed operands are
// sign-extended, so that min and max compare them as signed.
#define WEFT_REDUCE(name, T, op)                                                                                  \
  inline T name(unsigned mask, T value, std::source_location where = std::source_location::current()) {           \
    return static_cast<T>(weft::detail::warp_call(weft::detail::warp_op::op, mask,                                \
                                                  {static_cast<std::uint64_t>(static_cast<std::int64_t>(value))}, \
                                                  where)                                                          \
                              .value);                                                                            \
  }
WEFT_REDUCE(__reduce_add_sync, int, reduce_add)
WEFT_REDUCE(__reduce_add_sync, unsigned, reduce_add)
WEFT_REDUCE(__reduce_min_sync, int, reduce_min_signed)
WEFT_REDUCE(__reduce_min_sync, unsigned, reduce_min_unsigned)
WEFT_REDUCE(__reduce_max_sync, int, reduce_max_signed)
WEFT_REDUCE(__reduce_max_sync, unsigned, reduce_max_unsigned)
WEFT_REDUCE(__reduce_and_sync, unsigned, reduce_and)
WEFT_REDUCE(__reduce_or_sync, unsigned, reduce_or)
WEFT_REDUCE(__reduce_xor_sync, unsigned, reduce_xor)
#undef WEFT_REDUCE
