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

namespace {

// The trailing guard of a translation unit. A guard precedes each
// `__shared__` declaration, and the compilers keep a unit's thread-locals in
// declaration order (Clang; GCC at -O0) or in reverse (GCC when optimising):
// either way the unit's last `__shared__` variable would have a guard on one
// side only. A function template's statics are laid out where the compilers
// instantiate it, after the unit's other functions (both do so at the end of
// the unit), so this guard lands on the open side: after that variable in
// declaration order, before it in reverse. Each unit has its own (internal
// linkage); the pointer below is what instantiates the template.
template <class = void>
void trailing_shared_guard_owner() {
  [[gnu::used]] static thread_local shared_guard weft_shared_guard_trailing;
}

[[gnu::used]] void (*const trailing_shared_guard_instantiation)() = &trailing_shared_guard_owner<>;

}  // namespace

}  // namespace weft::detail
