// Device-wide runtime calls: synchronisation, reset, limits.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/streams/command_graph.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/streams/event.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/runtime/stream_registry.hpp"
#include "weft/cuda/runtime/error_codes.hpp"

enum cudaLimit {
  cudaLimitStackSize = 0x00,
  cudaLimitPrintfFifoSize = 0x01,
  cudaLimitMallocHeapSize = 0x02,
  cudaLimitDevRuntimeSyncDepth = 0x03,
  cudaLimitDevRuntimePendingLaunchCount = 0x04,
  cudaLimitMaxL2FetchGranularity = 0x05,
  cudaLimitPersistingL2CacheSize = 0x06,
};

namespace weft::detail {

/// The device's sticky fault, recorded as the last error, if there is one.
inline cudaError_t check_device() { return record(fault().code()); }

/// The implicit synchronisation of blocking calls (cudaMemcpy, cudaFree...):
/// waits for all launched work, then reports a fault it may have raised.
/// Refused inside a kernel or a host function, where waiting for the device
/// would wait forever.
inline cudaError_t wait_for_device() {
  if (running_block || in_host_function) return record(cudaErrorNotPermitted);
  runtime::get().synchronize();
  return check_device();
}

// Limits other than the stack size are kept and reported back but change
// nothing yet; the values are an H100's defaults.
inline constexpr std::array<std::size_t, 7> default_limits{0, 1 << 20, 8 << 20, 2, 2048, 32, 0};

/// The current device's limits.
inline std::array<std::size_t, 7>& stored_limits() {
  static std::vector<std::array<std::size_t, 7>> limits(static_cast<std::size_t>(device_count()), default_limits);
  return limits[static_cast<std::size_t>(current_device)];
}

}  // namespace weft::detail

inline cudaError_t cudaDeviceSynchronize() { return weft::detail::wait_for_device(); }

/// Waits for the device, destroys its streams and events, frees all its
/// memory, clears a sticky fault and restores default limits and kernel
/// attributes.
inline cudaError_t cudaDeviceReset() {
  using namespace weft::detail;
  if (running_block || in_host_function) return record(cudaErrorNotPermitted);
  runtime::get().synchronize();
  stream_registry::get().destroy_all(current_device);
  event_registry::get().destroy_all(current_device);
  weft::detail::runtime::get().reset();
  weft::detail::stored_limits() = weft::detail::default_limits;
  return cudaSuccess;
}

/// cudaLimitStackSize sets each CUDA thread's fiber stack for later launches
/// (at least 16 KiB, rounded up to pages; weft's default is 64 KiB since a
/// fiber stack also holds the host's own frames).
inline cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value) {
  if (limit < cudaLimitStackSize || limit > cudaLimitPersistingL2CacheSize)
    return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (limit == cudaLimitStackSize)
    weft::detail::runtime::get().set_stack_bytes(value);
  else
    weft::detail::stored_limits()[limit] = value;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit) {
  if (!value || limit < cudaLimitStackSize || limit > cudaLimitPersistingL2CacheSize)
    return weft::detail::record(cudaErrorInvalidValue);
  *value =
      limit == cudaLimitStackSize ? weft::detail::runtime::get().stack_bytes() : weft::detail::stored_limits()[limit];
  return cudaSuccess;
}
