// CUDA arrays: cudaMallocArray, cudaMalloc3DArray, cudaMallocMipmappedArray,
// cudaGetMipmappedArrayLevel, cudaArrayGetInfo, cudaGetChannelDesc,
// cudaFreeArray and cudaFreeMipmappedArray.
//
// An array is device memory laid out as detail/textures/arrays/array_storage.hpp
// says, counted in cudaMemGetInfo as cudaMalloc's memory is. Which formats,
// extents and flags make an array, and the limits they must keep, are in
// detail/textures/arrays/array_shape.hpp. The copies to and from arrays are
// array_copies.hpp's.
//
// A handle that names no live array gets array_handles.hpp's codes.
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/pitched_memory.hpp"
#include "weft/cuda/runtime/textures/array_handles.hpp"
#include "weft/cuda/runtime/textures/array_types.hpp"
#include "weft/cuda/runtime/textures/channel_descriptor.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/runtime/device_properties.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/textures/arrays/array_registry.hpp"
#include "weft/detail/textures/arrays/array_shape.hpp"

namespace weft::surface {

/// The checks an allocation starts with: the caller may allocate (not
/// while a capture forbids it, as cudaMalloc), the device has no sticky
/// fault, and the format and shape make an array.
inline cudaError_t check_array_allocation(const void* handle_out, const cudaChannelFormatDesc* desc, cudaExtent extent,
                                          unsigned flags, bool mipmapped) {
  using namespace weft::detail;
  if (cudaError_t e = check_unsafe_call()) return e;
  if (cudaError_t e = check_device()) return e;
  if (!handle_out || !desc) return record(cudaErrorInvalidValue);
  if (cudaError_t e = check_array_format(texel_format_of(*desc))) return record(e);
  const cudaDeviceProp& properties = fixed_properties(current_device);
  if (cudaError_t e = check_array_shape(extent.width, extent.height, extent.depth, flags, properties, mipmapped))
    return record(e);
  return cudaSuccess;
}

}  // namespace weft::surface

/// A 1D or 3D array, a layered, cubemap or layered cubemap one, by
/// extent.height and extent.depth (0 for an absent dimension) and the flags
/// cudaArrayLayered and cudaArrayCubemap; cudaArraySurfaceLoadStore and
/// cudaArrayTextureGather as well. extent.width counts elements.
inline cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                                     unsigned int flags = 0) {
  using namespace weft::detail;
  if (cudaError_t e = weft::surface::check_array_allocation(array, desc, extent, flags, false)) return e;
  auto* level = array_registry::instance().allocate(weft::surface::texel_format_of(*desc), extent.width, extent.height,
                                                    extent.depth, flags, current_device);
  if (!level) return record(cudaErrorMemoryAllocation);
  *array = weft::surface::handle_of(level);
  return cudaSuccess;
}

/// A 1D (height 0) or 2D array; cudaArrayLayered and cudaArrayCubemap
/// belong to cudaMalloc3DArray and are refused here (cudaErrorInvalidValue).
inline cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, std::size_t width,
                                   std::size_t height = 0, unsigned int flags = 0) {
  if (flags & (cudaArrayLayered | cudaArrayCubemap | cudaArrayColorAttachment)) {
    if (cudaError_t e = weft::detail::check_device()) return e;
    return weft::detail::record(cudaErrorInvalidValue);
  }
  return cudaMalloc3DArray(array, desc, make_cudaExtent(width, height, 0), flags);
}

/// numLevels levels, clamped to [1, 1 + floor(log2(largest dimension))];
/// a level's extent is half the one before, at least 1 (layers and cubemap
/// faces stay). cudaGetMipmappedArrayLevel gives each level as an array.
inline cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t* mipmappedArray, const cudaChannelFormatDesc* desc,
                                            cudaExtent extent, unsigned int numLevels, unsigned int flags = 0) {
  using namespace weft::detail;
  if (cudaError_t e = weft::surface::check_array_allocation(mipmappedArray, desc, extent, flags, true)) return e;
  unsigned levels = mipmap_levels(extent.width, extent.height, extent.depth, flags, numLevels);
  auto* array = array_registry::instance().allocate_mipmapped(
      weft::surface::texel_format_of(*desc), extent.width, extent.height, extent.depth, flags, levels, current_device);
  if (!array) return record(cudaErrorMemoryAllocation);
  *mipmappedArray = weft::surface::handle_of(array);
  return cudaSuccess;
}

/// Level `level` of a mipmapped array, as an array that copies, textures
/// and surfaces take; it lives as long as the mipmapped array, and
/// cudaFreeArray refuses it.
inline cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t* levelArray, cudaMipmappedArray_const_t mipmappedArray,
                                              unsigned int level) {
  using namespace weft::detail;
  if (cudaError_t e = check_device()) return e;
  if (!levelArray) return record(cudaErrorInvalidValue);
  cudaError_t code = cudaSuccess;
  auto* array = weft::surface::live_mipmapped_array(mipmappedArray, code);
  if (!array) return record(code);
  if (level >= array->levels.size()) return record(cudaErrorInvalidValue);
  *levelArray = weft::surface::handle_of(&array->levels[level]);
  return cudaSuccess;
}

/// The array's format, extent (as it was allocated: 0 for an absent
/// dimension, the layer or face count as depth) and flags; any of the three
/// may be null.
inline cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags,
                                    cudaArray_t array) {
  using namespace weft::detail;
  if (cudaError_t e = check_device()) return e;
  cudaError_t code = cudaSuccess;
  auto* level = weft::surface::live_array(array, code);
  if (!level) return record(code);
  if (desc) *desc = weft::surface::channel_desc_of(level->format);
  if (extent) *extent = make_cudaExtent(level->width, level->height, level->depth);
  if (flags) *flags = level->flags;
  return cudaSuccess;
}

inline cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
  using namespace weft::detail;
  if (cudaError_t e = check_device()) return e;
  if (!desc) return record(cudaErrorInvalidValue);
  cudaError_t code = cudaSuccess;
  auto* level = weft::surface::live_array(array, code);
  if (!level) return record(code);
  *desc = weft::surface::channel_desc_of(level->format);
  return cudaSuccess;
}

/// Waits for the device first, as cudaFree does. Null frees nothing; a
/// mipmapped array's level is freed only with its mipmapped array: here it
/// succeeds and stays usable, as on an H100. A freed handle gets
/// cudaErrorInvalidResourceHandle (an H100's runtime crashes on one).
inline cudaError_t cudaFreeArray(cudaArray_t array) {
  using namespace weft::detail;
  if (cudaError_t e = check_unsafe_call()) return e;
  if (cudaError_t e = wait_for_device()) return e;
  if (!array) return cudaSuccess;
  cudaError_t code = cudaSuccess;
  auto* level = weft::surface::live_array(array, code);
  if (!level) return record(code);
  if (level->owner) return cudaSuccess;
  array_registry::instance().free(level);
  return cudaSuccess;
}

inline cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray) {
  using namespace weft::detail;
  if (cudaError_t e = check_unsafe_call()) return e;
  if (cudaError_t e = wait_for_device()) return e;
  if (!mipmappedArray) return cudaSuccess;
  cudaError_t code = cudaSuccess;
  auto* array = weft::surface::live_mipmapped_array(mipmappedArray, code);
  if (!array) return record(code);
  array_registry::instance().free_mipmapped(array);
  return cudaSuccess;
}
