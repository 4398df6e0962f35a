// A helper header as sample collections have them: a check macro that every
// file of a sample uses around its runtime calls.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define checkFake(call)                                                                                  \
  do {                                                                                                   \
    cudaError_t status = (call);                                                                         \
    if (status != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(status)); \
      std::exit(EXIT_FAILURE);                                                                           \
    }                                                                                                    \
  } while (0)
