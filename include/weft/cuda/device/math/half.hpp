// CUDA's half precision (cuda_fp16.h): __half, __half2, their conversions,
// arithmetic, comparisons, math functions, shuffles and atomicAdd. Also the
// rounding and the operations that bfloat16.hpp shares for __nv_bfloat16.
//
// Storage is IEEE binary16, bit for bit as on a GPU. Conversions round as
// the GPU's cvt instruction does: correctly, in the mode named (subnormals
// kept, overflow to infinity in round-to-nearest). NaNs become canonical as
// an H100 makes them (tests/differential/half_probe.expected): 0x7fff from
// float, 0x7e00 from double, float's 0x7fffffff from half. An operation computes in float and rounds the result once to
// half; for + - * / and sqrt that is the correctly rounded result the GPU
// gives (float has more than twice half's precision plus two bits, so the
// double rounding cannot differ), and fma is computed exactly before its one
// rounding. The math functions (hexp, hsin, ...) are float's, rounded once:
// the GPU uses approximations there, so a last bit can differ.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <source_location>

#include "weft/cuda/device/builtins.hpp"
#include "weft/cuda/device/math/type_conversions.hpp"
#include "weft/cuda/device/memory/atomic_functions.hpp"
#include "weft/cuda/device/sync/warp_functions.hpp"
#include "weft/cuda/vector_types.hpp"

struct __nv_bfloat16;

