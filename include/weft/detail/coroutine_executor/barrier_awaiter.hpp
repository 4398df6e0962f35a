// co_await on a block barrier in a stackless kernel (weft::syncthreads and
// its counting, and and or flavours, weft/stackless_kernel.hpp).
//
// On the stackless executor the awaiting thread arrives and suspends; the
// executor resumes it once the round's other threads have arrived or
// exited. On the fiber executor (the same kernel under WEFT_EXECUTOR=fibers)
// it suspends too, and its fiber's run loop waits at the fiber barrier,
// which parks the fiber, then resumes it, so the two executors share the
// barrier's rules and reports.
#pragma once

#include <coroutine>
#include <source_location>
#include <stdexcept>
#include <type_traits>

#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"
#include "weft/detail/coroutine_executor/stackless_function.hpp"
#include "weft/detail/coroutine_executor/stackless_thread.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/executor/block_reports.hpp"

namespace weft::detail {

template <barrier_kind Kind>
class barrier_awaiter {
 public:
  barrier_awaiter(int predicate, std::source_location where) : where_(where) {
    if constexpr (counting) operands_.predicate = predicate;
  }

  // The thread suspends on either executor. On fibers it leaves the wait
  // to its fiber's run loop (stackless_thread::finish_on_fiber), which
  // waits at the fiber barrier and resumes it: the kernel's coroutine then
  // makes no call here that returns into it, so it keeps its frame in no
  // register that a call preserves, a push and a pop fewer on every resume
  // (the block reduction -10%: docs/performance.md, log, 2026-11-29, h-P2).
  bool await_ready() const noexcept { return false; }

  // Only a stackless kernel's thread, in its body or in a stackless function
  // it awaits, can await it: another coroutine type does not compile.
  // Always inline, as the executor's arrive is: in a file of several
  // stackless kernels (weft_bench's suite) GCC 12 made this a function of
  // its own, which each barrier reached by a jump (the block reduction 4.5%
  // more instructions); inlined alone, it made arrive the call instead.
  template <stackless_promise Promise>
  [[gnu::always_inline]] void await_suspend(std::coroutine_handle<Promise>) noexcept {
    stackless_block_executor* block = running_stackless_block;
    if (!block) [[unlikely]] {
      if constexpr (race_check_build)
        leave_fiber_wait_untraced({&wait_on_fiber, this});
      else
        pending_fiber_wait = {&wait_on_fiber, this};
      return;
    }
    if constexpr (race_check_build) {
      if constexpr (counting)
        arrive_untraced(operands_.predicate, where_, &operands_.result);
      else
        arrive_untraced(0, where_, nullptr);
    } else if constexpr (counting) {
      block->arrive(Kind, operands_.predicate, where_, &operands_.result);
    } else {
      block->arrive(Kind, 0, where_, nullptr);
    }
  }

  // The stackless executor writes the result into the awaiter as the
  // barrier completes (GCC 12 may call await_resume late: warp_awaiter.hpp).
  auto await_resume() const noexcept {
    if constexpr (counting) return operands_.result;
  }

 private:
  // A plain __syncthreads has no predicate and gives no result: its
  // awaiter, which lives in the thread's frame, holds only its call site.
  static constexpr bool counting = Kind != barrier_kind::sync;
  struct counting_operands {
    int predicate = 0;
    int result = 0;
  };
  struct no_operands {};
  int predicate() const {
    if constexpr (counting)
      return operands_.predicate;
    else
      return 0;
  }

  // The fiber executor's barrier, for the suspended thread's run loop.
  static void wait_on_fiber(void* suspended) {
    barrier_awaiter& self = *static_cast<barrier_awaiter*>(suspended);
    block_executor* block = running_block;
    if (!block) throw std::logic_error("a barrier can only be awaited inside a kernel");
    int result = block->arrive_and_wait(Kind, self.predicate(), self.where_);
    if constexpr (counting) self.operands_.result = result;
  }

  // In a race-check build the arrival is a call: inlined into the kernel's
  // coroutine body, the executor's bookkeeping would be traced as the
  // kernel's own accesses, a callback for each of its loads and stores.
  [[gnu::noinline]] static void arrive_untraced(int predicate, std::source_location where, int* result) noexcept {
    running_stackless_block->arrive(Kind, predicate, where, result);
  }

  [[no_unique_address]] std::conditional_t<counting, counting_operands, no_operands> operands_;
  std::source_location where_;
};

}  // namespace weft::detail
