// What a failed launch of a stackless kernel leaves, for the coroutine
// failure tests, which compare it between the two executors: the code that
// synchronisation reports, the report, and whether every
// stackless_frame_guard the threads made was destroyed (a failed block
// destroys the threads that wait where they wait, so that their destructors
// run, as the fiber executor's unwinding does). The device is reset after,
// so that the next test starts on a healthy one.
#pragma once

#include <doctest/doctest.h>
#include <weft.hpp>

#include "stackless_scope.hpp"

#include <atomic>
#include <regex>
#include <string>

/// Put one in a stackless kernel's thread (or a function it awaits): counts
/// the guards made and destroyed.
struct stackless_frame_guard {
  static inline std::atomic<int> made{0};
  static inline std::atomic<int> destroyed{0};
  stackless_frame_guard() { ++made; }
  ~stackless_frame_guard() { ++destroyed; }
  stackless_frame_guard(const stackless_frame_guard&) = delete;
  stackless_frame_guard& operator=(const stackless_frame_guard&) = delete;
};

struct stackless_failure {
  cudaError_t code;
  std::string report;
  bool guards_balanced;
  bool operator==(const stackless_failure&) const = default;
};

/// Runs `launch()`, which launches and returns the launch's code, then
/// synchronises and resets the device.
template <class Launch>
stackless_failure stackless_failure_of(Launch launch) {
  stackless_frame_guard::made = stackless_frame_guard::destroyed = 0;
  REQUIRE(launch() == cudaSuccess);
  stackless_failure failure{cudaDeviceSynchronize(), weft::fault_message(),
                            stackless_frame_guard::made == stackless_frame_guard::destroyed};
  CHECK(cudaDeviceReset() == cudaSuccess);
  return failure;
}

/// Launches `kernel` as one block of `threads` on each executor and checks
/// that both fail alike, with cudaErrorLaunchFailure and every guard
/// destroyed; returns the coroutine executor's failure.
template <class Kernel>
stackless_failure block_failure_on_both_executors(Kernel kernel, unsigned threads) {
  auto [on_coroutines, on_fibers] =
      on_both_executors([&] { return stackless_failure_of([&] { return weft::launch(1, threads, kernel); }); });
  INFO("coroutines: " << on_coroutines.report);
  INFO("fibers:     " << on_fibers.report);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.code == cudaErrorLaunchFailure);
  CHECK(on_coroutines.guards_balanced);
  return on_coroutines;
}

/// A report with its addresses (a cuda::barrier's, a frame's) written
/// ADDRESS: they differ between the executors' workers, and between runs.
inline std::string report_without_addresses(const std::string& report) {
  return std::regex_replace(report, std::regex("0x[0-9a-f]+"), "ADDRESS");
}
