// PTX's named barriers, as a kernel's inline PTX reaches them: what
// weft-port turns `asm volatile("bar.sync 1, 64;");`, `barrier.sync`,
// `bar.cta.sync` and `bar.arrive` into (docs/porting.md, "Inline PTX").
// A block has 16 barriers, ids 0 to 15; each completes once its thread
// count has arrived, by bar_sync (which waits) or bar_arrive (which does
// not), and is then ready for its next phase. Barrier 0 without a count is
// the one __syncthreads uses. Arrivals are counted by warp, as a GPU counts
// them (executor/named_barriers.hpp; docs/semantics.md, "Named barriers").
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>

#include "weft/cuda/device/sync/synchronization.hpp"
#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/executor/named_barriers.hpp"

namespace weft::detail {

/// The fiber executor, as named barriers see it.
inline const named_barrier_host& fiber_named_barrier_host() {
  static constexpr named_barrier_host host{
      [] { return running_block != nullptr; }, [] { return running_block->blocks_started(); },
      [](unsigned warp, bool by_thread) { return running_block->lanes_exited(warp, by_thread); },
      [](const void* token) { running_block->wake_all(token); }};
  return host;
}

inline unsigned named_barrier_arrival(unsigned id, unsigned threads, bool waits, const char* instruction,
                                      std::source_location where, named_reduction reduction = named_reduction::none,
                                      bool predicate = false) {
  block_executor* block = running_block;
  if (!block) {
    if (running_stackless_block)
      throw kernel_fault{cudaErrorLaunchFailure,
                         std::string(instruction) +
                             ": called without co_await in a stackless kernel, whose threads wait at a named "
                             "barrier with co_await weft::bar_sync(id, threads) and its kin "
                             "(weft/stackless_named_barriers.hpp)"};
    throw std::logic_error(std::string(instruction) + " can only be called inside a kernel");
  }
  named_barriers& barriers = named_barriers::of(fiber_named_barrier_host());
  unsigned thread = linear_thread_index(threadIdx, blockDim);
  const void* token = barriers.arrive(thread, static_cast<unsigned>(volume(blockDim)), id, threads, waits, reduction,
                                      predicate, instruction);
  if (!token) return barriers.result(thread);
  do {
    block->wait_on(token, instruction, &named_barriers::describe, where);
  } while (!barriers.released(thread));
  return barriers.result(thread);
}

}  // namespace weft::detail

namespace weft::ptx {

/// bar.sync id (barrier.sync id): waits at barrier `id` until every thread
/// of the block has arrived there. Barrier 0 is __syncthreads.
inline void bar_sync(unsigned id, std::source_location where = std::source_location::current()) {
  if (id == 0) return __syncthreads(where);
  weft::detail::named_barrier_arrival(id, 0, true, "bar.sync", where);
}

/// bar.sync id, threads: arrives at barrier `id` and waits until `threads`
/// threads (a multiple of 32) have arrived at it, by bar_sync or bar_arrive.
inline void bar_sync(unsigned id, unsigned threads, std::source_location where = std::source_location::current()) {
  weft::detail::named_barrier_arrival(id, threads, true, "bar.sync", where);
}

/// bar.arrive id, threads: arrives at barrier `id` without waiting, counting
/// towards the `threads` (a multiple of 32, not 0) its waiters wait for.
/// What the thread wrote before it is visible to those waiters once they go on.
inline void bar_arrive(unsigned id, unsigned threads, std::source_location where = std::source_location::current()) {
  if (threads == 0)
    throw weft::detail::kernel_fault{
        cudaErrorLaunchFailure,
        "bar.arrive on barrier " + std::to_string(id) + " without a thread count: bar.arrive needs one (not 0)"};
  weft::detail::named_barrier_arrival(id, threads, false, "bar.arrive", where);
}

/// bar.red.popc.u32 d, id, threads, p: bar_sync that returns how many of
/// the arriving threads passed a true `predicate`. Barrier 0 without a
/// count (`threads` 0) is __syncthreads_count.
inline unsigned bar_red_popc(unsigned id, unsigned threads, bool predicate,
                             std::source_location where = std::source_location::current()) {
  if (id == 0 && threads == 0) return static_cast<unsigned>(__syncthreads_count(predicate, where));
  return weft::detail::named_barrier_arrival(id, threads, true, "bar.red.popc", where,
                                             weft::detail::named_reduction::popc, predicate);
}

/// bar.red.and.pred: whether every arriving thread's `predicate` was true.
inline bool bar_red_and(unsigned id, unsigned threads, bool predicate,
                        std::source_location where = std::source_location::current()) {
  if (id == 0 && threads == 0) return __syncthreads_and(predicate, where) != 0;
  return weft::detail::named_barrier_arrival(id, threads, true, "bar.red.and", where,
                                             weft::detail::named_reduction::all, predicate) != 0;
}

/// bar.red.or.pred: whether any arriving thread's `predicate` was true.
inline bool bar_red_or(unsigned id, unsigned threads, bool predicate,
                       std::source_location where = std::source_location::current()) {
  if (id == 0 && threads == 0) return __syncthreads_or(predicate, where) != 0;
  return weft::detail::named_barrier_arrival(id, threads, true, "bar.red.or", where, weft::detail::named_reduction::any,
                                             predicate) != 0;
}

}  // namespace weft::ptx
