// Device memory is host memory plus this registry of live allocations. The
// registry is what lets the runtime reject, with CUDA's error code, a pointer
// that was never allocated, was already freed, or a range that runs past the
// end of its allocation, instead of crashing or corrupting memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <optional>

namespace weft::detail {

enum class memory_kind { device };

class allocation_registry {
 public:
  // cudaMalloc guarantees at least 256-byte alignment.
  static constexpr std::size_t alignment = 256;

  allocation_registry() = default;
  allocation_registry(const allocation_registry&) = delete;
  allocation_registry& operator=(const allocation_registry&) = delete;
  ~allocation_registry() { release_all(); }

  /// nullptr when the host is out of memory.
  void* allocate(std::size_t bytes, memory_kind kind) {
    void* p = ::operator new (bytes, std::align_val_t{alignment}, std::nothrow);
    if (!p) return nullptr;
    std::lock_guard lock(mutex_);
    live_[address(p)] = {bytes, kind};
    return p;
  }

  /// False if `p` is not the start of a live allocation.
  bool release(void* p) {
    std::lock_guard lock(mutex_);
    auto it = live_.find(address(p));
    if (it == live_.end()) return false;
    // Freed through the registry's own record of the address, which is what
    // was allocated (and keeps GCC from warning about freeing `p`).
    ::operator delete (reinterpret_cast<void*>(it->first), std::align_val_t{alignment});
    live_.erase(it);
    return true;
  }

  /// The kind of allocation that holds all of [p, p + bytes), if one does.
  std::optional<memory_kind> holds(const void* p, std::size_t bytes) const {
    std::lock_guard lock(mutex_);
    auto it = live_.upper_bound(address(p));
    if (it == live_.begin()) return std::nullopt;
    --it;
    auto offset = address(p) - it->first;
    if (offset >= it->second.bytes || bytes > it->second.bytes - offset) return std::nullopt;
    return it->second.kind;
  }

  /// True if any byte of [p, p + bytes) lies in a live allocation.
  bool overlaps(const void* p, std::size_t bytes) const {
    std::lock_guard lock(mutex_);
    auto it = live_.upper_bound(address(p) + bytes - 1);
    if (it == live_.begin()) return false;
    --it;
    return address(p) < it->first + it->second.bytes;
  }

  void release_all() {
    std::lock_guard lock(mutex_);
    for (auto& [base, info] : live_) ::operator delete (reinterpret_cast<void*>(base), std::align_val_t{alignment});
    live_.clear();
  }

 private:
  struct allocation {
    std::size_t bytes;
    memory_kind kind;
  };

  static std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

  mutable std::mutex mutex_;
  std::map<std::uintptr_t, allocation> live_;
};

}  // namespace weft::detail
