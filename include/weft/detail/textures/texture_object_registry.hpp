// The live texture objects. A cudaTextureObject_t is the address of its
// object's sampler, so that a fetch reads the sampler straight through it;
// this registry only answers whether a handle names a live object, for
// cudaDestroyTextureObject and the cudaGetTextureObject* queries, and owns
// the objects until they are destroyed.
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "weft/detail/textures/texture_sampler.hpp"

namespace weft::detail::textures {

struct texture_object {
  texture_sampler sampler;
  /// What the object was created from, in the surface's own types, for
  /// the queries to hand back.
  std::any descriptors;
};

class texture_object_registry {
 public:
  static texture_object_registry& get() {
    static texture_object_registry registry;
    return registry;
  }

  /// Takes the object; returns its handle.
  std::uint64_t add(std::unique_ptr<texture_object> object) {
    auto handle = reinterpret_cast<std::uint64_t>(&object->sampler);
    std::lock_guard lock(mutex_);
    objects_.emplace(handle, std::move(object));
    return handle;
  }

  /// False if no live object has this handle.
  bool remove(std::uint64_t handle) {
    std::unique_ptr<texture_object> removed;
    std::lock_guard lock(mutex_);
    auto found = objects_.find(handle);
    if (found == objects_.end()) return false;
    removed = std::move(found->second);
    objects_.erase(found);
    return true;
  }

  /// The live object of a handle, or null. Objects are never changed, so
  /// the caller may read it after the lock is gone, as long as it is not
  /// destroyed meanwhile (CUDA leaves that race to the program too).
  const texture_object* find(std::uint64_t handle) const {
    std::lock_guard lock(mutex_);
    auto found = objects_.find(handle);
    return found == objects_.end() ? nullptr : found->second.get();
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::unique_ptr<texture_object>> objects_;
};

}  // namespace weft::detail::textures
