// Where a stackless kernel's CUDA threads keep their coroutine frames: one
// bump arena per worker, emptied at the start of each block. The frames of
// a block's threads then lie side by side in the order the threads run,
// and a block costs no allocation once the arena has grown to the size its
// frames need: a frame that does not fit comes from the heap, and the next
// block gets an arena with room for it.
//
// A stackless function's frame (stackless_function.hpp) lives only while
// the call is awaited, and a kernel may call one in a loop: freed, it goes
// to a list of free frames of its size, which the next call of that size
// takes, so that a loop's calls reuse the frames of its first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace weft::detail {

class frame_arena {
 public:
  frame_arena() = default;
  frame_arena(const frame_arena&) = delete;
  frame_arena& operator=(const frame_arena&) = delete;
  ~frame_arena() { drop_free_frames(); }

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

  /// Room for a frame of `bytes` that is freed with release_reusable: a
  /// freed frame of that size if there is one, else as allocate.
  void* allocate_reusable(std::size_t bytes) {
    bytes = (bytes + alignment - 1) & ~(alignment - 1);
    for (unsigned i = 0; i < free_list_count_; ++i)
      if (free_lists_[i].bytes == bytes) {
        free_frame* frame = free_lists_[i].head;
        if (!frame) break;
        free_lists_[i].head = frame->next;
        return frame;
      }
    return allocate(bytes);
  }

  /// Frees a frame of allocate_reusable(bytes): it waits on its size's
  /// list for the next (a frame from the heap too, until the block ends:
  /// so a first block, before the arena has grown, reuses frames as well).
  void release_reusable(void* frame, std::size_t bytes) noexcept {
    bytes = (bytes + alignment - 1) & ~(alignment - 1);
    unsigned i = 0;
    while (i < free_list_count_ && free_lists_[i].bytes != bytes) ++i;
    if (i == free_list_count_) {
      if (i == max_free_lists) return release(frame);
      free_lists_[free_list_count_++] = {bytes, nullptr};
    }
    free_lists_[i].head = new (frame) free_frame{free_lists_[i].head};
  }

  /// Empties the arena for the next block, whose frames must all be freed,
  /// and grows it if the last block's frames did not fit.
  void start_block() {
    drop_free_frames();
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

  struct free_frame {
    free_frame* next;
  };
  struct free_list {
    std::size_t bytes;
    free_frame* head;
  };
  static constexpr unsigned max_free_lists = 8;
  free_list free_lists_[max_free_lists] = {};
  unsigned free_list_count_ = 0;

  // The free frames that came from the heap go back to it.
  void drop_free_frames() noexcept {
    for (unsigned i = 0; i < free_list_count_; ++i)
      for (free_frame* frame = free_lists_[i].head; frame;) {
        free_frame* next = frame->next;
        release(frame);
        frame = next;
      }
    free_list_count_ = 0;
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
