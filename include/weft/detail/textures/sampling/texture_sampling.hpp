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

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "weft/detail/textures/sampling/cubemap_faces.hpp"
#include "weft/detail/textures/sampling/gradient_level.hpp"
#include "weft/detail/textures/sampling/texel_reading.hpp"
#include "weft/detail/textures/sampling/texel_values.hpp"
#include "weft/detail/textures/sampling/texture_addressing.hpp"
#include "weft/detail/textures/sampling/texture_sampler.hpp"

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

/// A texel's words copied from it: the first `channels` (1, 2 or 4).
[[gnu::always_inline]] inline texel_words copy_texel_words(std::size_t channels, const std::byte* texel) {
  texel_words w{{0, 0, 0, 0}};
  std::memcpy(&w.word[0], texel, sizeof(std::uint32_t));
  if (channels > 1) std::memcpy(&w.word[1], texel + 4, sizeof(std::uint32_t));
  if (channels > 2) {
    std::memcpy(&w.word[2], texel + 8, sizeof(std::uint32_t));
    std::memcpy(&w.word[3], texel + 12, sizeof(std::uint32_t));
  }
  return w;
}

/// A texel's words as copy_texel_words gives them, loaded as floats: the
/// inlined point fetch's load, which cannot alias a kernel's stores of
/// integers (texture_fetch_functions.hpp says why that matters). The bits
/// are moved, never converted, so a NaN keeps its payload.
[[gnu::always_inline]] inline texel_words load_texel_words(std::size_t channels, const std::byte* texel) {
  const float* floats = reinterpret_cast<const float*>(texel);
  texel_words w{{std::bit_cast<std::uint32_t>(floats[0]), 0, 0, 0}};
  if (channels > 1) w.word[1] = std::bit_cast<std::uint32_t>(floats[1]);
  if (channels > 2) {
    w.word[2] = std::bit_cast<std::uint32_t>(floats[2]);
    w.word[3] = std::bit_cast<std::uint32_t>(floats[3]);
  }
  return w;
}

/// Texel `texel` as the fetch's words: a float or 32-bit integer texel's
/// channels copied as they are (the words its routines would return), any
/// other through the format's routines. For tex2D<float> of a float texture
/// the compiler keeps one load of the copy.
[[gnu::always_inline]] inline texel_words read_texel(const texture_sampler& s, const std::byte* texel) {
  std::size_t channels = s.raw_word_channels;
  if (channels == 0) return s.routines->words(texel);
  return copy_texel_words(channels, texel);
}

/// The linearly filtered fetch of one level, at `at`, of the texels from
/// `origin` on, blended by `blend` (the format's blend of 2, 4 or 8 texels).
template <int Dims, class Blend>
[[gnu::always_inline]] inline texel_words filter_linear(const texture_sampler& s, const texture_level& level,
                                                        const float* at, const std::byte* origin, Blend blend) {
  fixed_coordinate f[Dims];
  bool inside = true;
  for (int d = 0; d < Dims; ++d) {
    f[d] = linear_texels(to_texel_space(s, level, d, at[d]));
    inside &= static_cast<unsigned>(f[d].texel) < static_cast<unsigned>(level.size[d] - 1);
  }
  constexpr int count = 1 << Dims;
  const std::byte* texels[count];
  if (inside) [[likely]] {
    // Both texels of every dimension inside: no address mode changes them.
    const std::byte* first = origin;
    for (int d = 0; d < Dims; ++d) first += static_cast<std::ptrdiff_t>(f[d].texel) * level.stride[d];
    for (int corner = 0; corner < count; ++corner) {
      const std::byte* texel = first;
      for (int d = 0; d < Dims; ++d)
        if ((corner >> d) & 1) texel += level.stride[d];
      texels[corner] = texel;
    }
  } else {
    // Per dimension, the byte offsets of the two texels (-1: the border).
    std::ptrdiff_t offset[Dims][2];
    for (int d = 0; d < Dims; ++d) {
      int left = address_texel(f[d].texel, level.size[d], s.address[d]);
      int right = address_texel(f[d].texel + 1, level.size[d], s.address[d]);
      auto stride = static_cast<std::ptrdiff_t>(level.stride[d]);
      offset[d][0] = left == outside_texture ? -1 : left * stride;
      offset[d][1] = right == outside_texture ? -1 : right * stride;
    }
    for (int corner = 0; corner < count; ++corner) {
      std::ptrdiff_t at_corner = 0;
      for (int d = 0; d < Dims; ++d) {
        std::ptrdiff_t o = offset[d][(corner >> d) & 1];
        at_corner = (o < 0 || at_corner < 0) ? -1 : at_corner + o;
      }
      texels[corner] = at_corner < 0 ? s.border_texel : origin + at_corner;
    }
  }
  float weights[8];
  if constexpr (Dims == 3)
    trilinear_weights(f[0].fraction, f[1].fraction, f[2].fraction, weights);
  else
    bilinear_weights(f[0].fraction, Dims > 1 ? f[1].fraction : 0, weights);
  return blend(texels, weights, s.border_floats);
}

