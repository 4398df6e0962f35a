// Host coroutines: a coroutine on the host can co_await stream work instead
// of blocking a thread on it. CUDA has no spelling for this, so it is weft's
// own:
//
//   weft::task<cudaError_t> step(cudaStream_t s, float* d, float* h, size_t bytes) {
//     cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s);
//     if (cudaError_t e = co_await weft::launch_and_await({64, 256, 0, s}, kernel, d)) co_return e;
//     cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s);
//     co_return co_await weft::completion(s);  // h holds the result once it resumes
//   }
//   cudaError_t e = weft::sync_wait(step(s, d, h, bytes));
//
// - co_await weft::completion(stream): the stream's work enqueued so far, as
//   cudaStreamSynchronize(stream) would wait for it (on the legacy stream:
//   and every blocking stream's);
// - co_await weft::completion(event): the event's latest record at the time
//   of the co_await (never recorded: complete);
// - co_await weft::launch_and_await(config, kernel, args...): launches as
//   weft::launch does, when called, and completes with that grid.
// Each gives a cudaError_t: an error found before waiting (a bad handle or
// configuration, a call from a host function), with no suspension at all, or
// else the device's sticky fault once the work is done (cudaSuccess if
// none), recorded as the last error of the thread the coroutine then runs on.
//
// Where a coroutine resumes: if the work is already done at the co_await, it
// does not suspend. Otherwise it resumes on weft's resumption thread (one per
// process, started on first use), in the order the work completed, with the
// current device it had when it suspended; never on the SM worker or
// host-function thread that completed the work. That thread may call the
// runtime, blocking calls included. A coroutine running under
// sync_wait(task, resume_on::calling_thread) resumes on that calling thread.
// docs/streams.md, "Host coroutines", says more.
#pragma once

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/streams/event_api.hpp"
#include "weft/cuda/runtime/streams/stream_api.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/command.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/host_task.hpp"
#include "weft/detail/streams/resumption_queue.hpp"
#include "weft/detail/streams/stream_registry.hpp"
#include "weft/launch.hpp"

namespace weft {

namespace detail {

/// What the awaitables share: a command to wait for (or an error, or
/// nothing), and resumption once it completes.
class completion_awaiter {
 public:
  void await_suspend(std::coroutine_handle<> h) {
    resumption_queue& through = resuming_through ? *resuming_through : resumption_thread::queue();
    // The coroutine may resume, destroying *this, before when_done returns.
    std::shared_ptr<command> c = pending_;
    command_graph::when_done(
        *c, [h, queue = through.shared_from_this(), device = current_device] { queue->post(h, device); });
  }

  cudaError_t await_resume() const {
    // The host has seen the work done: for the race check, what it
    // enqueues from now on is ordered after it, as after a synchronisation.
    if (pending_) command_graph::host_learns(*pending_);
    return error_ ? error_ : record(fault(device_).code());
  }

 protected:
  bool ready() const { return error_ || !pending_; }

  cudaError_t error_ = cudaSuccess;
  int device_ = 0;
  std::shared_ptr<command> pending_;  // null when there is nothing to wait for
};

}  // namespace detail

/// co_await: the stream's work enqueued so far is done (see the top of this file).
class [[nodiscard]] stream_completion : public detail::completion_awaiter {
 public:
  explicit stream_completion(cudaStream_t stream) : stream_(stream) {}

  bool await_ready() {
    using namespace detail;
    if ((error_ = check_caller(false))) return true;
    CUstream_st* s = resolve_stream(stream_);
    if (!s) {
      error_ = record(cudaErrorInvalidResourceHandle);
      return true;
    }
    device_ = s->device;
    auto& commands = runtime::get(device_).commands();
    if (s->legacy) {
      // A marker in the legacy stream also waits for every blocking stream's work.
      auto point = std::make_shared<marker>("co_await");
      commands.enqueue(*s, point);
      if (!point->done()) pending_ = std::move(point);
    } else {
      pending_ = commands.last_pending(*s);
    }
    return ready();
  }

 private:
  cudaStream_t stream_;
};

/// co_await: the event's latest record at the time of the co_await is done.
class [[nodiscard]] event_completion : public detail::completion_awaiter {
 public:
  explicit event_completion(cudaEvent_t event) : event_(event) {}

