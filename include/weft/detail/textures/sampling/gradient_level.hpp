// The level of detail of a 2D fetch with gradients (tex2DGrad, tex1DGrad,
// tex2DLayeredGrad), as an H100 computes it: fitted to 7500 fetches measured
// on one (tests/differential/h100_measurements/gradients.txt, for
// maxAnisotropy 0, 1, 2, 4 and 16) and texture_probe's grad lines.
//
// The gradients dx = (du/dx, dv/dx) and dy = (du/dy, dv/dy), in texels of
// level 0, describe the footprint of a pixel: the parallelogram they span.
// - Each component is kept to 10 significant bits, truncated.
// - A vector's length is approximated as max + 11/32 min of its components'
//   magnitudes (exact along the axes, 5% long at 22.5 degrees, 5% short at
//   45).
// - The footprint's major axis is the longest of four such lengths: of dx,
//   of dy, and of (dx + dy) and (dx - dy) scaled by 11/16; so gradients off
//   the axes get a larger level than the longer gradient alone gives.
// - Its base-2 logarithm is taken from the length's exponent and the top 8
//   bits of its mantissa, through a table (level_log2_fraction), to 8
//   fractional bits.
// - With maxAnisotropy above 1, the minor axis is the parallelogram's area
//   (footprint_area.hpp: two products of a truncated multiplier, rounded
//   up, the smaller aligned to the larger's 10-bit grid) over the major
//   axis, and the level is that of the minor axis (its log2 the difference
//   of the two 8-bit logs, at most the major axis's), or of the major axis
//   over maxAnisotropy where the footprint is more elongated than that; and
//   the blend between two levels is sharpened (sharpened_level_fraction). The
//   samples the H100 then takes along the major axis are
//   anisotropic_sampling.hpp's.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>

#include "weft/detail/textures/sampling/footprint_area.hpp"

