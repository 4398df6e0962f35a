// From an array handle to the live array it names, with the code CUDA
// returns for one that names none: cudaErrorInvalidResourceHandle, for a
// null handle too (an H100's code for a null mipmapped array in
// cudaGetMipmappedArrayLevel and a null array in cudaCreateTextureObject:
// tests/differential/texture_probe), a freed one or one never allocated.
// Every runtime entry point that takes an array asks here.
#pragma once

#include "weft/cuda/runtime/textures/array_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/textures/arrays/array_registry.hpp"
#include "weft/detail/textures/arrays/array_storage.hpp"

namespace weft::surface {

/// The live array (or mipmap level) a handle names, or null with `code` set to why not.
inline weft::detail::array_level* live_array(cudaArray_const_t array, cudaError_t& code) {
  if (!array) {
    code = cudaErrorInvalidResourceHandle;
    return nullptr;
  }
  auto* level = weft::detail::array_registry::instance().find(array);
  code = level ? cudaSuccess : cudaErrorInvalidResourceHandle;
  return level;
}

inline weft::detail::mipmapped_array* live_mipmapped_array(cudaMipmappedArray_const_t array, cudaError_t& code) {
  if (!array) {
    code = cudaErrorInvalidResourceHandle;
    return nullptr;
  }
  auto* mipmapped = weft::detail::array_registry::instance().find_mipmapped(array);
  code = mipmapped ? cudaSuccess : cudaErrorInvalidResourceHandle;
  return mipmapped;
}

}  // namespace weft::surface
