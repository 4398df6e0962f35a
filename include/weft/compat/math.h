// <math.h> for programs built through weft::cuda: C's math functions and
// macros, and C++'s overloads in the global namespace, as a C++17 program
// (nvcc's default dialect) sees them. weft compiles as C++20, whose <math.h>
// also puts std::lerp at global scope, and CUDA programs often define a lerp
// of their own (cuda-samples' helper_math.h): see global_math_names.hpp.
// C sources of the same program get the C library's header unchanged.
#ifndef __cplusplus
#include_next <math.h>
#else
#pragma once
#include <weft/cuda/device/math/global_math_names.hpp>
#endif
