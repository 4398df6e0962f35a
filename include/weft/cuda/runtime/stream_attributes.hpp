// Stream attributes and the persisting L2 cache (cudaStreamSetAttribute,
// cudaStreamGetAttribute, cudaCtxResetPersistingL2Cache). A CPU has no L2
// access policy, synchronisation policy or memory synchronisation domain to
// apply, so the attributes are checked, stored and read back, with no
// effect; a stream's priority is its own, set when it was created.
#pragma once

#include <cstring>

#include "weft/cuda/runtime/default_stream.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/kernel_api.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/stream_attributes.hpp"
#include "weft/detail/streams/stream_registry.hpp"

namespace weft::surface {

/// The attributes a stream has in CUDA: the others are launch attributes only.
inline bool stream_attribute(cudaStreamAttrID attr) {
  return attr == cudaLaunchAttributeAccessPolicyWindow || attr == cudaLaunchAttributeSynchronizationPolicy ||
         attr == cudaLaunchAttributePriority || attr == cudaLaunchAttributeMemSyncDomainMap ||
         attr == cudaLaunchAttributeMemSyncDomain;
}

}  // namespace weft::surface

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
  if (!value || !weft::surface::stream_attribute(attr)) return record(cudaErrorInvalidValue);
  if (attr == cudaLaunchAttributePriority) return cudaSuccess;  // fixed at creation in weft
  stream_attributes::value bytes;
  static_assert(sizeof(bytes) == sizeof(cudaStreamAttrValue));
  std::memcpy(bytes.data(), value, sizeof(bytes));
  stream_attributes::get().set(s->device, s->id, attr, bytes);
  return cudaSuccess;
}

/// What was set, or CUDA's defaults: an empty access policy window, the
/// automatic synchronisation policy, domain 0, the stream's priority.
inline cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, cudaStreamAttrValue* value_out) {
  using namespace weft::detail;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(hStream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (!value_out || !weft::surface::stream_attribute(attr)) return record(cudaErrorInvalidValue);
  std::memset(static_cast<void*>(value_out), 0, sizeof(*value_out));
  if (attr == cudaLaunchAttributePriority) {
    value_out->priority = s->priority;
  } else if (auto stored = stream_attributes::get().find(s->device, s->id, attr)) {
    std::memcpy(static_cast<void*>(value_out), stored->data(), sizeof(*value_out));
  } else if (attr == cudaLaunchAttributeSynchronizationPolicy) {
    value_out->syncPolicy = cudaSyncPolicyAuto;
  }
  return cudaSuccess;
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
