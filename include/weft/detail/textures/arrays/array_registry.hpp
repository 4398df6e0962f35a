// The live CUDA arrays and mipmapped arrays: allocating their storage
// (array_storage.hpp) in a device's memory, finding the storage a handle
// names, and freeing it.
//
// An array's memory is an allocation of its device's allocation registry,
// like cudaMalloc's, so it counts in cudaMemGetInfo as cudaMalloc's does,
// and copies to and from it pass the same device-memory checks. The
// registry here only answers whether a handle names a live array, which the
// runtime's entry points ask before they use one (CUDA returns an error for
// a freed or made-up handle); fetches read the storage through the handle
// with no lookup.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <unordered_set>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/memory/memory_layout.hpp"
#include "weft/detail/runtime/allocation_registry.hpp"
#include "weft/detail/runtime/device_properties.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/textures/arrays/array_shape.hpp"
#include "weft/detail/textures/arrays/array_storage.hpp"
#include "weft/detail/textures/arrays/texel_format.hpp"

namespace weft::detail {

class array_registry {
 public:
  static array_registry& instance() {
    static array_registry registry;
    return registry;
  }

  /// A new array of `format` and extent (w, h, d) as CUDA counts it, in
  /// device `device`'s memory; null when the memory is not there. The
  /// extent must have passed check_array_shape.
  array_level* allocate(const texel_format& format, std::size_t w, std::size_t h, std::size_t d, unsigned flags,
                        int device) {
    auto level = std::make_unique<array_level>();
    if (!lay_out(*level, format, w, h, d, flags, device)) return nullptr;
    std::lock_guard lock(mutex_);
    return *arrays_.insert(level.release()).first;
  }

  /// A new mipmapped array of `levels` levels (already clamped by
  /// mipmap_levels); null when the memory is not there.
  mipmapped_array* allocate_mipmapped(const texel_format& format, std::size_t w, std::size_t h, std::size_t d,
                                      unsigned flags, unsigned levels, int device) {
    auto array = std::make_unique<mipmapped_array>();
    *array = {format, w, h, d, flags, device, std::vector<array_level>(levels)};
    for (unsigned i = 0; i < levels; ++i) {
      auto e = extent_of_level(w, h, d, flags, i);
      array_level& level = array->levels[i];
      if (!lay_out(level, format, e.width, e.height, e.depth, flags, device)) {
        for (unsigned j = 0; j < i; ++j) release_memory(array->levels[j]);
        return nullptr;
      }
      level.owner = array.get();
      level.level = i;
    }
    std::lock_guard lock(mutex_);
    for (auto& level : array->levels) arrays_.insert(&level);
    return *mipmapped_.insert(array.release()).first;
  }

  /// The live array (or level of a live mipmapped array) a handle names, or null.
  array_level* find(const void* handle) const {
    std::lock_guard lock(mutex_);
    auto it = arrays_.find(static_cast<array_level*>(const_cast<void*>(handle)));
    return it == arrays_.end() ? nullptr : *it;
  }

  mipmapped_array* find_mipmapped(const void* handle) const {
    std::lock_guard lock(mutex_);
    auto it = mipmapped_.find(static_cast<mipmapped_array*>(const_cast<void*>(handle)));
    return it == mipmapped_.end() ? nullptr : *it;
  }

  /// Frees an array that is not a mipmap level; false if `level` is no
  /// such live array.
  bool free(const void* handle) {
    array_level* level = nullptr;
    {
      std::lock_guard lock(mutex_);
      auto it = arrays_.find(static_cast<array_level*>(const_cast<void*>(handle)));
      if (it == arrays_.end() || (*it)->owner) return false;
      level = *it;
      arrays_.erase(it);
    }
    release_memory(*level);
    delete level;
    return true;
  }

