// CUDA's bfloat16 (cuda_bf16.h): __nv_bfloat16 and __nv_bfloat162, with the
// conversions only they have. Arithmetic, comparisons, math functions,
// shuffles and atomicAdd come from half.hpp's scalar_functions and
// pair_functions, under the names the two CUDA headers share (__hadd,
// __hmax, hsqrt, ...); the storage, constructors and conversion operators
// from its scalar_storage and pair_storage, as for __half and __half2.
//
// Storage is the top half of a float (8 exponent bits, 7 stored significand
// bits); conversions round as the GPU does, with half.hpp's rounding.
#pragma once

#include <bit>
#include <cstdint>

#include "weft/cuda/device/math/half.hpp"
#include "weft/cuda/vector_types.hpp"

struct __nv_bfloat16;
struct __nv_bfloat162;

template <>
struct weft::detail::scalar_traits<__nv_bfloat16> {
  using format = bfloat16;
};

struct __nv_bfloat16_raw {
  unsigned short x;
};
struct __nv_bfloat162_raw {
  unsigned short x;
  unsigned short y;
};

/// bfloat16, with the converting constructors and operators of CUDA's class
/// (weft::detail::scalar_storage).
struct alignas(2) __nv_bfloat16 : weft::detail::scalar_functions<__nv_bfloat16>,
                                  weft::detail::scalar_storage<weft::detail::bfloat16, __nv_bfloat16_raw> {
  using scalar_storage::scalar_storage;
  __nv_bfloat16() = default;
  constexpr __nv_bfloat16& operator=(const __nv_bfloat16_raw& r) {
    __x = r.x;
    return *this;
  }
  explicit constexpr __nv_bfloat16(const __half& h) : __nv_bfloat16(static_cast<float>(h)) {}
};

/// Two bfloat16 values: x in the low 16 bits, y in the high.
struct alignas(4) __nv_bfloat162 : weft::detail::pair_functions<__nv_bfloat162, __nv_bfloat16>,
                                   weft::detail::pair_storage<__nv_bfloat16, __nv_bfloat162_raw, __nv_bfloat16_raw> {
  using pair_storage::pair_storage;
  __nv_bfloat162() = default;
  constexpr __nv_bfloat162& operator=(const __nv_bfloat162_raw& r) { return *this = __nv_bfloat162(r); }
};

/// A bfloat16 value rounded to half (one rounding: bfloat16 to float is exact).
inline __half::__half(const __nv_bfloat16& b) : __half(static_cast<float>(b)) {}

constexpr __nv_bfloat16 __float2bfloat16(float a) { return weft::detail::narrow<__nv_bfloat16>(a); }
constexpr __nv_bfloat16 __float2bfloat16_rn(float a) { return weft::detail::narrow<__nv_bfloat16>(a); }
constexpr __nv_bfloat16 __float2bfloat16_rz(float a) {
  return weft::detail::narrow<__nv_bfloat16>(a, weft::detail::rz);
}
constexpr __nv_bfloat16 __float2bfloat16_rd(float a) {
  return weft::detail::narrow<__nv_bfloat16>(a, weft::detail::rd);
}
constexpr __nv_bfloat16 __float2bfloat16_ru(float a) {
  return weft::detail::narrow<__nv_bfloat16>(a, weft::detail::ru);
}
constexpr __nv_bfloat16 __double2bfloat16(double a) { return weft::detail::narrow<__nv_bfloat16>(a); }
constexpr float __bfloat162float(__nv_bfloat16 a) { return weft::detail::widen(a); }

constexpr __nv_bfloat162 __float2bfloat162_rn(float a) { return {__float2bfloat16(a), __float2bfloat16(a)}; }
constexpr __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return {__float2bfloat16(a), __float2bfloat16(b)}; }
constexpr __nv_bfloat162 __float22bfloat162_rn(float2 a) { return {__float2bfloat16(a.x), __float2bfloat16(a.y)}; }
constexpr float2 __bfloat1622float2(__nv_bfloat162 a) { return {__bfloat162float(a.x), __bfloat162float(a.y)}; }
constexpr __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { return {x, y}; }
constexpr __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return {a, b}; }
constexpr __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return {a, a}; }
constexpr __nv_bfloat16 __low2bfloat16(__nv_bfloat162 a) { return a.x; }
constexpr __nv_bfloat16 __high2bfloat16(__nv_bfloat162 a) { return a.y; }
constexpr __nv_bfloat162 __low2bfloat162(__nv_bfloat162 a) { return {a.x, a.x}; }
constexpr __nv_bfloat162 __high2bfloat162(__nv_bfloat162 a) { return {a.y, a.y}; }
constexpr __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return {a.x, b.x}; }
constexpr __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return {a.y, b.y}; }

constexpr short __bfloat16_as_short(__nv_bfloat16 h) { return std::bit_cast<short>(h); }
constexpr unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return std::bit_cast<unsigned short>(h); }
constexpr __nv_bfloat16 __short_as_bfloat16(short i) { return std::bit_cast<__nv_bfloat16>(i); }
constexpr __nv_bfloat16 __ushort_as_bfloat16(unsigned short i) { return std::bit_cast<__nv_bfloat16>(i); }

