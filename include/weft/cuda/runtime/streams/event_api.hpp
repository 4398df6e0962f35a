// Events (CUDA guide, "Events"): a record is a command of its stream that
// completes, taking the time, once the stream's earlier work is done (on the
// legacy stream: all earlier work of every blocking stream too).
#pragma once

#include <chrono>
#include <memory>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/commands/event.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/runtime/memory_pools.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/streams/host_task.hpp"
#include "weft/detail/streams/stream_registry.hpp"

/// flags: cudaEventDefault, cudaEventBlockingSync, cudaEventDisableTiming,
/// and cudaEventInterprocess, which CUDA accepts only with timing disabled.
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  using namespace weft::detail;
  if (!event) return record(cudaErrorInvalidValue);
  *event = nullptr;  // on every other path, so that compilers see it set
  if (cudaError_t e = check_device()) return e;
  constexpr unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if ((flags & ~known) != 0) return record(cudaErrorInvalidValue);
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)) return record(cudaErrorInvalidValue);
  *event = event_registry::get().create(current_device, flags);
  return cudaSuccess;
}

inline cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

/// The C++ overload that CUDA's <cuda_runtime.h> adds (cuda-samples'
/// cudaGraphsPerfScaling calls it): cudaEventCreateWithFlags.
inline cudaError_t cudaEventCreate(cudaEvent_t* event, unsigned int flags) {
  return cudaEventCreateWithFlags(event, flags);
}

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

/// An event's record replaces its earlier one: queries and waits see the
/// latest. Recorded in a capturing stream, the event stands for the nodes the
/// stream's next node would depend on, for cudaStreamWaitEvent in the same
/// capture (detail/graphs/stream_capture.hpp).
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr) {
  using namespace weft::detail;
  if (cudaError_t e = check_caller(false)) return e;
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!live_event(event) || !s) return record(cudaErrorInvalidResourceHandle);
  if (auto captured = capture_event_record(*s, event)) return *captured;
  auto point = std::make_shared<marker>("event record");
  // Enqueued first, so that whoever sees the record sees it in its graph.
  runtime::get(s->device).commands().enqueue(*s, point);
  event->set_recorded(point);
  return cudaSuccess;
}

/// flags: cudaEventRecordDefault, or cudaEventRecordExternal, which outside
/// a capture records as cudaEventRecord does.
inline cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream = nullptr, unsigned int flags = 0) {
  using namespace weft::detail;
  if (flags != cudaEventRecordDefault && flags != cudaEventRecordExternal) return record(cudaErrorInvalidValue);
  if (flags == cudaEventRecordExternal && any_capture()) {
    if (cudaError_t e = check_caller(false)) return e;
    CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
    if (!live_event(event) || !s) return record(cudaErrorInvalidResourceHandle);
    if (auto captured = capture_into(*s, [&] { return event_record_work{event}; })) return *captured;
  }
  return cudaEventRecord(event, stream);
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream

/// cudaSuccess once the latest record has completed (or if the event was
/// never recorded); cudaErrorNotReady before, which is not recorded as the
/// last error.
inline cudaError_t cudaEventQuery(cudaEvent_t event) {
  using namespace weft::detail;
  if (!live_event(event)) return record(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = check_event_wait(event)) return e;
  auto point = event->recorded();
  if (cudaError_t e = fault(event->device).code()) return record(e);
  if (!point) return cudaSuccess;
  if (!point->done()) return cudaErrorNotReady;
  command_graph::host_learns(*point);  // the race check: what the host enqueues next follows the record
  return cudaSuccess;
}

inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  using namespace weft::detail;
  if (cudaError_t e = check_caller(true)) return e;
  if (!live_event(event)) return record(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = check_event_wait(event)) return e;
  if (cudaError_t e = check_unsafe_call()) return e;
  if (auto point = event->recorded()) runtime::get(event->device).wait_for(*point);
  memory_pools::instance().release_above_thresholds();
  return record(fault(event->device).code());
}

/// Milliseconds from `start`'s record to `end`'s. Both must have completed
/// (else cudaErrorNotReady) and keep timing (else, as for an event never
/// recorded, cudaErrorInvalidResourceHandle); tests/differential/stream_probe.
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  using namespace weft::detail;
  if (!ms) return record(cudaErrorInvalidValue);
  if (!live_event(start) || !live_event(end)) return record(cudaErrorInvalidResourceHandle);
  if ((start->flags | end->flags) & cudaEventDisableTiming) return record(cudaErrorInvalidResourceHandle);
  auto from = start->recorded(), to = end->recorded();
  if (!from || !to) return record(cudaErrorInvalidResourceHandle);
  // Not ready is not an error: not recorded as the last one (as on an H100).
  if (!from->done() || !to->done()) return cudaErrorNotReady;
  *ms = std::chrono::duration<float, std::milli>(to->completed_at() - from->completed_at()).count();
  return cudaSuccess;
}

/// Returns at once, even if the event's record is still pending.
inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  weft::detail::forget_event(event);
  if (!weft::detail::event_registry::get().destroy(event)) return weft::detail::record(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}