namespace weft::detail {

enum class rounding { nearest_even, toward_zero, down, up };
inline constexpr rounding rn = rounding::nearest_even, rz = rounding::toward_zero, rd = rounding::down,
                          ru = rounding::up;

/// A 16-bit binary floating-point format: a sign bit, ExponentBits, then
/// MantissaBits stored bits of the significand.
template <int ExponentBits, int MantissaBits>
struct format16 {
  static constexpr int mantissa_bits = MantissaBits;
  static constexpr int bias = (1 << (ExponentBits - 1)) - 1;
  static constexpr int min_exponent = 1 - bias;  // of a normal number
  static constexpr std::uint16_t sign = 0x8000;
  static constexpr std::uint16_t infinity = ((1u << ExponentBits) - 1) << MantissaBits;
  // The NaN an H100 makes of every NaN, and of a NaN converted from double.
  static constexpr std::uint16_t canonical_nan = 0x7fff;
  static constexpr std::uint16_t double_nan = infinity | 1u << (MantissaBits - 1);
  static constexpr std::uint16_t one = static_cast<std::uint16_t>(bias << MantissaBits);
};
using binary16 = format16<5, 10>;
using bfloat16 = format16<8, 7>;

/// The largest finite value or infinity, whichever `mode` rounds an
/// overflowing value of that sign to.
template <class Format>
constexpr std::uint16_t overflowed(bool negative, rounding mode) {
  bool away =
      mode == rounding::nearest_even || (mode == rounding::up && !negative) || (mode == rounding::down && negative);
  return (negative ? Format::sign : 0) | (away ? Format::infinity : Format::infinity - 1);
}

/// significand * 2^exponent, negated if `negative`, rounded once to Format.
/// Every source (float, double, 64-bit integers) comes through here, so
/// none is rounded twice.
template <class Format>
constexpr std::uint16_t round_to(bool negative, std::uint64_t significand, int exponent, rounding mode) {
  std::uint16_t sign = negative ? Format::sign : 0;
  if (significand == 0) return sign;
  int top = std::bit_width(significand) - 1;
  int leading = exponent + top;  // the value is in [2^leading, 2^(leading+1))
  // The leading bit moves to bit 62, leaving room below it for every shift.
  // From bit 63 the bit shifted out stays as a sticky bit: it lies far below
  // the rounding position, where only its being non-zero matters.
  if (top == 63)
    significand = significand >> 1 | (significand & 1);
  else
    significand <<= 62 - top;
  exponent = leading - 62;
  if (leading > Format::bias) return overflowed<Format>(negative, mode);
  // The weight of the result's last bit: fixed below the normal range.
  int scale = std::max(leading, Format::min_exponent);
  int shift = scale - Format::mantissa_bits - exponent;  // at least 62 - mantissa_bits
  std::uint64_t kept = 0, rest = 1, half = 2;            // shifted out entirely: below half, not zero
  if (shift < 64) {
    kept = significand >> shift;
    rest = significand & ((std::uint64_t{1} << shift) - 1);
    half = std::uint64_t{1} << (shift - 1);
  }
  bool up = false;
  switch (mode) {
    case rounding::nearest_even:
      up = rest > half || (rest == half && (kept & 1));
      break;
    case rounding::toward_zero:
      break;
    case rounding::up:
      up = rest != 0 && !negative;
      break;
    case rounding::down:
      up = rest != 0 && negative;
      break;
  }
  // A carry out of the significand lands in the exponent field, as it should.
  std::uint64_t bits = (static_cast<std::uint64_t>(scale - Format::min_exponent) << Format::mantissa_bits) + kept + up;
  if (bits >= Format::infinity) return overflowed<Format>(negative, mode);
  return static_cast<std::uint16_t>(sign | bits);
}

/// A float or double, rounded to Format.
template <class Format, class F>
constexpr std::uint16_t from_floating(F x, rounding mode) {
  using bits_t = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  constexpr int stored = std::numeric_limits<F>::digits - 1;
  constexpr int bias = std::numeric_limits<F>::max_exponent - 1;
  constexpr bits_t field_max = (bits_t{1} << (8 * sizeof(F) - 1 - stored)) - 1;
  auto bits = std::bit_cast<bits_t>(x);
  bool negative = bits >> (8 * sizeof(F) - 1);
  auto field = static_cast<int>((bits >> stored) & field_max);
  bits_t fraction = bits & ((bits_t{1} << stored) - 1);
  if (field == field_max) {
    if (fraction != 0) return sizeof(F) == 4 ? Format::canonical_nan : Format::double_nan;
    return (negative ? Format::sign : 0) | Format::infinity;
  }
  if (field == 0) return round_to<Format>(negative, fraction, 1 - bias - stored, mode);
  return round_to<Format>(negative, fraction | bits_t{1} << stored, field - bias - stored, mode);
}

template <class Format, class I>
constexpr std::uint16_t from_integer(I v, rounding mode) {
  bool negative = false;
  if constexpr (std::is_signed_v<I>) negative = v < 0;
  auto magnitude = static_cast<std::uint64_t>(v);
  if (negative) magnitude = 0 - magnitude;
  return round_to<Format>(negative, magnitude, 0, mode);
}

/// A value of Format as a float, exactly. A bfloat16 NaN keeps its bits.
template <class Format>
constexpr float to_float(std::uint16_t bits) {
  if constexpr (Format::bias == 127) {
    return std::bit_cast<float>(std::uint32_t{bits} << 16);  // bfloat16 is float's top half
  } else {
    constexpr int stored = Format::mantissa_bits;
    auto sign = static_cast<std::uint32_t>(bits & Format::sign) << 16;
    std::uint32_t field = (bits & Format::infinity) >> stored;
    std::uint32_t fraction = bits & ((1u << stored) - 1);
    if (field == Format::infinity >> stored)  // an H100 gives float's canonical NaN for every NaN
      return std::bit_cast<float>(fraction != 0 ? 0x7fffffffu : sign | 0x7f800000u);
    if (field != 0) return std::bit_cast<float>(sign | (field + 127 - Format::bias) << 23 | fraction << (23 - stored));
    float magnitude = static_cast<float>(fraction) * std::bit_cast<float>((127u + Format::min_exponent - stored) << 23);
    return sign ? -magnitude : magnitude;
  }
}

/// Which format a 16-bit type stores (specialised for __half here and for
/// __nv_bfloat16 in bfloat16.hpp).
template <class T>
struct scalar_traits;

template <class T>
concept half_scalar = requires {
  typename scalar_traits<T>::format;
};

template <half_scalar T>
using format_of = typename scalar_traits<T>::format;

template <half_scalar T>
constexpr std::uint16_t bits_of(T h) {
  return std::bit_cast<std::uint16_t>(h);
}
template <half_scalar T>
constexpr T from_bits16(std::uint16_t bits) {
  return std::bit_cast<T>(bits);
}
template <half_scalar T>
constexpr float widen(T h) {
  return to_float<format_of<T>>(bits_of(h));
}
template <half_scalar T, class F>
constexpr T narrow(F x, rounding mode = rounding::nearest_even) {
  return from_bits16<T>(from_floating<format_of<T>>(x, mode));
}
template <half_scalar T, class I>
constexpr T from_int(I v, rounding mode) {
  return from_bits16<T>(from_integer<format_of<T>>(v, mode));
}

/// A 16-bit value, widened to `f`, converted to an integer type with the
/// GPU's saturation. NaN gives 0, except for 64-bit integers, where it gives
/// the integer with only its top bit set (CUDA's documentation for
/// __half2ll_rz and the like).
template <class I>
I float_to_int(float f, rounding mode) {
  constexpr I nan = sizeof(I) == 8 ? nan_as<I, double> : I(0);
  switch (mode) {
    case rounding::nearest_even:
      return saturate_to<I>(round_nearest_even(f), nan);
    case rounding::toward_zero:
      return saturate_to<I>(std::trunc(f), nan);
    case rounding::down:
      return saturate_to<I>(std::floor(f), nan);
    default:
      return saturate_to<I>(std::ceil(f), nan);
  }
}
template <class I, half_scalar T>
I to_int(T h, rounding mode) {
  return float_to_int<I>(widen(h), mode);
}

template <half_scalar T>
constexpr bool is_nan(T h) {
  return (bits_of(h) & 0x7fff) > format_of<T>::infinity;
}
template <half_scalar T>
constexpr T nan_of() {
  return from_bits16<T>(format_of<T>::canonical_nan);
}

/// a * b + c for a 16-bit format, in double: the product is exact (at most
/// 2 x 11 significant bits) and the sum is rounded to odd, after which the
/// one rounding to the 16-bit format gives the correctly rounded a * b + c
/// (double has more than two bits beyond its precision).
inline double fma_rounded_to_odd(double a, double b, double c) {
  double p = a * b;
  double s = p + c;
  double bp = s - c;
  double error = (p - bp) + (c - (s - bp));  // s + error == p + c exactly
  if (error != 0 && (std::bit_cast<std::uint64_t>(s) & 1) == 0)
    s = std::nextafter(s,
                       error > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  return s;
}

/// A NaN result is the canonical NaN, not the one converted from double.
template <half_scalar T>
T fused_multiply_add(T a, T b, T c) {
  double r = fma_rounded_to_odd(widen(a), widen(b), widen(c));
  return std::isnan(r) ? nan_of<T>() : narrow<T>(r);
}

/// A result clamped to [0, 1], NaN to +0 (CUDA's _sat variants).
template <half_scalar T>
T saturated(T h) {
  float f = widen(h);
  if (!(f > 0)) return from_bits16<T>(0);
  return f > 1 ? from_bits16<T>(format_of<T>::one) : h;
}

/// __hmax and __hmin: a NaN operand loses to a number; two NaNs give the
/// canonical NaN; +0 is larger than -0.
template <half_scalar T>
T maximum(T a, T b, bool nan_wins) {
  if (is_nan(a) || is_nan(b)) {
    if (nan_wins || (is_nan(a) && is_nan(b))) return nan_of<T>();
    return is_nan(a) ? b : a;
  }
  float x = widen(a), y = widen(b);
  if (x == y) return std::signbit(x) ? b : a;
  return x > y ? a : b;
}
template <half_scalar T>
T minimum(T a, T b, bool nan_wins) {
  if (is_nan(a) || is_nan(b)) {
    if (nan_wins || (is_nan(a) && is_nan(b))) return nan_of<T>();
    return is_nan(a) ? b : a;
  }
  float x = widen(a), y = widen(b);
  if (x == y) return std::signbit(x) ? a : b;
  return x < y ? a : b;
}

/// 1.0 where a comparison holds, 0.0 where it does not (CUDA's __heq2 and the like).
template <half_scalar T>
constexpr T truth(bool b) {
  return from_bits16<T>(b ? format_of<T>::one : 0);
}

/// A 16-bit value or a pair shuffled as the unsigned int of its bits.
template <class T>
T shuffle16(warp_op op, unsigned mask, T var, int lane, int width, std::source_location where) {
  using bits_t = std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint32_t>;
  auto bits = shuffle(op, mask, std::uint32_t{std::bit_cast<bits_t>(var)}, lane, width, where);
  return std::bit_cast<T>(static_cast<bits_t>(bits));
}

// The functions cuda_fp16.h and cuda_bf16.h both declare, for __half and
// __nv_bfloat16 alike (and the cache-hinted loads and stores): hidden friends
// of a base of each type, so that each type gets its own overload from one
// definition. They are found through their arguments, with the implicit
// conversions CUDA's non-template overloads allow.
// clang-format off
template <class T>
struct cache_hinted {
  friend T __ldg(const T* p) { return *p; }
  friend T __ldcg(const T* p) { return *p; }
  friend T __ldca(const T* p) { return *p; }
  friend T __ldcs(const T* p) { return *p; }
  friend T __ldlu(const T* p) { return *p; }
  friend T __ldcv(const T* p) { return *p; }
  friend void __stwb(T* p, T value) { *p = value; }
  friend void __stcg(T* p, T value) { *p = value; }
  friend void __stcs(T* p, T value) { *p = value; }
  friend void __stwt(T* p, T value) { *p = value; }
};

// Shuffles of a 16-bit value or a pair, with the int overloads' semantics.
template <class T>
struct shuffled {
  friend T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize,
                       std::source_location where = std::source_location::current()) {
    return shuffle16(warp_op::shfl, mask, var, srcLane, width, where);
  }
  friend T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                          std::source_location where = std::source_location::current()) {
    return shuffle16(warp_op::shfl_up, mask, var, static_cast<int>(delta), width, where);
  }
  friend T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                            std::source_location where = std::source_location::current()) {
    return shuffle16(warp_op::shfl_down, mask, var, static_cast<int>(delta), width, where);
  }
  friend T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize,
                           std::source_location where = std::source_location::current()) {
    return shuffle16(warp_op::shfl_xor, mask, var, laneMask, width, where);
  }
};

