// Device-wide runtime calls: synchronisation, reset, limits.
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/runtime/device_limits.hpp"
#include "weft/detail/runtime/device_properties.hpp"
#include "weft/detail/runtime/pool_allocations.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/textures/arrays/array_registry.hpp"

enum cudaLimit : int {
  cudaLimitStackSize = 0x00,
  cudaLimitPrintfFifoSize = 0x01,
  cudaLimitMallocHeapSize = 0x02,
  cudaLimitDevRuntimeSyncDepth = 0x03,
  cudaLimitDevRuntimePendingLaunchCount = 0x04,
  cudaLimitMaxL2FetchGranularity = 0x05,
  cudaLimitPersistingL2CacheSize = 0x06,
};

/// While a stream of the device captures there is work that is not
/// scheduled to wait for: cudaErrorStreamCaptureUnsupported, whatever the
/// capture's mode, and the device's captures are invalidated.
inline cudaError_t cudaDeviceSynchronize() {
  if (cudaError_t e = weft::detail::check_device_wait(weft::detail::current_device)) return e;
  cudaError_t e = weft::detail::wait_for_device();
  weft::detail::memory_pools::instance().release_above_thresholds();
  return e;
}

/// Waits for the device, destroys its streams and events, frees all its
/// memory, clears a sticky fault and restores default limits and kernel
/// attributes; the device's CUDA arrays go with its memory.
inline cudaError_t cudaDeviceReset() {
  cudaError_t e = weft::detail::reset_device_and_arrays();
  weft::detail::reset_device_pools(weft::detail::current_device);
  return e;
}

/// cudaLimitStackSize sets each CUDA thread's fiber stack for later launches
/// (at least 16 KiB, rounded up to pages; weft's default is 64 KiB since a
/// fiber stack also holds the host's own frames). The L2 cache's persisting
/// set-aside is at most the device's persistingL2CacheMaxSize
/// (cudaErrorInvalidValue above it); it is kept and read back, with no cache
/// to set aside on a CPU.
inline cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value) {
  if (limit < cudaLimitStackSize || limit > cudaLimitPersistingL2CacheSize)
    return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = weft::detail::check_device()) return e;
  // Only CDP1's device-side cudaDeviceSynchronize had a depth to limit.
  if (limit == cudaLimitDevRuntimeSyncDepth) return weft::detail::record(cudaErrorUnsupportedLimit);
  if (limit == cudaLimitPersistingL2CacheSize &&
      value > static_cast<std::size_t>(
                  weft::detail::fixed_properties(weft::detail::current_device).persistingL2CacheMaxSize))
    return weft::detail::record(cudaErrorInvalidValue);
  if (limit == cudaLimitStackSize)
    weft::detail::runtime::get().set_stack_bytes(value);
  else
    weft::detail::stored_limits()[limit] = value;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  if (!value || limit < cudaLimitStackSize || limit > cudaLimitPersistingL2CacheSize)
    return weft::detail::record(cudaErrorInvalidValue);
  if (limit == cudaLimitDevRuntimeSyncDepth) return weft::detail::record(cudaErrorUnsupportedLimit);
  *value =
      limit == cudaLimitStackSize ? weft::detail::runtime::get().stack_bytes() : weft::detail::stored_limits()[limit];
  return cudaSuccess;
}
