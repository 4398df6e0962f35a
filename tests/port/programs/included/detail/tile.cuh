// Included by launches.cuh; includes a header that needs no port.
#pragma once
#include "../scale.h"

__host__ __device__ inline float tile_scale() {
#ifdef __CUDA_ARCH__
  return device_scale;
#else
  return device_scale;  // the same on both sides, so that main can check it
#endif
}
