// cuRAND's host API (curandCreateGenerator, curandGenerateUniform, ...), as
// weft provides it: see weft/cuda/curand/host_api.hpp and docs/curand.md.
// A header here: nothing needs linking. Like CUDA's, it includes
// <cuda_runtime.h> and defines CURAND_H_, which helper headers test to print
// curandStatus_t names, and the CURAND_VER_* macros.
#pragma once
#ifndef CURAND_H_
#define CURAND_H_
#endif

#define CURAND_VER_MAJOR 10
#define CURAND_VER_MINOR 4
#define CURAND_VER_PATCH 0
#define CURAND_VER_BUILD 0
#define CURAND_VERSION (CURAND_VER_MAJOR * 1000 + CURAND_VER_MINOR * 100 + CURAND_VER_PATCH)

#include <cuda_runtime.h>
#include <weft/cuda/curand/host_api.hpp>
