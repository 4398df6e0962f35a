// CUDA's stream and event handle types, the special stream handles, and the
// creation flags. The stream and event themselves are weft::detail's
// (detail/stream.hpp, detail/event.hpp).
#pragma once

struct CUstream_st;
using cudaStream_t = CUstream_st*;

// The handles CUDA's headers define for the legacy and per-thread default streams.
inline cudaStream_t const cudaStreamLegacy = reinterpret_cast<cudaStream_t>(0x1);
inline cudaStream_t const cudaStreamPerThread = reinterpret_cast<cudaStream_t>(0x2);

inline constexpr unsigned cudaStreamDefault = 0x0;
inline constexpr unsigned cudaStreamNonBlocking = 0x1;

struct CUevent_st;
using cudaEvent_t = CUevent_st*;

inline constexpr unsigned cudaEventDefault = 0x0;
inline constexpr unsigned cudaEventBlockingSync = 0x1;
inline constexpr unsigned cudaEventDisableTiming = 0x2;
inline constexpr unsigned cudaEventInterprocess = 0x4;
