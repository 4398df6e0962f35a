// Which stream 0 names: the legacy default stream, or, in a translation unit
// built with CUDA_API_PER_THREAD_DEFAULT_STREAM defined (as nvcc's
// --default-stream per-thread does), the calling host thread's own default
// stream.
//
// The macro is a translation unit's, so each mode has its own symbols, as
// CUDA's _ptds and _ptsz entry points are: every entry point that takes a
// stream, or uses the default one, is defined in an inline namespace named
// after the mode, and turns stream 0 into the mode's explicit handle
// (cudaStreamPerThread or cudaStreamLegacy) before it forwards. An inline
// function whose body read the macro would be one function with two
// bodies, and the linker would keep one of them for the whole program.
// Below the surface, 0 is always the legacy stream.
#pragma once

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/streams/host_task.hpp"

namespace weft::surface {
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace per_thread_default_stream {
inline constexpr bool stream_zero_is_per_thread = true;
#else
inline namespace legacy_default_stream {
inline constexpr bool stream_zero_is_per_thread = false;
#endif

/// The stream `handle` names, with 0 spelt out as this translation unit's mode says.
inline cudaStream_t explicit_stream(cudaStream_t handle) {
  if (handle) return handle;
  return stream_zero_is_per_thread ? cudaStreamPerThread : cudaStreamLegacy;
}

/// A synchronous copy or set: on the default stream, which the caller waits for.
inline weft::detail::placement synchronously() { return {explicit_stream(nullptr), false}; }

/// An asynchronous one, ordered in `stream`.
inline weft::detail::placement asynchronously_on(cudaStream_t stream) {
  return weft::detail::asynchronous_on(explicit_stream(stream));
}

}  // namespace per_thread_default_stream or legacy_default_stream
}  // namespace weft::surface
