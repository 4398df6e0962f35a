// Time and control inside a kernel: clock64, __nanosleep, __trap, __brkpt.
// (clock() is C's own function: see below.)
#pragma once

#include <time.h>

#include <cerrno>
#include <stdexcept>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/runtime/caller_checks.hpp"

/// A monotonic counter for timing code inside a kernel: nanoseconds of
/// CLOCK_MONOTONIC (std::chrono::steady_clock's clock, without <chrono>'s
/// compile time). On a GPU clock64() counts SM cycles (an H100's
/// tick at about 1.98 GHz), so differences are meaningful and absolute
/// values are not, as there. Every CUDA thread of a block runs on the same
/// OS thread, and all workers share the one clock, so it never goes back,
/// within a thread or across them.
///
/// clock(), which CUDA code also uses for this, is C's: it counts the
/// process's CPU time in microseconds (CLOCKS_PER_SEC), and is monotonic too,
/// but it advances for every busy worker at once.
inline long long int clock64() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1'000'000'000LL + now.tv_nsec;
}

/// Suspends the calling thread for at least `ns` nanoseconds, at most about
/// a millisecond, as on a GPU (measured on an H100: longer requests sleep
/// 1 ms). Inside a kernel the time is spent letting the block's other threads
/// run (the caller goes to the back of the block's ready list, again until the
/// time is up), since a thread that sleeps is usually waiting for another one,
/// as in a backoff loop. Only while no other thread of the block can run does
/// it wait itself: short sleeps spin, longer ones sleep the worker.
inline void __nanosleep(unsigned int ns) {
  constexpr long long longest = 1'000'000;  // an H100's cap
  constexpr long long spin_below = 50'000;  // a sleeping thread's wake-up latency
  long long wait = ns < longest ? ns : longest;
  long long until = clock64() + wait;
  if (weft::detail::block_executor* block = weft::detail::running_block) {
    while (block->yield()) {
      wait = until - clock64();
      if (wait <= 0) return;
    }
  }
  if (wait >= spin_below) {
    timespec request{0, static_cast<long>(wait)};
    while (nanosleep(&request, &request) == -1 && errno == EINTR) {
    }
    return;
  }
  while (clock64() < until) {
  }
}

/// Aborts the kernel: the launch fails with cudaErrorLaunchFailure, sticky
/// until cudaDeviceReset, as on an H100 (tests/differential/).
[[noreturn]] inline void __trap() {
  weft::detail::require_kernel("__trap()");
  throw weft::detail::kernel_fault{cudaErrorLaunchFailure, "__trap() called"};
}

/// A breakpoint. Without a debugger attached an H100 fails the launch with
/// cudaErrorLaunchFailure, as for __trap(), and so does weft. To stop there
/// under gdb, break on __brkpt.
[[noreturn]] inline void __brkpt() {
  weft::detail::require_kernel("__brkpt()");
  throw weft::detail::kernel_fault{cudaErrorLaunchFailure, "__brkpt() called"};
}
