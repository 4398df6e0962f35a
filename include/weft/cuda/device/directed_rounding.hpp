// One floating-point operation in one of IEEE 754's four rounding modes, for
// the intrinsics CUDA names with _rn, _rz, _ru and _rd (__fadd_rz,
// __int2float_ru, __double2float_rd, ...).
//
// A GPU encodes the rounding mode in each instruction; a CPU has one mode per
// OS thread (MXCSR on x86-64, FPCR on AArch64). So the operation runs between
// setting the mode and restoring it. The fibers of a block share their OS
// thread, but none of these calls can switch fibers, so no other CUDA thread
// ever runs under the changed mode.
#pragma once

#include <cfenv>

namespace weft::detail {

/// Sets the calling thread's rounding mode for the scope's lifetime.
class rounding_scope {
 public:
  explicit rounding_scope(int mode) : saved_(std::fegetround()) { std::fesetround(mode); }
  ~rounding_scope() { std::fesetround(saved_); }
  rounding_scope(const rounding_scope&) = delete;
  rounding_scope& operator=(const rounding_scope&) = delete;

 private:
  int saved_;
};

/// Passes a value through memory the compiler must not reason about.
template <class T>
T opaque(T value) {
  volatile T copy = value;
  return copy;
}

/// op(args...) rounded in `Mode` (FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD,
/// FE_DOWNWARD). GCC and Clang assume round-to-nearest unless a program is
/// built with -frounding-math: they would fold an operation on constants at
/// compile time, or move it past the mode switches. Volatile operands and
/// result pin it between them. The volatile result also keeps a product from
/// being contracted with a later addition into a fused multiply-add, which
/// CUDA promises for these intrinsics ("never merged into a single
/// multiply-add instruction").
///
/// Round-to-nearest is the mode every thread starts in and CUDA threads never
/// change, so it needs no switch.
template <int Mode, class Op, class... T>
auto rounded(Op op, T... args) {
  if constexpr (Mode == FE_TONEAREST) {
    volatile auto result = op(args...);
    return result;
  } else {
    rounding_scope scope(Mode);
    volatile auto result = op(opaque(args)...);
    return result;
  }
}

}  // namespace weft::detail
