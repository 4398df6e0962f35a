// Block-wide barriers (CUDA guide, "Synchronization Functions").
//
// Each barrier records where it was called from, so that threads waiting at
// different __syncthreads calls (undefined in CUDA: "likely to hang") are
// reported as a barrier divergence naming the threads and source lines,
// instead of hanging or pairing up silently. Threads that have exited count
// as arrived, as on sm_70 and later.
#pragma once

#include <atomic>
#include <source_location>
#include <stdexcept>

#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/fibers/fiber_sanitizer.hpp"

namespace weft::detail {

inline int block_barrier(barrier_kind kind, int predicate, std::source_location where) {
  auto* block = running_block;
  if (!block) {
    if (running_stackless_block) refuse_blocking_call(reports::barrier_name(kind));
    throw std::logic_error("__syncthreads and its variants can only be called inside a kernel");
  }
  return block->arrive_and_wait(kind, predicate, where);
}

}  // namespace weft::detail

inline void __syncthreads(std::source_location where = std::source_location::current()) {
  weft::detail::block_barrier(weft::detail::barrier_kind::sync, 0, where);
}

/// Returns how many threads of the block passed a non-zero predicate.
inline int __syncthreads_count(int predicate, std::source_location where = std::source_location::current()) {
  return weft::detail::block_barrier(weft::detail::barrier_kind::count, predicate, where);
}

/// Non-zero iff the predicate is non-zero for every thread that arrived.
inline int __syncthreads_and(int predicate, std::source_location where = std::source_location::current()) {
  return weft::detail::block_barrier(weft::detail::barrier_kind::all, predicate, where);
}

/// Non-zero iff the predicate is non-zero for any thread that arrived.
inline int __syncthreads_or(int predicate, std::source_location where = std::source_location::current()) {
  return weft::detail::block_barrier(weft::detail::barrier_kind::any, predicate, where);
}

namespace weft::detail {

/// The fence of __threadfence and __threadfence_system. ThreadSanitizer does
/// not model std::atomic_thread_fence (GCC warns that it is unsupported
/// there, in every file that calls it); under TSan the device atomics are
/// sequentially consistent instead (atomic_functions.hpp), which orders
/// what these fences order between them. What is left for the fence there
/// is the hardware and the compiler: a sequentially consistent
/// read-modify-write is a full barrier on x86 (a locked instruction), and on
/// a word of the worker's own, TSan takes it for no synchronisation between
/// blocks, so it hides no race.
inline void device_fence() {
  if constexpr (fiber_sanitizer::thread_sanitizer) {
    thread_local std::atomic<unsigned> own_word{0};
    own_word.fetch_add(1, std::memory_order_seq_cst);
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
}

}  // namespace weft::detail

// Memory fences (CUDA guide, "Memory Fence Functions"). Blocks run on
// different OS threads, so a device or system fence orders memory across
// cores; the threads of one block share one OS thread, so a block fence only
// has to stop the compiler from moving memory accesses across it.
inline void __threadfence_block() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  // The race check: an atomic write after it releases the thread's earlier
  // accesses to the threads of its block that acquire it.
  if constexpr (weft::detail::race_check_build)
    if (auto* race = weft::detail::race_running) race->thread_fenced();
}
inline void __threadfence() {
  weft::detail::device_fence();
  // The race check takes the block's earlier writes as published, for a
  // flag that another block reads after it (fence-plus-flag), and an atomic
  // write after it releases the thread's earlier accesses.
  if constexpr (weft::detail::race_check_build)
    if (auto* race = weft::detail::race_running) race->fenced();
}
// A system fence orders at least what a device fence does; weft's device
// and host share one memory, so it is the same fence (the race check's
// fence-plus-flag included).
inline void __threadfence_system() { __threadfence(); }
