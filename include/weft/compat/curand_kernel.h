// cuRAND's device API (curandState, curand_init, curand, curand_uniform,
// curand_normal, the Sobol and MTGP32 states, ...), as weft provides it: see
// weft/cuda/device/curand_kernel.hpp. As CUDA's does, it includes curand.h.
// cuRAND is its own library in CUDA; here it is a header, so nothing needs
// linking.
#pragma once
#include <curand.h>
#include <weft.hpp>
#include <weft/cuda/device/curand_kernel.hpp>
