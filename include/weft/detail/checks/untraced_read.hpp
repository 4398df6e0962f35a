// untraced_read(element): the value of a scalar in memory, loaded without
// the race check's callback. weft-port's --race-check (race-check builds of
// weft_add_cuda_executable) wraps in it a region version's reads of a
// `__shared__` array that no code of their barrier interval writes and
// whose address never escapes (docs/architecture.md, "Race check", its
// static filter): such a load cannot race, and its callback, about a
// hundred instructions, would only record it. race_check.hpp's
// restate_builtin reads weft's built-in variables with it too.
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

#include "weft/detail/checks/race_check_build.hpp"

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

// A region version's copy of a thread's local in and out of its slot
// (weft-port --race-check: `auto sum = weft_l.sum;` at a region's start,
// `weft_l.sum = sum;` at its end), untraced. The slot is the CUDA thread's
// own, a register or local memory on a GPU: weft-port keeps a local whose
// address is taken as a reference into the slot instead, traced, so no
// other thread reaches a slot copied so and no access to it can race. Its
// callbacks were a shared-memory scan's thread's 18 of 46 (its `current`
// in and out of each of its ten regions): the check's filters find the
// slot private only after the global pages' look-up. Any other type is
// copied plainly.
template <class T>
[[gnu::always_inline]] inline T untraced_local(const T& slot) {
  if constexpr (std::is_scalar_v<T>)
    return untraced_read(slot);
  else
    return slot;
}
template <class T>
[[gnu::always_inline]] inline void set_untraced_local(T& slot, const std::type_identity_t<T>& value) {
  if constexpr (std::is_scalar_v<T> && untraced_read_in_assembly &&
                (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8)) {
    asm("mov %1, %0" : "=m"(slot) : "r"(std::bit_cast<untraced_read_bits<sizeof(T)>>(value)));
  } else {
    slot = value;
  }
}

}  // namespace weft::detail