template <class T>
struct scalar_functions : cache_hinted<T>, shuffled<T> {
  friend T __hadd(T a, T b) { return narrow<T>(widen(a) + widen(b)); }
  friend T __hsub(T a, T b) { return narrow<T>(widen(a) - widen(b)); }
  friend T __hmul(T a, T b) { return narrow<T>(widen(a) * widen(b)); }
  friend T __hdiv(T a, T b) { return narrow<T>(widen(a) / widen(b)); }
  friend T __hfma(T a, T b, T c) { return fused_multiply_add(a, b, c); }
  friend T __hadd_sat(T a, T b) { return saturated(__hadd(a, b)); }
  friend T __hsub_sat(T a, T b) { return saturated(__hsub(a, b)); }
  friend T __hmul_sat(T a, T b) { return saturated(__hmul(a, b)); }
  friend T __hfma_sat(T a, T b, T c) { return saturated(__hfma(a, b, c)); }
  // The sign bit flipped or cleared; a NaN becomes the canonical NaN, as on an H100.
  friend constexpr T __hneg(T a) { return is_nan(a) ? nan_of<T>() : from_bits16<T>(bits_of(a) ^ 0x8000); }
  friend constexpr T __habs(T a) { return is_nan(a) ? nan_of<T>() : from_bits16<T>(bits_of(a) & 0x7fff); }

