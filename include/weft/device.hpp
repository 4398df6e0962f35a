// The native API for the simulated device as a whole.
#pragma once

#include <string>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft {

/// Number of SM workers (OS threads) that run blocks. Defaults to the
/// hardware concurrency, or to the WEFT_WORKERS environment variable.
inline unsigned worker_count() { return detail::runtime::get().worker_count(); }

/// Changes the number of SM workers; work already launched finishes first.
inline void set_worker_count(unsigned count) { detail::runtime::get().set_worker_count(count); }

/// Waits for every kernel launched so far; returns the device's sticky
/// fault, if a kernel failed.
inline cudaError_t synchronize() {
  detail::runtime::get().synchronize();
  return detail::record(detail::fault().code());
}

/// The full report of the device's sticky fault (kernel, block, threads and
/// what went wrong), or an empty string when there is none.
inline std::string fault_message() { return detail::fault().message(); }

}  // namespace weft
