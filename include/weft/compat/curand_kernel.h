// cuRAND's device API (curandState, curand_init, curand, curand_uniform,
// curand_normal, ...), as weft provides it: see weft/cuda/device/curand_kernel.hpp.
// cuRAND is its own library in CUDA; here it is a header, so nothing needs
// linking.
#pragma once
#include <weft.hpp>
#include <weft/cuda/device/curand_kernel.hpp>
