// Surface objects (CUDA guide 6.2.14.2, "Surface Memory"):
// cudaCreateSurfaceObject, cudaDestroySurfaceObject and
// cudaGetSurfaceObjectResourceDesc. A surface object reads and writes a
// CUDA array (weft/cuda/device/textures/surface_functions.hpp); its handle
// is the address of weft's object, which copies the array's layout.
//
// Codes as CUDA 13 gave them on an H100 (tests/differential/
// texture_probe.cu and surface_trap_probe.cu): only an array resource makes
// a surface (linear, pitched 2D and mipmapped resources are
// cudaErrorInvalidValue, a null array cudaErrorInvalidResourceHandle); an
// array made without cudaArraySurfaceLoadStore is accepted, as is a level of
// a mipmapped array, and the descriptor's flags are not looked at.
// Destroying any handle succeeds, 0, a destroyed one or one never made.
#pragma once

#include <cstring>
#include <memory>

#include "weft/cuda/runtime/textures/array_types.hpp"
#include "weft/cuda/runtime/textures/resource_types.hpp"
#include "weft/cuda/runtime/textures/surface_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/textures/arrays/array_registry.hpp"
#include "weft/detail/textures/objects/surface_object.hpp"

inline cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* pSurfObject, const cudaResourceDesc* pResDesc) {
  namespace tx = weft::detail::textures;
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (!pSurfObject || !pResDesc || pResDesc->resType != cudaResourceTypeArray)
    return weft::detail::record(cudaErrorInvalidValue);
  // A null array, a freed one or one never made (CUDA 13's runtime crashes
  // on a freed one, so weft gives the code of a null one).
  weft::detail::array_level* array = weft::detail::array_registry::instance().find(pResDesc->res.array.array);
  if (!array) return weft::detail::record(cudaErrorInvalidResourceHandle);
  auto object = std::make_unique<tx::surface_object>(tx::surface_over(*array));
  const void* handle_at = object.get();
  *pSurfObject = tx::surface_object_registry::get().add(std::move(object), handle_at, weft::detail::current_device);
  return cudaSuccess;
}

inline cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  weft::detail::textures::surface_object_registry::get().remove(surfObject);
  return cudaSuccess;
}

/// The resource a surface was made over: an array resource naming its
/// array. A null pResDesc is cudaErrorInvalidDevice, the H100's code.
inline cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* pResDesc, cudaSurfaceObject_t surfObject) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  const auto* object = weft::detail::textures::surface_object_registry::get().find(surfObject);
  if (!pResDesc && object) return weft::detail::record(cudaErrorInvalidDevice);
  if (!object || !pResDesc) return weft::detail::record(cudaErrorInvalidValue);
  std::memset(pResDesc, 0, sizeof *pResDesc);
  pResDesc->resType = cudaResourceTypeArray;
  pResDesc->res.array.array = weft::surface::handle_of(object->array);
  return cudaSuccess;
}
