// Device-wide operations: its sticky fault as a call's result, waiting for
// all its work, and cudaDeviceReset.
#pragma once

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/commands/event.hpp"
#include "weft/detail/runtime/caller_checks.hpp"
#include "weft/detail/runtime/device_limits.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/stream_registry.hpp"

namespace weft::detail {

/// The device's sticky fault, recorded as the last error, if there is one.
inline cudaError_t check_device() { return record(fault().code()); }

/// The implicit synchronisation of blocking calls (cudaMemcpy, cudaFree...):
/// waits for all launched work, then reports a fault it may have raised.
/// Refused inside a kernel or a host function, where waiting for the device
/// would wait forever.
inline cudaError_t wait_for_device() {
  if (cudaError_t e = check_caller(true)) return e;
  runtime::get().synchronize();
  return check_device();
}

/// cudaDeviceReset of the current device: waits for it, destroys its streams
/// and events, frees all its memory, clears a sticky fault and restores
/// default limits and kernel attributes.
inline cudaError_t reset_device() {
  if (cudaError_t e = check_caller(true)) return e;
  runtime::get().synchronize();
  stream_registry::get().destroy_all(current_device);
  event_registry::get().destroy_all(current_device);
  runtime::get().reset();
  stored_limits() = default_limits;
  return cudaSuccess;
}

}  // namespace weft::detail
