// A CUDA thread of a stackless kernel: what one call of the kernel returns,
// a C++20 coroutine that waits where it co_awaits a barrier
// (barrier_awaiter.hpp). weft/stackless_kernel.hpp names it for users.
//
// The coroutine starts at once (the call runs the thread to its first
// barrier) and, on the stackless executor, frees its frame as it returns:
// the executor tells a thread that returned from one that waits by the
// barrier's count of arrivals, so it keeps no handle of a finished thread.
// Its frame comes from the worker's frame arena.
//
// The same kernel also runs on the fiber executor (WEFT_EXECUTOR=fibers,
// and where the stackless one does not go: stackless_grid.hpp). There a
// block barrier suspends the coroutine and its fiber's run loop parks the
// fiber at the fiber barrier, then resumes it (finish_on_fiber); the other
// awaitables park the fiber inside the awaiter, without suspending. Its
// frame comes from the heap, and it keeps what escaped it (in a
// thread-local) for the runner loop, which reports it as for any kernel.
#pragma once

#include <algorithm>
#include <bit>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "weft/detail/coroutine_executor/frame_arena.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"
#include "weft/detail/executor/block_reports.hpp"

namespace weft::detail {

/// On the fiber executor, the wait that a stackless thread's awaiter left
/// for the thread's run loop (stackless_thread::finish_on_fiber) as the
/// thread suspended: `wait(awaiter)`, the awaiter's own, which writes its
/// result into the awaiter. A thread-local, not a member of each frame:
/// the loop reads it as the resume returns, on the same fiber.
struct fiber_wait {
  void (*wait)(void* awaiter) = nullptr;
  void* awaiter = nullptr;
};
inline thread_local fiber_wait pending_fiber_wait;

/// Leaves `wait` for the run loop. An awaiter inlined into a kernel calls
/// this in a race-check build, where the store, made in the kernel's own
/// code, would be traced as an access to `__shared__` memory (a
/// thread-local too); weft's own functions are not traced.
[[gnu::noinline]] inline void leave_fiber_wait_untraced(fiber_wait wait) noexcept { pending_fiber_wait = wait; }

class stackless_thread {
 public:
  struct promise_type {
    // The frame to resume: the thread's own, or that of the innermost
    // stackless function it awaits (stackless_function.hpp keeps it).
    std::coroutine_handle<> resume_at;

    stackless_thread get_return_object() noexcept {
      auto self = std::coroutine_handle<promise_type>::from_promise(*this);
      resume_at = self;
      return stackless_thread{self};
    }
    std::suspend_never initial_suspend() noexcept { return {}; }

    // On the stackless executor a returning thread frees its frame at once;
    // on fibers it stays for finish_on_fiber.
    struct final_awaiter {
      bool await_ready() const noexcept { return running_stackless_block != nullptr; }
      void await_suspend(std::coroutine_handle<>) const noexcept {}
      void await_resume() const noexcept {}
    };
    final_awaiter final_suspend() noexcept { return {}; }
    void return_void() noexcept {}

    void unhandled_exception() noexcept {
      if (stackless_block_executor* block = running_stackless_block)
        block->fail_running_thread(std::current_exception());
      else
        escaped_on_fiber = std::current_exception();
    }

    static void* operator new(std::size_t bytes) {
      if (frame_arena* arena = running_frame_arena) return arena->allocate(bytes);
      return ::operator new(bytes);
    }
    static void operator delete(void* frame) noexcept {
      if (frame_arena* arena = running_frame_arena)
        arena->release(frame);
      else
        ::operator delete(frame);
    }
  };

  /// The thread's coroutine, while it waits at a barrier (stackless executor).
  std::coroutine_handle<> handle() const noexcept { return handle_; }

  /// On the fiber executor, once the call has returned: runs the thread to
  /// its end, waiting on the fiber for each awaiter that suspended it (a
  /// barrier's) and resuming it where it waits, then frees the frame and
  /// rethrows what escaped the thread. A wait that throws (a launch that
  /// fails) destroys the thread where it waits, so that its destructors
  /// run, and propagates.
  void finish_on_fiber() {
    while (!handle_.done()) {
      fiber_wait next = std::exchange(pending_fiber_wait, {});
      try {
        if (!next.wait) throw std::logic_error("a stackless thread suspended with nothing to wait for");
        next.wait(next.awaiter);
      } catch (...) {
        handle_.destroy();
        throw;
      }
      handle_.promise().resume_at.resume();
    }
    std::exception_ptr escaped = std::move(escaped_on_fiber);
    escaped_on_fiber = nullptr;
    handle_.destroy();
    if (escaped) std::rethrow_exception(escaped);
  }

  /// Marks the type for grid_job.hpp, which picks the executor by it.
  using stackless_thread_marker = void;

