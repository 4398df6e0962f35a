// co_await on a block barrier in a stackless kernel (weft::syncthreads and
// its counting, and and or flavours, weft/stackless_kernel.hpp).
//
// On the stackless executor the awaiting thread arrives and suspends; the
// executor resumes it once the round's other threads have arrived or
// exited. On the fiber executor (the same kernel under WEFT_EXECUTOR=fibers)
// the awaiter does not suspend the coroutine: it waits at the fiber barrier,
// which parks the fiber, so the two executors share the barrier's rules and
// reports.
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

  // The stackless test inlines into the kernel's body; the fiber path is
  // a call, so that GCC does not keep await_ready itself out of line for
  // its throw (a call and a reload per barrier).
  bool await_ready() {
    if (running_stackless_block) [[likely]]
      return false;
    int result = wait_on_fiber(predicate(), where_);
    if constexpr (counting) operands_.result = result;
    return true;
  }

  // Only a stackless kernel's thread, in its body or in a stackless function
  // it awaits, can await it: another coroutine type does not compile.
  template <stackless_promise Promise>
  void await_suspend(std::coroutine_handle<Promise>) noexcept {
    if constexpr (race_check_build) {
      if constexpr (counting)
        arrive_untraced(operands_.predicate, where_, &operands_.result);
      else
        arrive_untraced(0, where_, nullptr);
    } else if constexpr (counting) {
      running_stackless_block->arrive(Kind, operands_.predicate, where_, &operands_.result);
    } else {
      running_stackless_block->arrive(Kind, 0, where_, nullptr);
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

  [[gnu::noinline]] static int wait_on_fiber(int predicate, std::source_location where) {
    block_executor* block = running_block;
    if (!block) throw std::logic_error("a barrier can only be awaited inside a kernel");
    return block->arrive_and_wait(Kind, predicate, where);
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
