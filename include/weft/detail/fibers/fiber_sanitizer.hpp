// Telling the compiler's sanitizers about weft's fiber switches.
//
// AddressSanitizer and ThreadSanitizer keep state per stack: ASan the
// bounds of the stack a thread runs on (to unpoison it when a function that
// never returns is called, as a throw is) and a "fake stack" for stack
// use-after-return; TSan a shadow call stack and a vector clock per thread.
// A fiber switch that nobody announces leaves both describing the wrong
// stack: ASan then warns "ignoring requested __asan_handle_no_return" at
// the next throw on a fiber and may report accesses that are fine, and TSan
// attributes the fiber's accesses and calls to the worker's stack.
//
// So, in a build with either sanitizer, every switch of the block executor
// announces itself: ASan's __sanitizer_start_switch_fiber before it (with
// the bounds of the stack it goes to) and __sanitizer_finish_switch_fiber
// after it (which says the bounds of the stack it came from: that is how
// the worker's own stack becomes known, at its first switch), and TSan's
// __tsan_switch_to_fiber just before it, with a TSan fiber for each of
// weft's fibers. A fiber that ends, or that a fault signal drops, passes no
// fake-stack slot, so that ASan frees its fake stack, and its TSan fiber is
// destroyed once the switch away from it is done (TSan forbids destroying
// the running fiber). The sanitizer is detected at compile time; without
// one, everything here is empty and every call compiles to nothing.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "weft/detail/fibers/context_switch.hpp"
#include "weft/detail/fibers/pointer_keyed_table.hpp"

// The sanitizer runtimes' entry points, as <sanitizer/common_interface_defs.h>,
// <sanitizer/asan_interface.h> and <sanitizer/tsan_interface.h> declare them.
// Declared here so that a build without a sanitizer needs neither those
// headers nor the runtime: they are only called in `if constexpr` branches
// that such a build discards, which need no definition.
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, std::size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old, std::size_t* size_old);
void __asan_unpoison_memory_region(void const volatile* addr, std::size_t size);
void __asan_handle_no_return(void);
void* __tsan_get_current_fiber(void);
void* __tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void* fiber);
void __tsan_switch_to_fiber(void* fiber, unsigned flags);
}

namespace weft::detail::fiber_sanitizer {

// GCC says which sanitizer a build uses with __SANITIZE_ADDRESS__ and
// __SANITIZE_THREAD__, Clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool address_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool address_sanitizer = true;
#else
inline constexpr bool address_sanitizer = false;
#endif
#else
inline constexpr bool address_sanitizer = false;
#endif

#if defined(__SANITIZE_THREAD__)
inline constexpr bool thread_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool thread_sanitizer = true;
#else
inline constexpr bool thread_sanitizer = false;
#endif
#else
inline constexpr bool thread_sanitizer = false;
#endif

/// Whether fiber switches are announced in this build.
inline constexpr bool announced = address_sanitizer || thread_sanitizer;

/// What a sanitizer must know about a fiber to follow a switch into it.
struct fiber_identity {
  const void* stack_bottom = nullptr;  // the lowest address of its stack (ASan)
  std::size_t stack_size = 0;
  void* tsan_fiber = nullptr;  // TSan's state for it
};

/// A stack that is about to be reused: whatever ASan marked poisoned on it
/// (the redzones of frames that were dropped, not returned from) is stale.
inline void forget_stack_poison([[maybe_unused]] const void* bottom, [[maybe_unused]] std::size_t size) {
  if constexpr (address_sanitizer) __asan_unpoison_memory_region(bottom, size);
}

/// Before a jump that drops the frames of the stack it runs on without
/// returning from them (a fault's, from the signal handler, on the
/// alternate signal stack): ASan forgets their redzones, as it does before
/// a call to a function that does not return.
inline void forget_dropped_frames() {
  if constexpr (address_sanitizer) __asan_handle_no_return();
}

/// A new TSan fiber for a fiber weft is about to start, or null.
inline void* new_tsan_fiber() {
  if constexpr (thread_sanitizer)
    return __tsan_create_fiber(0);
  else
    return nullptr;
}

/// One worker's fibers as the sanitizers know them: each suspended context
/// (a fiber's saved stack pointer, which is what a switch goes to) with the
/// fiber it belongs to, and what the fiber that is switching away says of
/// itself. Only the worker's own thread uses it. Its functions, which run at
/// every switch, are weft's own bookkeeping and are not instrumented by ASan
/// (pointer_keyed_table.hpp says why).
class switch_announcer {
 public:
  /// A fiber just made, that `context` starts.
  [[gnu::no_sanitize_address]] void fiber_made(void* context, const void* stack_bottom, std::size_t stack_size) {
    suspended_.insert(context, {stack_bottom, stack_size, new_tsan_fiber()});
  }

