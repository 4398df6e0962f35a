// CUDA's stream handle type and its two special values. Only the default
// streams exist so far: work on either runs in launch order on the device.
#pragma once

struct CUstream_st;
using cudaStream_t = CUstream_st*;

// The handles CUDA's headers define for the legacy and per-thread default streams.
inline cudaStream_t const cudaStreamLegacy = reinterpret_cast<cudaStream_t>(0x1);
inline cudaStream_t const cudaStreamPerThread = reinterpret_cast<cudaStream_t>(0x2);

namespace weft::detail {

/// The streams a launch may name today: 0 and the two default streams.
inline bool is_default_stream(cudaStream_t s) {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

}  // namespace weft::detail