  // Ordered comparisons are false with a NaN operand; the unordered (u) ones true.
  friend constexpr bool __heq(T a, T b) { return widen(a) == widen(b); }
  friend constexpr bool __hne(T a, T b) { return widen(a) < widen(b) || widen(a) > widen(b); }
  friend constexpr bool __hlt(T a, T b) { return widen(a) < widen(b); }
  friend constexpr bool __hle(T a, T b) { return widen(a) <= widen(b); }
  friend constexpr bool __hgt(T a, T b) { return widen(a) > widen(b); }
  friend constexpr bool __hge(T a, T b) { return widen(a) >= widen(b); }
  friend constexpr bool __hequ(T a, T b) { return !__hne(a, b); }
  friend constexpr bool __hneu(T a, T b) { return !__heq(a, b); }
  friend constexpr bool __hltu(T a, T b) { return !__hge(a, b); }
  friend constexpr bool __hleu(T a, T b) { return !__hgt(a, b); }
  friend constexpr bool __hgtu(T a, T b) { return !__hle(a, b); }
  friend constexpr bool __hgeu(T a, T b) { return !__hlt(a, b); }
  friend constexpr bool __hisnan(T a) { return is_nan(a); }
  /// -1 for -inf, 1 for +inf, 0 otherwise.
  friend constexpr int __hisinf(T a) {
    return (bits_of(a) & 0x7fff) != format_of<T>::infinity ? 0 : bits_of(a) & 0x8000 ? -1 : 1;
  }
  friend T __hmax(T a, T b) { return maximum(a, b, false); }
  friend T __hmin(T a, T b) { return minimum(a, b, false); }
  friend T __hmax_nan(T a, T b) { return maximum(a, b, true); }
  friend T __hmin_nan(T a, T b) { return minimum(a, b, true); }

  // float's functions, rounded once.
  friend T hsqrt(T a) { return narrow<T>(std::sqrt(widen(a))); }
  friend T hrsqrt(T a) { return narrow<T>(1.0f / std::sqrt(widen(a))); }
  friend T hrcp(T a) { return narrow<T>(1.0f / widen(a)); }
  friend T hexp(T a) { return narrow<T>(std::exp(widen(a))); }
  friend T hexp2(T a) { return narrow<T>(std::exp2(widen(a))); }
  friend T hexp10(T a) { return narrow<T>(std::pow(10.0f, widen(a))); }
  friend T hlog(T a) { return narrow<T>(std::log(widen(a))); }
  friend T hlog2(T a) { return narrow<T>(std::log2(widen(a))); }
  friend T hlog10(T a) { return narrow<T>(std::log10(widen(a))); }
  friend T hsin(T a) { return narrow<T>(std::sin(widen(a))); }
  friend T hcos(T a) { return narrow<T>(std::cos(widen(a))); }
  friend T hceil(T a) { return narrow<T>(std::ceil(widen(a))); }
  friend T hfloor(T a) { return narrow<T>(std::floor(widen(a))); }
  friend T htrunc(T a) { return narrow<T>(std::trunc(widen(a))); }
  friend T hrint(T a) { return narrow<T>(round_nearest_even(widen(a))); }

  // Operators round as the intrinsics do; != is unordered (true with a NaN).
  friend T operator+(T a, T b) { return __hadd(a, b); }
  friend T operator-(T a, T b) { return __hsub(a, b); }
  friend T operator*(T a, T b) { return __hmul(a, b); }
  friend T operator/(T a, T b) { return __hdiv(a, b); }
  friend T& operator+=(T& a, T b) { return a = __hadd(a, b); }
  friend T& operator-=(T& a, T b) { return a = __hsub(a, b); }
  friend T& operator*=(T& a, T b) { return a = __hmul(a, b); }
  friend T& operator/=(T& a, T b) { return a = __hdiv(a, b); }
  friend T& operator++(T& a) { return a += truth<T>(true); }
  friend T& operator--(T& a) { return a -= truth<T>(true); }
  friend T operator++(T& a, int) { T old = a; ++a; return old; }
  friend T operator--(T& a, int) { T old = a; --a; return old; }
  friend T operator+(T a) { return a; }
  friend T operator-(T a) { return __hneg(a); }
  friend bool operator==(T a, T b) { return __heq(a, b); }
  friend bool operator!=(T a, T b) { return __hneu(a, b); }
  friend bool operator<(T a, T b) { return __hlt(a, b); }
  friend bool operator<=(T a, T b) { return __hle(a, b); }
  friend bool operator>(T a, T b) { return __hgt(a, b); }
  friend bool operator>=(T a, T b) { return __hge(a, b); }