/// The linearly filtered fetch of one level, at `at`, of the texels from
/// `origin` on, blended through the format's routines.
template <int Dims>
texel_words sample_level_linear(const texture_sampler& s, const texture_level& level,
                                const texture_coordinates<Dims>& at, const std::byte* origin) {
  return filter_linear<Dims>(s, level, at.value, origin, s.routines->blend[Dims - 1]);
}

/// One level's fetch at `at`, with the texels of layer slice `slice` (a
/// layer, or a cubemap's layer * 6 + face).
template <int Dims>
[[gnu::always_inline]] inline texel_words sample_level(const texture_sampler& s, const texture_level& level,
                                                       const texture_coordinates<Dims>& at, int slice) {
  const std::byte* origin = level.base + static_cast<std::size_t>(slice) * level.layer_pitch;
  if (!s.linear_filter) {
    const std::byte* texel = origin;
#pragma GCC unroll 3
    for (int d = 0; d < Dims; ++d) {
      int i =
          address_texel(point_texel(at.value[d], s.normalized_coordinates, level.size[d]), level.size[d], s.address[d]);
      if (i == outside_texture) return read_texel(s, s.border_texel);
      texel += static_cast<std::size_t>(i) * level.stride[d];
    }
    return read_texel(s, texel);
  }
  return sample_level_linear<Dims>(s, level, at, origin);
}

