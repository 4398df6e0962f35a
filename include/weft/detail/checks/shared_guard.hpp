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

// The edge guards of a translation unit. A guard precedes each `__shared__`
// declaration, and the compilers lay a function's thread-locals out in
// declaration order (Clang; GCC at -O0), guard before variable, or in reverse
// (GCC when optimising), guard after variable: either way a run of
// `__shared__` variables is open at one end. Runs end where a unit's
// sections of thread-locals end: its `.tbss` (the statics of its non-inline
// functions) and the sections of their own (COMDAT groups) that each static
// of its inline functions, templates and lambdas gets, which the linker
// places after `.tbss` in the order the compiler wrote them. So each unit
// brackets its thread-locals with guards that the assembler and the linker
// place, whatever the compiler's order:
// - at the start of its `.tbss`: the compilers write top-level asm before
//   any variable (Clang always, GCC when optimising; GCC at -O0 in source
//   order, where this header comes before the program's kernels);
// - at the end of its `.tbss`, in subsection 1, which the assembler places
//   after subsection 0, where the compiler writes its variables;
// - in `.tcommon`, which GNU ld's default linker script places after every
//   object's `.tbss` sections, so after the executable's last thread-local.
// The labels are local symbols, one of each per unit, named like the guards
// so that the symbol table gives them (shared_guard_poisoning.hpp); where
// link-time optimisation joins units into one assembly, the first unit's
// alone (`.ifndef`: a label defined twice is an error).
asm(R"(
.ifndef weft_shared_guard_edge_tbss_start
.pushsection .tbss,"awT",@nobits
.balign 8
weft_shared_guard_edge_tbss_start:
.type weft_shared_guard_edge_tbss_start,@object
.size weft_shared_guard_edge_tbss_start,32
.zero 32
.subsection 1
.balign 8
weft_shared_guard_edge_tbss_end:
.type weft_shared_guard_edge_tbss_end,@object
.size weft_shared_guard_edge_tbss_end,32
.zero 32
.popsection
.pushsection .tcommon,"awT",@nobits
.balign 8
weft_shared_guard_edge_tcommon:
.type weft_shared_guard_edge_tcommon,@object
.size weft_shared_guard_edge_tcommon,32
.zero 32
.popsection
.endif
)");

namespace {

// The trailing guard of a translation unit, for Clang's one-byte
// `__tls_guard`: Clang writes that flag (where one of the unit's
// thread-locals has a dynamic initializer) after the unit's variables in
// `.tbss`, so between the last `__shared__` variable of its non-inline
// functions and the end-of-`.tbss` edge guard above, where a one-byte
// overrun would read or write it unreported. A function template's statics
// are written where Clang emits the instantiation, after the unit's
// non-inline functions and before that flag, so this guard lands between
// them. (GCC writes no such flag there; in its reverse order this guard
// lands at the start of `.tbss`, harmlessly.) Each unit has its own
// (internal linkage); the pointer below is what instantiates the template.
template <class = void>
void trailing_shared_guard_owner() {
  [[gnu::used]] static thread_local shared_guard weft_shared_guard_trailing;
}

[[gnu::used]] void (*const trailing_shared_guard_instantiation)() = &trailing_shared_guard_owner<>;

}  // namespace

}  // namespace weft::detail
