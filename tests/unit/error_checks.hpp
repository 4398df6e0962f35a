// CUDA's last-error rules, checked after a call: a failing call's code
// becomes the host thread's last error, peeking leaves it, getting it resets
// it; a successful call leaves no last error behind.
#pragma once

#include <doctest/doctest.h>
#include <weft.hpp>

// The call returned `code`, which is now the last error, reported once.
inline void check_failed_with(cudaError_t returned, cudaError_t code) {
  CHECK(returned == code);
  CHECK(cudaPeekAtLastError() == code);
  CHECK(cudaPeekAtLastError() == code);  // peeking does not reset
  CHECK(cudaGetLastError() == code);
  CHECK(cudaGetLastError() == cudaSuccess);
}

// The call succeeded and left no last error behind.
inline void check_succeeded(cudaError_t returned) {
  CHECK(returned == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
}
