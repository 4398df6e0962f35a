// The area of a pixel's footprint, |dx.x dy.y - dx.y dy.x|, as an H100's
// texture unit computes it for the minor axis of an anisotropic fetch
// (gradient_level.hpp divides it by the major axis). Fitted to every
// measured minor axis (tests/differential/h100_measurements: the 20992
// axis-aligned footprints of minor_axis.txt, whose area is one product, all
// of them; the random footprints and sweeps of gradient_rules2.txt and
// gradients.txt's maxAnisotropy 2, 4 and 16 but for 4 whose products nearly
// cancel).
//
// - Each product is formed from the two components' 10-bit mantissas by a
//   truncated multiplier: the partial products of weight below 2^6 (of the
//   2^18 to 2^20 product of the mantissas) are dropped, and the sum is
//   rounded up to a multiple of 2^9. So a product of a power of two is
//   exact, and any other comes out up to 2^9 above the exact one.
// - The smaller product, in magnitude, is first cut to its own 10
//   significant bits, then aligned to the grid of the larger one's 10th
//   significant bit: cut toward zero where their magnitudes add (products
//   of opposite signs), rounded to nearest, halves up, where the smaller is
//   taken from the larger. The first cut decides only where the smaller
//   lies in the larger's binade, where its own grid is the larger's: a half
//   there goes down, a half below the binade up.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>

namespace weft::detail::textures {

/// The significant bits of each gradient component that the area's
/// multiplier reads: the components as the level computation holds them.
inline constexpr int area_operand_bits = 10;

/// The multiplier drops the partial products of weight below 2^6 ...
inline constexpr int area_dropped_product_bits = 6;

/// ... and rounds their sum up to a multiple of 2^9.
inline constexpr int area_product_rounding_bits = 9;

/// A product of two gradient components as the area's multiplier forms it:
/// mantissa times 2^exponent, the mantissa between 2^18 and 2^20 (0 for a
/// product of zero).
struct area_product {
  std::int64_t mantissa = 0;
  int exponent = 0;
  bool negative = false;

  double magnitude() const { return std::ldexp(static_cast<double>(mantissa), exponent); }
};

/// The 10-bit mantissa of a component held to area_operand_bits bits, and
/// its exponent: |v| = mantissa 2^exponent.
inline std::int64_t area_operand_mantissa(double v, int& exponent) {
  double fraction = std::frexp(std::fabs(v), &exponent);  // [0.5, 1)
  exponent -= area_operand_bits;
  return std::llround(std::ldexp(fraction, area_operand_bits));
}

/// a times b (finite, each held to area_operand_bits bits) through the
/// truncated multiplier.
inline area_product truncated_area_product(double a, double b) {
  if (a == 0 || b == 0) return {};
  int a_exponent = 0, b_exponent = 0;
  std::int64_t a_mantissa = area_operand_mantissa(a, a_exponent), b_mantissa = area_operand_mantissa(b, b_exponent);
  // Row `bit` of the array is b's mantissa shifted by that bit of a's; what
  // lies below the kept columns is dropped from each row.
  const std::int64_t kept_columns = ~((std::int64_t{1} << area_dropped_product_bits) - 1);
  std::int64_t sum = 0;
  for (int bit = 0; bit < area_operand_bits; ++bit)
    if ((a_mantissa >> bit) & 1) sum += (b_mantissa << bit) & kept_columns;
  const std::int64_t unit = std::int64_t{1} << area_product_rounding_bits;
  sum = (sum + unit - 1) & ~(unit - 1);
  return {sum, a_exponent + b_exponent, (a < 0) != (b < 0)};
}

/// The bit of a product's mantissa (from 2^18 to below 2^20) that leads it.
inline int product_leading_bit(std::int64_t mantissa) {
  return mantissa < (std::int64_t{1} << (2 * area_operand_bits - 1)) ? 2 * area_operand_bits - 2
                                                                     : 2 * area_operand_bits - 1;
}

/// The footprint's area from gradients dx = (dx0, dx1) and dy = (dy0, dy1),
/// each component held to area_operand_bits bits. Infinite or NaN
/// components give the exact arithmetic's answer (inf or NaN).
inline double footprint_area(double dx0, double dx1, double dy0, double dy1) {
  if (!std::isfinite(dx0) || !std::isfinite(dx1) || !std::isfinite(dy0) || !std::isfinite(dy1))
    return std::fabs(dx0 * dy1 - dx1 * dy0);
  area_product larger = truncated_area_product(dx0, dy1), smaller = truncated_area_product(dx1, dy0);
  const bool magnitudes_subtract = larger.negative == smaller.negative;
  if (smaller.magnitude() > larger.magnitude()) std::swap(larger, smaller);
  if (larger.mantissa == 0) return 0;
  const std::int64_t smaller_unit = std::int64_t{1}
                                    << (product_leading_bit(smaller.mantissa) - (area_operand_bits - 1));
  smaller.mantissa -= smaller.mantissa % smaller_unit;  // its own 10 bits, before the alignment
  const double grid = std::ldexp(1.0, product_leading_bit(larger.mantissa) - (area_operand_bits - 1));
  double aligned = std::ldexp(static_cast<double>(smaller.mantissa), smaller.exponent - larger.exponent) / grid;
  aligned = (magnitudes_subtract ? std::floor(aligned + 0.5) : std::floor(aligned)) * grid;
  double mantissa = static_cast<double>(larger.mantissa) + (magnitudes_subtract ? -aligned : aligned);
  return std::ldexp(std::fabs(mantissa), larger.exponent);
}

}  // namespace weft::detail::textures
