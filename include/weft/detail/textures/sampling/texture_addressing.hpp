// Where a texture coordinate lands: the texel it names and, for linear
// filtering, the hardware's fixed-point weight between two neighbours.
//
// As an H100 computes it (tests/differential/texture_probe.cu):
// - a coordinate becomes a texel-space fixed-point number with 22
//   fractional bits, by truncation; a normalized coordinate is truncated to
//   22 bits before it is multiplied by the size (so x = 0.2 on a texture 5
//   wide is just below texel 1, and reads texel 0). NaN reads as 0.
// - point filtering takes the texel floor(u), with no rounding.
// - linear filtering takes u - 0.5 and rounds it, half up, to 8 fractional
//   bits (the guide's appendix "Texture Fetching": alpha "is stored in
//   9-bit fixed point format with 8 bits of fractional value"): texel i =
//   its integer part and weight alpha/256 for texel i + 1.
// Out-of-range texel indexes are then brought back by each dimension's
// address mode (guide 6.2.14.1): clamp to the edge, repeat (wrap), repeat
// mirrored, or border (no texel: the border colour).
#pragma once

#include <cstddef>
#include <cstdint>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace weft::detail::textures {

/// cudaTextureAddressMode's values; the surface asserts they are equal.
enum class address_mode : int { wrap = 0, clamp = 1, mirror = 2, border = 3 };

/// A texel index that names no texel: the border colour stands in for it.
inline constexpr int outside_texture = -1;

/// Fractional bits of a texel-space coordinate as the texture unit holds it.
inline constexpr int coordinate_bits = 22;

/// Fractional bits of a linear filter's weight, and its scale.
inline constexpr int weight_bits = 8;
inline constexpr int weight_one = 1 << weight_bits;

/// A texel-space coordinate in fixed point, coordinate_bits fractional bits.
using fixed_texel_coordinate = std::int64_t;

/// A coordinate split for linear filtering: texel floor(u - 0.5) and the
/// weight, in 256ths, of the texel after it.
struct fixed_coordinate {
  int texel;
  int fraction;  // 0..255
};

/// The largest integer not above v (|v| < 2^62); std::floor is a call into
/// the C library on x86-64 without SSE4.1, which a fetch cannot afford.
inline std::int64_t floor_to_int64(float v) {
  auto truncated = static_cast<std::int64_t>(v);
  return truncated - (v < static_cast<float>(truncated));
}

/// Coordinate x in texel-space fixed point: normalized ones are truncated
/// to coordinate_bits, then scaled by the size. Far-out coordinates are
/// kept far out, within what 64 bits hold.
inline fixed_texel_coordinate to_fixed_texel(float x, bool normalized, int size) {
  constexpr float scale = static_cast<float>(std::int64_t{1} << coordinate_bits);
  constexpr float farthest = static_cast<float>(std::int64_t{1} << 30);
  if (!(x == x)) x = 0.0f;
  float limit = normalized ? farthest / (1 << 10) : farthest;
  x = x > limit ? limit : (x < -limit ? -limit : x);
  fixed_texel_coordinate fixed = floor_to_int64(x * scale);
  return normalized ? fixed * size : fixed;
}

/// The texel a point-filtered coordinate is in, kept within what an int holds.
inline int point_texel(fixed_texel_coordinate u) {
  constexpr fixed_texel_coordinate limit = fixed_texel_coordinate{1} << (30 + coordinate_bits);
  u = u > limit ? limit : (u < -limit ? -limit : u);
  return static_cast<int>(u >> coordinate_bits);
}

