// A worker of the race check as the workers that wait for its global
// shadow pages see it (race_check.hpp, race_worker::hold): the flag they
// set to ask for the pages back, which the holder reads at its next traced
// access, barrier, atomic or fence, and its thread, which they interrupt
// when it does not answer. A block that spins on memory the check does not
// see (a flag in host memory, say) makes none of those: the interrupt's
// handler, on the holder's own thread, lets go of its pages there and
// then, unless the worker is inside the check itself (it then lets go at
// its next access, or the next interrupt finds it outside).
#pragma once

#include <atomic>
#include <csignal>
#include <memory>
#include <mutex>
#include <vector>

#include <pthread.h>

namespace weft::detail {

/// The signal that asks a worker's thread to let go of its shadow pages.
/// SIGURG (out-of-band socket data) is one a CUDA program does not use, and
/// ignored by default: one that arrives where no handler is installed does
/// nothing.
inline constexpr int race_page_request_signal = SIGURG;

class alignas(64) race_page_holder {  // a line of its own: waiters write `asked`
 public:
  /// Set by a worker that waits for one of the holder's pages; cleared by
  /// the holder when it lets go.
  std::atomic<bool> asked{false};

  /// A record for a worker of the calling thread. Never freed: a waiter may
  /// read it just as the worker's thread ends.
  static race_page_holder* for_this_thread() {
    static std::mutex mutex;
    static auto* all = new std::vector<std::unique_ptr<race_page_holder>>;
    std::lock_guard lock(mutex);
    all->push_back(std::unique_ptr<race_page_holder>(new race_page_holder));
    return all->back().get();
  }

  /// Sends the holder's thread race_page_request_signal, first installing
  /// `handler` for it (once for the process); nothing once the worker is
  /// gone.
  void interrupt(void (*handler)(int)) {
    static const bool installed = [handler] {
      struct sigaction action {};
      action.sa_handler = handler;
      sigemptyset(&action.sa_mask);
      action.sa_flags = SA_RESTART;  // a holder blocked in a system call goes on with it
      return ::sigaction(race_page_request_signal, &action, nullptr) == 0;
    }();
    std::lock_guard lock(mutex_);
    if (installed && alive_) pthread_kill(thread_, race_page_request_signal);
  }

  /// The worker is gone (its thread may end): no more interrupts.
  void worker_gone() {
    std::lock_guard lock(mutex_);
    alive_ = false;
  }

 private:
  race_page_holder() = default;
  pthread_t thread_ = pthread_self();
  std::mutex mutex_;  // keeps the thread alive while it is sent the signal
  bool alive_ = true;
};

}  // namespace weft::detail
