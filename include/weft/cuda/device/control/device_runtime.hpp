// Time and control inside a kernel: clock64, clock() as ported device code
// calls it, __nanosleep, __trap, __brkpt.
#pragma once

#include <time.h>

#include <cerrno>
#include <stdexcept>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/runtime/caller_checks.hpp"

namespace weft::detail {

/// An H100's SM clock in cycles per microsecond (cudaDevAttrClockRate:
/// 1980000 kHz): the rate clock64() and a kernel's clock() tick at.
inline constexpr long long sm_cycles_per_microsecond = 1980;

/// CLOCK_MONOTONIC in nanoseconds (std::chrono::steady_clock's clock,
/// without <chrono>'s compile time).
inline long long monotonic_nanoseconds() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1'000'000'000LL + now.tv_nsec;
}

/// CLOCK_MONOTONIC in cycles of an H100's SM clock.
inline long long sm_cycles_now() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1'000'000 * sm_cycles_per_microsecond + now.tv_nsec * sm_cycles_per_microsecond / 1000;
}

/// What a kernel's clock64() and clock() do before they read the time: let
/// the other threads of the caller's block run. On an SM the threads of a
/// block run side by side, so a thread that reads the clock, to time itself
/// or to wait (cuda-samples' clockBlock spins until clock() has advanced
/// 5 us), sees the time its block-mates spend alongside it, as CUDA's guide
/// says (threads are time sliced); weft runs them on one OS thread, and
/// without this a block of 512 threads each waiting 5 us took 2.6 ms instead
/// of about 5 us, as if they ran one after another. The same as an atomic
/// that changed nothing (atomic_functions.hpp). Nothing to do when no other
/// thread of the block can run, or outside a kernel.
inline void let_block_run_before_reading_clock() {
  if (block_executor* block = running_block) block->yield();
}

}  // namespace weft::detail

/// A monotonic counter for timing code inside a kernel: CLOCK_MONOTONIC
/// counted in cycles of an H100's SM clock (1.98 GHz), the rate that
/// cudaDevAttrClockRate reports, so that a kernel that spins for
/// `milliseconds * clockRate` cycles waits that long, as on a GPU. Absolute
/// values mean nothing, as there. Every CUDA thread of a block runs on the
/// same OS thread, and all workers share the one clock, so it never goes
/// back, within a thread or across them. In a kernel, the block's other
/// threads run before it reads the time, as they would alongside it on an SM
/// (let_block_run_before_reading_clock).
inline long long int clock64() {
  weft::detail::let_block_run_before_reading_clock();
  return weft::detail::sm_cycles_now();
}

namespace weft::detail {

/// What `clock()` in a __global__, __device__ or __host__ __device__
/// function calls once ported (weft-port rewrites it: the host compiler's
/// clock() is C's, the process's CPU time in microseconds). In a kernel it
/// is CUDA's: the SM cycle counter's low 32 bits, sign-extended to clock_t,
/// so it wraps every 2.2 s as on a GPU, read as clock64() reads it (after
/// the block's other threads ran); elsewhere it is C's clock().
inline clock_t clock_as_called() {
  if (!in_kernel()) return ::clock();
  let_block_run_before_reading_clock();
  return static_cast<clock_t>(static_cast<int>(static_cast<unsigned>(sm_cycles_now())));
}

}  // namespace weft::detail

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
  long long until = weft::detail::monotonic_nanoseconds() + wait;
  if (weft::detail::block_executor* block = weft::detail::running_block) {
    while (block->yield()) {
      wait = until - weft::detail::monotonic_nanoseconds();
      if (wait <= 0) return;
    }
  }
  if (wait >= spin_below) {
    timespec request{0, static_cast<long>(wait)};
    while (nanosleep(&request, &request) == -1 && errno == EINTR) {
    }
    return;
  }
  while (weft::detail::monotonic_nanoseconds() < until) {
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
