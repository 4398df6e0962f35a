// CUDA as host code sees it: the runtime API, the vector types and their
// make_* functions, the declaration qualifiers (__global__, __host__, ...),
// and weft's host API (weft::launch, weft::device). It is what a .cpp gets
// from <cuda_runtime.h>: with CUDA, the host compiler sees that header
// without nvcc's device declarations, so host code may define functions of
// its own named umin, __mul24, min or rsqrtf (cuda-samples' mergeSort does),
// and weft must not declare them there either. weft.hpp adds the device
// side: built-in variables, intrinsics, atomics, warp and block
// synchronisation, and the CUDA math functions.
#pragma once

#include "weft/cuda/keywords.hpp"
#include "weft/cuda/runtime/device_api.hpp"
#include "weft/cuda/runtime/device_management.hpp"
#include "weft/cuda/runtime/driver_types.hpp"
#include "weft/cuda/runtime/error_api.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/event_api.hpp"
#include "weft/cuda/runtime/function_attributes.hpp"
#include "weft/cuda/runtime/graph_api.hpp"
#include "weft/cuda/runtime/graph_conditional_api.hpp"
#include "weft/cuda/runtime/graph_copy_node_api.hpp"
#include "weft/cuda/runtime/graph_debug_api.hpp"
#include "weft/cuda/runtime/graph_event_node_api.hpp"
#include "weft/cuda/runtime/graph_exec_api.hpp"
#include "weft/cuda/runtime/graph_kernel_attributes_api.hpp"
#include "weft/cuda/runtime/graph_memory_api.hpp"
#include "weft/cuda/runtime/graph_node_params_api.hpp"
#include "weft/cuda/runtime/graph_types.hpp"
#include "weft/cuda/runtime/graph_update_api.hpp"
#include "weft/cuda/runtime/host_memory.hpp"
#include "weft/cuda/runtime/kernel_api.hpp"
#include "weft/cuda/runtime/managed_memory.hpp"
#include "weft/cuda/runtime/memory_api.hpp"
#include "weft/cuda/runtime/memory_pools.hpp"
#include "weft/cuda/runtime/pitched_memory.hpp"
#include "weft/cuda/runtime/pointer_attributes.hpp"
#include "weft/cuda/runtime/removed_api.hpp"
#include "weft/cuda/runtime/stream_api.hpp"
#include "weft/cuda/runtime/stream_attributes.hpp"
#include "weft/cuda/runtime/stream_capture_api.hpp"
#include "weft/cuda/runtime/symbol_api.hpp"
#include "weft/cuda/vector_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/device.hpp"
#include "weft/launch.hpp"
