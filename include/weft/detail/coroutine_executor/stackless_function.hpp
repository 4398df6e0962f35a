// A __device__ function that waits, for stackless kernels: a coroutine
// returning weft::stackless_function<T> that a kernel (or another such
// function) co_awaits for its T, and that may itself co_await barriers,
// warp collectives and other stackless functions.
//
//   weft::stackless_function<int> warp_sum(int v) {
//     for (unsigned offset = 16; offset > 0; offset /= 2) v += co_await weft::shfl_down_sync(~0u, v, offset);
//     co_return v;
//   }
//   ... int sum = co_await warp_sum(x);   // in a stackless kernel
//
// The call makes the frame and runs nothing (initial_suspend suspends);
// co_await runs it from the caller's await_suspend, and the executor never
// sees the call. A function that ends without waiting returns there, and
// the caller carries on without suspending. One that waits (a barrier
// inside) returns there as it suspends, and the caller suspends too: the
// whole chain waits. The executor still lists the thread by its kernel
// coroutine, whose promise's resume_at names the innermost frame, which is
// where the executor resumes it; that function's end then transfers to the
// caller (symmetric transfer). Not a transfer each way for every call:
// without a guaranteed tail call (GCC makes none below -O2), a loop of
// calls that do not wait would grow the stack by frames per call until it
// overflowed; this way it grows by the depth of calls at most, once per
// wait. The frame belongs to the awaited object, a temporary of the
// caller's frame, so a thread destroyed where it waits destroys the
// functions it awaits, and their destructors run. An exception escaping
// the function is rethrown at the caller's co_await. Frames come from the
// worker's frame arena, reused by size, so a function called in a loop
// takes no new memory per call (frame_arena.hpp).
//
// On the fiber executor the same code runs inside the thread's fiber: the
// awaiters wait there without suspending, but for a block barrier, which
// suspends the chain as on the stackless executor and leaves the wait to
// the fiber's run loop (stackless_thread::finish_on_fiber), which resumes
// the innermost frame.
#pragma once

#include <concepts>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include "weft/detail/coroutine_executor/frame_arena.hpp"
#include "weft/detail/coroutine_executor/stackless_thread.hpp"

namespace weft::detail {

/// What every stackless function's promise has, whatever it returns.
struct stackless_function_promise {
  stackless_thread::promise_type* thread = nullptr;  // the kernel thread awaiting it, set by co_await
  std::coroutine_handle<> caller;
  std::exception_ptr escaped;
  bool run_by_caller = false;  // running inside the caller's await_suspend, which it returns to

  std::suspend_always initial_suspend() noexcept { return {}; }

  // Back to the caller, which becomes the frame its thread resumes at: a
  // return to its await_suspend, or, after a wait, a transfer to it.
  struct final_awaiter {
    bool await_ready() const noexcept { return false; }
    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> self) noexcept {
      stackless_function_promise& promise = self.promise();
      promise.thread->resume_at = promise.caller;
      if (promise.run_by_caller) return std::noop_coroutine();
      return promise.caller;
    }
    void await_resume() const noexcept {}
  };
  final_awaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { escaped = std::current_exception(); }

  static void* operator new(std::size_t bytes) {
    if (frame_arena* arena = running_frame_arena) return arena->allocate_reusable(bytes);
    return ::operator new(bytes);
  }
  static void operator delete(void* frame, std::size_t bytes) noexcept {
    if (frame_arena* arena = running_frame_arena)
      arena->release_reusable(frame, bytes);
    else
      ::operator delete(frame);
  }
};

/// The coroutines that run as a stackless kernel's thread: its own, and the
/// stackless functions it awaits. Only they can await weft's awaitables.
template <class Promise>
concept stackless_promise =
    std::same_as<Promise, stackless_thread::promise_type> || std::derived_from<Promise, stackless_function_promise>;

/// The kernel thread a stackless coroutine runs for.
template <stackless_promise Promise>
stackless_thread::promise_type& awaiting_thread(std::coroutine_handle<Promise> coroutine) noexcept {
  if constexpr (std::same_as<Promise, stackless_thread::promise_type>)
    return coroutine.promise();
  else
    return *coroutine.promise().thread;
}

/// The kernel thread's own coroutine, by which the executor knows it.
template <stackless_promise Promise>
std::coroutine_handle<stackless_thread::promise_type> thread_coroutine(
    std::coroutine_handle<Promise> coroutine) noexcept {
  return std::coroutine_handle<stackless_thread::promise_type>::from_promise(awaiting_thread(coroutine));
}

template <class T>
struct stackless_function_result {
  std::optional<T> value;
  template <class U = T>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T take() { return std::move(*value); }
};
template <>
struct stackless_function_result<void> {
  void return_void() noexcept {}
  void take() noexcept {}
};

/// What a __device__ function that waits returns (weft::stackless_function,
/// weft/stackless_kernel.hpp): a coroutine a stackless kernel co_awaits for
/// its T.
template <class T = void>
class [[nodiscard]] stackless_function {
  static_assert(!std::is_reference_v<T>, "a stackless function returns a value");

 public:
  struct promise_type : stackless_function_promise, stackless_function_result<T> {
    stackless_function get_return_object() noexcept {
      return stackless_function(std::coroutine_handle<promise_type>::from_promise(*this));
    }
  };

  stackless_function(stackless_function&& other) noexcept : coroutine_(std::exchange(other.coroutine_, {})) {}
  stackless_function& operator=(stackless_function) = delete;
  ~stackless_function() {
    if (coroutine_) coroutine_.destroy();
  }

  bool await_ready() const noexcept { return false; }

  // Runs the function (for a stackless kernel or function; another
  // coroutine type does not compile): the caller suspends only if the
  // function waits.
  template <stackless_promise Promise>
  bool await_suspend(std::coroutine_handle<Promise> caller) noexcept {
    promise_type& promise = coroutine_.promise();
    promise.caller = caller;
    promise.thread = &awaiting_thread(caller);
    promise.thread->resume_at = coroutine_;
    promise.run_by_caller = true;
    coroutine_.resume();
    promise.run_by_caller = false;  // if it waits, its end transfers to the caller
    return !coroutine_.done();
  }

  T await_resume() {
    promise_type& promise = coroutine_.promise();
    if (promise.escaped) std::rethrow_exception(promise.escaped);
    return promise.take();
  }

 private:
  explicit stackless_function(std::coroutine_handle<promise_type> coroutine) : coroutine_(coroutine) {}
  std::coroutine_handle<promise_type> coroutine_;
};

}  // namespace weft::detail