/// x truncated toward zero, as an index: where the truncation is in
/// [0, 2^31), that integer; anywhere else (a negative truncation, NaN, the
/// infinities, |x| >= 2^31) an index of 2^31 or more, which no texture's
/// size passes, with no undefined behaviour (a plain static_cast of such a
/// float is undefined, and UBSan says so). One instruction on x86-64, the
/// 64-bit cvttss2si: it writes the whole register, where the 32-bit form's
/// int would need one more instruction per dimension to widen it to an
/// index, in the point fetch's inlined path of about a dozen.
inline std::size_t truncate_to_index(float x) {
#if defined(__x86_64__)
  return static_cast<std::size_t>(_mm_cvttss_si64(_mm_set_ss(x)));
#else
  constexpr float limit = 2147483648.0f;  // 2^31
  return x > -limit && x < limit ? static_cast<std::size_t>(static_cast<std::int64_t>(x)) : std::size_t{1} << 63;
#endif
}

/// The texel a point-filtered unnormalized coordinate is in: the same texel
/// as point_texel(to_fixed_texel(x, false, size)) for every float x, with
/// no fixed point. Scaling by 2^coordinate_bits is exact for a float within
/// the clamp (a power of two; no overflow, and a subnormal only grows), so
/// the fixed-point value is floor(x * 2^22) exactly, and shifting the
/// fraction away gives floor(floor(x * 2^22) / 2^22) = floor(x).
/// texture_addressing_test checks the two agree over a sweep of all floats.
inline int unnormalized_point_texel(float x) {
  constexpr float limit = static_cast<float>(1 << 30);
  x = x == x ? x : 0.0f;
  x = x > limit ? limit : (x < -limit ? -limit : x);
  int truncated = static_cast<int>(x);
  return truncated - (x < static_cast<float>(truncated));
}

/// The texel a point-filtered coordinate is in, in a dimension of `size` texels.
inline int point_texel(float x, bool normalized, int size) {
  return normalized ? point_texel(to_fixed_texel(x, true, size)) : unnormalized_point_texel(x);
}

/// The left texel and weight of a coordinate for linear filtering.
inline fixed_coordinate linear_texels(fixed_texel_coordinate u) {
  constexpr int drop = coordinate_bits - weight_bits;
  constexpr fixed_texel_coordinate limit = fixed_texel_coordinate{1} << (30 + coordinate_bits);
  u = u > limit ? limit : (u < -limit ? -limit : u);
  fixed_texel_coordinate rounded =
      (u - (fixed_texel_coordinate{1} << (coordinate_bits - 1)) + (fixed_texel_coordinate{1} << (drop - 1))) >> drop;
  return {static_cast<int>(rounded >> weight_bits), static_cast<int>(rounded & (weight_one - 1))};
}

/// A level of detail to 8 fractional bits, truncated (an H100 reads level
/// 0.999 as 255/256 of the way to level 1, not as level 1).
inline fixed_coordinate to_fixed_level(float level) {
  if (!(level == level)) level = 0.0f;
  level = level > 1e6f ? 1e6f : (level < -1e6f ? -1e6f : level);
  std::int64_t scaled = floor_to_int64(level * weight_one);
  return {static_cast<int>(scaled >> weight_bits), static_cast<int>(scaled & (weight_one - 1))};
}

/// address_texel for a texel outside the texture: out of line, so that the
/// inlined fetches keep only the test for a texel inside.
[[gnu::noinline]] inline int address_outside_texel(int i, int size, address_mode mode) {
  switch (mode) {
    case address_mode::clamp:
      return i < 0 ? 0 : (i >= size ? size - 1 : i);
    case address_mode::border:
      return (i < 0 || i >= size) ? outside_texture : i;
    case address_mode::wrap: {
      int m = i % size;
      return m < 0 ? m + size : m;
    }
    case address_mode::mirror: {
      int period = 2 * size;
      int m = i % period;
      if (m < 0) m += period;
      return m < size ? m : period - 1 - m;
    }
  }
  return outside_texture;
}

/// Brings texel index i of a dimension of `size` texels into range, or
/// returns outside_texture for the border. Every mode leaves a texel inside
/// alone, and most fetches are of texels inside.
[[gnu::always_inline]] inline int address_texel(int i, int size, address_mode mode) {
  if (static_cast<unsigned>(i) < static_cast<unsigned>(size)) [[likely]]
    return i;
  return address_outside_texel(i, size, mode);
}

}  // namespace weft::detail::textures
