// Runs a grid's blocks of a stackless kernel: on the stackless executor
// where it can, else on the fiber executor, which runs the same kernel
// (barrier_awaiter.hpp) with everything the stackless one does not do yet.
// grid_job.hpp's kernel_grid calls run_stackless_kernel for a kernel whose
// call returns a stackless_thread; it finds it by argument-dependent lookup,
// so that programs without stackless kernels do not compile this.
//
// Fibers run it under WEFT_EXECUTOR=fibers (for comparison, or as a fallback),
// under a WEFT_SCHEDULE other than forward (the fiber executor permutes the
// orders). A cooperative or cluster launch runs here too: it gives each
// block a worker of its own, on whose thread the block waits for the others
// (block_set_awaiter.hpp). So does a launch the race check watches: the
// executor tells the check what the fiber executor tells it (which CUDA
// thread runs, barriers and warp collectives completed).
//
// Where the stackless executor runs a kernel that weft-port gave a region
// version (region_block.hpp), it runs that instead, unless
// WEFT_EXECUTOR=stackless: a block as loops over its threads between
// barriers. In a race-check build too: the loops set threadIdx for each
// thread, whose accesses the region version's traced code makes, and a
// region barrier tells the check the block synchronised.
#pragma once

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/coroutine_executor/region_block.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"
#include "weft/detail/coroutine_executor/stackless_thread.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

/// WEFT_EXECUTOR: auto (or unset), stackless (no region versions) or fibers.
enum class executor_setting { automatic, stackless, fibers };
/// Read once, so that an unknown value is reported once.
inline executor_setting executor_setting_from_environment() {
  static const executor_setting setting = [] {
    const char* text = std::getenv("WEFT_EXECUTOR");
    if (!text || *text == '\0' || std::strcmp(text, "auto") == 0) return executor_setting::automatic;
    if (std::strcmp(text, "stackless") == 0) return executor_setting::stackless;
    if (std::strcmp(text, "fibers") == 0) return executor_setting::fibers;
    std::fprintf(stderr, "weft: ignoring WEFT_EXECUTOR=%s (expected auto, stackless or fibers)\n", text);
    return executor_setting::automatic;
  }();
  return setting;
}

/// Whether stackless kernels may run on the stackless executor: unless
/// WEFT_EXECUTOR=fibers. Tests switch it to run a kernel both ways.
inline std::atomic<bool>& stackless_executor_enabled() {
  static std::atomic<bool> enabled = executor_setting_from_environment() != executor_setting::fibers;
  return enabled;
}

/// Whether a stackless kernel with a region version (region_block.hpp) runs
/// that where the stackless executor would run the kernel: unless
/// WEFT_EXECUTOR=stackless or fibers. Tests and benchmarks switch it to
/// compare the two.
inline std::atomic<bool>& region_versions_enabled() {
  static std::atomic<bool> enabled = executor_setting_from_environment() == executor_setting::automatic;
  return enabled;
}

/// The region version registered for a kernel launched as `Kernel`, or null:
/// only a __global__ function known at compile time (scheduler's
/// global_function, whose `function` names it) can have one. (A kernel of C
/// linkage, or one kept as a `void` kernel that forwards to its stackless
/// body, has it registered under the `void` kernel's address, which is
/// `function` for its launches by address.)
template <class Kernel>
auto registered_region_version() {
  if constexpr (requires { region_version_of<Kernel::function>; })
    return region_version_of<Kernel::function>;
  else
    return nullptr;
}

/// The worker's stackless executor, made when it first runs a stackless
/// block: its frame arena stays for the next launch.
inline stackless_block_executor& stackless_executor_of_this_worker() {
  static thread_local stackless_block_executor executor;
  return executor;
}

// In a race-check build, the executor's code that a kernel's coroutine body
// inlines (an arrival at a barrier or a warp collective, a frame from the
// arena) is traced as the kernel's own; the executor and the pointers that
// name it are thread-local, where __shared__ variables are, and would be
// taken for them (race_check.hpp). Not for a kernel's: weft's.
inline const bool stackless_executor_untraced =
    !race_check_build ||
    (race_untraced([]() -> const void* { return &stackless_executor_of_this_worker(); },
                   sizeof(stackless_block_executor)) &&
     race_untraced([]() -> const void* { return &running_stackless_block; }, sizeof running_stackless_block) &&
     race_untraced([]() -> const void* { return &wake_stackless_waiters; }, sizeof wake_stackless_waiters) &&
     race_untraced([]() -> const void* { return &running_stackless_shared; }, sizeof running_stackless_shared) &&
     race_untraced([]() -> const void* { return &running_frame_arena; }, sizeof running_frame_arena));

template <class Kernel, class Arguments>
struct stackless_callable_as_const;
template <class Kernel, class... Arguments>
struct stackless_callable_as_const<Kernel, std::tuple<Arguments...>> : std::is_invocable<const Kernel&, Arguments&...> {
};

template <class Kernel, class Arguments>
block_failure run_stackless_kernel(block_executor& executor, const block_range& blocks, const Kernel& kernel,
                                   const Arguments& arguments, std::size_t stack_bytes,
                                   std::size_t dynamic_shared_bytes) {
  // A coroutine lambda's frame keeps a pointer to the lambda, not a copy,
  // so a mutable one would share its captures between the block's threads,
  // which in CUDA are each thread's own by-value parameters.
  static_assert(stackless_callable_as_const<Kernel, Arguments>::value, "a stackless kernel lambda must not be mutable");
  bool on_fibers =
      !stackless_executor_enabled().load(std::memory_order_relaxed) || blocks.schedule.order != schedule_order::forward;
  if (on_fibers) {
    auto body = [kernel, arguments]() mutable { call_kernel(kernel, arguments).finish_on_fiber(); };
    return executor.run(body, blocks, stack_bytes, dynamic_shared_bytes);
  }
  // One copy of the kernel and its arguments for the block's threads, which
  // copy the by-value parameters into their frames; it outlives them.
  Kernel own_kernel = kernel;
  Arguments own_arguments = arguments;
  // Its region version, where it has one: weft-port wrote it only for a
  // kernel whose threads meet at every barrier and that never changes its
  // parameters, so the block's threads share one copy of them.
  auto regions = registered_region_version<Kernel>();
  if constexpr (!std::is_null_pointer_v<decltype(regions)>) {
    if (regions && region_versions_enabled().load(std::memory_order_relaxed) &&
        (region_shape_of<Kernel::function> == region_shape::any || warps_lie_in_rows(blocks.block))) {
      auto run_block = [&](region_block& block) {
        std::apply([&](auto&... each) { regions(block, each...); }, own_arguments);
      };
      return stackless_executor_of_this_worker().run_regions(run_block, blocks, executor, dynamic_shared_bytes);
    }
  }
  // In a race-check build, out of line and traced (call_kernel): the body
  // up to the thread's first co_await runs in this call.
  auto start = [&] { return call_kernel(own_kernel, own_arguments); };
  return stackless_executor_of_this_worker().run(start, blocks, executor, dynamic_shared_bytes);
}

}  // namespace weft::detail
