// CUDA arrays' handles and flags, in CUDA's spelling (driver_types.h in
// CUDA 13): cudaArray_t, cudaMipmappedArray_t and their const forms, the
// cudaArray* allocation flags, and the sparse-array property structs.
//
// A handle points at weft's storage of the array
// (detail/textures/arrays/array_storage.hpp), which stays opaque to
// programs, as CUDA's does: struct cudaArray is never defined.
// weft::surface::storage_of turns a handle into the storage, which texture
// and surface objects keep so that a fetch reads its texel with no lookup.
#pragma once

#include <cstddef>

#include "weft/detail/textures/arrays/array_storage.hpp"

struct cudaArray;
using cudaArray_t = cudaArray*;
using cudaArray_const_t = const cudaArray*;

struct cudaMipmappedArray;
using cudaMipmappedArray_t = cudaMipmappedArray*;
using cudaMipmappedArray_const_t = const cudaMipmappedArray*;

// CUDA defines these as macros of int literals; constants of the type the
// allocation functions take serve every use a program makes of them.
inline constexpr unsigned cudaArrayDefault = 0x00;
inline constexpr unsigned cudaArrayLayered = 0x01;
inline constexpr unsigned cudaArraySurfaceLoadStore = 0x02;
inline constexpr unsigned cudaArrayCubemap = 0x04;
inline constexpr unsigned cudaArrayTextureGather = 0x08;
inline constexpr unsigned cudaArrayColorAttachment = 0x20;
inline constexpr unsigned cudaArraySparse = 0x40;
inline constexpr unsigned cudaArrayDeferredMapping = 0x80;

static_assert(weft::detail::array_flags::layered == cudaArrayLayered);
static_assert(weft::detail::array_flags::surface_load_store == cudaArraySurfaceLoadStore);
static_assert(weft::detail::array_flags::cubemap == cudaArrayCubemap);
static_assert(weft::detail::array_flags::texture_gather == cudaArrayTextureGather);
static_assert(weft::detail::array_flags::color_attachment == cudaArrayColorAttachment);
static_assert(weft::detail::array_flags::sparse == cudaArraySparse);
static_assert(weft::detail::array_flags::deferred_mapping == cudaArrayDeferredMapping);

inline constexpr unsigned cudaArraySparsePropertiesSingleMipTail = 0x1;

struct cudaArraySparseProperties {
  struct {
    unsigned int width;
    unsigned int height;
    unsigned int depth;
  } tileExtent;
  unsigned int miptailFirstLevel;
  unsigned long long miptailSize;
  unsigned int flags;
  unsigned int reserved[4];
};

struct cudaArrayMemoryRequirements {
  std::size_t size;
  std::size_t alignment;
  unsigned int reserved[4];
};

namespace weft::surface {

/// The storage a handle names; null for null. The handle is not checked
/// (array_registry.hpp's lookups do that where CUDA returns an error).
inline weft::detail::array_level* storage_of(cudaArray_const_t array) {
  return reinterpret_cast<weft::detail::array_level*>(const_cast<cudaArray*>(array));
}

inline weft::detail::mipmapped_array* storage_of(cudaMipmappedArray_const_t array) {
  return reinterpret_cast<weft::detail::mipmapped_array*>(const_cast<cudaMipmappedArray*>(array));
}

/// The handle of an array's storage.
inline cudaArray_t handle_of(weft::detail::array_level* level) { return reinterpret_cast<cudaArray_t>(level); }

inline cudaMipmappedArray_t handle_of(weft::detail::mipmapped_array* array) {
  return reinterpret_cast<cudaMipmappedArray_t>(array);
}

}  // namespace weft::surface