  /// The sum rounded as __hadd rounds it; returns the old value.
  friend T atomicAdd(T* address, T value) {
    return atomic_update(address, [value](T old) { return __hadd(old, value); });
  }
};

/// The same for pairs P of T: each half on its own. Comparisons of pairs
/// give 1.0 or 0.0 in each half (__heq2), or hold for both halves at once
/// (__hbeq2, and the operators).
template <class P, class T>
struct pair_functions : cache_hinted<P>, shuffled<P> {
  friend constexpr float __low2float(P a) { return widen(a.x); }
  friend constexpr float __high2float(P a) { return widen(a.y); }
  friend constexpr P __lowhigh2highlow(P a) { return {a.y, a.x}; }

  friend P __hadd2(P a, P b) { return {__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
  friend P __hsub2(P a, P b) { return {__hsub(a.x, b.x), __hsub(a.y, b.y)}; }
  friend P __hmul2(P a, P b) { return {__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
  friend P __h2div(P a, P b) { return {__hdiv(a.x, b.x), __hdiv(a.y, b.y)}; }
  friend P __hfma2(P a, P b, P c) { return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }
  friend P __hadd2_sat(P a, P b) { return {__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y)}; }
  friend P __hsub2_sat(P a, P b) { return {__hsub_sat(a.x, b.x), __hsub_sat(a.y, b.y)}; }
  friend P __hmul2_sat(P a, P b) { return {__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y)}; }
  friend P __hfma2_sat(P a, P b, P c) { return {__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)}; }
  friend P __hneg2(P a) { return {__hneg(a.x), __hneg(a.y)}; }
  friend P __habs2(P a) { return {__habs(a.x), __habs(a.y)}; }
  friend P __hmax2(P a, P b) { return {__hmax(a.x, b.x), __hmax(a.y, b.y)}; }
  friend P __hmin2(P a, P b) { return {__hmin(a.x, b.x), __hmin(a.y, b.y)}; }
  friend P __hmax2_nan(P a, P b) { return {__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y)}; }
  friend P __hmin2_nan(P a, P b) { return {__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y)}; }
  friend P __hisnan2(P a) { return {truth<T>(__hisnan(a.x)), truth<T>(__hisnan(a.y))}; }

  friend P __heq2(P a, P b) { return {truth<T>(__heq(a.x, b.x)), truth<T>(__heq(a.y, b.y))}; }
  friend P __hne2(P a, P b) { return {truth<T>(__hne(a.x, b.x)), truth<T>(__hne(a.y, b.y))}; }
  friend P __hlt2(P a, P b) { return {truth<T>(__hlt(a.x, b.x)), truth<T>(__hlt(a.y, b.y))}; }
  friend P __hle2(P a, P b) { return {truth<T>(__hle(a.x, b.x)), truth<T>(__hle(a.y, b.y))}; }
  friend P __hgt2(P a, P b) { return {truth<T>(__hgt(a.x, b.x)), truth<T>(__hgt(a.y, b.y))}; }
  friend P __hge2(P a, P b) { return {truth<T>(__hge(a.x, b.x)), truth<T>(__hge(a.y, b.y))}; }
  friend bool __hbeq2(P a, P b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }
  friend bool __hbne2(P a, P b) { return __hne(a.x, b.x) && __hne(a.y, b.y); }
  friend bool __hblt2(P a, P b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }
  friend bool __hble2(P a, P b) { return __hle(a.x, b.x) && __hle(a.y, b.y); }
  friend bool __hbgt2(P a, P b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); }
  friend bool __hbge2(P a, P b) { return __hge(a.x, b.x) && __hge(a.y, b.y); }
  friend bool __hbequ2(P a, P b) { return __hequ(a.x, b.x) && __hequ(a.y, b.y); }
  friend bool __hbneu2(P a, P b) { return __hneu(a.x, b.x) && __hneu(a.y, b.y); }

  friend P h2sqrt(P a) { return {hsqrt(a.x), hsqrt(a.y)}; }
  friend P h2rsqrt(P a) { return {hrsqrt(a.x), hrsqrt(a.y)}; }
  friend P h2rcp(P a) { return {hrcp(a.x), hrcp(a.y)}; }
  friend P h2exp(P a) { return {hexp(a.x), hexp(a.y)}; }
  friend P h2exp2(P a) { return {hexp2(a.x), hexp2(a.y)}; }
  friend P h2exp10(P a) { return {hexp10(a.x), hexp10(a.y)}; }
  friend P h2log(P a) { return {hlog(a.x), hlog(a.y)}; }
  friend P h2log2(P a) { return {hlog2(a.x), hlog2(a.y)}; }
  friend P h2log10(P a) { return {hlog10(a.x), hlog10(a.y)}; }
  friend P h2sin(P a) { return {hsin(a.x), hsin(a.y)}; }
  friend P h2cos(P a) { return {hcos(a.x), hcos(a.y)}; }
  friend P h2ceil(P a) { return {hceil(a.x), hceil(a.y)}; }
  friend P h2floor(P a) { return {hfloor(a.x), hfloor(a.y)}; }
  friend P h2trunc(P a) { return {htrunc(a.x), htrunc(a.y)}; }
  friend P h2rint(P a) { return {hrint(a.x), hrint(a.y)}; }

  friend P operator+(P a, P b) { return __hadd2(a, b); }
  friend P operator-(P a, P b) { return __hsub2(a, b); }
  friend P operator*(P a, P b) { return __hmul2(a, b); }
  friend P operator/(P a, P b) { return __h2div(a, b); }
  friend P& operator+=(P& a, P b) { return a = __hadd2(a, b); }
  friend P& operator-=(P& a, P b) { return a = __hsub2(a, b); }
  friend P& operator*=(P& a, P b) { return a = __hmul2(a, b); }
  friend P& operator/=(P& a, P b) { return a = __h2div(a, b); }
  friend P& operator++(P& a) { ++a.x; ++a.y; return a; }
  friend P& operator--(P& a) { --a.x; --a.y; return a; }
  friend P operator++(P& a, int) { P old = a; ++a; return old; }
  friend P operator--(P& a, int) { P old = a; --a; return old; }
  friend P operator+(P a) { return a; }
  friend P operator-(P a) { return __hneg2(a); }
  friend bool operator==(P a, P b) { return __hbeq2(a, b); }
  friend bool operator!=(P a, P b) { return __hbneu2(a, b); }
  friend bool operator<(P a, P b) { return __hblt2(a, b); }
  friend bool operator<=(P a, P b) { return __hble2(a, b); }
  friend bool operator>(P a, P b) { return __hbgt2(a, b); }
  friend bool operator>=(P a, P b) { return __hbge2(a, b); }

  /// CUDA makes each half atomic on its own; here the pair is updated as a
  /// whole, which is stronger. Returns the old value.
  friend P atomicAdd(P* address, P value) {
    return atomic_update(address, [value](P old) { return __hadd2(old, value); });
  }
};
// clang-format on

