// Device memory is host memory plus this registry of live allocations. The
// registry is what lets the runtime reject, with CUDA's error code, a pointer
// that was never allocated, was already freed, or a range that runs past the
// end of its allocation, instead of crashing or corrupting memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <utility>
#include <vector>

#include <sys/mman.h>

namespace weft::detail {

/// device: cudaMalloc, cudaMallocPitch, cudaMalloc3D, cudaMallocAsync;
/// host: cudaMallocHost, cudaHostAlloc (page-locked host memory);
/// registered: a program's own memory after cudaHostRegister (not owned);
/// managed: cudaMallocManaged.
enum class memory_kind { device, host, registered, managed };

/// What the registry knows of the allocation that holds an address.
struct allocation_info {
  const void* base = nullptr;
  std::size_t bytes = 0;
  memory_kind kind = memory_kind::device;
  unsigned flags = 0;
};

class allocation_registry {
 public:
  // cudaMalloc guarantees at least 256-byte alignment; an H100's are
  // aligned to 512 bytes (its textureAlignment), which a texture object
  // over linear or pitched memory requires of its address.
  static constexpr std::size_t alignment = 512;
  /// The flag of a range that another layer maps and unmaps (the driver
  /// API's virtual memory, cuMemMap): device memory to every check, but
  /// never freed here, and removed only by forget().
  static constexpr unsigned externally_mapped = 1u << 31;
  /// The flag of memory reserve() mapped: pages the host commits only when
  /// they are first touched, unmapped when released.
  static constexpr unsigned committed_on_touch = 1u << 30;
  /// The flag of a memory pool's allocation (cudaMallocAsync,
  /// cudaMallocFromPoolAsync), so that a fault report names its call.
  static constexpr unsigned from_pool = 1u << 29;

  allocation_registry() = default;
  allocation_registry(const allocation_registry&) = delete;
  allocation_registry& operator=(const allocation_registry&) = delete;
  ~allocation_registry() { release_all(); }

  /// nullptr when the host is out of memory.
  void* allocate(std::size_t bytes, memory_kind kind, unsigned flags = 0) {
    void* p = ::operator new (bytes, std::align_val_t{alignment}, std::nothrow);
    if (!p) return nullptr;
    std::lock_guard lock(mutex_);
    live_[address(p)] = {bytes, kind, flags};
    return p;
  }

