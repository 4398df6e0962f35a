// WEFT_PIN_WORKERS=1: each SM worker bound to a core of its own. Off by
// default: the kernel's scheduler already spreads busy threads over idle
// cores, and on a machine shared with other programs a worker bound to a
// busy core could not move away from it. Pinning is for a machine given to
// one program, where it keeps a worker's blocks in one core's caches
// (docs/performance.md, "Scaling, 1 to 16 workers", says what it changed).
#pragma once

#include <optional>

#include "weft/detail/base/environment.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace weft::detail {

inline bool pin_workers_requested() {
  static const bool requested = bounded_integer_variable("WEFT_PIN_WORKERS", 0, 1).value_or(0) == 1;
  return requested;
}

/// Binds the calling thread to the `index`-th CPU the process may run on,
/// when pinning was asked for and there are that many; otherwise leaves it
/// free, as it does where the system has no such call.
inline void pin_worker_to_core(unsigned index) {
#if defined(__linux__)
  if (!pin_workers_requested()) return;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  unsigned seen = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (seen++ != index) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    return;
  }
#else
  (void)index;
#endif
}

}  // namespace weft::detail
