// A surface object: what cudaCreateSurfaceObject makes of a CUDA array, and
// the live objects. A cudaSurfaceObject_t is the address of its object, so
// that a surface read or write finds the array's memory with no lookup; the
// registry (object_registry.hpp) only answers whether a handle names a live
// object (for cudaDestroySurfaceObject and cudaGetSurfaceObjectResourceDesc)
// and owns the objects until they are destroyed.
//
// An object copies the array's layout when it is made: CUDA leaves access
// through a surface whose array was freed undefined, and a copy spares each
// access a pointer chase.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "weft/detail/textures/arrays/array_storage.hpp"
#include "weft/detail/textures/objects/object_registry.hpp"

namespace weft::detail::textures {

struct surface_object {
  std::byte* base = nullptr;     // element (0, 0, 0)
  std::size_t row_bytes = 0;     // width * element_bytes: how far x (in bytes) reaches
  std::size_t rows = 1;          // height, at least 1
  std::size_t slices = 1;        // depth, layers, faces or 6 * layers, at least 1
  std::size_t row_pitch = 0;     // bytes from one row to the next
  std::size_t slice_pitch = 0;   // bytes from one slice to the next
  array_level* array = nullptr;  // what it was made over, for the query
};

/// The object over an array (or a level of a mipmapped array).
inline surface_object surface_over(array_level& array) {
  return {
      array.base, array.width * array.element_bytes, array.rows(), array.slices(), array.row_pitch, array.slice_pitch,
      &array};
}

/// cudaSurfaceObject_t is the address of the object.
using surface_object_registry = object_registry<surface_object>;

}  // namespace weft::detail::textures
