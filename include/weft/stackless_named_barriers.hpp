// PTX's named barriers in stackless kernels: weft::ptx::bar_sync and its kin
// (cuda/device/sync/ptx_barriers.hpp), awaited, as the instruction's name in
// namespace weft. weft-port writes them for a stackless kernel's inline PTX.
//
//   if (warp == 0) {
//     fill(buffer);
//     co_await weft::bar_arrive(1, 64);          // asm volatile("bar.arrive 1, 64;")
//   } else {
//     co_await weft::bar_sync(1, 64);            // asm volatile("bar.sync 1, 64;")
//     drain(buffer);
//   }
//   unsigned n = co_await weft::bar_red_popc(2, 128, p);   // bar.red.popc.u32
//
// The same barriers, counts, reports and counting by warp as on fibers
// (executor/named_barriers.hpp; docs/semantics.md, "Named barriers"): a
// thread that must wait parks on its barrier until the arrival that
// completes the phase (or counts its warp, for bar.arrive) wakes it, and a
// barrier that can never complete ends in the deadlock report. Barrier 0
// without a count is the block barrier, weft::syncthreads(). On the fiber
// executor (the same kernel under WEFT_EXECUTOR=fibers) the awaiter does
// not suspend: it waits as weft::ptx::bar_sync does.
#pragma once

#include <coroutine>
#include <source_location>
#include <stdexcept>
#include <string>

#include "weft/cuda/device/sync/ptx_barriers.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"
#include "weft/detail/coroutine_executor/stackless_function.hpp"
#include "weft/detail/executor/named_barriers.hpp"
#include "weft/stackless_kernel.hpp"

namespace weft::detail {

/// The stackless executor, as named barriers see it.
inline const named_barrier_host& stackless_named_barrier_host() {
  static constexpr named_barrier_host host{
      [] { return running_stackless_block != nullptr; },
      [] { return running_stackless_block->host()->blocks_started(); },
      [](unsigned warp, bool) { return running_stackless_block->lanes_exited(warp); },
      [](const void* token) { running_stackless_block->wake_all(token); }};
  return host;
}

class named_barrier_awaiter {
 public:
  named_barrier_awaiter(unsigned id, unsigned threads, bool waits, named_reduction reduction, bool predicate,
                        const char* instruction, std::source_location where)
      : id_(id),
        threads_(threads),
        waits_(waits),
        reduction_(reduction),
        predicate_(predicate),
        instruction_(instruction),
        where_(where) {}

  bool await_ready() {
    if (!running_stackless_block) {
      if (!running_block) throw std::logic_error(std::string(instruction_) + " can only be awaited inside a kernel");
      if (id_ == 0 && threads_ == 0) {
        result_ = static_cast<unsigned>(running_block->arrive_and_wait(block_kind(), predicate_, where_));
        return true;
      }
      result_ = named_barrier_arrival(id_, threads_, waits_, instruction_, where_, reduction_, predicate_);
      return true;
    }
    if (id_ == 0 && threads_ == 0) return false;  // the block barrier: the executor's round
    barriers_ = &named_barriers::of(stackless_named_barrier_host());
    thread_ = linear_thread_index(threadIdx, blockDim);
    token_ = barriers_->arrive(thread_, static_cast<unsigned>(volume(blockDim)), id_, threads_, waits_, reduction_,
                               predicate_, instruction_);
    if (token_) return false;
    result_ = barriers_->result(thread_);
    return true;
  }

  template <stackless_promise Promise>
  void await_suspend(std::coroutine_handle<Promise> waiting) {
    if (!token_) {
      running_stackless_block->arrive(block_kind(), predicate_, where_, &block_result_);
      return;
    }
    running_stackless_block->park_on_object(thread_coroutine(waiting), token_, instruction_, &named_barriers::describe,
                                            where_);
  }

  unsigned await_resume() const {
    if (token_) return barriers_->result(thread_);
    if (running_stackless_block && id_ == 0 && threads_ == 0) return static_cast<unsigned>(block_result_);
    return result_;
  }

 private:
  barrier_kind block_kind() const {
    switch (reduction_) {
      case named_reduction::popc:
        return barrier_kind::count;
      case named_reduction::all:
        return barrier_kind::all;
      case named_reduction::any:
        return barrier_kind::any;
      case named_reduction::none:
        break;
    }
    return barrier_kind::sync;
  }

  unsigned id_, threads_;
  bool waits_;
  named_reduction reduction_;
  bool predicate_;
  const char* instruction_;
  std::source_location where_;
  named_barriers* barriers_ = nullptr;
  const void* token_ = nullptr;
  unsigned thread_ = 0;
  unsigned result_ = 0;
  int block_result_ = 0;
};

}  // namespace weft::detail

namespace weft {

/// co_await weft::bar_sync(id): weft::ptx::bar_sync(id), waiting for every
/// thread of the block; barrier 0 is weft::syncthreads().
inline detail::named_barrier_awaiter bar_sync(unsigned id,
                                              std::source_location where = std::source_location::current()) {
  return {id, 0, true, detail::named_reduction::none, false, "bar.sync", where};
}

/// co_await weft::bar_sync(id, threads): weft::ptx::bar_sync(id, threads).
inline detail::named_barrier_awaiter bar_sync(unsigned id, unsigned threads,
                                              std::source_location where = std::source_location::current()) {
  return {id, threads, true, detail::named_reduction::none, false, "bar.sync", where};
}

/// co_await weft::bar_arrive(id, threads): weft::ptx::bar_arrive. It waits
/// only for the lanes of its own warp (their arrival counts once).
inline detail::named_barrier_awaiter bar_arrive(unsigned id, unsigned threads,
                                                std::source_location where = std::source_location::current()) {
  if (threads == 0)
    throw detail::kernel_fault{cudaErrorLaunchFailure, "bar.arrive on barrier " + std::to_string(id) +
                                                           " without a thread count: bar.arrive needs one (not 0)"};
  return {id, threads, false, detail::named_reduction::none, false, "bar.arrive", where};
}

/// co_await weft::bar_red_popc(id, threads, p): weft::ptx::bar_red_popc.
inline detail::named_barrier_awaiter bar_red_popc(unsigned id, unsigned threads, bool predicate,
                                                  std::source_location where = std::source_location::current()) {
  return {id, threads, true, detail::named_reduction::popc, predicate, "bar.red.popc", where};
}

/// co_await weft::bar_red_and(id, threads, p): weft::ptx::bar_red_and (non-zero or 0).
inline detail::named_barrier_awaiter bar_red_and(unsigned id, unsigned threads, bool predicate,
                                                 std::source_location where = std::source_location::current()) {
  return {id, threads, true, detail::named_reduction::all, predicate, "bar.red.and", where};
}

/// co_await weft::bar_red_or(id, threads, p): weft::ptx::bar_red_or (non-zero or 0).
inline detail::named_barrier_awaiter bar_red_or(unsigned id, unsigned threads, bool predicate,
                                                std::source_location where = std::source_location::current()) {
  return {id, threads, true, detail::named_reduction::any, predicate, "bar.red.or", where};
}

}  // namespace weft