/// The storage, converting constructors and conversion operators of CUDA's
/// C++ classes __half and __nv_bfloat16, for the 16-bit Format and its raw
/// struct Raw: from floating-point values and integers in
/// round-to-nearest-even, to integers toward zero. Each type inherits the
/// constructors.
template <class Format, class Raw>
struct scalar_storage {
 protected:
  unsigned short __x;

 public:
  scalar_storage() = default;
  constexpr scalar_storage(const Raw& r) : __x(r.x) {}
  constexpr operator Raw() const { return {__x}; }

  constexpr scalar_storage(float f) : __x(from(f)) {}
  constexpr scalar_storage(double f) : __x(from(f)) {}
  constexpr scalar_storage(short v) : __x(from_int(v)) {}
  constexpr scalar_storage(unsigned short v) : __x(from_int(v)) {}
  constexpr scalar_storage(int v) : __x(from_int(v)) {}
  constexpr scalar_storage(unsigned int v) : __x(from_int(v)) {}
  constexpr scalar_storage(long v) : __x(from_int(v)) {}
  constexpr scalar_storage(unsigned long v) : __x(from_int(v)) {}
  constexpr scalar_storage(long long v) : __x(from_int(v)) {}
  constexpr scalar_storage(unsigned long long v) : __x(from_int(v)) {}

  constexpr operator float() const { return to_float<Format>(__x); }
  operator signed char() const { return to<signed char>(); }
  operator unsigned char() const { return to<unsigned char>(); }
  operator char() const { return to<char>(); }
  operator short() const { return to<short>(); }
  operator unsigned short() const { return to<unsigned short>(); }
  operator int() const { return to<int>(); }
  operator unsigned int() const { return to<unsigned int>(); }
  operator long() const { return to<long>(); }
  operator unsigned long() const { return to<unsigned long>(); }
  operator long long() const { return to<long long>(); }
  operator unsigned long long() const { return to<unsigned long long>(); }
  /// -0 and +0 are false; NaN is true.
  constexpr operator bool() const { return (__x & 0x7fff) != 0; }

 private:
  template <class F>
  static constexpr unsigned short from(F f) {
    return from_floating<Format>(f, rn);
  }
  template <class I>
  static constexpr unsigned short from_int(I v) {
    return from_integer<Format>(v, rn);
  }
  template <class I>
  I to() const {
    return float_to_int<I>(static_cast<float>(*this), rz);
  }
};

/// The members and constructors of a pair of T (__half2, __nv_bfloat162):
/// x in the low 16 bits, y in the high. Raw is the pair's raw struct,
/// ScalarRaw T's.
template <class T, class Raw, class ScalarRaw>
struct pair_storage {
  T x;
  T y;

