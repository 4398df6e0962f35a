// untraced_read(element): the value of a scalar in memory, loaded without
// the race check's callback. weft-port's --race-check (race-check builds of
// weft_add_cuda_executable) wraps in it a region version's reads of a
// `__shared__` array that no code of their barrier interval writes and
// whose address never escapes (docs/architecture.md, "Race check", its
// static filter): such a load cannot race, and its callback, about a
// hundred instructions, would only record it.
//
// -fsanitize-coverage=trace-loads instruments the compiler's load
// instructions, and still sees one that an always_inline function marked
// no_sanitize("coverage") makes, once inlined, and an __atomic_load; it
// does not see into inline assembly. So on x86-64 the load is one `mov`
// from a memory operand into a register of the element's width, whose bits
// become the element's type. Elsewhere, in a build without the race check,
// and under AddressSanitizer or ThreadSanitizer (whose checks of the load an
// asm would skip), it is a plain read: traced in a race-check build, slower
// there, never wrong.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "weft/detail/checks/race_check.hpp"

namespace weft::detail {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool untraced_read_under_sanitizer = true;
#else
inline constexpr bool untraced_read_under_sanitizer = false;
#endif
#else
inline constexpr bool untraced_read_under_sanitizer = false;
#endif

#if defined(__x86_64__)
inline constexpr bool untraced_read_in_assembly = race_check_build && !untraced_read_under_sanitizer;
#else
inline constexpr bool untraced_read_in_assembly = false;
#endif

// The unsigned integer of the element's width, whose register the `mov` fills.
template <std::size_t Bytes>
using untraced_read_bits = std::conditional_t<
    Bytes == 1, std::uint8_t,
    std::conditional_t<Bytes == 2, std::uint16_t, std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>>>;

template <class T>
[[gnu::always_inline]] inline T untraced_read(const T& element) {
  static_assert(std::is_scalar_v<T>, "weft-port rewrites reads of scalar elements only");
  if constexpr (untraced_read_in_assembly && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8)) {
    untraced_read_bits<sizeof(T)> bits;
    // Not volatile: the compiler may merge or hoist it as it would the plain
    // load, which is right, nothing writing the element meanwhile. The
    // memory operand tells it which memory the asm reads.
    asm("mov %1, %0" : "=r"(bits) : "m"(element));
    return std::bit_cast<T>(bits);
  } else {
    return element;
  }
}

}  // namespace weft::detail
