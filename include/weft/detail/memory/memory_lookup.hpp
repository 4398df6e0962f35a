// Which device's allocation a pointer lies in. With unified addressing a
// pointer names its device, as on a GPU, so every entry point that takes a
// pointer asks all devices' allocation registries.
#pragma once

#include <cstddef>
#include <optional>

#include "weft/detail/base/devices.hpp"
#include "weft/detail/runtime/allocation_registry.hpp"
#include "weft/detail/runtime/pool_allocations.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail {

/// The allocation, on any device, that holds all of [p, p + bytes): with
/// unified addressing a pointer names its device, as on a GPU.
struct located_allocation {
  int device;
  allocation_info info;
};

// access(none): see allocation_registry::find.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
[[gnu::access(none, 1)]] inline std::optional<located_allocation> locate(const void* p, std::size_t bytes = 1) {
  for (int d = 0; d < device_count(); ++d)
    if (auto a = runtime::get(d).memory().find(p, bytes)) return located_allocation{d, *a};
  return std::nullopt;
}

/// Device or managed memory, which a kernel and cudaMemset may write.
[[gnu::access(none, 1)]] inline bool is_device_range(const void* p, std::size_t bytes) {
  auto a = locate(p, bytes);
  return a && (a->info.kind == memory_kind::device || a->info.kind == memory_kind::managed);
}

/// A host range must not run into registered memory it only partly covers.
[[gnu::access(none, 1)]] inline bool is_plausible_range(const void* p, std::size_t bytes) {
  for (int d = 0; d < device_count(); ++d) {
    auto& memory = runtime::get(d).memory();
    if (memory.overlaps(p, bytes) && !memory.find(p, bytes).has_value()) return false;
  }
  return true;
}
#pragma GCC diagnostic pop

/// Frees the allocation that starts at `p`, on whichever device holds it, if
/// its kind is accepted: with unified addressing any device's memory may be
/// freed, as on a GPU.
template <class Accepted>
bool release_on_any_device(void* p, Accepted accepted) {
  return release_to_pool(p, [&] {
    for (int d = 0; d < device_count(); ++d)
      if (runtime::get(d).memory().release(p, accepted)) return true;
    return false;
  });
}

/// cudaFree's kinds: device and managed memory.
inline bool release_on_any_device(void* p) {
  return release_on_any_device(p, [](memory_kind k) { return k == memory_kind::device || k == memory_kind::managed; });
}

}  // namespace weft::detail
