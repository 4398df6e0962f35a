// Where a stackless kernel awaits a barrier or warp collective: the default
// argument of weft::syncthreads() and the other awaitables, for reports.
//
// Not a std::source_location: that default argument is a temporary of class
// type, and GCC 12 keeps each such temporary of a `co_await` expression in
// the coroutine frame for the whole wait, beside the awaiter's own copy, so
// every call site took 8 bytes more of each thread's frame and one more
// store. libstdc++'s source_location is a pointer to a static record, which
// __builtin_source_location() gives as a scalar that needs no frame: the
// block reduction's frames 112 -> 96 bytes, 24 KiB for a block of 256
// (docs/performance.md, log, 2026-11-29, h-P2). The awaitables write
// `call_site where = __builtin_source_location()`: the builtin itself, as
// std::source_location::current() is written, since only a default
// argument written so gives the caller's line (one wrapped in a function
// gives that function's default argument's own). An awaitable that takes a
// std::source_location from its caller (a group function's) is another
// overload.
#pragma once

#include <bit>
#include <source_location>
#include <type_traits>

namespace weft::detail {

/// libstdc++'s std::source_location as its one pointer.
using call_site = decltype(__builtin_source_location());
static_assert(sizeof(call_site) == sizeof(std::source_location) && std::is_trivially_copyable_v<std::source_location>,
              "weft's stackless awaitables take their call site as libstdc++'s source_location pointer");

inline std::source_location to_source_location(call_site site) noexcept {
  return std::bit_cast<std::source_location>(site);
}

}  // namespace weft::detail
