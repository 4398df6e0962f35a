// Streams and events through the driver API. A CUstream is a cudaStream_t
// and a CUevent a cudaEvent_t (the same handles, as in CUDA), so a stream or
// event made by either API may be given to the other. Each call checks the
// driver's state (initialised, a current context) and forwards to the
// runtime's call.
#pragma once

#include "weft/cuda/driver/context_api.hpp"
#include "weft/cuda/driver/driver_types.hpp"
#include "weft/cuda/runtime/streams/event_api.hpp"
#include "weft/cuda/runtime/streams/stream_api.hpp"

/// The driver's names for the runtime's special streams.
inline CUstream const CU_STREAM_LEGACY = cudaStreamLegacy;
inline CUstream const CU_STREAM_PER_THREAD = cudaStreamPerThread;

inline CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaStreamCreateWithFlags(phStream, Flags); });
}

inline CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaStreamCreateWithPriority(phStream, flags, priority); });
}

inline CUresult cuStreamGetPriority(CUstream hStream, int* priority) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaStreamGetPriority(hStream, priority); });
}

inline CUresult cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaStreamGetFlags(hStream, flags); });
}

/// CUDA_ERROR_INVALID_HANDLE for null, the special streams and a stream
/// already destroyed.
inline CUresult cuStreamDestroy(CUstream hStream) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaStreamDestroy(hStream); });
}

inline CUresult cuStreamSynchronize(CUstream hStream) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaStreamSynchronize(hStream); });
}

/// CUDA_ERROR_NOT_READY while the stream has work left.
inline CUresult cuStreamQuery(CUstream hStream) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaStreamQuery(hStream); });
}

inline CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaStreamWaitEvent(hStream, hEvent, Flags); });
}

inline CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaLaunchHostFunc(hStream, fn, userData); });
}

inline CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaEventCreateWithFlags(phEvent, Flags); });
}

inline CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaEventRecord(hEvent, hStream); });
}

inline CUresult cuEventQuery(CUevent hEvent) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaEventQuery(hEvent); });
}

inline CUresult cuEventSynchronize(CUevent hEvent) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaEventSynchronize(hEvent); });
}

/// Milliseconds between two completed records of timing events.
inline CUresult cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaEventElapsedTime(pMilliseconds, hStart, hEnd); });
}

inline CUresult cuEventDestroy(CUevent hEvent) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaEventDestroy(hEvent); });
}
