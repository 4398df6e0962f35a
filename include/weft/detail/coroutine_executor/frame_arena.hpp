// Where a stackless kernel's CUDA threads keep their coroutine frames: one
// bump arena per worker, emptied at the start of each block. The frames of
// a block's threads then lie side by side in the order the threads run,
// and a block costs no allocation once the arena has grown to the size its
// frames need: a frame that does not fit comes from the heap, and the next
// block gets an arena with room for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace weft::detail {

class frame_arena {
 public:
  /// Room for a frame of `bytes`: from the arena while it has room, else
  /// from the heap (counted, so that the next block fits).
  void* allocate(std::size_t bytes) {
    bytes = (bytes + alignment - 1) & ~(alignment - 1);
    if (bytes <= capacity_ - used_) {
      void* frame = storage_.get() + used_;
      used_ += bytes;
      return frame;
    }
    overflow_ += bytes;
    return ::operator new(bytes);
  }

  /// Frees a frame; one from the arena waits for the arena to be emptied.
  // Unsized: Clang declares sized deallocation only with -fsized-deallocation.
  void release(void* frame) noexcept {
    if (holds(frame)) return;
    ::operator delete(frame);
  }

  /// Empties the arena for the next block, whose frames must all be freed,
  /// and grows it if the last block's frames did not fit.
  void start_block() {
    if (overflow_ != 0) {
      capacity_ = used_ + overflow_;
      storage_.reset(new (std::align_val_t{64}) std::byte[capacity_]);
    }
    used_ = 0;
    overflow_ = 0;
  }

  /// The bytes of frames the running block took so far (arena and heap).
  std::size_t used() const { return used_ + overflow_; }

 private:
  // Frames need the default new alignment (C++20 allocates a coroutine frame
  // with operator new(size_t)); no more, so that small frames pack tightly.
  static constexpr std::size_t alignment = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

  bool holds(const void* frame) const {
    auto at = reinterpret_cast<std::uintptr_t>(frame), base = reinterpret_cast<std::uintptr_t>(storage_.get());
    return at - base < capacity_;
  }

  struct aligned_delete {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<std::byte[], aligned_delete> storage_;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  std::size_t overflow_ = 0;
};

/// The arena of the stackless block the worker runs; null elsewhere (a
/// stackless kernel run on fibers takes its frames from the heap).
inline thread_local frame_arena* running_frame_arena = nullptr;

}  // namespace weft::detail
