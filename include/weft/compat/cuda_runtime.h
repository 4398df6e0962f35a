// CUDA's runtime header, as weft provides it: a program that includes
// <cuda_runtime.h> gets what host code sees of CUDA (weft/host_view.hpp),
// not the device functions and variables: as with the host compiler under
// nvcc, a .cpp may define its own umin or min. A port of a .cu, compiled
// as nvcc compiles device code, includes <weft.hpp> too. This folder is on
// the include path of targets that link weft::cuda (or are built by
// weft_add_cuda_executable).
#pragma once
#include <weft/host_view.hpp>

// As CUDA's copy, it brings the runtime API header (CUDART_VERSION, the
// driver and vector types) and defines its include guard, which programs
// test: cuda-samples' helper_cuda.h declares findCudaDevice and
// gpuDeviceInit only #ifdef __CUDA_RUNTIME_H__.
#include "cuda_runtime_api.h"
#include "vector_functions.h"

#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif
