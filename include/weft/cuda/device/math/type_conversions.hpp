// CUDA's type casting intrinsics (CUDA Math API, "Type Casting Intrinsics"):
// conversions between floating-point and integer types in an explicit
// rounding mode, and reinterpretations of a value's bits.
//
// Floating-point to integer conversions behave as an sm_90 GPU's cvt
// instruction does, including where CUDA calls the result undefined
// (measured on an H100: tests/differential/device_functions_probe.expected):
// a value out of the integer type's range clamps to its nearest end (an
// infinity too), and NaN converts to the integer with only its top bit set,
// except from a float to a 32-bit integer, where it converts to 0. Plain C++
// casts would be undefined behaviour there (x86-64 returns 0x80000000 for
// every out-of-range int conversion).
#pragma once

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "weft/cuda/device/math/directed_rounding.hpp"

namespace weft::detail {

/// An integral floating-point value `r`, converted to I with the GPU's
/// saturation: clamped to I's range, NaN to `nan_result`.
template <class I, class F>
I saturate_to(F r, I nan_result) {
  using limits = std::numeric_limits<I>;
  if (std::isnan(r)) return nan_result;
  if (r <= static_cast<F>(limits::min())) return limits::min();
  // I's maximum rounds up to a power of two in F when F cannot hold it, so
  // a value equal to that power of two is out of range too.
  if (r >= static_cast<F>(limits::max())) return limits::max();
  return static_cast<I>(r);
}

/// What NaN converts to on an H100: the integer with only its top bit set
/// (INT_MIN, 2^31, LLONG_MIN, 2^63), except 0 from a float to a 32-bit
/// integer.
template <class I, class F>
inline constexpr I nan_as = sizeof(I) == 4 && sizeof(F) == 4
                                ? I(0)
                                : static_cast<I>(std::make_unsigned_t<I>(1) << (8 * sizeof(I) - 1));

// The four ways to round a floating-point value to an integral one. They do
// not depend on the thread's rounding mode.
template <class F>
F round_nearest_even(F x) {
#if __has_builtin(__builtin_roundeven)
  return __builtin_roundeven(x);
#else
  // Halfway cases go to the even neighbour (x / 2 is exact for them).
  F away = std::round(x);
  return std::fabs(x - std::trunc(x)) == F(0.5) ? 2 * std::round(x / 2) : away;
#endif
}
#if __has_builtin(__builtin_roundevenf)
inline float round_nearest_even(float x) { return __builtin_roundevenf(x); }
#endif

template <class I, class F>
I to_integer_rn(F x) {
  return saturate_to<I>(round_nearest_even(x), nan_as<I, F>);
}
template <class I, class F>
I to_integer_rz(F x) {
  return saturate_to<I>(std::trunc(x), nan_as<I, F>);
}
template <class I, class F>
I to_integer_ru(F x) {
  return saturate_to<I>(std::ceil(x), nan_as<I, F>);
}
template <class I, class F>
I to_integer_rd(F x) {
  return saturate_to<I>(std::floor(x), nan_as<I, F>);
}

/// static_cast<To>(from), rounded in `Mode` (FE_TOWARDZERO, FE_UPWARD,
/// FE_DOWNWARD): the conversion rounded to nearest, stepped by an ulp where
/// `from` lies on the other side of it (directed_rounding.hpp), which
/// comparing `from` with the result tells exactly.
template <class To, int Mode, class From>
To convert_rounded(From from) {
  // Integer zero is +0 in every mode; compilers build some conversions (an
  // unsigned 64-bit one, in Clang's code) from a subtraction, which rounding
  // down would turn into -0.
  if constexpr (std::is_integral_v<From>)
    if (from == 0) return To(0);
  auto fallback = [&] { return rounded<Mode>([](From v) { return static_cast<To>(v); }, from); };
  To r = opaque(static_cast<To>(from));
  if constexpr (std::is_integral_v<From> && sizeof(From) <= 4) {
    // Both a 32-bit integer and r are exactly doubles.
    double exact = static_cast<double>(from);
    return round_from_nearest<Mode>(r, exact > r, exact < r);
  } else if constexpr (std::is_integral_v<From>) {
    // r is an integer (a float or double this large has no fraction), so it
    // converts back exactly while it is below 2^63 (2^64 unsigned).
    constexpr To limit = std::is_signed_v<From> ? 0x1p63 : 0x1p64;
    if (!(std::fabs(r) < limit)) return fallback();
    auto back = static_cast<From>(r);
    return round_from_nearest<Mode>(r, from > back, from < back);
  } else {
    // A double to a float: r is exactly a double; overflow, infinities and
    // NaN take the mode switch.
    if (!finite_bits(r)) return fallback();
    return round_from_nearest<Mode>(r, from > r, from < r);
  }
}

}  // namespace weft::detail

