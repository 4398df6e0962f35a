// Fiber stacks: mmap'ed, with an inaccessible guard page below the usable
// range so that a CUDA thread overflowing its stack faults at once instead of
// silently overwriting a neighbour's stack. Stacks are recycled through a
// per-worker pool because a block promotes up to 1024 threads to fibers and
// mapping each anew would dominate the cost of a barrier.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

#include "weft/detail/fibers/fiber_sanitizer.hpp"

namespace weft::detail {

inline std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

struct fiber_stack {
  void* mapping = nullptr;  // start of the mapping, the guard page
  std::size_t mapped = 0;   // guard page + usable bytes
  std::size_t usable() const { return mapped - page_size(); }
  void* bottom() const { return static_cast<char*>(mapping) + page_size(); }  // the lowest usable address
  void* top() const { return static_cast<char*>(mapping) + mapped; }          // stacks grow down
};

class stack_pool {
 public:
  explicit stack_pool(std::size_t usable_bytes = 64 * 1024) : usable_(round_up(usable_bytes, page_size())) {}
  stack_pool(const stack_pool&) = delete;
  stack_pool& operator=(const stack_pool&) = delete;
  ~stack_pool() { release_all(); }

  std::size_t stack_size() const { return usable_; }

  /// Later stacks have this usable size; stacks of another size are unmapped.
  void set_stack_size(std::size_t usable_bytes) {
    usable_bytes = round_up(usable_bytes, page_size());
    if (usable_bytes == usable_) return;
    release_all();
    usable_ = usable_bytes;
  }

  fiber_stack take() {
    if (!free_.empty()) {
      fiber_stack s = free_.back();
      free_.pop_back();
      // In an ASan build it carries no poison: a fiber clears the frames
      // it drops before it hands its stack back (block_executor::leave, and
      // recover_from_fault for a fiber a fault drops), and ASan clears the
      // others as they return. Clearing the whole stack's shadow here, for
      // every fiber, was most of what a barrier cost under ASan
      // (docs/debugging.md, "What each mode costs").
      return s;
    }
    std::size_t mapped = usable_ + page_size();
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (::mprotect(p, page_size(), PROT_NONE) != 0) {
      ::munmap(p, mapped);
      throw std::bad_alloc();
    }
    mapped_.push_back({p, mapped});
    fiber_stack fresh{p, mapped};
    // The addresses may have been an unmapped stack's, whose shadow ASan
    // does not clear at munmap.
    fiber_sanitizer::forget_stack_poison(fresh.bottom(), fresh.usable());
    return fresh;
  }

  void give_back(fiber_stack s) {
    if (s.usable() == usable_)
      free_.push_back(s);
    else
      unmap(s);
  }

  /// The stack whose guard page holds `address`, if it is one of this pool's.
  /// Only reads, so that a signal handler may call it.
  const fiber_stack* guard_hit(const void* address) const {
    auto* a = static_cast<const char*>(address);
    for (const auto& s : mapped_) {
      auto* guard = static_cast<const char*>(s.mapping);
      if (a >= guard && a < guard + page_size()) return &s;
    }
    return nullptr;
  }

  /// The stack whose usable part holds `address` (a stack pointer), if it
  /// is one of this pool's. Only reads, so that a signal handler may call it.
  const fiber_stack* holding(const void* address) const {
    auto* a = static_cast<const char*>(address);
    for (const auto& s : mapped_) {
      auto* bottom = static_cast<const char*>(s.mapping) + page_size();
      if (a >= bottom && a < static_cast<const char*>(s.top())) return &s;
    }
    return nullptr;
  }

 private:
  void release_all() {
    for (auto& s : free_) unmap(s);
    free_.clear();
  }

  void unmap(fiber_stack s) {
    ::munmap(s.mapping, s.mapped);
    std::erase_if(mapped_, [&](const fiber_stack& m) { return m.mapping == s.mapping; });
  }

  std::size_t usable_;
  std::vector<fiber_stack> free_;
  std::vector<fiber_stack> mapped_;  // every stack this pool has mapped, in use or free
};

}  // namespace weft::detail
