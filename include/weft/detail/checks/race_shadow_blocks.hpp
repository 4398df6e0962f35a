// The memory of the race check's global shadow (race_check.hpp,
// race_shadow): blocks of one size, each one kind of record for the words
// of a 4 KiB page, which an evicted page gives back here for the next page
// made instead of to malloc. At 2^24 floats a vector add's shadow is ten
// times the 128 MiB that the check retains between launches, so every
// launch evicted and made again about 40,000 of these blocks: malloc, free
// and their consolidation, and the page faults of a heap that free had
// trimmed and the next launch grew again, were about a fifth of its check
// (perf, 2026-12-01). The blocks kept are never more than the shadow was at
// its largest, which the process needed anyway.
#pragma once

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <new>
#include <vector>

namespace weft::detail {

class race_shadow_blocks {
 public:
  static constexpr std::size_t bytes = 16384;

  /// A block of `bytes`, aligned to a cache line, its contents left as they
  /// were: its user makes its records.
  static void* take() {
    // A copy traced during static destruction, after the thread's stash
    // is gone, takes from the shared list.
    if (stash_gone()) [[unlikely]] {
      std::vector<void*> one;
      refill(one, 1);
      return one.empty() ? ::operator new(bytes, alignment) : one.back();
    }
    std::vector<void*>& stash = thread_stash().blocks;
    if (stash.empty()) [[unlikely]]
      refill(stash, batch);
    if (stash.empty()) return ::operator new(bytes, alignment);
    void* block = stash.back();
    stash.pop_back();
    return block;
  }

  /// Gives back `blocks` (of take()) for later takes, under one lock.
  static void give_back(std::vector<void*>& blocks) {
    if (blocks.empty()) return;
    race_shadow_blocks& b = instance();
    std::lock_guard lock(b.mutex_);
    b.free_.insert(b.free_.end(), blocks.begin(), blocks.end());
    blocks.clear();
  }

 private:
  static constexpr std::align_val_t alignment{64};
  // A worker takes blocks a batch at a time: a lock per block, which both
  // workers want as they make their pages, would be a lock per 1024 words.
  static constexpr std::size_t batch = 32;

  // Never destroyed, nor are its blocks: a launch may finish during static
  // destruction and give its pages' blocks back.
  static race_shadow_blocks& instance() {
    static auto* blocks = new race_shadow_blocks;
    return *blocks;
  }
  static void refill(std::vector<void*>& stash, std::size_t most) {
    race_shadow_blocks& b = instance();
    std::lock_guard lock(b.mutex_);
    std::size_t count = std::min(most, b.free_.size());
    stash.insert(stash.end(), b.free_.end() - static_cast<std::ptrdiff_t>(count), b.free_.end());
    b.free_.resize(b.free_.size() - count);
  }
  // The blocks a thread took in its batch and has not used yet, given back
  // when the thread ends.
  struct stash {
    std::vector<void*> blocks;
    ~stash() {
      stash_gone() = true;
      give_back(blocks);
    }
  };
  static bool& stash_gone() {
    static thread_local bool gone = false;  // trivially destructible: outlives the stash
    return gone;
  }
  static stash& thread_stash() {
    static thread_local stash s;
    return s;
  }

  std::mutex mutex_;
  std::vector<void*> free_;
};

}  // namespace weft::detail
