// The live texture or surface objects of the program. A handle
// (cudaTextureObject_t, cudaSurfaceObject_t) is an address inside its
// object, so that a fetch or a surface access reads the object straight
// through it with no lookup; the registry answers whether a handle names a
// live object, for the destroy and query calls, and owns the objects.
//
// A destroyed object stays until its device has finished the work enqueued
// so far: CUDA lets a program destroy an object right after launching a
// kernel that uses it (cuda-samples' NV12toBGRandResize does), and that
// kernel still reads it. Retired objects go once the device is idle, looked
// at whenever an object is made or destroyed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail::textures {

template <class Object>
class object_registry {
 public:
  static object_registry& get() {
    static object_registry registry;
    return registry;
  }

  /// Takes the object, made on `device`; returns its handle, the address
  /// `handle_at` (inside the object), never 0.
  std::uint64_t add(std::unique_ptr<Object> object, const void* handle_at, int device) {
    auto handle = reinterpret_cast<std::uint64_t>(handle_at);
    std::lock_guard lock(mutex_);
    release_retired();
    objects_.emplace(handle, live{std::move(object), device});
    return handle;
  }

  /// False if no live object has this handle.
  bool remove(std::uint64_t handle) {
    std::lock_guard lock(mutex_);
    auto found = objects_.find(handle);
    if (found == objects_.end()) return false;
    retired_.push_back(std::move(found->second));
    objects_.erase(found);
    release_retired();
    return true;
  }

  /// The live object of a handle, or null. Objects never change, so the
  /// caller may read it after the lock is gone.
  const Object* find(std::uint64_t handle) const {
    std::lock_guard lock(mutex_);
    auto found = objects_.find(handle);
    return found == objects_.end() ? nullptr : found->second.object.get();
  }

 private:
  struct live {
    std::unique_ptr<Object> object;
    int device;
  };

  // Called with the mutex held.
  void release_retired() {
    std::erase_if(retired_, [](const live& r) { return runtime::get(r.device).commands().idle(); });
  }

  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, live> objects_;
  std::vector<live> retired_;
};

}  // namespace weft::detail::textures