/// The 2^Dims texels a linear fetch of one level blends (x fastest; the
/// border texel for one outside), and each dimension's 8-bit fraction; with
/// `shift`, at `at` moved by that many texels in fixed point (an
/// anisotropic fetch's sample).
template <int Dims>
void linear_footprint(const texture_sampler& s, const texture_level& level, const texture_coordinates<Dims>& at,
                      const std::byte* origin, const std::byte** texels, int* fraction,
                      const fixed_texel_coordinate* shift = nullptr) {
  // Per dimension, the byte offsets of the two texels (-1: the border) and
  // the weight, in 256ths, of the second.
  std::ptrdiff_t offset[Dims][2];
  for (int d = 0; d < Dims; ++d) {
    fixed_coordinate f = linear_texels(to_texel_space(s, level, d, at.value[d]) + (shift ? shift[d] : 0));
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

/// Whether both texels of dimension d of a linear fetch at x are one texel,
/// clamped at an edge. The H100 then forms a level's weights as if x lay on
/// that texel's centre (fraction 0): the fraction's rounding in
/// mipmap_level_weights would otherwise move up to 1/256 between rows
/// (measured on cubemap faces without seamless filtering and on 2D
/// mipmaps, h100_measurements/seamless_mipmaps.txt and clamped_mipmaps.txt;
/// one level's bilinear weights are the same either way).
inline bool clamped_to_one_texel(const texture_sampler& s, const texture_level& level, int d, float x) {
  if (s.address[d] != address_mode::clamp) return false;
  int left = linear_texels(to_texel_space(s, level, d, x)).texel;
  return left < 0 || left >= level.size[d] - 1;
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
    for (int d = 0; d < Dims; ++d)
      if (clamped_to_one_texel(s, level, d, at.value[d])) fractions[d] = 0;
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
/// A level taken from gradients of a texture whose maxAnisotropy is above
/// 1 blends the two levels with the sharpened weight an H100 uses then.
template <int Dims>
texel_words sample_lod(const texture_sampler& s, const texture_coordinates<Dims>& at, int slice, float level,
                       bool from_gradients = false) {
  if (s.level_count() == 1) return sample_level<Dims>(s, s.levels[0], at, slice);
  float lod = clamped_level_of_detail(s, level);
  int last = s.level_count() - 1;
  if (!s.linear_mipmap_filter) {
    int nearest = static_cast<int>(std::floor(lod + 0.5f));
    return sample_level<Dims>(s, s.levels[nearest > last ? last : nearest], at, slice);
  }
  fixed_coordinate f = to_fixed_level(lod);
  if (from_gradients && f.texel < last) {
    f.fraction = sharpened_level_fraction(f.fraction, s.max_anisotropy);
    if (f.fraction == weight_one) f = {f.texel + 1, 0};
  }
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
/// from one pixel to the next (tex*Grad), in texels of level 0: for 1D and
/// 2D and 3D fetches the H100's (gradient_level.hpp; a 1D gradient is a 2D
/// one along x).
template <int Dims>
float level_from_gradients(const texture_sampler& s, const float (&dx)[Dims], const float (&dy)[Dims]) {
  const texture_level& base = s.levels[0];
  if constexpr (Dims <= 2) {
    float texel_dx[2] = {0.0f, 0.0f}, texel_dy[2] = {0.0f, 0.0f};
    for (int d = 0; d < Dims; ++d) {
      float scale = s.normalized_coordinates ? base.float_size[d] : 1.0f;
      texel_dx[d] = dx[d] * scale;
      texel_dy[d] = dy[d] * scale;
    }
    int level = level_from_footprint(texel_dx, texel_dy, s.max_anisotropy);
    return static_cast<float>(level) / (1 << gradient_level_bits);
  } else {
    float texel_dx[3], texel_dy[3];
    for (int d = 0; d < 3; ++d) {
      float scale = s.normalized_coordinates ? base.float_size[d] : 1.0f;
      texel_dx[d] = dx[d] * scale;
      texel_dy[d] = dy[d] * scale;
    }
    return static_cast<float>(level_from_footprint(texel_dx, texel_dy)) / (1 << gradient_level_bits);
  }
}

/// The slice of a cubemap face of a cube layer, and the face coordinates.
inline int cubemap_slice(const cubemap_position& p, int cube) { return cube * 6 + p.face; }

/// A fetch without an explicit level of detail (tex1D, tex2D, tex3D and
/// their layered forms), by the general rules: out of line, so that a
/// kernel that fetches keeps only the inlined point path and a call. It
/// writes no memory (`pure`), so the kernel around the call keeps its
/// values, and weft's loop over the block's threads its state, in registers.
template <int Dims>
[[gnu::noinline, gnu::pure]] texel_words sample(const texture_sampler& s, texture_coordinates<Dims> at, int layer) {
  int slice = s.layers > 1 ? clamp_layer(s, layer) : 0;
  if (s.level_count() == 1) return sample_level<Dims>(s, s.levels[0], at, slice);
  return sample_lod<Dims>(s, at, slice, 0.0f);
}

inline texel_words sample_2d(const texture_sampler& s, float x, float y, int layer) {
  return sample<2>(s, {{x, y}}, layer);
}

/// The 2D fetch of a texture of one level and one layer, linearly filtered,
/// made for one codec: the blend inlined (the sampler's fetch_2d).
template <class Codec>
texel_words linear_2d_for(const texture_sampler& s, float x, float y, int) {
  const texture_level& level = s.levels[0];
  const float at[2] = {x, y};
  return filter_linear<2>(s, level, at, level.base,
                          [](const std::byte* const* texels, const float* weights, const texel_floats& border) {
                            return blend_texels<Codec, 4>(texels, weights, border);
                          });
}

/// Where the point fetch of a sampler whose plain_point is set reads, if
/// that texel is inside. Its address modes clamp, so a coordinate x whose
/// truncation i is within [0, size) is in texel i: for 0 <= x < size,
/// i = floor(x); for -1 < x < 0, i = 0, where floor(x) = -1 clamps to. NaN,
/// negative truncations and coordinates beyond an int are indexes no size
/// passes (truncate_to_index). False for a texel outside, which takes the
/// general rules.
template <int Dims>
[[gnu::always_inline]] inline bool plain_point_texel(const texture_sampler& s, texture_coordinates<Dims> at,
                                                     const std::byte*& texel) {
  texel = s.plain_base;
#pragma GCC unroll 3
  for (int d = 0; d < Dims; ++d) {
    auto i = truncate_to_index(at.value[d]);
    if (i >= s.plain_size[d]) [[unlikely]]
      return false;
    texel += i * s.plain_stride[d];
  }
  return true;
}

/// Where the point fetch of a sampler whose plain_dense_words is `Words`
/// reads, if that texel is inside, as plain_point_texel, but addressed as
/// floats: x steps by the texel's size, a constant, so that the fetch reads
/// no stride from the sampler and needs no multiply for it.
template <int Dims, int Words>
[[gnu::always_inline]] inline bool plain_point_dense_texel(const texture_sampler& s, texture_coordinates<Dims> at,
                                                           const float*& texel) {
  std::size_t row_offset = 0;
#pragma GCC unroll 3
  for (int d = 1; d < Dims; ++d) {
    auto i = truncate_to_index(at.value[d]);
    if (i >= s.plain_size[d]) [[unlikely]]
      return false;
    row_offset += i * s.plain_stride[d];
  }
  auto i = truncate_to_index(at.value[0]);
  if (i >= s.plain_dense_width[dense_width_index(Words)]) [[unlikely]]
    return false;
  // The row's address, base added last and kept whole (the empty asm), so
  // that the base is an operand of that addition and x rides in the load's
  // own address: left to itself, GCC loads the base into a register, adds
  // x to it with an lea and then the row, one instruction more per fetch.
  const std::byte* row = s.plain_base + row_offset;
  asm("" : "+r"(row));
  texel = reinterpret_cast<const float*>(row) + i * Words;
  return true;
}

/// The point fetch of a sampler whose plain_point is set.
template <int Dims>
texel_words sample_plain_point(const texture_sampler& s, texture_coordinates<Dims> at) {
  const std::byte* texel;
  if (plain_point_texel<Dims>(s, at, texel)) return load_texel_words(s.raw_word_channels, texel);
  return sample<Dims>(s, at, 0);
}

/// What a codec offers the fetches: how many channels a point fetch may copy
/// as words, and its 2D linear fetch (null where it returns no floats).
struct codec_fetch_routines {
  int raw_word_channels;
  fetch_2d_routine linear_2d;
};

template <class Codec>
codec_fetch_routines fetch_routines_of() {
  fetch_2d_routine linear = nullptr;
  if constexpr (Codec::returns_float) linear = &linear_2d_for<Codec>;
  return {raw_word_channels<Codec>(), linear};
}

/// Chooses what the sampler's fetches run, once it is complete (levels,
/// layers, filter, coordinates and routines set) for texels whose codec
/// offers `c`: the point path's copy of words, and the 2D fetch routine.
inline void choose_fetch_routines(texture_sampler& s, codec_fetch_routines c) {
  bool one_level_one_layer = s.level_count() == 1 && s.layers == 1;
  s.raw_word_channels = static_cast<std::size_t>(c.raw_word_channels);
  bool clamps =
      s.address[0] == address_mode::clamp && s.address[1] == address_mode::clamp && s.address[2] == address_mode::clamp;
  s.plain_point =
      one_level_one_layer && clamps && !s.linear_filter && !s.normalized_coordinates && c.raw_word_channels > 0;
  s.plain_dense_words = 0;
  for (int d = 0; d < 3; ++d) {
    s.plain_size[d] = 0;
    s.plain_stride[d] = 0;
    s.plain_dense_width[d] = 0;
  }
  s.plain_base = nullptr;
  if (s.plain_point) {
    const texture_level& level = s.levels[0];
    s.plain_base = level.base;
    for (int d = 0; d < 3; ++d) {
      s.plain_size[d] = static_cast<std::size_t>(level.size[d]);
      s.plain_stride[d] = level.stride[d];
    }
    bool dense = level.stride[0] == s.raw_word_channels * sizeof(std::uint32_t);
    if (dense && (c.raw_word_channels == 1 || c.raw_word_channels == 2 || c.raw_word_channels == 4)) {
      s.plain_dense_words = s.raw_word_channels;
      s.plain_dense_width[dense_width_index(c.raw_word_channels)] = s.plain_size[0];
    }
  }
  s.fetch_2d = one_level_one_layer && s.linear_filter && c.linear_2d ? c.linear_2d : &sample_2d;
}

/// The same for texels of `layout` read as `normalized_float` and `srgb`
/// say. It names every codec's routines, so only what makes texture objects
/// calls it: a program that makes none compiles none of them.
inline void choose_fetch_routines(texture_sampler& s, const texel_layout& layout, bool normalized_float, bool srgb) {
  choose_fetch_routines(
      s, visit_texel_codec(layout, normalized_float, srgb, []<class Codec>() { return fetch_routines_of<Codec>(); }));
}

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
    if (column == outside_texture || row == outside_texture) return read_texel(s, s.border_texel).word[component & 3];
    const std::byte* texel = level.base + static_cast<std::size_t>(column) * level.stride[0] +
                             static_cast<std::size_t>(row) * level.stride[1];
    return read_texel(s, texel).word[component & 3];
  };
  return {{channel(columns[0], rows[1]), channel(columns[1], rows[1]), channel(columns[1], rows[0]),
           channel(columns[0], rows[0])}};
}

/// tex1Dfetch: texel x of a linear resource, unfiltered; zero outside it.
inline texel_words fetch_linear(const texture_sampler& s, int x) {
  const texture_level& level = s.levels[0];
  if (x < 0 || x >= level.size[0]) return {{0, 0, 0, 0}};
  return read_texel(s, level.base + static_cast<std::size_t>(x) * level.stride[0]);
}

}  // namespace weft::detail::textures
