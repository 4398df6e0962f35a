// Stream attributes and the persisting L2 cache (cudaStreamSetAttribute,
// cudaStreamGetAttribute, cudaCtxResetPersistingL2Cache). A CPU has no L2
// access policy, synchronisation policy, memory synchronisation domain or
// NVLink to apply, so those attributes are checked as CUDA checks them
// (launch_attributes.hpp), stored and read back, with no effect. The
// priority is the stream's own: setting it changes the priority of the
// stream's later work, clamped to the device's range as at creation.
#pragma once

#include <cstring>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/launch_attributes.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/stream_attributes.hpp"
#include "weft/detail/streams/stream_registry.hpp"

/// Demotes persisting cache lines to normal ones: there are none on a CPU.
inline cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

inline cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                          const cudaStreamAttrValue* value) {
  using namespace weft::detail;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(hStream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (!value) return record(cudaErrorInvalidValue);
  if (cudaError_t e = weft::surface::check_attribute(attr, *value, weft::surface::attribute_place::stream))
    return record(e);
  if (attr == cudaLaunchAttributePriority) {
    s->priority = weft::surface::clamped_priority(value->priority);
    return cudaSuccess;
  }
  stream_attributes::value bytes;
  static_assert(sizeof(bytes) == sizeof(cudaStreamAttrValue));
  std::memcpy(bytes.data(), value, sizeof(bytes));
  stream_attributes::get().set(s->device, s->id, attr, bytes);
  return cudaSuccess;
}

/// What was set, or what an H100 reads back unset: an empty access policy
/// window, a synchronisation policy of -1, the domain map {0, 1}, the
/// stream's priority.
inline cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, cudaStreamAttrValue* value_out) {
  using namespace weft::detail;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(hStream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (!value_out || !weft::surface::attribute_valid_in(attr, weft::surface::attribute_place::stream))
    return record(cudaErrorInvalidValue);
  std::memset(static_cast<void*>(value_out), 0, sizeof(*value_out));
  if (attr == cudaLaunchAttributePriority) {
    value_out->priority = s->priority;
  } else if (auto stored = stream_attributes::get().find(s->device, s->id, attr)) {
    std::memcpy(static_cast<void*>(value_out), stored->data(), sizeof(*value_out));
  } else if (attr == cudaLaunchAttributeSynchronizationPolicy) {
    // What an H100 reads back before any policy is set: no policy of the
    // enum, -1 (tests/differential/pdl_probe.expected).
    value_out->syncPolicy = static_cast<cudaSynchronizationPolicy>(-1);
  } else if (attr == cudaLaunchAttributeMemSyncDomainMap) {
    value_out->memSyncDomainMap.remote = 1;  // as an H100 reads it back: default 0, remote 1
  }
  return cudaSuccess;
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
