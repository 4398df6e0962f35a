// Waiting that stays awake for a moment before it sleeps. Putting a thread to
// sleep and waking it costs several microseconds each way, more than a short
// kernel runs, so a launch-and-synchronise round trip would be dominated by
// them. A waiter first polls for about spin_time, yielding the core between
// polls so that the thread it waits for can run on a machine with few cores,
// and only then sleeps.
#pragma once

#include <sched.h>
#include <chrono>

namespace weft::detail {

/// Tells the core that this is a busy-wait loop (fewer speculative loads,
/// and a sibling hyperthread gets the core's resources).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

inline constexpr std::chrono::microseconds spin_time{50};

/// Polls `ready` for up to spin_time; true as soon as it holds.
template <class Ready>
bool spin_until(Ready&& ready) {
  if (ready()) return true;
  auto deadline = std::chrono::steady_clock::now() + spin_time;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
    sched_yield();
  }
}

}  // namespace weft::detail
