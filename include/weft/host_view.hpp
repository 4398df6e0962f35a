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
#include "weft/cuda/runtime/function_attributes.hpp"
#include "weft/cuda/runtime/graphs/graph_api.hpp"
#include "weft/cuda/runtime/graphs/graph_conditional_api.hpp"
#include "weft/cuda/runtime/graphs/graph_copy_node_api.hpp"
#include "weft/cuda/runtime/graphs/graph_debug_api.hpp"
#include "weft/cuda/runtime/graphs/graph_event_node_api.hpp"
#include "weft/cuda/runtime/graphs/graph_exec_api.hpp"
#include "weft/cuda/runtime/graphs/graph_kernel_attributes_api.hpp"
#include "weft/cuda/runtime/graphs/graph_memory_api.hpp"
#include "weft/cuda/runtime/graphs/graph_node_params_api.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/cuda/runtime/graphs/graph_update_api.hpp"
#include "weft/cuda/runtime/graphs/stream_capture_api.hpp"
#include "weft/cuda/runtime/kernel_api.hpp"
#include "weft/cuda/runtime/memory/host_memory.hpp"
#include "weft/cuda/runtime/memory/managed_memory.hpp"
#include "weft/cuda/runtime/memory/memory_api.hpp"
#include "weft/cuda/runtime/memory/memory_pool_attributes.hpp"
#include "weft/cuda/runtime/memory/memory_pools.hpp"
#include "weft/cuda/runtime/memory/peer_copies_3d.hpp"
#include "weft/cuda/runtime/memory/pitched_memory.hpp"
#include "weft/cuda/runtime/memory/pointer_attributes.hpp"
#include "weft/cuda/runtime/memory/symbol_api.hpp"
#include "weft/cuda/runtime/removed_api.hpp"
#include "weft/cuda/runtime/streams/event_api.hpp"
#include "weft/cuda/runtime/streams/stream_api.hpp"
#include "weft/cuda/runtime/streams/stream_attributes.hpp"
#include "weft/cuda/runtime/textures/array_api.hpp"
#include "weft/cuda/runtime/textures/array_copies.hpp"
#include "weft/cuda/runtime/textures/array_handles.hpp"
#include "weft/cuda/runtime/textures/array_types.hpp"
#include "weft/cuda/runtime/textures/channel_descriptor.hpp"
#include "weft/cuda/runtime/textures/resource_types.hpp"
#include "weft/cuda/runtime/textures/surface_object_api.hpp"
#include "weft/cuda/runtime/textures/surface_types.hpp"
#include "weft/cuda/runtime/textures/texture_object_api.hpp"
#include "weft/cuda/runtime/textures/texture_types.hpp"
#include "weft/cuda/vector_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/device.hpp"
#include "weft/launch.hpp"
