// co_await on a warp collective in a stackless kernel (weft::syncwarp,
// weft::shfl_sync and the other warp shuffles, votes, matches and
// reductions, weft/stackless_kernel.hpp).
//
// On the stackless executor the awaiting lane suspends and joins its warp's
// group (stackless_block_executor::warp_arrive); the lane whose arrival
// completes the group is resumed at once, then the lanes that waited, with
// their results in the warp's exchange. On the fiber executor
// (WEFT_EXECUTOR=fibers) the suspended lane's fiber calls the fiber
// executor's warp_collective, which parks the fiber, so the two share the
// rules and reports of warp collectives.
#pragma once

#include <coroutine>
#include <cstdint>
#include <source_location>
#include <stdexcept>
#include <type_traits>

#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"
#include "weft/detail/coroutine_executor/stackless_function.hpp"
#include "weft/detail/coroutine_executor/stackless_thread.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/executor/warp_arithmetic.hpp"

namespace weft::detail {

/// Awaits `op` and gives the lane's result as a T (void: none).
template <class T>
class warp_awaiter {
 public:
  warp_awaiter(warp_op op, unsigned mask, warp_operand operand, std::source_location where)
      : op_(op), mask_(mask), operand_(operand), where_(where) {}

  // The lane suspends on either executor, and arrives as it does: the
  // kernel's coroutine then makes no call at a warp collective that
  // returns into it, so it keeps its frame in no register that a call
  // preserves (pushed and popped on every resume). On the stackless
  // executor a lane whose arrival completes its group is resumed at once,
  // before the lanes it released (stackless_block_executor::carry_on), as
  // if it had carried on; on fibers its fiber's run loop waits at the fiber
  // executor's collective and resumes it (stackless_thread::finish_on_fiber),
  // as at a block barrier (barrier_awaiter.hpp).
  bool await_ready() const noexcept { return false; }

  // Only a stackless kernel's thread, in its body or in a stackless function
  // it awaits, can await it: another coroutine type does not compile.
  template <stackless_promise Promise>
  void await_suspend(std::coroutine_handle<Promise>) noexcept {
    stackless_block_executor* block = running_stackless_block;
    if (!block) [[unlikely]] {
      if constexpr (race_check_build)
        leave_fiber_wait_untraced({&wait_on_fiber, this});
      else
        pending_fiber_wait = {&wait_on_fiber, this};
      return;
    }
    if constexpr (race_check_build)
      arrive_untraced(*block, op_, mask_, operand_, where_, result_);
    else
      block->warp_arrive(op_, mask_, operand_, where_, result_);
  }

  // The result is the awaiter's own, written as the lane resumes, not read
  // from the warp's exchange here: GCC 12 may call await_resume late, after
  // a later co_await of the same expression has suspended, as in
  // `(co_await a) + (co_await b)`, by when the exchange holds b's results.
  T await_resume() const noexcept {
    if constexpr (!std::is_void_v<T>) return from_bits<T>(result_);
  }

 private:
  // In a race-check build the arrival is a call: inlined into the kernel's
  // coroutine body, the executor's bookkeeping (its warps' lists, on the
  // heap) would be traced as the kernel's own accesses.
  [[gnu::noinline]] static void arrive_untraced(stackless_block_executor& block, warp_op op, unsigned mask,
                                                warp_operand operand, std::source_location where,
                                                std::uint64_t& result) noexcept {
    block.warp_arrive(op, mask, operand, where, result);
  }

  // The fiber executor's collective, for the suspended lane's run loop.
  static void wait_on_fiber(void* suspended) {
    warp_awaiter& self = *static_cast<warp_awaiter*>(suspended);
    block_executor* block = running_block;
    if (!block) throw std::logic_error("a warp collective can only be awaited inside a kernel");
    self.result_ = block->warp_collective(self.op_, self.mask_, self.operand_, self.where_).value;
  }

  warp_op op_;
  unsigned mask_;
  warp_operand operand_;
  std::source_location where_;
  std::uint64_t result_;  // written by the arrival that completes the group, or as the lane resumes
};

/// Awaits match_all, whose predicate, whether its result (0 or the mask)
/// is not 0, is written through `predicate` as the lane resumes. A type of
/// its own, so that no other collective's awaiter keeps or tests a
/// predicate pointer.
class match_all_awaiter : public warp_awaiter<unsigned> {
 public:
  match_all_awaiter(unsigned mask, std::uint64_t bits, std::source_location where, int* predicate)
      : warp_awaiter<unsigned>(warp_op::match_all, mask, {bits}, where), predicate_(predicate) {}

  unsigned await_resume() const noexcept {
    unsigned result = warp_awaiter<unsigned>::await_resume();
    *predicate_ = result != 0;
    return result;
  }

 private:
  int* predicate_;
};

}  // namespace weft::detail
