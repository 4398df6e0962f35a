// The simulated devices: how many there are (WEFT_DEVICES, read once, as
// CUDA enumerates devices once per process) and which one the calling thread
// uses. Below the runtime, because a device's sticky fault (error_state.hpp)
// and the grid a worker runs (grid_job.hpp) name devices too.
#pragma once

#include "weft/detail/base/environment.hpp"

namespace weft::detail {

/// The environment variable that sets the number of simulated devices.
inline constexpr const char* device_count_variable = "WEFT_DEVICES";

/// Read once per process, as CUDA enumerates devices once: WEFT_DEVICES, or 1.
inline int device_count() {
  static const int count = static_cast<int>(bounded_integer_variable(device_count_variable, 1, 64).value_or(1));
  return count;
}

inline bool valid_device(int d) { return d >= 0 && d < device_count(); }

/// The host thread's current device (cudaSetDevice). An SM worker takes the
/// device of the grid it runs (see grid_job::run_blocks).
inline thread_local int current_device = 0;

}  // namespace weft::detail
