// Conversions for warp matrix operands: __float_to_tf32, and how the tensor
// cores read each element type.
#pragma once

#include <bit>
#include <cstdint>

#include "weft/cuda/device/wmma/fragment.hpp"

namespace weft::detail::wmma {

/// The tensor cores read a tf32 operand's sign, exponent and top 10
/// mantissa bits and ignore the other 13: a float not rounded with
/// __float_to_tf32 is truncated towards zero.
[[gnu::always_inline]] inline float tf32_truncated(float v) {
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) & 0xffffe000u);
}

/// A 4-bit element of a packed word, sign-extended for s4.
template <class T>
[[gnu::always_inline]] constexpr int nibble(std::uint32_t word, int index) {
  int v = static_cast<int>((word >> (4 * index)) & 0xfu);
  if constexpr (std::is_same_v<T, nw::experimental::precision::s4>) return v >= 8 ? v - 16 : v;
  return v;
}

}  // namespace weft::detail::wmma

namespace nvcuda::wmma {

/// `in` rounded to TensorFloat-32 (10 mantissa bits), to nearest with ties
/// away from zero; kept in a float with the low 13 bits clear. Infinity and
/// NaN are cut instead, which is what an H100 gave (0x7f800001 becomes
/// 0x7f800000: tests/differential/wmma_probe).
inline float __float_to_tf32(float in) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(in);
  if ((bits & 0x7f800000u) == 0x7f800000u) return std::bit_cast<float>(bits & 0xffffe000u);
  return std::bit_cast<float>((bits + 0x1000u) & 0xffffe000u);
}

}  // namespace nvcuda::wmma
