// co_await on a barrier between blocks in a stackless kernel: a cooperative
// grid's (co_await weft::sync(grid)) or a cluster's (co_await
// weft::sync(cluster)), weft/stackless_groups.hpp.
//
// Such a launch gives each block a worker of its own, so the stackless
// executor runs the block's threads to the barrier as to a block barrier
// and then waits for the other blocks on the worker's thread, outside every
// coroutine (stackless_block_executor::arrive_between_blocks). On the fiber
// executor (WEFT_EXECUTOR=fibers, another schedule) the awaiter does not
// suspend: it calls the fiber version's sync, which parks the fiber.
#pragma once

#include <coroutine>
#include <source_location>

#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"
#include "weft/detail/coroutine_executor/stackless_function.hpp"
#include "weft/detail/coroutine_executor/stackless_thread.hpp"
#include "weft/detail/executor/block_group_barrier.hpp"

namespace weft::detail {

class block_set_awaiter {
 public:
  /// `between` is the barrier the block meets the others at (null: the
  /// block alone, a plain block barrier); the block is its member `member`.
  /// `sync_on_fiber` is the fiber version's sync, called with `where`.
  block_set_awaiter(block_group_barrier* between, unsigned member, void (*sync_on_fiber)(std::source_location),
                    std::source_location where)
      : between_(between), member_(member), sync_on_fiber_(sync_on_fiber), where_(where) {}

  bool await_ready() {
    if (running_stackless_block) return false;
    sync_on_fiber_(where_);
    return true;
  }

  template <stackless_promise Promise>
  void await_suspend(std::coroutine_handle<Promise>) noexcept {
    running_stackless_block->arrive_between_blocks(between_, member_, where_);
  }

  void await_resume() const noexcept {}

 private:
  block_group_barrier* between_;
  unsigned member_;
  void (*sync_on_fiber_)(std::source_location);
  std::source_location where_;
};

}  // namespace weft::detail
