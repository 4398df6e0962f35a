// weft: CUDA C++ on the CPU. The one header a program includes.
//
// It brings the native API (namespace weft: launch, device, dynamic shared
// memory) and CUDA's own spelling (threadIdx, __syncthreads, atomicAdd,
// cudaMalloc, ...), so that kernels written for nvcc compile unchanged:
// weft/host_view.hpp, what host code sees (and all that <cuda_runtime.h>
// gives a .cpp), and the device functions and variables kernels call.
//
// What a CUDA program opts into with a header of its own stays out of this
// one, so that a program that does not use it does not compile it: host
// coroutines (weft/coroutine.hpp), index ranges (weft/index_ranges.hpp, on
// range-v3), and, as in CUDA, cooperative groups,
// half and bfloat16, cuRAND and the async barriers (<cooperative_groups.h>,
// <cuda_fp16.h>, ... through weft::cuda, or their weft/cuda/device headers).
#pragma once

#include "weft/cuda/device/builtins.hpp"
#include "weft/cuda/device/control/device_assert.hpp"
#include "weft/cuda/device/control/device_printf.hpp"
#include "weft/cuda/device/control/device_runtime.hpp"
#include "weft/cuda/device/control/graph_conditional.hpp"
#include "weft/cuda/device/control/programmatic_launch.hpp"
#include "weft/cuda/device/control/ptx_special_registers.hpp"
#include "weft/cuda/device/math/bit_functions.hpp"
#include "weft/cuda/device/math/directed_rounding.hpp"
#include "weft/cuda/device/math/math_functions.hpp"
#include "weft/cuda/device/math/type_conversions.hpp"
#include "weft/cuda/device/memory/atomic_functions.hpp"
#include "weft/cuda/device/memory/load_store_functions.hpp"
#include "weft/cuda/device/sync/ptx_barriers.hpp"
#include "weft/cuda/device/sync/synchronization.hpp"
#include "weft/cuda/device/sync/warp_functions.hpp"
#include "weft/cuda/device/textures/surface_functions.hpp"
#include "weft/cuda/device/textures/texture_fetch_functions.hpp"
#include "weft/host_view.hpp"
#include "weft/shared_memory.hpp"
