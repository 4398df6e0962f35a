// Where host coroutines resume after a co_await on stream work. Completions
// are reported on whichever thread completes a command (an SM worker, the
// host-function thread, an enqueuing thread), none of which may run user code
// that waits; so a completion only queues the coroutine, and a thread that
// may wait resumes it: weft's resumption thread, or a thread inside
// weft::sync_wait(task, resume_on::calling_thread).
#pragma once

#include <condition_variable>
#include <coroutine>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/event.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/stream_registry.hpp"

namespace weft::detail {

class resumption_queue;

/// The queue whose thread is running the current coroutine: a coroutine that
/// suspends while it is set resumes through it. Null: weft's resumption thread.
inline thread_local resumption_queue* resuming_through = nullptr;

/// True on weft's resumption thread.
inline thread_local bool on_resumption_thread = false;

class resumption_queue : public std::enable_shared_from_this<resumption_queue> {
 public:
  /// Queues `h` to resume with `device` as its current device (a coroutine
  /// keeps its device across threads). Once the queue is closed the
  /// coroutine is dropped: it stays suspended, its frame leaked.
  void post(std::coroutine_handle<> h, int device) {
    {
      std::lock_guard lock(mutex_);
      if (closed_) return;
      ready_.push_back({h, device});
    }
    changed_.notify_all();
  }

  /// Sets `flag` under the queue's lock and wakes its drain.
  void raise(bool& flag) {
    {
      std::lock_guard lock(mutex_);
      flag = true;
    }
    changed_.notify_all();
  }

  /// Resumes queued coroutines on the calling thread, oldest first, until
  /// `done` is raised; sleeps while none is queued.
  void drain_until(const bool& done) {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return done || !ready_.empty(); });
      if (done) return;
      entry next = ready_.front();
      ready_.pop_front();
      lock.unlock();
      int own_device = current_device;
      current_device = next.device;
      next.handle.resume();
      current_device = own_device;
      lock.lock();
    }
  }

  /// Stops a drain_until_closed; coroutines queued or completing later are dropped.
  void close() { raise(closed_); }
  void drain_until_closed() { drain_until(closed_); }

 private:
  struct entry {
    std::coroutine_handle<> handle;
    int device;
  };
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<entry> ready_;
  bool closed_ = false;
};

/// weft's resumption thread: one per process, started on first use, joined
/// during static destruction.
class resumption_thread {
 public:
  static resumption_queue& queue() { return *get().queue_; }

  resumption_thread(const resumption_thread&) = delete;
  resumption_thread& operator=(const resumption_thread&) = delete;

  /// Completions after this find the queue closed (it lives on in their
  /// continuations), so they never touch a destroyed object.
  ~resumption_thread() {
    // A forked child has no such thread, and the queue's lock may have been
    // held at the fork: the child leaves both alone.
    if (in_forked_child()) {
      leave_alone_in_forked_child(new std::thread(std::move(thread_)));
      return;
    }
    queue_->close();
    // std::exit called by a coroutine running on it: it cannot join itself.
    if (thread_.get_id() == std::this_thread::get_id())
      thread_.detach();
    else
      thread_.join();
  }

 private:
  resumption_thread() {
    // Statics are destroyed in the reverse order of their construction:
    // constructing the runtime's first keeps it alive until this thread,
    // whose coroutines use it, has been joined.
    runtime::get(0);
    stream_registry::get();
    event_registry::get();
    fault(0);
    note_weft_threads_start();
    thread_ = std::thread([q = queue_] {
      on_resumption_thread = true;
      resuming_through = q.get();
      q->drain_until_closed();
    });
  }

  static resumption_thread& get() {
    static resumption_thread thread;
    return thread;
  }

  std::shared_ptr<resumption_queue> queue_ = std::make_shared<resumption_queue>();
  std::thread thread_;
};

}  // namespace weft::detail
