// A process forked after weft started its threads (SM workers, watchdog,
// host-function and coroutine threads) holds none of them: fork copies only
// the calling thread. Waiting for a kernel would wait forever, and a lock or
// condition variable that one of those threads held at the fork stays held.
// CUDA leaves CUDA calls in such a child undefined until exec; weft's choice
// is cudaErrorInitializationError from every call that uses a device, and a
// child whose exit leaves the parent's state alone (docs/semantics.md,
// "Forked processes").
//
// Re-creating the runtime in the child instead would have to rebuild state
// whose locks may be held by threads that no longer exist (the allocation
// registry, the command graph, the stream registry), so the child could
// still block on its first call: the error is the choice that cannot hang.
//
// Everything on the child's path is a lock-free atomic or a system call
// that is async-signal-safe, since any lock may have been held at the fork.
#pragma once

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <iterator>

#include "weft/detail/base/cuda_vocabulary.hpp"

namespace weft::detail {

inline std::atomic<bool>& forked_child_flag() {
  static std::atomic<bool> forked{false};
  return forked;
}

/// Whether this process was forked after weft started a thread.
inline bool in_forked_child() { return forked_child_flag().load(std::memory_order_relaxed); }

/// Called by each place that starts a thread, before it does: from then on
/// a fork's child is marked. The prepare and parent handlers are empty, so
/// the parent's fork cannot wait for weft's threads.
inline void note_weft_threads_start() {
  static const bool registered = [] {
    pthread_atfork(nullptr, nullptr, [] { forked_child_flag().store(true, std::memory_order_relaxed); });
    return true;
  }();
  (void)registered;
}

/// Keeps what a forked child must not destroy (a device, a thread handle)
/// reachable until the child ends, so that a leak checker at the child's
/// exit does not report it. No lock: an atomic slot index.
inline void leave_alone_in_forked_child(void* object) {
  static void* kept[64];
  static std::atomic<unsigned> count{0};
  unsigned slot = count.fetch_add(1, std::memory_order_relaxed);
  if (slot < std::size(kept)) kept[slot] = object;
}

/// The code of every device call in a forked child. Says why once, with
/// write(2): stdio's lock may have been held at the fork.
inline cudaError_t forked_child_error() {
  static std::atomic<bool> told{false};
  if (!told.exchange(true)) {
    static constexpr char message[] =
        "weft: this process was forked after weft started its threads; CUDA calls in it fail with "
        "cudaErrorInitializationError until it calls exec\n";
    [[maybe_unused]] auto written = ::write(STDERR_FILENO, message, sizeof message - 1);
  }
  return cudaErrorInitializationError;
}

}  // namespace weft::detail