// clang-format off
inline int __float2int_rn(float x) { return weft::detail::to_integer_rn<int>(x); }
inline int __float2int_rz(float x) { return weft::detail::to_integer_rz<int>(x); }
inline int __float2int_ru(float x) { return weft::detail::to_integer_ru<int>(x); }
inline int __float2int_rd(float x) { return weft::detail::to_integer_rd<int>(x); }
inline unsigned int __float2uint_rn(float x) { return weft::detail::to_integer_rn<unsigned int>(x); }
inline unsigned int __float2uint_rz(float x) { return weft::detail::to_integer_rz<unsigned int>(x); }
inline unsigned int __float2uint_ru(float x) { return weft::detail::to_integer_ru<unsigned int>(x); }
inline unsigned int __float2uint_rd(float x) { return weft::detail::to_integer_rd<unsigned int>(x); }
inline long long int __float2ll_rn(float x) { return weft::detail::to_integer_rn<long long>(x); }
inline long long int __float2ll_rz(float x) { return weft::detail::to_integer_rz<long long>(x); }
inline long long int __float2ll_ru(float x) { return weft::detail::to_integer_ru<long long>(x); }
inline long long int __float2ll_rd(float x) { return weft::detail::to_integer_rd<long long>(x); }
inline unsigned long long int __float2ull_rn(float x) { return weft::detail::to_integer_rn<unsigned long long>(x); }
inline unsigned long long int __float2ull_rz(float x) { return weft::detail::to_integer_rz<unsigned long long>(x); }
inline unsigned long long int __float2ull_ru(float x) { return weft::detail::to_integer_ru<unsigned long long>(x); }
inline unsigned long long int __float2ull_rd(float x) { return weft::detail::to_integer_rd<unsigned long long>(x); }

inline int __double2int_rn(double x) { return weft::detail::to_integer_rn<int>(x); }
inline int __double2int_rz(double x) { return weft::detail::to_integer_rz<int>(x); }
inline int __double2int_ru(double x) { return weft::detail::to_integer_ru<int>(x); }
inline int __double2int_rd(double x) { return weft::detail::to_integer_rd<int>(x); }
inline unsigned int __double2uint_rn(double x) { return weft::detail::to_integer_rn<unsigned int>(x); }
inline unsigned int __double2uint_rz(double x) { return weft::detail::to_integer_rz<unsigned int>(x); }
inline unsigned int __double2uint_ru(double x) { return weft::detail::to_integer_ru<unsigned int>(x); }
inline unsigned int __double2uint_rd(double x) { return weft::detail::to_integer_rd<unsigned int>(x); }
inline long long int __double2ll_rn(double x) { return weft::detail::to_integer_rn<long long>(x); }
inline long long int __double2ll_rz(double x) { return weft::detail::to_integer_rz<long long>(x); }
inline long long int __double2ll_ru(double x) { return weft::detail::to_integer_ru<long long>(x); }
inline long long int __double2ll_rd(double x) { return weft::detail::to_integer_rd<long long>(x); }
inline unsigned long long int __double2ull_rn(double x) { return weft::detail::to_integer_rn<unsigned long long>(x); }
inline unsigned long long int __double2ull_rz(double x) { return weft::detail::to_integer_rz<unsigned long long>(x); }
inline unsigned long long int __double2ull_ru(double x) { return weft::detail::to_integer_ru<unsigned long long>(x); }
inline unsigned long long int __double2ull_rd(double x) { return weft::detail::to_integer_rd<unsigned long long>(x); }

inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline float __int2float_rz(int x) { return weft::detail::convert_rounded<float, FE_TOWARDZERO>(x); }
inline float __int2float_ru(int x) { return weft::detail::convert_rounded<float, FE_UPWARD>(x); }
inline float __int2float_rd(int x) { return weft::detail::convert_rounded<float, FE_DOWNWARD>(x); }
inline float __uint2float_rn(unsigned int x) { return static_cast<float>(x); }
inline float __uint2float_rz(unsigned int x) { return weft::detail::convert_rounded<float, FE_TOWARDZERO>(x); }
inline float __uint2float_ru(unsigned int x) { return weft::detail::convert_rounded<float, FE_UPWARD>(x); }
inline float __uint2float_rd(unsigned int x) { return weft::detail::convert_rounded<float, FE_DOWNWARD>(x); }
inline float __ll2float_rn(long long int x) { return static_cast<float>(x); }
inline float __ll2float_rz(long long int x) { return weft::detail::convert_rounded<float, FE_TOWARDZERO>(x); }
inline float __ll2float_ru(long long int x) { return weft::detail::convert_rounded<float, FE_UPWARD>(x); }
inline float __ll2float_rd(long long int x) { return weft::detail::convert_rounded<float, FE_DOWNWARD>(x); }
inline float __ull2float_rn(unsigned long long int x) { return static_cast<float>(x); }
inline float __ull2float_rz(unsigned long long int x) { return weft::detail::convert_rounded<float, FE_TOWARDZERO>(x); }
inline float __ull2float_ru(unsigned long long int x) { return weft::detail::convert_rounded<float, FE_UPWARD>(x); }
inline float __ull2float_rd(unsigned long long int x) { return weft::detail::convert_rounded<float, FE_DOWNWARD>(x); }

// Every int and unsigned int is exactly a double, so only one mode exists.
inline double __int2double_rn(int x) { return x; }
inline double __uint2double_rn(unsigned int x) { return x; }
inline double __ll2double_rn(long long int x) { return static_cast<double>(x); }
inline double __ll2double_rz(long long int x) { return weft::detail::convert_rounded<double, FE_TOWARDZERO>(x); }
inline double __ll2double_ru(long long int x) { return weft::detail::convert_rounded<double, FE_UPWARD>(x); }
inline double __ll2double_rd(long long int x) { return weft::detail::convert_rounded<double, FE_DOWNWARD>(x); }
inline double __ull2double_rn(unsigned long long int x) { return static_cast<double>(x); }
inline double __ull2double_rz(unsigned long long int x) { return weft::detail::convert_rounded<double, FE_TOWARDZERO>(x); }
inline double __ull2double_ru(unsigned long long int x) { return weft::detail::convert_rounded<double, FE_UPWARD>(x); }
inline double __ull2double_rd(unsigned long long int x) { return weft::detail::convert_rounded<double, FE_DOWNWARD>(x); }

inline float __double2float_rn(double x) { return static_cast<float>(x); }
inline float __double2float_rz(double x) { return weft::detail::convert_rounded<float, FE_TOWARDZERO>(x); }
inline float __double2float_ru(double x) { return weft::detail::convert_rounded<float, FE_UPWARD>(x); }
inline float __double2float_rd(double x) { return weft::detail::convert_rounded<float, FE_DOWNWARD>(x); }

// Reinterpretations: the same bits seen as another type.
constexpr float __int_as_float(int x) { return std::bit_cast<float>(x); }
constexpr int __float_as_int(float x) { return std::bit_cast<int>(x); }
constexpr float __uint_as_float(unsigned int x) { return std::bit_cast<float>(x); }
constexpr unsigned int __float_as_uint(float x) { return std::bit_cast<unsigned int>(x); }
constexpr double __longlong_as_double(long long int x) { return std::bit_cast<double>(x); }
constexpr long long int __double_as_longlong(double x) { return std::bit_cast<long long>(x); }

/// The high and low 32 bits of a double's representation, and back.
constexpr int __double2hiint(double x) { return static_cast<int>(std::bit_cast<unsigned long long>(x) >> 32); }
constexpr int __double2loint(double x) { return static_cast<int>(std::bit_cast<unsigned long long>(x) & 0xffffffffu); }
constexpr double __hiloint2double(int hi, int lo) {
  return std::bit_cast<double>(static_cast<unsigned long long>(static_cast<unsigned int>(hi)) << 32 |
                               static_cast<unsigned int>(lo));
}
// clang-format on