  bool await_ready() {
    using namespace detail;
    if ((error_ = check_caller(false))) return true;
    if (!live_event(event_)) {
      error_ = record(cudaErrorInvalidResourceHandle);
      return true;
    }
    device_ = event_->device;
    if (auto point = event_->recorded(); point && !point->done())
      pending_ = std::move(point);
    else if (point)
      command_graph::host_learns(*point);  // done already: as a query that found it done
    return ready();
  }

 private:
  cudaEvent_t event_;
};

/// co_await: a grid launched by launch_and_await is done, or its launch failed.
class [[nodiscard]] launch_completion : public detail::completion_awaiter {
 public:
  launch_completion(cudaError_t launched, cudaStream_t stream) {
    using namespace detail;
    if ((error_ = launched)) return;
    // The launch succeeded on this thread, so the handle names a stream of
    // the current device. Its last command is now the grid, or work another
    // thread enqueued after it, which in stream order completes no earlier.
    CUstream_st* s = resolve_stream(stream);
    device_ = s->device;
    pending_ = runtime::get(device_).commands().last_pending(*s);
  }

  bool await_ready() const { return ready(); }
};

inline stream_completion completion(cudaStream_t stream) { return stream_completion(stream); }
/// The default stream; `completion(0)` is ambiguous (0 is also a null event).
inline stream_completion completion(std::nullptr_t) { return stream_completion(nullptr); }
inline event_completion completion(cudaEvent_t event) { return event_completion(event); }

/// weft::launch, whose result is awaited: the launch happens here, and the
/// co_await gives its error at once or waits for the grid.
template <class Kernel, class... Args>
launch_completion launch_and_await(const launch_config& config, Kernel&& kernel, Args&&... args) {
  cudaError_t launched = launch(config, std::forward<Kernel>(kernel), std::forward<Args>(args)...);
  return launch_completion(launched, config.stream);
}

template <class Kernel, class... Args>
launch_completion launch_and_await(dim3 grid, dim3 block, Kernel&& kernel, Args&&... args) {
  return launch_and_await(launch_config{grid, block}, std::forward<Kernel>(kernel), std::forward<Args>(args)...);
}

template <class T = void>
class task;

namespace detail {

struct task_promise_base {
  std::coroutine_handle<> continuation;
  std::exception_ptr error;
  // Raised by the first of: the task's end, and its start returning to the
  // awaiting coroutine. The second continues the awaiting coroutine.
  std::atomic<bool> handed_over{false};

  std::suspend_always initial_suspend() noexcept { return {}; }

  // A task that finishes within its start returns there, and the awaiting
  // coroutine goes on without suspending: a loop of such awaits does not grow
  // the stack, with or without the compiler's tail calls. A task that
  // finished later transfers control straight to the awaiting coroutine
  // (symmetric transfer).
  struct to_continuation {
    bool await_ready() noexcept { return false; }
    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> h) noexcept {
      task_promise_base& p = h.promise();
      if (p.handed_over.exchange(true, std::memory_order_acq_rel)) return p.continuation;
      return std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  to_continuation final_suspend() noexcept { return {}; }

  void unhandled_exception() noexcept { error = std::current_exception(); }
  void rethrow_error() const {
    if (error) std::rethrow_exception(error);
  }
};

template <class T>
struct task_promise : task_promise_base {
  std::optional<T> value;
  task<T> get_return_object() noexcept;
  template <class U = T>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T result() {
    rethrow_error();
    return std::move(*value);
  }
};

template <>
struct task_promise<void> : task_promise_base {
  task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void result() const { rethrow_error(); }
};

/// Starts a task; the awaiting coroutine goes on when it finishes.
struct start_task {
  std::coroutine_handle<> task;
  task_promise_base& promise;
  bool await_ready() noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> awaiting) noexcept {
    promise.continuation = awaiting;
    task.resume();
    // Suspends unless the task has finished already.
    return !promise.handed_over.exchange(true, std::memory_order_acq_rel);
  }
  void await_resume() noexcept {}
};

/// What sync_wait and when_all do with a task, which its awaiters do not.
struct task_access {
  template <class T>
  static start_task start(task<T>& t);
  template <class T>
  static T result(task<T>& t) {
    return t.h_.promise().result();
  }
};

/// A coroutine that runs from its call to its end and frees itself: it
/// starts a task and reports its end.
struct detached {
  struct promise_type {
    detached get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }
  };
};

/// Raises `done` in `latch` once the task has finished.
inline detached run_then_raise(start_task start, std::shared_ptr<resumption_queue> latch, bool& done) {
  co_await start;
  latch->raise(done);
}

/// Resumes `parent` once the task has finished and `remaining` drops to zero.
inline detached run_then_count(start_task start, std::atomic<std::size_t>& remaining, std::coroutine_handle<> parent) {
  co_await start;
  if (remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) parent.resume();
}

}  // namespace detail