 private:
  explicit stackless_thread(std::coroutine_handle<promise_type> handle) : handle_(handle) {}
  // On the fiber executor, what escaped the thread that just returned, for
  // finish_on_fiber, which its fiber calls next with no switch between: a
  // thread-local rather than a member of every frame, whose destruction the
  // stackless executor would pay at every thread's end.
  static inline thread_local std::exception_ptr escaped_on_fiber;
  std::coroutine_handle<promise_type> handle_;
};

inline void stackless_block_executor::resume(const waiting_thread& thread) {
  std::coroutine_handle<stackless_thread::promise_type>::from_address(thread.handle.address())
      .promise()
      .resume_at.resume();
}

inline barrier_arrival stackless_block_executor::arrival_of(unsigned id) const {
  for (const other_arrival& other : other_arrivals_)
    if (other.id == id) return {other.kind, other.where};
  return {phase_kind_, phase_where_};
}

// "; thread (0,0,0) to thread (31,0,0) wait at __syncthreads (a.cu:12:5);
// ...": the threads at the block barrier, in order of their linear ids,
// as the fiber executor lists them (block_executor::report); the round's
// barrier, or the one arrival_of lists for a thread that waits elsewhere.
inline void stackless_block_executor::append_barrier_waiters(std::string& text, const waiting_thread* waiting,
                                                             unsigned count) const {
  std::vector<const waiting_thread*> by_id(thread_count_, nullptr);
  for (unsigned r = 0; r < count; ++r) by_id[waiting[r].id] = &waiting[r];
  auto arrival = [&](const waiting_thread* t) { return arrival_of(t->id); };
  auto same = [&](const waiting_thread* a, const waiting_thread* b) {
    return arrival(a).kind == arrival(b).kind && same_call_site(arrival(a).where, arrival(b).where);
  };
  for (unsigned i = 0; i < thread_count_;) {
    const waiting_thread* first = by_id[i];
    if (!first) {
      ++i;
      continue;
    }
    unsigned j = i + 1;
    while (j < thread_count_ && by_id[j] && same(by_id[j], first)) ++j;
    reports::append_threads(text, first->index, by_id[j - 1]->index, j - i > 1);
    append_format(text, " wait at %s (%s)", reports::barrier_name(arrival(first).kind),
                  reports::describe_site(arrival(first).where).c_str());
    i = j;
  }
}

// "barrier divergence: ...; thread (0,0,0) to thread (31,0,0) wait at
// __syncthreads (a.cu:12:5); ...; 0 of 64 threads exited": the fiber
// executor's words.
inline std::string stackless_block_executor::divergence_report(const waiting_thread* waiting, unsigned count) const {
  std::string text = "barrier divergence: threads wait at different barriers, which can never all complete";
  append_barrier_waiters(text, waiting, count);
  append_format(text, "; %u of %u threads exited", thread_count_ - count, thread_count_);
  return text;
}

// A round ended with lanes in warp groups, which can never complete: a
// group waiting for a lane that exited is named as such, anything else is
// a deadlock; then the threads at the block barrier and the waiting
// groups, as the fiber executor reports a stalled block (stall_report).
inline std::string stackless_block_executor::stall_report(const waiting_thread* waiting, unsigned count) const {
  unsigned warps = (thread_count_ + 31) / 32, exited = 0;
  std::string text;
  for (unsigned w = 0; w < warps; ++w) {
    exited += static_cast<unsigned>(std::popcount(warps_[w].exited));
    for (unsigned i = 0; i < warps_[w].group_count && text.empty(); ++i) {
      const warp_group& g = warps_[w].groups[i];
      if (unsigned gone = g.mask & ~g.arrived & warps_[w].exited) text = reports::group_waits_for_exited(w, g, gone);
    }
  }
  if (text.empty()) text = "deadlock: no thread of the block can make progress";
  append_barrier_waiters(text, waiting, count);
  // The threads parked on objects, by linear id, consecutive ones at the
  // same wait as one range: block_executor::report's words.
  std::vector<const object_waiter*> on_objects;
  for (const object_waiter& w : on_objects_) on_objects.push_back(&w);
  std::sort(on_objects.begin(), on_objects.end(),
            [](const object_waiter* a, const object_waiter* b) { return a->thread.id < b->thread.id; });
  for (std::size_t i = 0; i < on_objects.size();) {
    const object_waiter& s = *on_objects[i];
    std::size_t j = i + 1;
    while (j < on_objects.size() && on_objects[j]->thread.id == on_objects[j - 1]->thread.id + 1 &&
           on_objects[j]->object == s.object && on_objects[j]->what == s.what &&
           same_call_site(on_objects[j]->where, s.where))
      ++j;
    reports::append_threads(text, s.thread.index, on_objects[j - 1]->thread.index, j - i > 1);
    append_format(text, " wait at %s (%s)", s.what, reports::describe_site(s.where).c_str());
    if (s.describe) {
      text += ", ";
      text += s.describe(s.object);
    }
    i = j;
  }
  for (unsigned w = 0; w < warps; ++w)
    for (unsigned i = 0; i < warps_[w].group_count; ++i) {
      const warp_group& g = warps_[w].groups[i];
      reports::append_waiting_group(text, w, g, threads_[w * 32 + std::countr_zero(g.arrived)].index);
    }
  append_format(text, "; %u of %u threads exited", exited, thread_count_);
  return text;
}

}  // namespace weft::detail
