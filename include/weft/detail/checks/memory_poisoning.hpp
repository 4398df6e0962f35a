// Memory that a CUDA thread must not touch although it is mapped, marked for
// AddressSanitizer in a build with it: the part of the dynamic shared memory
// buffer beyond the size a launch gave, and the tail of a graph allocation's
// pages past the bytes asked for. ASan's own redzones cover what comes from
// malloc or operator new (cudaMalloc and the allocations like it) and
// globals (`__device__`, `__constant__`); weft marks the rest. An access to
// poisoned memory is then reported as "use-after-poison", and the memory
// check (scheduler/memory_check.hpp) names it in CUDA's terms. Without ASan
// these calls compile to nothing.
#pragma once

#include <cstddef>

#include "weft/detail/fibers/fiber_sanitizer.hpp"

extern "C" {
// As <sanitizer/asan_interface.h> declares them (see fiber_sanitizer.hpp for
// why weft declares them itself).
void __asan_poison_memory_region(void const volatile* addr, std::size_t size);
void __asan_unpoison_memory_region(void const volatile* addr, std::size_t size);
}

namespace weft::detail {

/// Marks [p, p + bytes) as memory no access may touch.
inline void poison_memory([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t bytes) {
  if constexpr (fiber_sanitizer::address_sanitizer)
    if (bytes) __asan_poison_memory_region(p, bytes);
}

/// Marks [p, p + bytes) as memory any access may touch again.
inline void unpoison_memory([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t bytes) {
  if constexpr (fiber_sanitizer::address_sanitizer)
    if (bytes) __asan_unpoison_memory_region(p, bytes);
}

}  // namespace weft::detail
