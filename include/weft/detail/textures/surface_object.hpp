// A surface object: what cudaCreateSurfaceObject makes of a CUDA array, and
// the live objects. A cudaSurfaceObject_t is the address of its object, so
// that a surface read or write finds the array's memory with no lookup; the
// registry only answers whether a handle names a live object (for
// cudaDestroySurfaceObject and cudaGetSurfaceObjectResourceDesc) and owns
// the objects until they are destroyed.
//
// An object copies the array's layout when it is made: CUDA leaves access
// through a surface whose array was freed undefined, and a copy spares each
// access a pointer chase.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "weft/detail/textures/array_storage.hpp"

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

class surface_object_registry {
 public:
  static surface_object_registry& get() {
    static surface_object_registry registry;
    return registry;
  }

  /// Takes the object; returns its handle, never 0.
  std::uint64_t add(std::unique_ptr<surface_object> object) {
    auto handle = reinterpret_cast<std::uint64_t>(object.get());
    std::lock_guard lock(mutex_);
    objects_.emplace(handle, std::move(object));
    return handle;
  }

  /// False if no live object has this handle.
  bool remove(std::uint64_t handle) {
    std::unique_ptr<surface_object> removed;
    std::lock_guard lock(mutex_);
    auto found = objects_.find(handle);
    if (found == objects_.end()) return false;
    removed = std::move(found->second);
    objects_.erase(found);
    return true;
  }

  /// The live object of a handle, or null.
  const surface_object* find(std::uint64_t handle) const {
    std::lock_guard lock(mutex_);
    auto found = objects_.find(handle);
    return found == objects_.end() ? nullptr : found->second.get();
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::unique_ptr<surface_object>> objects_;
};

}  // namespace weft::detail::textures