constexpr __nv_bfloat16 __int2bfloat16_rn(int i) { return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rn); }
constexpr __nv_bfloat16 __int2bfloat16_rz(int i) { return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rz); }
constexpr __nv_bfloat16 __int2bfloat16_rd(int i) { return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rd); }
constexpr __nv_bfloat16 __int2bfloat16_ru(int i) { return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::ru); }
constexpr __nv_bfloat16 __uint2bfloat16_rn(unsigned int i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rn);
}
constexpr __nv_bfloat16 __uint2bfloat16_rz(unsigned int i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rz);
}
constexpr __nv_bfloat16 __uint2bfloat16_rd(unsigned int i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rd);
}
constexpr __nv_bfloat16 __uint2bfloat16_ru(unsigned int i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::ru);
}
constexpr __nv_bfloat16 __short2bfloat16_rn(short i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rn);
}
constexpr __nv_bfloat16 __short2bfloat16_rz(short i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rz);
}
constexpr __nv_bfloat16 __short2bfloat16_rd(short i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rd);
}
constexpr __nv_bfloat16 __short2bfloat16_ru(short i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::ru);
}
constexpr __nv_bfloat16 __ushort2bfloat16_rn(unsigned short i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rn);
}
constexpr __nv_bfloat16 __ushort2bfloat16_rz(unsigned short i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rz);
}
constexpr __nv_bfloat16 __ushort2bfloat16_rd(unsigned short i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rd);
}
constexpr __nv_bfloat16 __ushort2bfloat16_ru(unsigned short i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::ru);
}
constexpr __nv_bfloat16 __ll2bfloat16_rn(long long i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rn);
}
constexpr __nv_bfloat16 __ll2bfloat16_rz(long long i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rz);
}
constexpr __nv_bfloat16 __ll2bfloat16_rd(long long i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rd);
}
constexpr __nv_bfloat16 __ll2bfloat16_ru(long long i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::ru);
}
constexpr __nv_bfloat16 __ull2bfloat16_rn(unsigned long long i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rn);
}
constexpr __nv_bfloat16 __ull2bfloat16_rz(unsigned long long i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rz);
}
constexpr __nv_bfloat16 __ull2bfloat16_rd(unsigned long long i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::rd);
}
constexpr __nv_bfloat16 __ull2bfloat16_ru(unsigned long long i) {
  return weft::detail::from_int<__nv_bfloat16>(i, weft::detail::ru);
}

inline int __bfloat162int_rn(__nv_bfloat16 h) { return weft::detail::to_int<int>(h, weft::detail::rn); }
inline int __bfloat162int_rz(__nv_bfloat16 h) { return weft::detail::to_int<int>(h, weft::detail::rz); }
inline int __bfloat162int_rd(__nv_bfloat16 h) { return weft::detail::to_int<int>(h, weft::detail::rd); }
inline int __bfloat162int_ru(__nv_bfloat16 h) { return weft::detail::to_int<int>(h, weft::detail::ru); }
inline unsigned int __bfloat162uint_rn(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned int>(h, weft::detail::rn);
}
inline unsigned int __bfloat162uint_rz(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned int>(h, weft::detail::rz);
}
inline unsigned int __bfloat162uint_rd(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned int>(h, weft::detail::rd);
}
inline unsigned int __bfloat162uint_ru(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned int>(h, weft::detail::ru);
}
inline short __bfloat162short_rn(__nv_bfloat16 h) { return weft::detail::to_int<short>(h, weft::detail::rn); }
inline short __bfloat162short_rz(__nv_bfloat16 h) { return weft::detail::to_int<short>(h, weft::detail::rz); }
inline short __bfloat162short_rd(__nv_bfloat16 h) { return weft::detail::to_int<short>(h, weft::detail::rd); }
inline short __bfloat162short_ru(__nv_bfloat16 h) { return weft::detail::to_int<short>(h, weft::detail::ru); }
inline unsigned short __bfloat162ushort_rn(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned short>(h, weft::detail::rn);
}
inline unsigned short __bfloat162ushort_rz(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned short>(h, weft::detail::rz);
}
inline unsigned short __bfloat162ushort_rd(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned short>(h, weft::detail::rd);
}
inline unsigned short __bfloat162ushort_ru(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned short>(h, weft::detail::ru);
}
inline long long __bfloat162ll_rn(__nv_bfloat16 h) { return weft::detail::to_int<long long>(h, weft::detail::rn); }
inline long long __bfloat162ll_rz(__nv_bfloat16 h) { return weft::detail::to_int<long long>(h, weft::detail::rz); }
inline long long __bfloat162ll_rd(__nv_bfloat16 h) { return weft::detail::to_int<long long>(h, weft::detail::rd); }
inline long long __bfloat162ll_ru(__nv_bfloat16 h) { return weft::detail::to_int<long long>(h, weft::detail::ru); }
inline unsigned long long __bfloat162ull_rn(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned long long>(h, weft::detail::rn);
}
inline unsigned long long __bfloat162ull_rz(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned long long>(h, weft::detail::rz);
}
inline unsigned long long __bfloat162ull_rd(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned long long>(h, weft::detail::rd);
}
inline unsigned long long __bfloat162ull_ru(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned long long>(h, weft::detail::ru);
}
inline signed char __bfloat162char_rz(__nv_bfloat16 h) {
  return weft::detail::to_int<signed char>(h, weft::detail::rz);
}
inline unsigned char __bfloat162uchar_rz(__nv_bfloat16 h) {
  return weft::detail::to_int<unsigned char>(h, weft::detail::rz);
}
