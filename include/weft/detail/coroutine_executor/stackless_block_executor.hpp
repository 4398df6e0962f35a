// The stackless block executor: runs every CUDA thread of a block as a
// C++20 coroutine (a stackless kernel's, weft/stackless_kernel.hpp) on the
// worker's own stack, where the fiber executor (executor/block_executor.hpp)
// gives each thread that waits a stack of its own.
//
// A block runs in rounds. The first starts the threads in order, each
// running until it co_awaits a barrier or returns; each later round resumes
// the threads that wait, in the same order, until the next barrier. A
// thread's state between rounds is its coroutine frame, which comes from
// the worker's frame arena (frame_arena.hpp), so a block's frames are
// contiguous and a block allocates nothing once the arena fits them. A
// barrier costs a resume (an indirect call) per thread and no context
// switch: the 2.3-4.1 ns per thread and barrier of the prototype in issue 17.
//
// The rules are the fiber executor's, with its reports
// (executor/block_reports.hpp): threads that exited count as arrived at a
// barrier (sm_70 and later); threads that reach different barrier calls
// fail the block with a barrier divergence report; an exception escaping a
// thread fails the block naming the thread, its other threads do not start
// and those that wait are destroyed where they wait, so that their
// destructors run. With block barriers alone a block cannot deadlock: every
// round ends with each thread at a barrier or exited.
#pragma once

#include <bit>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/text_format.hpp"
#include "weft/detail/coroutine_executor/frame_arena.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/executor/block_reports.hpp"
#include "weft/detail/executor/builtin_variables.hpp"

namespace weft::detail {

/// Where a stackless thread waits: kept in its coroutine frame (the
/// promise), which the barrier touches anyway, and read only by a report.
struct barrier_arrival {
  barrier_kind kind{};
  std::source_location where{};
};

class stackless_block_executor {
 public:
  stackless_block_executor() = default;
  stackless_block_executor(const stackless_block_executor&) = delete;
  stackless_block_executor& operator=(const stackless_block_executor&) = delete;

  /// Runs blocks [first, end) of a grid, one after another. `start()` calls
  /// the kernel for the thread threadIdx names and returns what the call
  /// returns (whose handle() is the thread's coroutine, valid while it
  /// waits). `host` is the worker's fiber executor: its dynamic shared
  /// memory is the blocks' (a cluster publishes it), and it counts the
  /// blocks for the SM pool's watchdog. On failure, returns the code and
  /// the report, and the remaining blocks are skipped.
  template <class StartThread>
  block_failure run(StartThread& start, const block_range& blocks, block_executor& host,
                    std::size_t dynamic_shared_bytes);

  /// A thread arrives at a block barrier and is about to suspend.
  void arrive(barrier_arrival& arrival, barrier_kind kind, int predicate, std::source_location where) noexcept {
    arrival.kind = kind;
    arrival.where = where;
    if (arrivals_ == 0) {
      phase_kind_ = kind;
      phase_where_ = where;
    } else if (kind != phase_kind_ || !same_call_site(where, phase_where_)) [[unlikely]] {
      diverged_ = true;
    }
    ++arrivals_;
    predicate_count_ += predicate != 0;
  }

  /// The result of the barrier the resumed thread waited at.
  int barrier_result(barrier_kind kind) const noexcept {
    return detail::barrier_result(kind, last_count_, last_arrivals_);
  }

  /// The running thread let an exception escape (its promise's
  /// unhandled_exception): the block fails as on the fiber executor.
  [[gnu::cold]] void fail_running_thread(std::exception_ptr error) noexcept;

  /// The bytes of coroutine frames the block has taken so far.
  std::size_t frame_bytes() const { return frames_.used(); }

 private:
  struct waiting_thread {
    std::coroutine_handle<> handle;
    uint3 index;
  };

  template <class StartThread>
  void run_block(StartThread& start);
  bool complete_barrier(const waiting_thread* waiting, unsigned count);
  void advance(uint3& index) const;
  [[gnu::cold]] void fail(const std::string& message, cudaError_t code = cudaErrorLaunchFailure);
  [[gnu::cold]] static void destroy(const waiting_thread* first, const waiting_thread* last);
  [[gnu::cold]] std::string divergence_report(const waiting_thread* waiting, unsigned count) const;

