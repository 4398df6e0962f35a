// cudaGetLastError and friends (CUDA guide, "Error Checking").
#pragma once

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/base/error_state.hpp"

/// Returns the calling host thread's last error and resets it to cudaSuccess.
inline cudaError_t cudaGetLastError() {
  cudaError_t e = weft::detail::last_error;
  weft::detail::last_error = cudaSuccess;
  return e;
}

/// Returns the calling host thread's last error without resetting it.
inline cudaError_t cudaPeekAtLastError() { return weft::detail::last_error; }

inline const char* cudaGetErrorName(cudaError_t code) {
  auto* d = weft::detail::describe(code);
  return d ? d->name : "unrecognized error code";
}

inline const char* cudaGetErrorString(cudaError_t code) {
  auto* d = weft::detail::describe(code);
  return d ? d->text : "unrecognized error code";
}
