// What the programmatic dependent launch tests share: a handshake between a
// primary kernel and a secondary one, which shows that they overlapped. The
// primary's blocks wait for a flag that only a running secondary raises,
// with a time limit, so that a missing overlap is a failed check, never a
// hang.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

namespace programmatic_test {

// Waits for `flag` to be raised, at most `limit`; true if it was.
inline bool wait_for_flag(const int* flag, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::atomic_ref<const int>(*flag).load() == 0) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

struct handshake {
  int secondary_running = 0;  // raised by the secondary before it synchronises
  int primary_saw_it = 0;     // blocks of the primary that saw it raised
  int value = 0;              // what the primary writes after the handshake
  int read_after_sync = -1;   // what the secondary read after synchronising
  int read_before_sync = -1;
};

}  // namespace programmatic_test
