// weft: CUDA C++ on the CPU. The one header a program includes.
//
// It brings the native API (namespace weft: launch, device, dynamic shared
// memory) and CUDA's own spelling (threadIdx, __syncthreads, atomicAdd,
// cudaMalloc, ...), so that kernels written for nvcc compile unchanged.
#pragma once

#include "weft/cuda/atomic_functions.hpp"
#include "weft/cuda/bit_functions.hpp"
#include "weft/cuda/builtins.hpp"
#include "weft/cuda/device_api.hpp"
#include "weft/cuda/device_assert.hpp"
#include "weft/cuda/device_management.hpp"
#include "weft/cuda/device_printf.hpp"
#include "weft/cuda/device_runtime.hpp"
#include "weft/cuda/directed_rounding.hpp"
#include "weft/cuda/error_api.hpp"
#include "weft/cuda/error_codes.hpp"
#include "weft/cuda/event_api.hpp"
#include "weft/cuda/host_memory.hpp"
#include "weft/cuda/kernel_api.hpp"
#include "weft/cuda/keywords.hpp"
#include "weft/cuda/launch_api.hpp"
#include "weft/cuda/load_store_functions.hpp"
#include "weft/cuda/managed_memory.hpp"
#include "weft/cuda/math_functions.hpp"
#include "weft/cuda/memory_api.hpp"
#include "weft/cuda/pitched_memory.hpp"
#include "weft/cuda/pointer_attributes.hpp"
#include "weft/cuda/stream_api.hpp"
#include "weft/cuda/stream_types.hpp"
#include "weft/cuda/symbol_api.hpp"
#include "weft/cuda/synchronization.hpp"
#include "weft/cuda/type_conversions.hpp"
#include "weft/cuda/vector_types.hpp"
#include "weft/cuda/warp_functions.hpp"
#include "weft/device.hpp"
#include "weft/launch.hpp"
#include "weft/shared_memory.hpp"
