// co_await on __activemask in a stackless kernel (weft::activemask,
// weft/stackless_kernel.hpp; cooperative groups' coalesced_threads).
//
// The fiber executor finds the lanes converged with the caller by waiting
// until no other thread of the block can run, and gives each waiting thread
// the lanes of its warp waiting at the same call (block_executor_warps.hpp).
// The stackless executor does the same at the end of a round, when every
// thread has run to a barrier, a warp group, __activemask or its end
// (stackless_block_executor::converge). On fibers the awaiter calls the
// fiber executor's __activemask and does not suspend.
#pragma once

#include <coroutine>
#include <source_location>
#include <stdexcept>

#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"
#include "weft/detail/coroutine_executor/stackless_function.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

class activemask_awaiter {
 public:
  explicit activemask_awaiter(std::source_location where) : where_(where) {}

  bool await_ready() {
    if (running_stackless_block) [[likely]]
      return false;
    block_executor* block = running_block;
    if (!block) throw std::logic_error("__activemask can only be awaited inside a kernel");
    mask_ = block->active_mask(where_);
    return true;
  }

  // Only a stackless kernel's thread, in its body or in a stackless function
  // it awaits, can await it: another coroutine type does not compile.
  template <stackless_promise Promise>
  void await_suspend(std::coroutine_handle<Promise> waiting) {
    running_stackless_block->park_at_activemask(thread_coroutine(waiting), where_, &mask_);
  }

  // The executor writes the mask into the awaiter (warp_awaiter.hpp says why).
  unsigned await_resume() const noexcept { return mask_; }

 private:
  std::source_location where_;
  unsigned mask_ = 0;
};

}  // namespace weft::detail
