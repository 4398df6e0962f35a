// cuda::barrier in stackless kernels: a block-scope (or thread-scope)
// barrier's waits, awaited, as CUDA's member name in namespace weft taking
// the barrier first.
//
//   __shared__ cuda::barrier<cuda::thread_scope_block> bar;
//   if (threadIdx.x == 0) init(&bar, blockDim.x);
//   co_await weft::syncthreads();
//   co_await weft::arrive_and_wait(bar);                  // bar.arrive_and_wait()
//   auto token = bar.arrive();                            // arriving never waits: CUDA's spelling
//   co_await weft::wait(bar, std::move(token));           // bar.wait(std::move(token))
//
// Only threads of the waiter's block can complete a block-scope phase, so a
// waiting thread suspends until the thread whose arrival completes the
// phase makes it ready (stackless_block_executor::park_on_object), as on
// fibers, with the fiber executor's deadlock report when no thread can.
// A device- or system-scope barrier may wait for other blocks, which a
// stackless thread cannot spin for: it is not awaited (a static_assert says
// so), and its kernel stays on fibers. Called without co_await in a
// stackless kernel, a wait fails the launch naming itself.
#pragma once

#include <coroutine>
#include <cstdint>
#include <source_location>
#include <stdexcept>
#include <string>
#include <utility>

#include "weft/cuda/device/async/barrier.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"
#include "weft/detail/coroutine_executor/stackless_function.hpp"
#include "weft/stackless_kernel.hpp"

namespace weft::detail {

struct barrier_access {
  template <class Barrier>
  static const barrier_state& state(const Barrier& bar) {
    return bar.state_;
  }
  template <class Barrier>
  static std::uint32_t arrive(Barrier& bar, const char* call) {
    return bar.arrive_as(1, false, call, true);  // arrive_and_wait's arrival
  }
  template <class Token>
  static std::uint32_t phase(const Token& token) {
    return token.phase_;
  }
};

/// Waits until phase `phase` of a block-scope barrier state (a
/// cuda::barrier's, or a pipeline stage's) has completed; `call` and
/// `describe` name the wait in a deadlock report. A null state has nothing
/// to wait for. On the fiber executor (the same kernel under
/// WEFT_EXECUTOR=fibers) it does not suspend: it waits as cuda::barrier::wait
/// does, parking the fiber.
class barrier_phase_awaiter {
 public:
  barrier_phase_awaiter(const barrier_state* state, std::uint32_t phase, const char* call,
                        std::string (*describe)(const void*), std::source_location where)
      : state_(state), phase_(phase), call_(call), describe_(describe), where_(where) {}

  bool await_ready() {
    if (!state_) return true;
    if (running_stackless_block) return state_->phase() != (phase_ & barrier_state::phase_mask);
    if (!running_block) throw std::logic_error(std::string(call_) + " can only be awaited inside a kernel");
    state_->wait(phase_, true, call_, describe_, where_);
    return true;
  }

  template <stackless_promise Promise>
  void await_suspend(std::coroutine_handle<Promise> waiting) {
    running_stackless_block->park_on_object(thread_coroutine(waiting), state_, call_, describe_, where_);
  }

  void await_resume() const noexcept {
    // On fibers, barrier_state::wait told the race check already.
    if constexpr (race_check_build)
      if (state_ && running_stackless_block) race_barrier_waited(state_, phase_ & barrier_state::phase_mask);
  }

 private:
  const barrier_state* state_;
  std::uint32_t phase_;
  const char* call_;
  std::string (*describe_)(const void*);
  std::source_location where_;
};

template <cuda::thread_scope Scope>
inline constexpr bool awaitable_scope = completed_within_block<Scope>();

}  // namespace weft::detail

namespace weft {

/// co_await weft::arrive_and_wait(bar): bar.arrive_and_wait().
template <cuda::thread_scope Scope, class CompletionF>
detail::barrier_phase_awaiter arrive_and_wait(cuda::barrier<Scope, CompletionF>& bar,
                                              std::source_location where = std::source_location::current()) {
  static_assert(detail::awaitable_scope<Scope>,
                "only a block- or thread-scope cuda::barrier is awaited: a device-scope one waits for other blocks");
  constexpr const char* call = "cuda::barrier::arrive_and_wait";
  std::uint32_t phase = detail::barrier_access::arrive(bar, call);
  return {&detail::barrier_access::state(bar), phase, call, detail::barrier_state::describe_state, where};
}

/// co_await weft::wait(bar, std::move(token)): bar.wait(std::move(token)).
template <cuda::thread_scope Scope, class CompletionF>
detail::barrier_phase_awaiter wait(const cuda::barrier<Scope, CompletionF>& bar,
                                   typename cuda::barrier<Scope, CompletionF>::arrival_token&& token,
                                   std::source_location where = std::source_location::current()) {
  static_assert(detail::awaitable_scope<Scope>,
                "only a block- or thread-scope cuda::barrier is awaited: a device-scope one waits for other blocks");
  return {&detail::barrier_access::state(bar), detail::barrier_access::phase(token), "cuda::barrier::wait",
          detail::barrier_state::describe_state, where};
}

}  // namespace weft
