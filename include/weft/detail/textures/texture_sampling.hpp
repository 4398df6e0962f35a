// A texture fetch: from coordinates to the four words the texture unit
// returns, for every shape (1D, 2D, 3D, layered, cubemap), filter (point,
// linear; mipmap point and linear) and gather. What the format and read
// mode decide is behind the sampler's texel routines; the rest is here.
//
// Linear filtering (guide, appendix "Texture Fetching", "Linear
// Filtering"): in each dimension the coordinate less half a texel gives the
// left texel i = floor(x - 0.5) and the weight alpha of its right
// neighbour, in 8-bit fixed point; the result is the weighted sum of the 2,
// 4 or 8 texels around, each brought into range by its address mode first.
// A layer index selects a layer, never blends two.
#pragma once

#include <cmath>
#include <cstddef>

#include "weft/detail/textures/cubemap_faces.hpp"
#include "weft/detail/textures/texel_reading.hpp"
#include "weft/detail/textures/texel_values.hpp"
#include "weft/detail/textures/texture_addressing.hpp"
#include "weft/detail/textures/texture_sampler.hpp"

namespace weft::detail::textures {

/// Coordinates of one fetch, in the texture's own units (normalized or not).
template <int Dims>
struct texture_coordinates {
  float value[Dims];
};

inline fixed_texel_coordinate to_texel_space(const texture_sampler& s, const texture_level& level, int d, float x) {
  return to_fixed_texel(x, s.normalized_coordinates, level.size[d]);
}

/// The layer a fetch reads: an H100 compares the layer unsigned, so a
/// negative layer reads the last one, as one past the end does.
inline int clamp_layer(const texture_sampler& s, int layer) {
  return static_cast<unsigned>(layer) >= static_cast<unsigned>(s.layers) ? s.layers - 1 : layer;
}

/// The weights of the four texels of a bilinear fetch (x fastest) from the
/// 8-bit fractions a (x) and b (y), as an H100 forms them: the corner
/// (1, 1) gets a * b rounded half up to 8 bits, the others what is left of
/// their row's and column's share, so that the weights sum to exactly 1 and
/// each row and column keeps its share (a 1D fetch, b = 0, keeps 1 - a, a).
inline void bilinear_weights(int a, int b, float* weights) {
  int both = (a * b + weight_one / 2) >> weight_bits;
  constexpr float scale = 1.0f / weight_one;
  weights[0] = static_cast<float>(weight_one - a - b + both) * scale;
  weights[1] = static_cast<float>(a - both) * scale;
  weights[2] = static_cast<float>(b - both) * scale;
  weights[3] = static_cast<float>(both) * scale;
}

/// The eight weights of a trilinear fetch (x fastest, then y, then z) in
/// the same way: each product of two or three fractions rounded half up to
/// 8 bits, every corner the rest by inclusion and exclusion, so that the
/// weights sum to 1 (fitted to the H100's results in texture_probe).
inline void trilinear_weights(int a, int b, int c, float* weights) {
  auto product = [](int p, int q) { return (p * q + weight_one / 2) >> weight_bits; };
  int ab = product(a, b), ac = product(a, c), bc = product(b, c);
  int abc = (a * b * c + weight_one * weight_one / 2) >> (2 * weight_bits);
  int w[8];
  w[7] = abc;                // (1, 1, 1)
  w[3] = ab - abc;           // (1, 1, 0)
  w[5] = ac - abc;           // (1, 0, 1)
  w[6] = bc - abc;           // (0, 1, 1)
  w[1] = a - ab - ac + abc;  // (1, 0, 0)
  w[2] = b - ab - bc + abc;  // (0, 1, 0)
  w[4] = c - ac - bc + abc;  // (0, 0, 1)
  w[0] = weight_one - (w[1] + w[2] + w[3] + w[4] + w[5] + w[6] + w[7]);
  constexpr float scale = 1.0f / weight_one;
  for (int k = 0; k < 8; ++k) weights[k] = static_cast<float>(w[k]) * scale;
}

/// The linearly filtered fetch of one level, at `at`, of the texels from `origin` on.
template <int Dims>
texel_words sample_level_linear(const texture_sampler& s, const texture_level& level,
                                const texture_coordinates<Dims>& at, const std::byte* origin);

/// One level's fetch at `at`, with the texels of layer slice `slice` (a
/// layer, or a cubemap's layer * 6 + face). Point filtering is inlined into the kernel (a call's register saves cost
/// as much as its work); linear filtering, four times the work, is not.
template <int Dims>
[[gnu::always_inline]] inline texel_words sample_level(const texture_sampler& s, const texture_level& level,
                                                       const texture_coordinates<Dims>& at, int slice) {
  const std::byte* origin = level.base + static_cast<std::size_t>(slice) * level.layer_pitch;
  if (!s.linear_filter) {
    const std::byte* texel = origin;
#pragma GCC unroll 3
    for (int d = 0; d < Dims; ++d) {
      int i = address_texel(point_texel(to_texel_space(s, level, d, at.value[d])), level.size[d], s.address[d]);
      if (i == outside_texture) return s.routines->words(s.border_texel);
      texel += static_cast<std::size_t>(i) * level.stride[d];
    }
    return s.routines->words(texel);
  }
  return sample_level_linear<Dims>(s, level, at, origin);
}

/// The 2^Dims texels a linear fetch of one level blends (x fastest; the
/// border texel for one outside), and each dimension's 8-bit fraction.
template <int Dims>
void linear_footprint(const texture_sampler& s, const texture_level& level, const texture_coordinates<Dims>& at,
                      const std::byte* origin, const std::byte** texels, int* fraction) {
  // Per dimension, the byte offsets of the two texels (-1: the border) and
  // the weight, in 256ths, of the second.
  std::ptrdiff_t offset[Dims][2];
  for (int d = 0; d < Dims; ++d) {
    fixed_coordinate f = linear_texels(to_texel_space(s, level, d, at.value[d]));
    int left = address_texel(f.texel, level.size[d], s.address[d]);
    int right = address_texel(f.texel + 1, level.size[d], s.address[d]);
    auto stride = static_cast<std::ptrdiff_t>(level.stride[d]);
    offset[d][0] = left == outside_texture ? -1 : left * stride;
    offset[d][1] = right == outside_texture ? -1 : right * stride;
    fraction[d] = f.fraction;
  }
  constexpr int count = 1 << Dims;
  for (int corner = 0; corner < count; ++corner) {
    std::ptrdiff_t at_corner = 0;
    for (int d = 0; d < Dims; ++d) {
      std::ptrdiff_t o = offset[d][(corner >> d) & 1];
      at_corner = (o < 0 || at_corner < 0) ? -1 : at_corner + o;
    }
    texels[corner] = at_corner < 0 ? s.border_texel : origin + at_corner;
  }
}

template <int Dims>
texel_words sample_level_linear(const texture_sampler& s, const texture_level& level,
                                const texture_coordinates<Dims>& at, const std::byte* origin) {
  const std::byte* texels[1 << Dims];
  int fraction[Dims];
  linear_footprint<Dims>(s, level, at, origin, texels, fraction);
  float weights[8];
  if constexpr (Dims == 3)
    trilinear_weights(fraction[0], fraction[1], fraction[2], weights);
  else
    bilinear_weights(fraction[0], Dims > 1 ? fraction[1] : 0, weights);
  return s.routines->blend[Dims - 1](texels, weights, s.border_floats);
}

/// The weights, in 256ths, of the four texels (x fastest) of one of the two
/// levels a linear mipmap fetch with linear filtering blends, the level's
/// share of the whole being `share` 256ths, as an H100 forms them (fitted to
/// 2926 of its weight sets, every one: the probe's trilinear rows and a
/// sweep of random coordinates and levels): the right column's share is
/// a * share rounded half up, the left column the rest; then the right
/// column's lower texel gets its column times b, and the left column's
/// upper texel its column times 1 - b, each rounded half up, and the other
/// texel of each column what is left of it. With share 256 these are the
/// bilinear weights.
inline void mipmap_level_weights(int a, int b, int share, int* weights) {
  int right = (a * share + weight_one / 2) >> weight_bits;
  int left = share - right;
  int right_lower = (right * b + weight_one / 2) >> weight_bits;
  int left_upper = (left * (weight_one - b) + weight_one / 2) >> weight_bits;
  weights[0] = left_upper;
  weights[1] = right - right_lower;
  weights[2] = left - left_upper;
  weights[3] = right_lower;
}

/// A linear mipmap fetch with linear filtering of a 1D or 2D level pair:
/// one blend of the texels of both levels (level `lower`'s weight 1 -
/// fraction/256), as an H100 blends them, not two blends mixed.
template <int Dims>
texel_words sample_two_levels_linear(const texture_sampler& s, const texture_coordinates<Dims>& at, int slice,
                                     int lower, int fraction) {
  static_assert(Dims <= 2, "a 3D texture's levels are blended one after the other");
  constexpr int per_level = 1 << Dims;
  const std::byte* texels[2 * per_level];
  float weights[2 * per_level];
  for (int k = 0; k < 2; ++k) {
    const texture_level& level = s.levels[lower + k];
    const std::byte* origin = level.base + static_cast<std::size_t>(slice) * level.layer_pitch;
    int fractions[Dims];
    linear_footprint<Dims>(s, level, at, origin, texels + k * per_level, fractions);
    int w[4];
    mipmap_level_weights(fractions[0], Dims > 1 ? fractions[1] : 0, k ? fraction : weight_one - fraction, w);
    for (int corner = 0; corner < per_level; ++corner)
      weights[k * per_level + corner] = static_cast<float>(w[corner]) / weight_one;
  }
  return s.routines->blend[Dims](texels, weights, s.border_floats);
}

/// The level of detail a fetch samples, from an explicit level (tex*Lod) or
/// one computed from gradients: the texture's bias added, then its clamps.
inline float clamped_level_of_detail(const texture_sampler& s, float level) {
  if (!(level == level)) level = 0.0f;  // before the bias, as on an H100
  float lod = level + s.mipmap_level_bias;
  if (!(lod == lod)) lod = 0.0f;
  if (lod < s.min_mipmap_level) lod = s.min_mipmap_level;
  if (lod > s.max_mipmap_level) lod = s.max_mipmap_level;
  return lod;
}

/// A fetch at a level of detail: the nearest level, or a blend of the two
/// around it with an 8-bit fixed-point weight (mipmapFilterMode linear).
template <int Dims>
texel_words sample_lod(const texture_sampler& s, const texture_coordinates<Dims>& at, int slice, float level) {
  if (s.level_count() == 1) return sample_level<Dims>(s, s.levels[0], at, slice);
  float lod = clamped_level_of_detail(s, level);
  int last = s.level_count() - 1;
  if (!s.linear_mipmap_filter) {
    int nearest = static_cast<int>(std::floor(lod + 0.5f));
    return sample_level<Dims>(s, s.levels[nearest > last ? last : nearest], at, slice);
  }
  fixed_coordinate f = to_fixed_level(lod);
  if (f.texel >= last) return sample_level<Dims>(s, s.levels[last], at, slice);
  if (f.fraction == 0) return sample_level<Dims>(s, s.levels[f.texel], at, slice);
  if constexpr (Dims <= 2)
    if (s.linear_filter) return sample_two_levels_linear<Dims>(s, at, slice, f.texel, f.fraction);
  texel_words lower = sample_level<Dims>(s, s.levels[f.texel], at, slice);
  texel_words upper = sample_level<Dims>(s, s.levels[f.texel + 1], at, slice);
  texel_floats a = as_floats(lower), b = as_floats(upper), out;
  float wb = static_cast<float>(f.fraction) / weight_one, wa = static_cast<float>(weight_one - f.fraction) / weight_one;
  for (int c = 0; c < 4; ++c) out.value[c] = wa * a.value[c] + wb * b.value[c];
  return as_words(out);
}

/// The level of detail of a fetch whose coordinates change by dx and dy
/// from one pixel to the next (tex*Grad): log2 of the longer gradient, in
/// texels of level 0.
template <int Dims>
float level_from_gradients(const texture_sampler& s, const float (&dx)[Dims], const float (&dy)[Dims]) {
  const texture_level& base = s.levels[0];
  float lx = 0.0f, ly = 0.0f;
  for (int d = 0; d < Dims; ++d) {
    float scale = s.normalized_coordinates ? base.float_size[d] : 1.0f;
    lx += (dx[d] * scale) * (dx[d] * scale);
    ly += (dy[d] * scale) * (dy[d] * scale);
  }
  float longest = std::sqrt(lx > ly ? lx : ly);
  return std::log2(longest);
}

/// The slice of a cubemap face of a cube layer, and the face coordinates.
inline int cubemap_slice(const cubemap_position& p, int cube) { return cube * 6 + p.face; }

/// tex2Dgather: channel `component` of the four texels a linear fetch at
/// (x, y) would blend, ordered as CUDA returns them: (left, lower),
/// (right, lower), (right, upper), (left, upper), where upper is the row
/// of floor(y - 0.5) and lower the one below it.
inline texel_words gather(const texture_sampler& s, float x, float y, int component) {
  const texture_level& level = s.levels[0];
  fixed_coordinate fx = linear_texels(to_texel_space(s, level, 0, x));
  fixed_coordinate fy = linear_texels(to_texel_space(s, level, 1, y));
  int columns[2] = {address_texel(fx.texel, level.size[0], s.address[0]),
                    address_texel(fx.texel + 1, level.size[0], s.address[0])};
  int rows[2] = {address_texel(fy.texel, level.size[1], s.address[1]),
                 address_texel(fy.texel + 1, level.size[1], s.address[1])};
  auto channel = [&](int column, int row) {
    if (column == outside_texture || row == outside_texture)
      return s.routines->words(s.border_texel).word[component & 3];
    const std::byte* texel = level.base + static_cast<std::size_t>(column) * level.stride[0] +
                             static_cast<std::size_t>(row) * level.stride[1];
    return s.routines->words(texel).word[component & 3];
  };
  return {{channel(columns[0], rows[1]), channel(columns[1], rows[1]), channel(columns[1], rows[0]),
           channel(columns[0], rows[0])}};
}

/// tex1Dfetch: texel x of a linear resource, unfiltered; zero outside it.
inline texel_words fetch_linear(const texture_sampler& s, int x) {
  const texture_level& level = s.levels[0];
  if (x < 0 || x >= level.size[0]) return {{0, 0, 0, 0}};
  return s.routines->words(level.base + static_cast<std::size_t>(x) * level.stride[0]);
}

}  // namespace weft::detail::textures