namespace weft::detail::textures {

/// Fractional bits of a level of detail computed from gradients.
inline constexpr int gradient_level_bits = 8;

/// A level so low that every clamp lifts it: the level of a zero footprint.
inline constexpr int lowest_gradient_level = -(1 << 20);

/// The fractional part, in 256ths, of log2(1 + k/256) as an H100 takes it
/// for a mantissa whose top 8 bits after the leading one are k: within one
/// 256th of the exact value, never more than it by a full 256th. Entries
/// measured on an H100 (180 of them, every k a measured length fell on)
/// all equal floor(256 log2(1 + (k + 0.5)/256) + 0.47), entry 0 excepted
/// (an exact power of two has an integer level); the other 76 entries are
/// that formula's.
inline constexpr std::int16_t level_log2_fraction[256] = {
    0,   2,   4,   5,   6,   8,   9,   11,  12,  13,  15,  16,  18,  19,  20,  22,  23,  24,  26,  27,  28,  30,
    31,  32,  34,  35,  36,  38,  39,  40,  42,  43,  44,  45,  47,  48,  49,  50,  52,  53,  54,  55,  57,  58,
    59,  60,  62,  63,  64,  65,  66,  68,  69,  70,  71,  72,  74,  75,  76,  77,  78,  79,  81,  82,  83,  84,
    85,  86,  88,  89,  90,  91,  92,  93,  94,  95,  97,  98,  99,  100, 101, 102, 103, 104, 105, 106, 107, 109,
    110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131,
    132, 133, 135, 136, 137, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153,
    154, 155, 156, 157, 158, 159, 160, 161, 162, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 173,
    174, 175, 176, 177, 178, 179, 180, 181, 181, 182, 183, 184, 185, 186, 187, 188, 188, 189, 190, 191, 192, 193,
    194, 195, 195, 196, 197, 198, 199, 200, 200, 201, 202, 203, 204, 205, 205, 206, 207, 208, 209, 210, 210, 211,
    212, 213, 214, 214, 215, 216, 217, 218, 218, 219, 220, 221, 222, 222, 223, 224, 225, 226, 226, 227, 228, 229,
    229, 230, 231, 232, 233, 233, 234, 235, 236, 236, 237, 238, 239, 239, 240, 241, 242, 242, 243, 244, 245, 245,
    246, 247, 248, 248, 249, 250, 251, 251, 252, 253, 253, 254, 255, 255};

/// log2(length) in 256ths, as an H100 takes it: the exponent, and the
/// table's fraction for the top 8 bits of the mantissa. A length of 0 (or
/// NaN) has the lowest level.
inline int fixed_level_log2(double length) {
  if (!(length > 0)) return lowest_gradient_level;
  if (length > 1e300) length = 1e300;
  int exponent = 0;
  double mantissa = std::frexp(length, &exponent);  // [0.5, 1)
  int top_bits = static_cast<int>((mantissa * 2 - 1) * 256);
  return (exponent - 1) * 256 + level_log2_fraction[top_bits];
}

/// v rounded toward zero to `bits` significant bits.
inline double truncate_to_bits(double v, int bits) {
  if (v == 0 || !std::isfinite(v)) return v;
  int exponent = 0;
  std::frexp(v, &exponent);
  double unit = std::ldexp(1.0, exponent - bits);
  return std::trunc(v / unit) * unit;
}

/// v (non-negative) rounded toward zero to a multiple of 2^-bits of
/// `scale`'s binary order of magnitude.
inline double truncate_below(double v, double scale, int bits) {
  int exponent = 0;
  std::frexp(scale, &exponent);
  double unit = std::ldexp(1.0, exponent - bits);
  return std::floor(v / unit) * unit;
}

/// A gradient component as the level computation holds it.
inline constexpr int gradient_component_bits = 10;
static_assert(area_operand_bits == gradient_component_bits, "the area's multiplier reads the held components");

/// The unit of the last of `bits` significant bits of a magnitude v > 0.
inline double unit_of_bits(double v, int bits) {
  int exponent = 0;
  std::frexp(v, &exponent);
  return std::ldexp(1.0, exponent - bits);
}

/// The share of the shorter component s in an approximate length: 11/32 of
/// s, as the H100 multiplies its 10-bit mantissa m (s = m units):
/// (11 m + 4) >> 5 units, so that a share whose fraction is 7/8 of a unit or
/// more counts a unit more (gradient_lengths.txt: 53256 of 53256 fetches).
inline double shorter_share(double smaller) {
  if (smaller == 0 || !std::isfinite(smaller)) return smaller * 11 / 32;
  double unit = unit_of_bits(smaller, gradient_component_bits);
  double mantissa = std::floor(smaller / unit);
  return std::floor((11 * mantissa + 4) / 32) * unit;
}

/// The length of (x, y), approximated as an H100 does: the larger magnitude
/// plus the shorter's share (above), that share truncated to 10 bits of the
/// larger's order of magnitude.
inline double approximate_length(double x, double y) {
  double larger = std::fabs(x), smaller = std::fabs(y);
  if (smaller > larger) std::swap(larger, smaller);
  if (larger == 0) return 0;
  return larger + truncate_below(shorter_share(smaller), larger, gradient_component_bits);
}

/// A component of a diagonal, a + b (each already kept to 10 bits), as the
/// H100 adds them: the operand of smaller magnitude is first cut, toward
/// zero, to the grid of the larger one's 11th significant bit, so that a
/// sum of opposite signs can come out a little longer than the exact one
/// (gradients.txt's isotropic fetches and gradient_rules2.txt's random
/// diagonals: every one, where the exact sum missed 3 of 1500 and 21 of
/// 12000).
inline double diagonal_sum(double a, double b) {
  if (a == 0 || b == 0 || !std::isfinite(a) || !std::isfinite(b)) return a + b;
  if (std::fabs(b) > std::fabs(a)) std::swap(a, b);
  double unit = unit_of_bits(std::fabs(a), gradient_component_bits + 1);
  return a + std::trunc(b / unit) * unit;
}

/// A component of a diagonal of the footprint, dx + dy or dx - dy, scaled by
/// 11/16: kept to 10 bits (m units), then (11 m + 4) >> 3 half units, 11/16
/// rounded half up to 11 bits. It gives the diagonal's direction; its length
/// is diagonal_length's.
inline double diagonal_component(double sum) {
  double kept = truncate_to_bits(sum, gradient_component_bits);
  double magnitude = std::fabs(kept);
  if (magnitude == 0 || !std::isfinite(magnitude)) return kept * 11 / 16;
  double unit = unit_of_bits(magnitude, gradient_component_bits);
  double scaled = std::floor((11 * (magnitude / unit) + 4) / 8) * unit / 2;
  return kept < 0 ? -scaled : scaled;
}

/// The approximate length of a diagonal (x, y) = dx + dy or dx - dy, scaled
/// by 11/16, as an H100 computes it: the longer component scaled as
/// diagonal_component scales it, plus 121/512 (11/16 of 11/32) of the
/// shorter one's 10-bit mantissa m, (121 m + 32) >> 8 half units (the
/// scaled longer component's grid too), that share truncated to 10 bits of
/// the former (gradient_rules.txt: every one of 57354 fetches with dx = dy
/// or nearly, where 11/32 of the scaled shorter component missed 571; the
/// share in whole units missed 17 of gradients.txt's isotropic 3000 and 7
/// more of gradient_rules2.txt's 12000 random diagonals than now).
inline double diagonal_length(double x, double y) {
  double larger = std::fabs(truncate_to_bits(x, gradient_component_bits));
  double smaller = std::fabs(truncate_to_bits(y, gradient_component_bits));
  if (smaller > larger) std::swap(larger, smaller);
  if (larger == 0 || !std::isfinite(larger)) return larger * 11 / 16;
  double scaled = std::fabs(diagonal_component(larger));
  if (smaller == 0) return scaled;
  double unit = unit_of_bits(smaller, gradient_component_bits);
  double share = std::floor((121 * (smaller / unit) + 32) / 256) * unit / 2;
  return scaled + truncate_below(share, scaled, gradient_component_bits);
}

/// The length of (x, y, z) as an H100 approximates it for a 3D footprint:
/// the largest magnitude plus 11/32 of the middle one and 1/4 of the
/// smallest: 11 m + 4, m the middle one's 10-bit mantissa, kept to 10
/// significant bits (past 2^13 it loses its low bits), plus 8 n, n the
/// smallest in the middle one's units (truncated), over 32 units; that
/// share truncated to 10 bits of the largest's order of magnitude (fitted
/// to tex3DGrad on an H200, the same texture unit: every one of the
/// 1,372,928 shares of gradient_rules2.txt, read to 1/512 through four
/// largest components; every one of gradient_rules.txt's 43115 sweeps of
/// (1, b, c) once the components are rounded as level_from_footprint
/// rounds them, 145 misses with 11 m + 8 n + 4 summed whole). With z = 0
/// it is the 2D approximation above.
inline double approximate_length(double x, double y, double z) {
  double largest = std::fabs(x), middle = std::fabs(y), smallest = std::fabs(z);
  if (middle > largest) std::swap(middle, largest);
  if (smallest > largest) std::swap(smallest, largest);
  if (smallest > middle) std::swap(smallest, middle);
  if (largest == 0) return 0;
  if (middle == 0) return largest;
  double unit = unit_of_bits(middle, gradient_component_bits);
  double middle_share = truncate_to_bits(11 * std::floor(middle / unit) + 4, gradient_component_bits);
  double shares = std::floor((middle_share + 8 * std::floor(smallest / unit)) / 32) * unit;
  return largest + truncate_below(shares, largest, gradient_component_bits);
}

/// The level of detail, in 256ths, of a 3D footprint with gradients dx and
/// dy (in texels of level 0), before the texture's bias and clamps: as for
/// 2D, the longest of dx, dy and the two diagonals scaled by 11/16, each by
/// the 3D approximate length. maxAnisotropy changes no 3D level (the H200
/// took the major axis's level for 2, 4 and 16 alike); it only sharpens the
/// blend between levels, as in 2D (sharpened_level_fraction).
/// The approximate length of a 3D diagonal (dx + dy or dx - dy) scaled by
/// 11/16: as in 2D (diagonal_length above), the largest component scaled,
/// plus the middle one's share, 121 m + 32 (m its 10-bit mantissa) kept to
/// 10 significant bits, over 512 units, and a quarter of the smallest
/// component scaled by 11/16 in its own grid (diagonal_component), the two
/// summed and floored to half units of the middle one (every one of the
/// 978176 fetches of gradient_rules3.txt's sweeps, of which 88 n added to
/// 121 m + 32 missed 44388 in whole units and 32276 in half units: the
/// smallest's rounding in its own grid acts as a factor a little above
/// 11/64).
inline double diagonal_length(double x, double y, double z) {
  double largest = std::fabs(truncate_to_bits(x, gradient_component_bits));
  double middle = std::fabs(truncate_to_bits(y, gradient_component_bits));
  double smallest = std::fabs(truncate_to_bits(z, gradient_component_bits));
  if (middle > largest) std::swap(middle, largest);
  if (smallest > largest) std::swap(smallest, largest);
  if (smallest > middle) std::swap(smallest, middle);
  if (largest == 0 || !std::isfinite(largest)) return largest * 11 / 16;
  double scaled = std::fabs(diagonal_component(largest));
  if (middle == 0) return scaled;
  double unit = unit_of_bits(middle, gradient_component_bits);
  double middle_share = truncate_to_bits(121 * (middle / unit) + 32, gradient_component_bits) / 512;
  double smallest_share = std::fabs(diagonal_component(smallest)) / unit / 4;
  double shares = std::floor((middle_share + smallest_share) * 2) * unit / 2;
  return scaled + truncate_below(shares, scaled, gradient_component_bits);
}

/// A 3D gradient component, in texels, is first rounded to nearest on this
/// grid (16 fractional bits), then kept to 10 significant bits: a component
/// a little below a step of its 10-bit grid counts as the step
/// (gradient_rules.txt's sweeps of (1, b, c): all 43115, where the
/// truncation alone left 9 of them 1/256 or 2/256 low; rounded at 2^-15 or
/// 2^-17, or cut, some stay). Measured on 256^3 textures only, so whether
/// the grid is of texels or of the normalized coordinates is open; 2D
/// gradients have no such step (rounded at 2^-14 to 2^-18 texels, 2D
/// fetches that match now would miss).
inline constexpr double volume_gradient_steps = 65536;

inline int level_from_footprint(const float (&dx)[3], const float (&dy)[3]) {
  double p[3], q[3];
  for (int d = 0; d < 3; ++d) {
    p[d] = truncate_to_bits(std::round(dx[d] * volume_gradient_steps) / volume_gradient_steps, gradient_component_bits);
    q[d] = truncate_to_bits(std::round(dy[d] * volume_gradient_steps) / volume_gradient_steps, gradient_component_bits);
  }
  double major = std::fmax(approximate_length(p[0], p[1], p[2]), approximate_length(q[0], q[1], q[2]));
  major =
      std::fmax(major, diagonal_length(diagonal_sum(p[0], q[0]), diagonal_sum(p[1], q[1]), diagonal_sum(p[2], q[2])));
  major = std::fmax(major,
                    diagonal_length(diagonal_sum(p[0], -q[0]), diagonal_sum(p[1], -q[1]), diagonal_sum(p[2], -q[2])));
  if (!(major == major)) major = 0;  // NaN gradients: the lowest level, as for zero
  return fixed_level_log2(major);
}

/// The major axis of a 2D footprint as an H100 picks it: the longest, by
/// approximate length, of dx, dy and the two diagonals scaled by 11/16
/// (each component as the level computation holds it), with that length.
struct footprint_major_axis {
  double x, y;
  double length;  // NaN gradients: 0
};

inline footprint_major_axis major_axis_of_footprint(const double (&p)[2], const double (&q)[2]) {
  footprint_major_axis major{p[0], p[1], approximate_length(p[0], p[1])};
  auto consider = [&major](double x, double y) {
    double length = approximate_length(x, y);
    if (length > major.length || !(major.length == major.length)) major = {x, y, length};  // as fmax: NaN loses
  };
  consider(q[0], q[1]);
  auto consider_diagonal = [&major](double x, double y) {
    double length = diagonal_length(x, y);
    if (length > major.length || !(major.length == major.length))
      major = {diagonal_component(x), diagonal_component(y), length};
  };
  consider_diagonal(diagonal_sum(p[0], q[0]), diagonal_sum(p[1], q[1]));
  consider_diagonal(diagonal_sum(p[0], -q[0]), diagonal_sum(p[1], -q[1]));
  if (!(major.length == major.length)) major = {0, 0, 0};  // NaN gradients: the lowest level, as for zero
  return major;
}

/// The gradient components as the level computation holds them.
inline void held_gradients(const float (&dx)[2], const float (&dy)[2], double (&p)[2], double (&q)[2]) {
  for (int d = 0; d < 2; ++d) {
    p[d] = truncate_to_bits(dx[d], gradient_component_bits);
    q[d] = truncate_to_bits(dy[d], gradient_component_bits);
  }
}

/// A maxAnisotropy as an H100's sampler holds it: one of eight values, and
/// log2 of it in 256ths as the level's cap subtracts it (log2 to 4
/// fractional bits, truncated or rounded alike for these values: 6 is
/// 2 + 9/16, 10 is 3 + 5/16, 12 is 3 + 9/16).
struct held_anisotropy {
  unsigned value;
  int level_log2;
};

inline constexpr held_anisotropy held_anisotropies[] = {{1, 0},   {2, 256},  {4, 512},  {6, 656},
                                                        {8, 768}, {10, 848}, {12, 912}, {16, 1024}};

/// The largest value the sampler holds at or below the one asked (1 for 0):
/// 3 acts as 2, 5 as 4, 7 as 6, 9 as 8, 11 as 10, 13 to 15 as 12, above 16
/// as 16. Measured on an H200 for every value from 2 to 16
/// (gradients_anisotropy.txt, gradients3d_anisotropy.txt): the values of
/// one step give the same level for every footprint.
inline held_anisotropy held_max_anisotropy(unsigned max_anisotropy) {
  held_anisotropy held = held_anisotropies[0];
  for (const held_anisotropy& h : held_anisotropies)
    if (h.value <= max_anisotropy) held = h;
  return held;
}

/// The level of detail, in 256ths, of a 2D footprint with gradients dx and
/// dy (in texels of level 0), before the texture's bias and clamps.
inline int level_from_footprint(const float (&dx)[2], const float (&dy)[2], unsigned max_anisotropy) {
  double p[2], q[2];
  held_gradients(dx, dy, p, q);
  double major = major_axis_of_footprint(p, q).length;
  int major_level = fixed_level_log2(major);
  if (max_anisotropy <= 1 || major_level == lowest_gradient_level) return major_level;
  if (max_anisotropy > 16) max_anisotropy = 16;
  double area = footprint_area(p[0], p[1], q[0], q[1]);
  int minor_level = area > 0 ? fixed_level_log2(area) - major_level : lowest_gradient_level;
  if (minor_level > major_level) minor_level = major_level;  // a footprint the approximate major axis underrates
  int capped_level = major_level - held_max_anisotropy(max_anisotropy).level_log2;
  return minor_level > capped_level ? minor_level : capped_level;
}

/// The weight of the upper level, in 256ths, with which an H100 blends two
/// levels when maxAnisotropy is above 1: the level's fraction f (256ths)
/// stretched about the middle, so that near a level it takes that level
/// alone. The slope is 3/2 for maxAnisotropy 2 and 3 (levels alone below
/// f = 43 and from f = 213), 7/4 from 4 to 7 and 2 from 8 on (measured for
/// every value on an H200: tex3DGrad, whose level has no minor axis, gives
/// every fetch of gradients3d_anisotropy.txt so).
inline int sharpened_level_fraction(int fraction, unsigned max_anisotropy) {
  if (max_anisotropy <= 1 || fraction == 0) return fraction;
  int weight;
  if (max_anisotropy < 4)
    weight = (3 * fraction) / 2 - 63;
  else if (max_anisotropy < 8)
    weight = (7 * fraction + 2) / 4 - 95;
  else
    weight = 2 * fraction - 128;
  return weight < 0 ? 0 : (weight > 256 ? 256 : weight);
}

}  // namespace weft::detail::textures