  pair_storage() = default;
  constexpr pair_storage(const T& a, const T& b) : x(a), y(b) {}
  constexpr pair_storage(const Raw& r) : x(ScalarRaw{r.x}), y(ScalarRaw{r.y}) {}
  constexpr operator Raw() const { return {ScalarRaw(x).x, ScalarRaw(y).x}; }
};

}  // namespace weft::detail

struct __half;
struct __half2;

template <>
struct weft::detail::scalar_traits<__half> {
  using format = binary16;
};

struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x;
  unsigned short y;
};

/// IEEE binary16, with the converting constructors and operators of CUDA's
/// class (weft::detail::scalar_storage).
struct alignas(2) __half : weft::detail::scalar_functions<__half>,
                           weft::detail::scalar_storage<weft::detail::binary16, __half_raw> {
  using scalar_storage::scalar_storage;
  __half() = default;
  constexpr __half& operator=(const __half_raw& r) {
    __x = r.x;
    return *this;
  }
  explicit __half(const __nv_bfloat16& b);  // in bfloat16.hpp: CUDA's needs cuda_bf16.h too
};

/// Two halves: x in the low 16 bits, y in the high.
struct alignas(4) __half2 : weft::detail::pair_functions<__half2, __half>,
                            weft::detail::pair_storage<__half, __half2_raw, __half_raw> {
  using pair_storage::pair_storage;
  __half2() = default;
  constexpr __half2& operator=(const __half2_raw& r) { return *this = __half2(r); }
};

// ---------------------------------------------------------------------------
// Conversions (CUDA Math API, "Half Precision Conversion and Data Movement").

constexpr __half __float2half(float a) { return weft::detail::narrow<__half>(a); }
constexpr __half __float2half_rn(float a) { return weft::detail::narrow<__half>(a); }
constexpr __half __float2half_rz(float a) { return weft::detail::narrow<__half>(a, weft::detail::rz); }
constexpr __half __float2half_rd(float a) { return weft::detail::narrow<__half>(a, weft::detail::rd); }
constexpr __half __float2half_ru(float a) { return weft::detail::narrow<__half>(a, weft::detail::ru); }
constexpr __half __double2half(double a) { return weft::detail::narrow<__half>(a); }
constexpr float __half2float(__half a) { return weft::detail::widen(a); }

constexpr __half2 __float2half2_rn(float a) { return {__float2half(a), __float2half(a)}; }
constexpr __half2 __floats2half2_rn(float a, float b) { return {__float2half(a), __float2half(b)}; }
constexpr __half2 __float22half2_rn(float2 a) { return {__float2half(a.x), __float2half(a.y)}; }
constexpr float2 __half22float2(__half2 a) { return {__half2float(a.x), __half2float(a.y)}; }
constexpr __half2 make_half2(__half x, __half y) { return {x, y}; }
constexpr __half2 __halves2half2(__half a, __half b) { return {a, b}; }
constexpr __half2 __half2half2(__half a) { return {a, a}; }
constexpr __half __low2half(__half2 a) { return a.x; }
constexpr __half __high2half(__half2 a) { return a.y; }
constexpr __half2 __low2half2(__half2 a) { return {a.x, a.x}; }
constexpr __half2 __high2half2(__half2 a) { return {a.y, a.y}; }
constexpr __half2 __lows2half2(__half2 a, __half2 b) { return {a.x, b.x}; }
constexpr __half2 __highs2half2(__half2 a, __half2 b) { return {a.y, b.y}; }

constexpr short __half_as_short(__half h) { return std::bit_cast<short>(h); }
constexpr unsigned short __half_as_ushort(__half h) { return std::bit_cast<unsigned short>(h); }
constexpr __half __short_as_half(short i) { return std::bit_cast<__half>(i); }
constexpr __half __ushort_as_half(unsigned short i) { return std::bit_cast<__half>(i); }

