// Where a texture coordinate lands: the texel it names and, for linear
// filtering, the hardware's fixed-point weight between two neighbours.
//
// The texture unit works in fixed point: a coordinate in texel space is
// taken with 8 fractional bits (CUDA guide, appendix "Texture Fetching": the
// weight alpha "is stored in 9-bit fixed point format with 8 bits of
// fractional value"). Point filtering takes the texel floor(u); linear
// filtering takes floor(u - 0.5) and its right neighbour, weighted by the
// fraction. Out-of-range texel indexes are then brought back by each
// dimension's address mode (guide 6.2.14.1): clamp to the edge, repeat
// (wrap), repeat mirrored, or border (no texel: the border colour).
#pragma once

#include <cmath>
#include <cstdint>

namespace weft::detail::textures {

/// cudaTextureAddressMode's values; the surface asserts they are equal.
enum class address_mode : int { wrap = 0, clamp = 1, mirror = 2, border = 3 };

/// A texel index that names no texel: the border colour stands in for it.
inline constexpr int outside_texture = -1;

/// Fractional bits of a texel-space coordinate, and its scale.
inline constexpr int weight_bits = 8;
inline constexpr int weight_one = 1 << weight_bits;

/// Coordinates beyond this many texels are all equally far outside: keeping
/// them there leaves room for the fixed-point arithmetic in 32 bits.
inline constexpr float farthest_texel = 1 << 22;

/// A texel-space coordinate in fixed point: texel floor(u), fraction/256.
struct fixed_coordinate {
  int texel;
  int fraction;  // 0..255, the weight of texel + 1
};

/// The largest integer not above v, for |v| < 2^31; std::floor is a call
/// into the C library on x86-64 without SSE4.1, which a fetch cannot afford.
inline std::int32_t floor_to_int(float v) {
  auto truncated = static_cast<std::int32_t>(v);
  return truncated - (v < static_cast<float>(truncated));
}

/// u (texel space) in fixed point, rounded to the nearest 1/256. NaN reads as 0.
inline fixed_coordinate to_fixed(float u) {
  if (!(u == u)) u = 0.0f;
  if (u > farthest_texel) u = farthest_texel;
  if (u < -farthest_texel) u = -farthest_texel;
  std::int32_t scaled = floor_to_int(u * weight_one + 0.5f);
  return {scaled >> weight_bits, scaled & (weight_one - 1)};
}

/// The index of a texel-space coordinate for point filtering.
inline int point_texel(float u) { return to_fixed(u).texel; }

/// The left texel and weight of a texel-space coordinate for linear filtering.
inline fixed_coordinate linear_texels(float u) { return to_fixed(u - 0.5f); }

/// Brings texel index i of a dimension of `size` texels into range, or
/// returns outside_texture for the border.
inline int address_texel(int i, int size, address_mode mode) {
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

/// The texel a point-filtered fetch reads in a dimension of `size` texels,
/// or outside_texture. Clamping, the common mode, clamps the fixed-point
/// coordinate before it becomes an integer: no floor, no branch on the range.
inline int point_texel_addressed(float u, int size, address_mode mode) {
  if (mode == address_mode::clamp) {
    float v = u * weight_one + 0.5f;
    float top = static_cast<float>(size * weight_one - 1);
    v = v > 0.0f ? v : 0.0f;  // NaN too
    v = v < top ? v : top;
    return static_cast<int>(v) >> weight_bits;
  }
  return address_texel(point_texel(u), size, mode);
}

}  // namespace weft::detail::textures
