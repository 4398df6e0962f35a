// One floating-point operation in one of IEEE 754's four rounding modes, for
// the intrinsics CUDA names with _rn, _rz, _ru and _rd (__fadd_rz,
// __int2float_ru, __double2float_rd, ...).
//
// A GPU encodes the rounding mode in each instruction; a CPU has one mode per
// OS thread (MXCSR on x86-64, FPCR on AArch64), and switching it costs far
// more than the operation (cuda-samples' interval spent 91% of its time in
// fesetround and fegetround). So the arithmetic intrinsics compute the
// round-to-nearest result r and the sign of the exact error (exact - r),
// which TwoSum, an FMA or a wider type gives exactly, and step r one ulp
// where the exact value lies on the other side of it from the requested
// direction: a directed result is always r or r's neighbour. Where the error
// term could be inexact (underflow) or r is not finite or zero (overflow,
// NaN, infinities, signed zeros), they switch the mode instead.
//
// The mode switch runs between setting the mode and restoring it. The fibers
// of a block share their OS thread, but none of these calls can switch
// fibers, so no other CUDA thread ever runs under the changed mode.
//
// Built with -ffast-math (-fassociative-math, -freciprocal-math) the compiler
// may rewrite the round-to-nearest operations themselves, so neither path is
// exact there; the error terms are kept out of its reach (volatile) but that
// is all.
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <type_traits>

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

template <class T>
using float_bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// Tests on the bits: -ffinite-math-only would fold std::isfinite to true.
template <class T>
bool finite_bits(T x) {
  constexpr auto exponent = static_cast<float_bits<T>>(sizeof(T) == 4 ? 0x7f800000u : 0x7ff0000000000000u);
  return (std::bit_cast<float_bits<T>>(x) & exponent) != exponent;
}

template <class T>
bool finite_nonzero(T x) {
  return finite_bits(x) && (std::bit_cast<float_bits<T>>(x) << 1) != 0;
}

/// `exact` rounded in `Mode` (not FE_TONEAREST), given r, `exact` rounded to
/// nearest and finite, and whether `exact` lies above or below r. Between r
/// and the exact value there is no other float, so the result is r or its
/// neighbour; on the bits, a neighbour is one more (away from zero) or one
/// less (toward zero), subnormals and the step from the largest finite value
/// to infinity included. r = +0 with `exact` below, and -0 with `exact`
/// above, cannot occur: round-to-nearest keeps the sign.
template <int Mode, class T>
T round_from_nearest(T r, bool above, bool below) {
  // Integer arithmetic rather than branches: which side the exact value
  // lies on is as unpredictable as the data.
  using bits_type = float_bits<T>;
  auto bits = std::bit_cast<bits_type>(r);
  bool negative = (bits >> (8 * sizeof(T) - 1)) != 0;
  bits_type step, away;
  if constexpr (Mode == FE_UPWARD) {
    step = above;
    away = !negative;
  } else if constexpr (Mode == FE_DOWNWARD) {
    step = below;
    away = negative;
  } else {
    static_assert(Mode == FE_TOWARDZERO);
    step = negative ? above : below;
    away = 0;
  }
  // +step away from zero, -step toward it.
  return std::bit_cast<T>(bits + (step & (bits_type{0} - away)) - (step & (away - 1)));
}

// Below this magnitude (of a double product, dividend or square root's
// argument) an FMA's error term could fall under the smallest subnormal and
// round to zero or lose its sign: 2^-900 keeps it a multiple of at least
// 2^-1007.
inline constexpr double exact_error_bound = 0x1p-900;

/// The rounding error of sum = a + b rounded to nearest, exactly (Knuth's
/// TwoSum): exact for any finite a, b and sum, subnormals included, and
/// without Fast2Sum's comparison, a branch as unpredictable as the data.
template <class T>
T sum_error(T a, T b, T sum) {
  T b_part = opaque(sum - a);
  T a_part = sum - b_part;
  return (a - a_part) + (b - b_part);
}

template <int Mode, class T>
T add_rounded(T a, T b) {
  T sum = opaque(a + b);
  if (!finite_nonzero(sum)) return rounded<Mode>([](T x, T y) { return x + y; }, a, b);
  T error = sum_error(a, b, sum);
  return round_from_nearest<Mode>(sum, error > 0, error < 0);
}

template <int Mode, class T>
T sub_rounded(T a, T b) {
  T difference = opaque(a - b);
  if (!finite_nonzero(difference)) return rounded<Mode>([](T x, T y) { return x - y; }, a, b);
  T error = sum_error(a, -b, difference);
  return round_from_nearest<Mode>(difference, error > 0, error < 0);
}

template <int Mode, class T>
T mul_rounded(T a, T b) {
  auto fallback = [&] { return rounded<Mode>([](T x, T y) { return x * y; }, a, b); };
  if constexpr (sizeof(T) == 4) {
    // Two 24-bit significands multiply exactly into a double, and float's
    // whole range squared fits double's: exact for every finite product,
    // zeros, subnormals and underflow included.
    double exact = double{a} * double{b};
    float r = opaque(static_cast<float>(exact));
    if (!finite_bits(r)) return fallback();
    return round_from_nearest<Mode>(r, exact > r, exact < r);
  } else {
    T r = opaque(a * b);
    if (!finite_bits(r) || !(std::fabs(r) >= exact_error_bound)) return fallback();
    T error = std::fma(a, b, -r);
    return round_from_nearest<Mode>(r, error > 0, error < 0);
  }
}

template <int Mode, class T>
T div_rounded(T a, T b) {
  auto fallback = [&] { return rounded<Mode>([](T x, T y) { return x / y; }, a, b); };
  T r = opaque(a / b);
  if (!finite_bits(r) || !finite_bits(b)) return fallback();
  // exact - r = (a - r b) / b. For floats r b is exact in a double and the
  // difference keeps its sign (all are multiples of 2^-298); for doubles the
  // FMA's remainder does while a is not tiny.
  double remainder;
  if constexpr (sizeof(T) == 4) {
    remainder = double{a} - double{r} * double{b};
  } else {
    if (!(std::fabs(a) >= exact_error_bound)) return fallback();
    remainder = std::fma(-r, b, a);
  }
  bool divisor_negative = std::signbit(b);
  bool above = remainder != 0 && (remainder > 0) != divisor_negative;
  bool below = remainder != 0 && (remainder < 0) != divisor_negative;
  return round_from_nearest<Mode>(r, above, below);
}

template <int Mode, class T>
T sqrt_rounded(T a) {
  auto fallback = [&] { return rounded<Mode>([](T x) { return std::sqrt(x); }, a); };
  T r = opaque(std::sqrt(a));
  // Negative arguments and NaN fail the test; sqrt(+-0) = +-0 falls back too.
  if (!finite_bits(r) || !(a > 0)) return fallback();
  double remainder;
  if constexpr (sizeof(T) == 4) {
    remainder = double{a} - double{r} * double{r};
  } else {
    if (!(a >= exact_error_bound)) return fallback();
    remainder = std::fma(-r, r, a);
  }
  return round_from_nearest<Mode>(r, remainder > 0, remainder < 0);
}

}  // namespace weft::detail
