// cuda::memcpy_async with a barrier, and cuda::aligned_size_t (CUDA guide,
// "Asynchronous Data Copies"; libcu++'s <cuda/barrier>).
//
// On a GPU the copy runs "as if by another thread" and is complete when the
// barrier's current phase completes. On a CPU nothing is gained by copying
// later, so weft copies at once: whoever waits on the barrier afterwards sees
// the data, which is all CUDA promises. (A kernel that reads the destination
// before waiting is wrong on a GPU but reads the data here.)
//
// The group overload takes any cooperative group (anything with size() and
// thread_rank()): every thread of the group makes the same call, and each
// copies its own share of the bytes, so that the group copies them once.
//
// In a race-check build each thread's copy is traced as in flight until the
// barrier phase (or pipeline stage) it was committed to completes
// (detail/checks/race_async_copy.hpp): reading the destination, or
// overwriting either side, before the wait is reported.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>

#include "weft/cuda/device/async/barrier.hpp"
#include "weft/detail/checks/race_async_copy_hooks.hpp"

namespace cuda {

/// A size in bytes whose extent and addresses are multiples of Alignment.
template <::std::size_t Alignment>
struct aligned_size_t {
  static constexpr ::std::size_t align = Alignment;
  ::std::size_t value;
  explicit constexpr aligned_size_t(::std::size_t size) : value(size) {}
  constexpr operator ::std::size_t() const { return value; }
};

}  // namespace cuda

namespace weft::detail {

template <class Shape>
struct shape_alignment : ::std::integral_constant<::std::size_t, 1> {};
template <::std::size_t Alignment>
struct shape_alignment<cuda::aligned_size_t<Alignment>> : ::std::integral_constant<::std::size_t, Alignment> {};

[[noreturn, gnu::cold, gnu::noinline]] inline void refuse_misaligned(const char* call, ::std::size_t align,
                                                                     void* destination, const void* source,
                                                                     ::std::size_t size) {
  async_misuse(::std::string(call) + ": aligned_size_t<" + ::std::to_string(align) +
               "> promises that the size and both addresses are multiples of " + ::std::to_string(align) +
               ", but the size is " + ::std::to_string(size) + " and the addresses " +
               ::std::to_string(reinterpret_cast<::std::uintptr_t>(destination) % align) + " and " +
               ::std::to_string(reinterpret_cast<::std::uintptr_t>(source) % align) + " bytes past a multiple");
}

// The byte count, after checking what an aligned_size_t promises (CUDA:
// undefined behaviour if it lies). The report is out of line so that the
// check inlines into each copy, also at -O1.
template <class Shape>
::std::size_t checked_size(void* destination, const void* source, Shape shape, const char* call) {
  ::std::size_t size = static_cast<::std::size_t>(shape);
  constexpr ::std::size_t align = shape_alignment<Shape>::value;
  if constexpr (align > 1) {
    if ((reinterpret_cast<::std::uintptr_t>(destination) | reinterpret_cast<::std::uintptr_t>(source) | size) % align !=
        0) [[unlikely]]
      refuse_misaligned(call, align, destination, source, size);
  }
  return size;
}

// A copy of one vector's worth per thread (a float4, the usual shape) is
// two moves: spelt with a constant size, which GCC inlines, instead of a
// call to the library's memcpy for 16 bytes (docs/performance.md, log).
inline void copy_bytes(void* destination, const void* source, ::std::size_t size) {
  switch (size) {
    case 0:
      return;
    case 4:
      ::std::memcpy(destination, source, 4);
      return;
    case 8:
      ::std::memcpy(destination, source, 8);
      return;
    case 16:
      ::std::memcpy(destination, source, 16);
      return;
    default:
      ::std::memcpy(destination, source, size);
  }
}

// The calling thread's share of a copy the whole group makes: [begin, end).
template <class Group>
::std::pair<::std::size_t, ::std::size_t> share_of(const Group& group, ::std::size_t size) {
  auto threads = static_cast<::std::size_t>(group.size()), rank = static_cast<::std::size_t>(group.thread_rank());
  ::std::size_t begin = size / threads * rank + ::std::min(rank, size % threads);
  return {begin, begin + size / threads + (rank < size % threads ? 1 : 0)};
}

// The calling thread's copy, or its share of the group's, of a copy that
// `copy` completes (the race check's bookkeeping; race_async_copy.hpp).
inline void copy_async(void* destination, const void* source, ::std::size_t size, race_copy copy,
                       const ::std::source_location& where) {
  if constexpr (race_check_build)
    race_copy_async(destination, source, size, 0, copy, "cuda::memcpy_async", where);
  else
    copy_bytes(destination, source, size);
}
template <class Group>
void copy_share(const Group& group, void* destination, const void* source, ::std::size_t size, race_copy copy,
                const ::std::source_location& where) {
  auto [begin, end] = share_of(group, size);
  copy_async(static_cast<char*>(destination) + begin, static_cast<const char*>(source) + begin, end - begin, copy,
             where);
}

// What completes a copy committed to a cuda::barrier: its phase, if only
// the block's threads can complete it (else, for the race check, the copy
// is complete at once: its phase completes on another block's worker).
template <cuda::thread_scope Scope>
race_copy completed_by_barrier(const void* state) {
  if constexpr (completed_within_block<Scope>())
    return {.wait = race_copy_wait::barrier, .barrier = state};
  else
    return {.wait = race_copy_wait::barrier, .barrier = nullptr};
}

}  // namespace weft::detail

namespace cuda {

template <class Shape, thread_scope Scope, class CompletionF>
void memcpy_async(void* destination, const void* source, Shape size, barrier<Scope, CompletionF>& bar,
                  ::std::source_location where = ::std::source_location::current()) {
  ::weft::detail::copy_async(destination, source,
                             ::weft::detail::checked_size(destination, source, size, "cuda::memcpy_async"),
                             ::weft::detail::completed_by_barrier<Scope>(&bar), where);
}

template <class Group, class Shape, thread_scope Scope, class CompletionF>
void memcpy_async(const Group& group, void* destination, const void* source, Shape size,
                  barrier<Scope, CompletionF>& bar, ::std::source_location where = ::std::source_location::current()) {
  ::weft::detail::copy_share(group, destination, source,
                             ::weft::detail::checked_size(destination, source, size, "cuda::memcpy_async"),
                             ::weft::detail::completed_by_barrier<Scope>(&bar), where);
}

}  // namespace cuda