  /// Just before the switch to `context`, from a fiber that will be
  /// resumed: `fake_stack` receives its ASan fake stack, to be given back
  /// to resumed().
  [[gnu::no_sanitize_address]] void switching(void* context, void** fake_stack) {
    const fiber_identity to = take(context);
    leaving_ = true;
    if constexpr (thread_sanitizer) leaving_tsan_fiber_ = __tsan_get_current_fiber();
    if constexpr (address_sanitizer) __sanitizer_start_switch_fiber(fake_stack, to.stack_bottom, to.stack_size);
    if constexpr (thread_sanitizer) __tsan_switch_to_fiber(to.tsan_fiber, 0);
  }

  /// The switch to `context` from a fiber that has ended, or that a fault
  /// dropped, passing `data`. ASan frees the fiber's fake stack as soon as
  /// it hears of this switch, and any frame on it then is gone: so this
  /// function keeps its own frame off it (no_sanitize_address) and makes
  /// the jump itself, with nothing but the jump after the announcement.
  ///
  /// The frames it drops, from its caller's up to `dropped_frames_top`
  /// (null: none to clear), may carry ASan's poison, which the next fiber
  /// on this stack must not find: it clears them, being the last code to
  /// run on the stack (every frame below has returned, and ASan clears a
  /// frame's redzones when it returns). It never returns, but is not
  /// declared [[noreturn]]: before a call to such a function the compiler
  /// has ASan unpoison the whole stack it runs on and the signal stack
  /// (__asan_handle_no_return: a system call and two 8 KiB shadow writes
  /// for every fiber that ends).
  [[gnu::noinline, gnu::no_sanitize_address]] void leave_for_good(void* context, void* data,
                                                                  [[maybe_unused]] const void* dropped_frames_top) {
    const fiber_identity to = take(context);
    leaving_ = false;
    if constexpr (address_sanitizer) {
      if (dropped_frames_top) {
        auto* frames = static_cast<const char*>(__builtin_frame_address(0));
        __asan_unpoison_memory_region(frames,
                                      static_cast<std::size_t>(static_cast<const char*>(dropped_frames_top) - frames));
      }
    }
    if constexpr (thread_sanitizer) leaving_tsan_fiber_ = __tsan_get_current_fiber();
    if constexpr (address_sanitizer) __sanitizer_start_switch_fiber(nullptr, to.stack_bottom, to.stack_size);
    if constexpr (thread_sanitizer) __tsan_switch_to_fiber(to.tsan_fiber, 0);
    jump_context(context, data);
    std::abort();  // nothing resumes a fiber that has left
  }

  /// Just after a switch, on the fiber that now runs: `fake_stack` is what
  /// switching() stored for it (null for a fiber's first run), `left` the
  /// context the switch suspended.
  [[gnu::no_sanitize_address]] void resumed([[maybe_unused]] void* fake_stack, void* left) {
    const void* bottom = nullptr;
    std::size_t size = 0;
    if constexpr (address_sanitizer) __sanitizer_finish_switch_fiber(fake_stack, &bottom, &size);
    if (leaving_) {
      suspended_.insert(left, {bottom, size, leaving_tsan_fiber_});
    } else if constexpr (thread_sanitizer) {
      __tsan_destroy_fiber(leaving_tsan_fiber_);
    }
  }

 private:
  [[gnu::no_sanitize_address]] fiber_identity take(void* context) {
    fiber_identity found{};
    if (!suspended_.take(context, found)) {
      std::fputs("weft: a fiber switch to a context the sanitizer annotations do not know\n", stderr);
      std::abort();
    }
    return found;
  }

  pointer_keyed_table<fiber_identity> suspended_;
  bool leaving_ = false;  // whether the fiber switching away can be resumed
  void* leaving_tsan_fiber_ = nullptr;
};

/// The same calls in a build without a sanitizer: nothing.
struct silent_announcer {
  void fiber_made(void*, const void*, std::size_t) {}
  void switching(void*, void**) {}
  void leave_for_good(void* context, void* data, const void*) {
    jump_context(context, data);
    std::abort();  // nothing resumes a fiber that has left
  }
  void resumed(void*, void*) {}
};

/// What the block executor keeps: the announcer where a sanitizer is on.
using announcer = std::conditional_t<announced, switch_announcer, silent_announcer>;

}  // namespace weft::detail::fiber_sanitizer