  frame_arena frames_;
  unsigned thread_count_ = 0;
  // The threads that wait at the barrier, in the order they run next, and
  // the list the running round fills for the next: each has room for the
  // block and one more in front (see run_block).
  std::vector<waiting_thread> lists_[2];
  // The barrier the running round's threads arrive at: the first
  // arrival's, against which the others are checked.
  unsigned arrivals_ = 0;
  unsigned predicate_count_ = 0;
  barrier_kind phase_kind_{};
  std::source_location phase_where_{};
  bool diverged_ = false;
  // The completed barrier's result, which its threads read as they resume.
  unsigned last_count_ = 0;
  unsigned last_arrivals_ = 0;
  block_failure failure_;
};

template <class StartThread>
block_failure stackless_block_executor::run(StartThread& start, const block_range& blocks, block_executor& host,
                                            std::size_t dynamic_shared_bytes) {
  host.reserve_dynamic_shared(dynamic_shared_bytes);
  gridDim = blocks.grid;
  blockDim = blocks.block;
  thread_count_ = static_cast<unsigned>(volume(blocks.block));
  for (auto& list : lists_)
    if (list.size() < thread_count_ + 1) list.resize(thread_count_ + 1);
  failure_ = {};
  running_stackless_block = this;
  running_stackless_shared = host.dynamic_shared();
  running_frame_arena = &frames_;
  for (std::uint64_t claim = blocks.first; claim != blocks.end && !failure_; ++claim) {
    std::uint64_t block = blocks.claim_order.is_identity() ? claim : blocks.claim_order(claim);
    blockIdx = unflatten(block, blocks.grid);
    host.count_block_run_elsewhere();
    run_block(start);
  }
  running_stackless_block = nullptr;
  running_stackless_shared = nullptr;
  running_frame_arena = nullptr;
  return std::move(failure_);
}

// A thread that suspended bumped arrivals_; one that returned (or threw)
// did not. That one compare per thread is all the loop asks of a thread.
//
// The order is the fiber executor's, so that a kernel whose result depends
// on it (a race, the first thread to fail) gives the same on both: threads
// start in order; the thread whose arrival completes a barrier runs on
// first, then the others in the order they arrived. (A barrier that the
// last thread's exit completes has no such thread.) A round writes the
// threads that arrive from the second place of the other list on, so that
// the last, if it arrived last, moves to the front with one copy.
template <class StartThread>
void stackless_block_executor::run_block(StartThread& start) {
  frames_.start_block();
  arrivals_ = 0;
  predicate_count_ = 0;
  diverged_ = false;
  waiting_thread* next = lists_[0].data() + 1;
  unsigned kept = 0;
  bool last_arrived = false;
  uint3 index{0, 0, 0};
  for (unsigned t = 0; t < thread_count_; ++t) {
    threadIdx = index;
    unsigned before = arrivals_;
    std::coroutine_handle<> handle;
    try {
      handle = start().handle();
    } catch (...) {  // no room for its frame: the body has not run
      fail_running_thread(std::current_exception());
    }
    last_arrived = arrivals_ != before;
    if (last_arrived) {
      next[kept++] = {handle, index};
    } else if (failure_) [[unlikely]] {
      destroy(next, next + kept);
      return;
    }
    advance(index);
  }
  for (unsigned round = 1; kept != 0; ++round) {
    waiting_thread* waiting = next - 1;
    if (last_arrived)
      waiting[0] = waiting[kept];
    else
      ++waiting;
    unsigned count = kept;
    if (!complete_barrier(waiting, count)) {
      destroy(waiting, waiting + count);
      return;
    }
    next = lists_[round % 2].data() + 1;
    kept = 0;
    for (unsigned r = 0; r < count; ++r) {
      waiting_thread thread = waiting[r];
      threadIdx = thread.index;
      unsigned before = arrivals_;
      thread.handle.resume();
      last_arrived = arrivals_ != before;
      if (last_arrived) {
        next[kept++] = thread;
      } else if (failure_) [[unlikely]] {
        destroy(next, next + kept);
        destroy(waiting + r + 1, waiting + count);
        return;
      }
    }
  }
}

// Every thread that has not exited waits at the barrier: it completes,
// unless they wait at different ones.
inline bool stackless_block_executor::complete_barrier(const waiting_thread* waiting, unsigned count) {
  if (diverged_) [[unlikely]] {
    fail(divergence_report(waiting, count));
    return false;
  }
  last_count_ = predicate_count_;
  last_arrivals_ = arrivals_;
  arrivals_ = 0;
  predicate_count_ = 0;
  return true;
}

inline void stackless_block_executor::advance(uint3& index) const {
  if (++index.x < blockDim.x) return;
  index.x = 0;
  if (++index.y < blockDim.y) return;
  index.y = 0;
  ++index.z;
}

inline void stackless_block_executor::fail(const std::string& message, cudaError_t code) {
  if (failure_) return;
  std::string text = "block " + reports::describe_index(blockIdx);
  text += ", ";
  text += message;
  failure_ = {code, std::move(text)};
}

inline void stackless_block_executor::fail_running_thread(std::exception_ptr error) noexcept {
  try {
    try {
      std::rethrow_exception(error);
    } catch (const kernel_fault& fault) {
      fail(reports::describe_thread(threadIdx) + ": " + fault.what, fault.code);
    } catch (...) {
      fail(reports::describe_thread(threadIdx) + ": " + reports::describe_exception(error));
    }
  } catch (...) {  // no memory for the report: the block fails all the same
    failure_ = {cudaErrorLaunchFailure, {}};
  }
}

// The block failed: the threads that still wait are destroyed where they
// wait, which runs the destructors of what they hold, as the fiber
// executor's unwinding does.
inline void stackless_block_executor::destroy(const waiting_thread* first, const waiting_thread* last) {
  for (; first != last; ++first) first->handle.destroy();
}

}  // namespace weft::detail