/// A host coroutine that gives a T (or nothing). It is lazy: it starts when
/// awaited, by another task (`T x = co_await t;`, once) or by sync_wait, and
/// an exception it lets escape is thrown again there.
template <class T>
class [[nodiscard]] task {
 public:
  using promise_type = detail::task_promise<T>;

  task(task&& other) noexcept : h_(std::exchange(other.h_, {})) {}
  task& operator=(task&& other) noexcept {
    if (this != &other) {
      if (h_) h_.destroy();
      h_ = std::exchange(other.h_, {});
    }
    return *this;
  }
  ~task() {
    if (h_) h_.destroy();
  }

  auto operator co_await() noexcept {
    struct awaiter : detail::start_task {
      T await_resume() { return static_cast<promise_type&>(promise).result(); }
    };
    return awaiter{{h_, h_.promise()}};
  }

 private:
  friend promise_type;
  friend struct detail::task_access;
  explicit task(std::coroutine_handle<promise_type> h) : h_(h) {}

  std::coroutine_handle<promise_type> h_;
};

template <class T>
detail::start_task detail::task_access::start(task<T>& t) {
  return {t.h_, t.h_.promise()};
}

template <class T>
task<T> detail::task_promise<T>::get_return_object() noexcept {
  return task<T>(std::coroutine_handle<task_promise>::from_promise(*this));
}
inline task<void> detail::task_promise<void>::get_return_object() noexcept {
  return task<void>(std::coroutine_handle<task_promise>::from_promise(*this));
}

/// Where the coroutines of a sync_wait resume after waiting for stream work.
enum class resume_on {
  resumption_thread,  // weft's resumption thread
  calling_thread,     // the thread in sync_wait, which resumes them while it waits
};

/// Runs `t` and blocks the calling thread until it finishes; returns its
/// value or throws its exception. Not on weft's resumption thread with
/// resume_on::resumption_thread: that thread would wait for itself.
template <class T>
T sync_wait(task<T> t, resume_on where = resume_on::resumption_thread) {
  if (where == resume_on::resumption_thread && detail::on_resumption_thread)
    throw std::logic_error("weft::sync_wait on weft's resumption thread would wait for that thread");
  auto latch = std::make_shared<detail::resumption_queue>();
  bool done = false;
  detail::resumption_queue* outer =
      std::exchange(detail::resuming_through, where == resume_on::calling_thread ? latch.get() : nullptr);
  detail::run_then_raise(detail::task_access::start(t), latch, done);
  latch->drain_until(done);
  detail::resuming_through = outer;
  return detail::task_access::result(t);
}

/// A task that runs `tasks` concurrently (each starts in turn and runs to
/// its first suspension) and gives their values in order, once all have
/// finished; the first one's exception, if any, is thrown instead.
template <class T>
auto when_all(std::vector<task<T>> tasks) {
  struct all_finished {
    std::vector<task<T>>& tasks;
    std::atomic<std::size_t> remaining{0};
    bool await_ready() noexcept { return tasks.empty(); }
    // One count is this call's own, so that a task finishing meanwhile
    // cannot resume the parent before it has suspended.
    bool await_suspend(std::coroutine_handle<> parent) {
      remaining.store(tasks.size() + 1, std::memory_order_relaxed);
      for (auto& t : tasks) detail::run_then_count(detail::task_access::start(t), remaining, parent);
      return remaining.fetch_sub(1, std::memory_order_acq_rel) != 1;
    }
    void await_resume() noexcept {}
  };
  if constexpr (std::is_void_v<T>) {
    return [](std::vector<task<T>> all) -> task<void> {
      co_await all_finished{all};
      for (auto& t : all) detail::task_access::result(t);
    }(std::move(tasks));
  } else {
    return [](std::vector<task<T>> all) -> task<std::vector<T>> {
      co_await all_finished{all};
      std::vector<T> values;
      values.reserve(all.size());
      for (auto& t : all) values.push_back(detail::task_access::result(t));
      co_return values;
    }(std::move(tasks));
  }
}

}  // namespace weft