constexpr __half __int2half_rn(int i) { return weft::detail::from_int<__half>(i, weft::detail::rn); }
constexpr __half __int2half_rz(int i) { return weft::detail::from_int<__half>(i, weft::detail::rz); }
constexpr __half __int2half_rd(int i) { return weft::detail::from_int<__half>(i, weft::detail::rd); }
constexpr __half __int2half_ru(int i) { return weft::detail::from_int<__half>(i, weft::detail::ru); }
constexpr __half __uint2half_rn(unsigned int i) { return weft::detail::from_int<__half>(i, weft::detail::rn); }
constexpr __half __uint2half_rz(unsigned int i) { return weft::detail::from_int<__half>(i, weft::detail::rz); }
constexpr __half __uint2half_rd(unsigned int i) { return weft::detail::from_int<__half>(i, weft::detail::rd); }
constexpr __half __uint2half_ru(unsigned int i) { return weft::detail::from_int<__half>(i, weft::detail::ru); }
constexpr __half __short2half_rn(short i) { return weft::detail::from_int<__half>(i, weft::detail::rn); }
constexpr __half __short2half_rz(short i) { return weft::detail::from_int<__half>(i, weft::detail::rz); }
constexpr __half __short2half_rd(short i) { return weft::detail::from_int<__half>(i, weft::detail::rd); }
constexpr __half __short2half_ru(short i) { return weft::detail::from_int<__half>(i, weft::detail::ru); }
constexpr __half __ushort2half_rn(unsigned short i) { return weft::detail::from_int<__half>(i, weft::detail::rn); }
constexpr __half __ushort2half_rz(unsigned short i) { return weft::detail::from_int<__half>(i, weft::detail::rz); }
constexpr __half __ushort2half_rd(unsigned short i) { return weft::detail::from_int<__half>(i, weft::detail::rd); }
constexpr __half __ushort2half_ru(unsigned short i) { return weft::detail::from_int<__half>(i, weft::detail::ru); }
constexpr __half __ll2half_rn(long long i) { return weft::detail::from_int<__half>(i, weft::detail::rn); }
constexpr __half __ll2half_rz(long long i) { return weft::detail::from_int<__half>(i, weft::detail::rz); }
constexpr __half __ll2half_rd(long long i) { return weft::detail::from_int<__half>(i, weft::detail::rd); }
constexpr __half __ll2half_ru(long long i) { return weft::detail::from_int<__half>(i, weft::detail::ru); }
constexpr __half __ull2half_rn(unsigned long long i) { return weft::detail::from_int<__half>(i, weft::detail::rn); }
constexpr __half __ull2half_rz(unsigned long long i) { return weft::detail::from_int<__half>(i, weft::detail::rz); }
constexpr __half __ull2half_rd(unsigned long long i) { return weft::detail::from_int<__half>(i, weft::detail::rd); }
constexpr __half __ull2half_ru(unsigned long long i) { return weft::detail::from_int<__half>(i, weft::detail::ru); }

inline int __half2int_rn(__half h) { return weft::detail::to_int<int>(h, weft::detail::rn); }
inline int __half2int_rz(__half h) { return weft::detail::to_int<int>(h, weft::detail::rz); }
inline int __half2int_rd(__half h) { return weft::detail::to_int<int>(h, weft::detail::rd); }
inline int __half2int_ru(__half h) { return weft::detail::to_int<int>(h, weft::detail::ru); }
inline unsigned int __half2uint_rn(__half h) { return weft::detail::to_int<unsigned int>(h, weft::detail::rn); }
inline unsigned int __half2uint_rz(__half h) { return weft::detail::to_int<unsigned int>(h, weft::detail::rz); }
inline unsigned int __half2uint_rd(__half h) { return weft::detail::to_int<unsigned int>(h, weft::detail::rd); }
inline unsigned int __half2uint_ru(__half h) { return weft::detail::to_int<unsigned int>(h, weft::detail::ru); }
inline short __half2short_rn(__half h) { return weft::detail::to_int<short>(h, weft::detail::rn); }
inline short __half2short_rz(__half h) { return weft::detail::to_int<short>(h, weft::detail::rz); }
inline short __half2short_rd(__half h) { return weft::detail::to_int<short>(h, weft::detail::rd); }
inline short __half2short_ru(__half h) { return weft::detail::to_int<short>(h, weft::detail::ru); }
inline unsigned short __half2ushort_rn(__half h) { return weft::detail::to_int<unsigned short>(h, weft::detail::rn); }
inline unsigned short __half2ushort_rz(__half h) { return weft::detail::to_int<unsigned short>(h, weft::detail::rz); }
inline unsigned short __half2ushort_rd(__half h) { return weft::detail::to_int<unsigned short>(h, weft::detail::rd); }
inline unsigned short __half2ushort_ru(__half h) { return weft::detail::to_int<unsigned short>(h, weft::detail::ru); }
inline long long __half2ll_rn(__half h) { return weft::detail::to_int<long long>(h, weft::detail::rn); }
inline long long __half2ll_rz(__half h) { return weft::detail::to_int<long long>(h, weft::detail::rz); }
inline long long __half2ll_rd(__half h) { return weft::detail::to_int<long long>(h, weft::detail::rd); }
inline long long __half2ll_ru(__half h) { return weft::detail::to_int<long long>(h, weft::detail::ru); }
inline unsigned long long __half2ull_rn(__half h) {
  return weft::detail::to_int<unsigned long long>(h, weft::detail::rn);
}
inline unsigned long long __half2ull_rz(__half h) {
  return weft::detail::to_int<unsigned long long>(h, weft::detail::rz);
}
inline unsigned long long __half2ull_rd(__half h) {
  return weft::detail::to_int<unsigned long long>(h, weft::detail::rd);
}
inline unsigned long long __half2ull_ru(__half h) {
  return weft::detail::to_int<unsigned long long>(h, weft::detail::ru);
}
inline signed char __half2char_rz(__half h) { return weft::detail::to_int<signed char>(h, weft::detail::rz); }
inline unsigned char __half2uchar_rz(__half h) { return weft::detail::to_int<unsigned char>(h, weft::detail::rz); }