  /// Like allocate, but only reserves the address range: the host commits
  /// a page when it is first touched (mmap with MAP_NORESERVE), so a large
  /// CUDA array that a program fills only in part, or a host with less
  /// memory than a GPU, does not refuse it. Zero-filled; nullptr when the
  /// address space is not there.
  void* reserve(std::size_t bytes, memory_kind kind, unsigned flags = 0) {
    void* p =
        ::mmap(nullptr, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    std::lock_guard lock(mutex_);
    live_[address(p)] = {bytes, kind, flags | committed_on_touch};
    return p;
  }

  /// Records memory the program owns (cudaHostRegister); false if any of it
  /// is already recorded.
  bool add(void* p, std::size_t bytes, memory_kind kind, unsigned flags = 0) {
    if (overlaps(p, bytes)) return false;
    std::lock_guard lock(mutex_);
    live_[address(p)] = {bytes, kind, flags};
    return true;
  }

  /// Frees the allocation that starts at `p` if it is of one of the kinds
  /// `accepted` allows (memory the program registered is forgotten, not
  /// freed); false if there is none.
  template <class Accepted>
  bool release(void* p, Accepted accepted) {
    std::lock_guard lock(mutex_);
    auto it = live_.find(address(p));
    if (it == live_.end() || (it->second.flags & externally_mapped) || !accepted(it->second.kind)) return false;
    // Freed through the registry's own record of the address, which is what
    // was allocated (and keeps GCC from warning about freeing `p`).
    if (it->second.kind != memory_kind::registered) free_memory(it->first, it->second);
    live_.erase(it);
    return true;
  }

  /// cudaFree's kinds.
  bool release(void* p) {
    return release(p, [](memory_kind k) { return k == memory_kind::device || k == memory_kind::managed; });
  }

  /// Removes the record of an externally mapped range that starts at `p`;
  /// false if there is none.
  bool forget(const void* p) {
    std::lock_guard lock(mutex_);
    auto it = live_.find(address(p));
    if (it == live_.end() || !(it->second.flags & externally_mapped)) return false;
    live_.erase(it);
    return true;
  }

  /// The allocation that holds all of [p, p + bytes), if one does.
  // The registry compares addresses and never reads through them (access
  // none), which keeps GCC from warning that a host buffer about to be
  // filled is read uninitialised. Clang has no such attribute, nor the
  // warning: the pragmas keep it from saying so in every program.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
  [[gnu::access(none, 2)]] std::optional<allocation_info> find(const void* p, std::size_t bytes = 1) const {
    std::lock_guard lock(mutex_);
    auto it = live_.upper_bound(address(p));
    if (it == live_.begin()) return std::nullopt;
    --it;
    auto offset = address(p) - it->first;
    if (offset >= it->second.bytes || bytes > it->second.bytes - offset) return std::nullopt;
    return allocation_info{reinterpret_cast<const void*>(it->first), it->second.bytes, it->second.kind,
                           it->second.flags};
  }

  /// The kind of allocation that holds all of [p, p + bytes), if one does.
  std::optional<memory_kind> holds(const void* p, std::size_t bytes) const {
    auto a = find(p, bytes);
    return a ? std::optional<memory_kind>(a->kind) : std::nullopt;
  }

  /// The allocation nearest to `p` among those that hold it or end or begin
  /// within `reach` bytes of it, for a fault report. It only tries the lock,
  /// and finds nothing when it is held: a CUDA thread abandoned by a fault
  /// may hold it for good.
  [[gnu::access(none, 2)]] std::optional<allocation_info> nearest(const void* p, std::size_t reach) const {
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return std::nullopt;
    const std::uintptr_t a = address(p);
    std::optional<allocation_info> best;
    std::uintptr_t best_distance = reach + 1;
    auto consider = [&](std::map<std::uintptr_t, allocation>::const_iterator it) {
      std::uintptr_t begin = it->first, end = it->first + it->second.bytes;
      std::uintptr_t distance = a < begin ? begin - a : (a >= end ? a - end + 1 : 0);
      if (distance < best_distance) {
        best_distance = distance;
        best =
            allocation_info{reinterpret_cast<const void*>(begin), it->second.bytes, it->second.kind, it->second.flags};
      }
    };
    auto after = live_.upper_bound(a);
    if (after != live_.end()) consider(after);
    if (after != live_.begin()) consider(std::prev(after));
    return best;
  }

  /// True if any byte of [p, p + bytes) lies in a live allocation.
  [[gnu::access(none, 2)]] bool overlaps(const void* p, std::size_t bytes) const {
    std::lock_guard lock(mutex_);
    auto it = live_.upper_bound(address(p) + bytes - 1);
    if (it == live_.begin()) return false;
    --it;
    return address(p) < it->first + it->second.bytes;
  }
#pragma GCC diagnostic pop

  /// Every live allocation as [begin, end), in address order.
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges() const {
    std::lock_guard lock(mutex_);
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> all;
    all.reserve(live_.size());
    for (auto& [base, info] : live_) all.emplace_back(base, base + info.bytes);
    return all;
  }

  void release_all() {
    std::lock_guard lock(mutex_);
    for (auto& [base, info] : live_)
      if (info.kind != memory_kind::registered && !(info.flags & externally_mapped)) free_memory(base, info);
    live_.clear();
  }

 private:
  struct allocation {
    std::size_t bytes;
    memory_kind kind;
    unsigned flags;
  };

  static std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

  /// Gives back memory allocate() or reserve() took.
  static void free_memory(std::uintptr_t base, const allocation& a) {
    if (a.flags & committed_on_touch)
      ::munmap(reinterpret_cast<void*>(base), a.bytes ? a.bytes : 1);
    else
      ::operator delete (reinterpret_cast<void*>(base), std::align_val_t{alignment});
  }

  mutable std::mutex mutex_;
  std::map<std::uintptr_t, allocation> live_;
};

}  // namespace weft::detail
