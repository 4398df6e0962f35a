// Whether the worker runs a stackless kernel's block, for the CUDA
// functions that block a thread: called without co_await in a stackless
// kernel, they cannot suspend it, and say so instead of failing obscurely.
// Kept apart from the executor so that those functions' headers need not
// compile it.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "weft/detail/executor/block_reports.hpp"

namespace weft::detail {

class stackless_block_executor;

/// The stackless block the worker runs (coroutine_executor/), else null.
/// While it is set, running_block (the fiber executor's) is null.
inline thread_local stackless_block_executor* running_stackless_block = nullptr;

/// Makes the running stackless block's threads that wait on `object` (a
/// block-scope cuda::barrier's state) ready: its wake_all, for headers that
/// do not compile the executor. Set while a stackless block runs.
inline thread_local void (*wake_stackless_waiters)(const void* object) = nullptr;

/// The dynamic shared memory of the stackless block the worker runs.
inline thread_local std::byte* running_stackless_shared = nullptr;

/// weft::dynamic_shared where running_block is null: a stackless block's.
[[gnu::cold]] inline std::byte* stackless_dynamic_shared() {
  if (!running_stackless_block) throw std::logic_error("weft::dynamic_shared called outside a kernel");
  return running_stackless_shared;
}

/// A function that would block the calling CUDA thread was called, not
/// awaited, in a stackless kernel: the thread fails, naming the call.
[[noreturn, gnu::cold]] inline void refuse_blocking_call(const char* what) {
  std::string text = what;
  text +=
      ": called without co_await in a stackless kernel, whose threads wait only where they co_await "
      "(weft/stackless_kernel.hpp: co_await weft::syncthreads(), ...)";
  throw kernel_fault{cudaErrorLaunchFailure, std::move(text)};
}

}  // namespace weft::detail