  /// Forgets device `device`'s arrays, whose memory a device reset has
  /// already taken: their handles become stale, as CUDA's do, instead of
  /// naming memory that a later allocation may reuse.
  void forget_device(int device) {
    std::lock_guard lock(mutex_);
    for (auto it = mipmapped_.begin(); it != mipmapped_.end();) {
      if ((*it)->device != device) {
        ++it;
        continue;
      }
      for (auto& level : (*it)->levels) {
        arrays_.erase(&level);
        reserved_ -= level.bytes() < reserved_ ? level.bytes() : reserved_;
      }
      delete *it;
      it = mipmapped_.erase(it);
    }
    for (auto it = arrays_.begin(); it != arrays_.end();) {
      if ((*it)->device != device) {
        ++it;
        continue;
      }
      reserved_ -= (*it)->bytes() < reserved_ ? (*it)->bytes() : reserved_;
      delete *it;
      it = arrays_.erase(it);
    }
  }

  /// Frees a mipmapped array and its levels; false if it is not live.
  bool free_mipmapped(const void* handle) {
    mipmapped_array* array = nullptr;
    {
      std::lock_guard lock(mutex_);
      auto it = mipmapped_.find(static_cast<mipmapped_array*>(const_cast<void*>(handle)));
      if (it == mipmapped_.end()) return false;
      array = *it;
      mipmapped_.erase(it);
      for (auto& level : array->levels) arrays_.erase(&level);
    }
    for (auto& level : array->levels) release_memory(level);
    delete array;
    return true;
  }

 private:
  array_registry() = default;

  // Arrays and mipmapped arrays a program never frees live as long as the
  // process, as on a GPU; their memory goes with their device's registry.
  ~array_registry() = default;

  /// Fills in `level`'s layout and allocates its memory; false if the memory is not there.
  static bool lay_out(array_level& level, const texel_format& format, std::size_t w, std::size_t h, std::size_t d,
                      unsigned flags, int device) {
    level.format = format;
    level.width = w;
    level.height = h;
    level.depth = d;
    level.flags = flags;
    level.device = device;
    level.element_bytes = format.bytes_per_element();
    level.row_pitch = saturating_product(w, level.element_bytes);
    level.slice_pitch = saturating_product(level.row_pitch, level.rows());
    std::size_t bytes = saturating_product(level.slice_pitch, level.slices());
    if (bytes == SIZE_MAX || !instance().take_reservation(device, bytes)) return false;
    level.base = static_cast<std::byte*>(runtime::get(device).memory().reserve(bytes, memory_kind::device));
    if (!level.base) instance().give_back_reservation(bytes);
    return level.base != nullptr;
  }

  /// Counts `bytes` more of array memory on `device`, or refuses them past
  /// the device's memory: an H100 held two 32 GiB arrays and refused a
  /// third with cudaErrorMemoryAllocation. The device's memory is its
  /// totalGlobalMem, but at least an H100's 80 GB (85017493504 bytes, as
  /// an H100 80GB HBM3 reports it), since array pages are committed only
  /// when touched and a host with less memory can hold such an array.
  bool take_reservation(int device, std::size_t bytes) {
    std::size_t limit = fixed_properties(device).totalGlobalMem;
    if (limit < h100_global_memory) limit = h100_global_memory;
    std::lock_guard lock(mutex_);
    if (bytes > limit || reserved_ > limit - bytes) return false;
    reserved_ += bytes;
    return true;
  }

  void give_back_reservation(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    reserved_ -= bytes < reserved_ ? bytes : reserved_;
  }

  /// Gives an array's memory back to its device, unless a device reset already took it.
  static void release_memory(array_level& level) {
    runtime::get(level.device).memory().release(level.base);
    instance().give_back_reservation(level.bytes());
    level.base = nullptr;
  }

  static constexpr std::size_t h100_global_memory = 85017493504;

  mutable std::mutex mutex_;
  std::unordered_set<array_level*> arrays_;
  std::unordered_set<mipmapped_array*> mipmapped_;
  std::size_t reserved_ = 0;  // bytes of live arrays, on all devices together
};

/// cudaDeviceReset of the current device (device_control.hpp's
/// reset_device), and with its memory the records of its arrays.
inline cudaError_t reset_device_and_arrays() {
  int device = current_device;
  cudaError_t e = reset_device();
  if (e == cudaSuccess) array_registry::instance().forget_device(device);
  return e;
}

}  // namespace weft::detail
