// Streams (CUDA guide, "Streams", "Explicit Synchronization", "Callbacks",
// "Stream Priorities"). The order they keep is the command graph's
// (detail/commands/command_graph.hpp).
#pragma once

#include <memory>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/event.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/runtime/memory_pools.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/streams/host_task.hpp"
#include "weft/detail/streams/stream_control.hpp"
#include "weft/detail/streams/stream_registry.hpp"

using cudaStreamCallback_t = void (*)(cudaStream_t stream, cudaError_t status, void* userData);
using cudaHostFn_t = void (*)(void* userData);

inline cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  return weft::detail::create_stream(pStream, cudaStreamDefault, weft::detail::least_stream_priority);
}

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  return weft::detail::create_stream(pStream, flags, weft::detail::least_stream_priority);
}

/// Lower numbers are more urgent: their grids' blocks are handed to SM
/// workers first.
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  return weft::detail::create_stream(pStream, flags, priority);
}

inline cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority) *leastPriority = weft::detail::least_stream_priority;
  if (greatestPriority) *greatestPriority = weft::detail::greatest_stream_priority;
  return cudaSuccess;
}

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

inline cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int* priority) {
  CUstream_st* s = weft::detail::resolve_stream(weft::surface::explicit_stream(hStream));
  if (!s) return weft::detail::record(cudaErrorInvalidResourceHandle);
  if (!priority) return weft::detail::record(cudaErrorInvalidValue);
  *priority = s->priority;
  return cudaSuccess;
}

inline cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int* flags) {
  CUstream_st* s = weft::detail::resolve_stream(weft::surface::explicit_stream(hStream));
  if (!s) return weft::detail::record(cudaErrorInvalidResourceHandle);
  if (!flags) return weft::detail::record(cudaErrorInvalidValue);
  *flags = s->flags;
  return cudaSuccess;
}

/// Returns at once; work already in the stream still runs, and the stream
/// goes once it is done. The default streams cannot be destroyed. A
/// capturing stream leaves its capture, which is invalidated (destroying the
/// origin stream ends the capture and discards its graph).
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  using namespace weft::detail;
  if (cudaError_t e = check_not_forked()) return e;
  if (!stream || stream == cudaStreamLegacy || stream == cudaStreamPerThread || !stream_registry::get().remove(stream))
    return record(cudaErrorInvalidResourceHandle);
  forget_stream(stream);
  runtime::get(stream->device).commands().destroy_stream(*stream);
  return cudaSuccess;
}

/// Waits for the stream's work (the legacy stream's: and that of every
/// blocking stream before it), then reports a fault of the device. A
/// capturing stream has no work to wait for: cudaErrorStreamCaptureUnsupported,
/// and its capture is invalidated (for the legacy stream while a blocking
/// stream captures: cudaErrorStreamCaptureImplicit); waiting for another
/// stream is a potentially unsafe call during a capture.
inline cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  using namespace weft::detail;
  if (cudaError_t e = check_caller(true)) return e;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = check_synchronous_call(*s)) return e;
  cudaError_t e = synchronize_stream(*s);
  memory_pools::instance().release_above_thresholds();
  return record(e);
}

/// cudaSuccess when the stream's work is done, cudaErrorNotReady while it
/// is not; not-ready is not an error, so it is not recorded as the last one.
/// Refused for a capturing stream as cudaStreamSynchronize is.
inline cudaError_t cudaStreamQuery(cudaStream_t stream) {
  using namespace weft::detail;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = check_stream_wait(*s)) return e;
  if (cudaError_t e = fault(s->device).code()) return record(e);
  return stream_done(*s) ? cudaSuccess : cudaErrorNotReady;
}

/// Later work in `stream` waits for the event's most recent record (if it
/// was never recorded, there is nothing to wait for). An event recorded in a
/// capture brings `stream` into that capture (detail/graphs/stream_capture.hpp);
/// with cudaEventWaitExternal, a capturing stream gets an event wait node.
inline cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0) {
  using namespace weft::detail;
  if (cudaError_t e = check_caller(false)) return e;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s || !event_registry::get().live(event)) return record(cudaErrorInvalidResourceHandle);
  if (flags != 0 && flags != 1) return record(cudaErrorInvalidValue);
  if (auto captured = capture_event_wait(*s, event, flags != 0)) return *captured;
  runtime::get(s->device).commands().enqueue(*s, std::make_shared<marker>("wait for event"), event->recorded());
  return cudaSuccess;
}

/// `callback` runs on weft's host-function thread once the stream's earlier
/// work is done, with the device's fault (or cudaSuccess) as `status`; the
/// stream's later work waits for it. `flags` must be 0. As in CUDA, it
/// cannot be captured (cudaLaunchHostFunc can): in a capturing stream it is
/// cudaErrorStreamCaptureUnsupported and invalidates the capture.
inline cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                         unsigned int flags) {
  using namespace weft::detail;
  if (cudaError_t e = check_caller(false)) return e;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (!callback || flags != 0) return record(cudaErrorInvalidValue);
  if (auto refused = refuse_capture(*s)) return *refused;
  int device = s->device;
  runtime::get(device).commands().enqueue(
      *s, std::make_shared<host_function>([=] { callback(stream, fault(device).code(), userData); }));
  return cudaSuccess;
}

/// As cudaStreamAddCallback, without the status. A host function must not
/// call the runtime to enqueue or wait: such calls return cudaErrorNotPermitted.
/// Captured, it is a host node.
inline cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  using namespace weft::detail;
  if (cudaError_t e = check_caller(false)) return e;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (!fn) return record(cudaErrorInvalidValue);
  if (auto captured = capture_into(*s, [&] { return host_work{fn, userData}; })) return *captured;
  runtime::get(s->device).commands().enqueue(*s, std::make_shared<host_function>([=] { fn(userData); }));
  return cudaSuccess;
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
