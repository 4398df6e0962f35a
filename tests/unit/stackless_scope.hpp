// Runs part of a test with stackless kernels on the stackless executor, or
// on fibers (as WEFT_EXECUTOR=fibers does), and puts the choice back. The
// stackless executor runs only under the forward schedule (under another,
// stackless kernels run on fibers, which permute the orders), so the scope
// pins it: ctest runs the executor's tests under random:<seed> too.
#pragma once

#include <weft.hpp>
#include <weft/stackless_kernel.hpp>

#include "schedule_scope.hpp"

enum class stackless_executor { coroutines, fibers };

class stackless_scope {
 public:
  explicit stackless_scope(stackless_executor choice)
      : saved_(weft::detail::stackless_executor_enabled().load()), pinned_(forward_schedule()) {
    weft::detail::stackless_executor_enabled() = choice == stackless_executor::coroutines;
  }
  stackless_scope(const stackless_scope&) = delete;
  stackless_scope& operator=(const stackless_scope&) = delete;
  ~stackless_scope() { weft::detail::stackless_executor_enabled() = saved_; }

 private:
  bool saved_;
  schedule_scope pinned_;
};

/// What `run()` gives on the stackless executor and on fibers, in that order.
template <class Run>
auto on_both_executors(Run run) {
  auto on_coroutines = [&] {
    stackless_scope scope(stackless_executor::coroutines);
    return run();
  }();
  auto on_fibers = [&] {
    stackless_scope scope(stackless_executor::fibers);
    return run();
  }();
  return std::pair{on_coroutines, on_fibers};
}
