// co_await on a warp collective in a stackless kernel (weft::syncwarp,
// weft::shfl_sync and the other warp shuffles, votes, matches and
// reductions, weft/stackless_kernel.hpp).
//
// On the stackless executor the awaiting lane joins its warp's group and
// suspends unless its arrival completes the group, in which case it carries
// on without suspending (stackless_block_executor::warp_arrive); the lanes
// that waited resume with their results in the warp's exchange. On the
// fiber executor (WEFT_EXECUTOR=fibers) the awaiter calls the fiber
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

  // On the stackless executor the arrival is all the waiting there is: a
  // lane that does not complete its group is parked by warp_arrive itself,
  // so await_suspend has nothing left to do.
  bool await_ready() {
    if (stackless_block_executor* block = running_stackless_block) [[likely]] {
      if constexpr (race_check_build)
        return arrive_untraced(*block, op_, mask_, operand_, where_, result_);
      else
        return block->warp_arrive(op_, mask_, operand_, where_, result_);
    }
    block_executor* block = running_block;
    if (!block) throw std::logic_error("a warp collective can only be awaited inside a kernel");
    result_ = collective_on_fiber(*block, op_, mask_, operand_, where_);
    return true;
  }

  // Only a stackless kernel's thread, in its body or in a stackless function
  // it awaits, can await it: another coroutine type does not compile.
  template <stackless_promise Promise>
  void await_suspend(std::coroutine_handle<Promise>) noexcept {}

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
  [[gnu::noinline]] static bool arrive_untraced(stackless_block_executor& block, warp_op op, unsigned mask,
                                                warp_operand operand, std::source_location where,
                                                std::uint64_t& result) {
    return block.warp_arrive(op, mask, operand, where, result);
  }

  // The fiber executor's collective is a call here: it is written inline
  // where a fiber kernel calls it, and inlined into a coroutine's body its
  // context switch made GCC keep the coroutine's values in memory (the
  // stackless 5-step shuffle reduction 22 -> 31 ns per thread).
  [[gnu::noinline]] static std::uint64_t collective_on_fiber(block_executor& block, warp_op op, unsigned mask,
                                                             warp_operand operand, std::source_location where) {
    return block.warp_collective(op, mask, operand, where).value;
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
