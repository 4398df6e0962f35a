// CUDA's driver API header, as weft provides it: the driver API without
// modules (weft/cuda/driver/driver_api.hpp). Many runtime programs include
// it only for its types; driver programs get devices, contexts, memory,
// virtual memory, streams, events and launches of registered kernels.
// Loading modules or PTX returns CUDA_ERROR_NOT_SUPPORTED.
#pragma once
#include <weft/host_view.hpp>

#include "weft/cuda/driver/driver_api.hpp"

// The guard and version macros CUDA's copy defines; programs test both
// (cuda-samples' helper_cuda.h declares its CUresult overloads only
// #ifdef __cuda_cuda_h__).
#ifndef __cuda_cuda_h__
#define __cuda_cuda_h__
#endif
#ifndef CUDA_VERSION
#define CUDA_VERSION 13000
#endif

// cuLaunchKernel's `extra` markers, macros in CUDA's header (weft refuses
// packed arguments, but programs that mention them compile).
#ifndef CU_LAUNCH_PARAM_END
#define CU_LAUNCH_PARAM_END ((void*)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void*)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void*)0x02)
#endif
