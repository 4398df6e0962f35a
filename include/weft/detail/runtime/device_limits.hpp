// cudaDeviceSetLimit's limits other than the stack size (which the runtime
// itself keeps: runtime::stack_bytes), per device. They are kept and reported
// back but change nothing yet (the persisting L2 set-aside has no cache to
// act on).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "weft/detail/base/devices.hpp"

namespace weft::detail {

/// Indexed by cudaLimit; the values are an H100's defaults.
inline constexpr std::array<std::size_t, 7> default_limits{0, 1 << 20, 8 << 20, 2, 2048, 32, 9830400};

/// The current device's limits.
inline std::array<std::size_t, 7>& stored_limits() {
  static std::vector<std::array<std::size_t, 7>> limits(static_cast<std::size_t>(device_count()), default_limits);
  return limits[static_cast<std::size_t>(current_device)];
}

}  // namespace weft::detail
