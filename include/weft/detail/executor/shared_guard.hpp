// The guard that, in a build with AddressSanitizer, precedes every
// `__shared__` variable (cuda/keywords.hpp spells `__shared__` so there):
// 32 bytes of thread-local storage that no code reads or writes. A worker
// marks its guards as memory no access may touch (shared_guard_poisoning.hpp),
// so that an index just past or before a `__shared__` array lands in one
// and ASan reports it. Thread-local variables get no redzones of ASan's
// own: without guards, such an overrun reads or writes the next variable.
#pragma once

namespace weft::detail {

/// A guard's type. Its variables are named "weft_shared_guard_<n>", which
/// is how the symbol table tells them from the program's thread-locals.
struct shared_guard {
  alignas(8) unsigned char bytes[32];
};

inline constexpr const char* shared_guard_name_marker = "weft_shared_guard_";

}  // namespace weft::detail
