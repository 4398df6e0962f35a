// Where a stackless kernel awaits a barrier or warp collective: the default
// argument of weft::syncthreads() and the other awaitables, for reports.
//
// Not a std::source_location: that default argument is a temporary of class
// type, and GCC 12 keeps each such temporary of a `co_await` expression in
// the coroutine frame for the whole wait, beside the awaiter's own copy, so
// every call site took 8 bytes more of each thread's frame and one more
// store. libstdc++'s source_location is a pointer to a static record, which
// __builtin_source_location() gives as a scalar that needs no frame: the
// block reduction's frames 112 -> 96 bytes, its time per thread -15% (its
// 256 frames then fit the first-level cache with the executor's lists:
// docs/performance.md, log, 2026-11-29, h-P2). Elsewhere, the
// source_location itself.
#pragma once

#include <bit>
#include <source_location>

namespace weft::detail {

#if defined(__GLIBCXX__)
using call_site = decltype(__builtin_source_location());

/// Used as a default argument, the call site of the function it belongs to,
/// as std::source_location::current() is.
consteval call_site current_call_site(call_site here = __builtin_source_location()) { return here; }

inline std::source_location to_source_location(call_site site) noexcept {
  return std::bit_cast<std::source_location>(site);
}
#else
using call_site = std::source_location;

consteval call_site current_call_site(call_site here = std::source_location::current()) { return here; }

inline std::source_location to_source_location(call_site site) noexcept { return site; }
#endif

}  // namespace weft::detail
