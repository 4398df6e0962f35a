// cudaGetLastError and friends (CUDA guide, "Error Checking").
#pragma once

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/scheduler/device_block_state.hpp"

/// Returns the calling host thread's last error and resets it to
/// cudaSuccess; in a kernel, the calling CUDA thread's (a launch from the
/// device that was refused).
inline cudaError_t cudaGetLastError() {
  cudaError_t& last = weft::detail::running_block ? weft::detail::device_last_error() : weft::detail::last_error;
  cudaError_t e = last;
  last = cudaSuccess;
  return e;
}

/// The same, without resetting it.
inline cudaError_t cudaPeekAtLastError() {
  return weft::detail::running_block ? weft::detail::device_last_error() : weft::detail::last_error;
}

inline const char* cudaGetErrorName(cudaError_t code) {
  auto* d = weft::detail::describe(code);
  return d ? d->name : "unrecognized error code";
}

inline const char* cudaGetErrorString(cudaError_t code) {
  auto* d = weft::detail::describe(code);
  return d ? d->text : "unrecognized error code";
}
