// Anisotropic filtering: the samples an H100 takes along a footprint's
// major axis when a 2D fetch with gradients (tex2DGrad, tex2DLayeredGrad)
// reads a texture whose maxAnisotropy is above 1, with linear filtering.
// Fitted to a delta texel swept by such fetches on an H200, the H100's
// texture unit (tests/differential/h100_measurements/anisotropy.txt and
// anisotropy2.txt: every one of their 20 level-0 configurations, bit for
// bit), and to texture_probe's anisotropic line:
// - The line has length P, the major axis's approximate length
//   (gradient_level.hpp) in texels of the level sampled. Where P is above 2,
//   samples lie one texel apart at half-integer offsets from the centre,
//   +-0.5, +-1.5, ..., ceil(P/2) on each side.
// - Each sample but the outermost pair weighs 1/P, taken from P's 8-bit
//   log2 (2^-log2(P)) rounded to nearest at 9 significant bits, then half up
//   to 8; the outermost pair shares what is left of 1. So weights are
//   multiples of 2^-8 to 2^-11, the unit of the inner weight's 8th bit.
// - Each sample's weight goes to its four texels as a trilinear fetch
//   shares a level's weight among them (mipmap_level_weights), in that unit.
// - The samples' step is a vector of about one texel along the major axis
//   with components in 64ths: along the axes the axis's own direction. Off
//   them the H100's direction departs from the major axis by up to 2
//   degrees, by a rule not found (it depends on both gradients:
//   docs/textures.md, "Not there yet"), so weft takes these samples only
//   for a major axis along x or y, and one sample at the centre otherwise.
// - A fetch between two levels: weft takes each level's samples (its line
//   that level's) and blends the two results by the sharpened level weight;
//   not measured along the axes, and off them the H100 does not quite do
//   that (texture_probe's maxAnisotropy-4 line).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "weft/detail/textures/gradient_level.hpp"
#include "weft/detail/textures/texel_values.hpp"
#include "weft/detail/textures/texture_addressing.hpp"
#include "weft/detail/textures/texture_sampler.hpp"
#include "weft/detail/textures/texture_sampling.hpp"

namespace weft::detail::textures {

/// Fractional bits of the components of the step between samples.
inline constexpr int anisotropic_step_bits = 6;

/// The weights of the samples along a line of length P > 2 texels.
struct anisotropic_weights {
  int pairs;      // samples on each side of the centre
  int inner;      // each sample's weight but the outermost pair's, in units of 2^-unit_bits
  int outer;      // each of the outermost pair's
  int unit_bits;  // 8 to 11
};

inline anisotropic_weights anisotropic_sample_weights(double length) {
  anisotropic_weights w{};
  w.pairs = static_cast<int>(std::ceil(length / 2));
  double reciprocal = std::exp2(-static_cast<double>(fixed_level_log2(length)) / (1 << gradient_level_bits));
  int exponent = 0;
  std::frexp(reciprocal, &exponent);  // reciprocal in [2^(exponent - 1), 2^exponent)
  // 8 significant bits; a power of two counts in the binade below it (P = 4
  // weighs 256/1024, not 128/512: texture_probe's fetch along y).
  w.unit_bits = 8 - exponent + (std::ldexp(1.0, exponent - 1) == reciprocal ? 1 : 0);
  // Nine significant bits, to nearest, then eight, half up: a weight of
  // 170.46/512 (P = 3) becomes 341/1024, then 171/512.
  auto nine = static_cast<int>(std::floor(std::ldexp(reciprocal, w.unit_bits + 1) + 0.5));
  w.inner = (nine + 1) / 2;
  int rest = (1 << w.unit_bits) - 2 * w.inner * (w.pairs - 1);
  w.outer = rest > 0 ? rest / 2 : 0;
  return w;
}

/// The step between samples, in 64ths of a texel, along the major axis
/// (x, y): its unit vector rounded to 64ths. The H100's along the axes; off
/// them only an approximation of its rule (see the top of this file).
inline void anisotropic_step(double x, double y, int (&step)[2]) {
  double length = std::hypot(x, y);
  double scale = length > 0 ? (1 << anisotropic_step_bits) / length : 0;
  step[0] = static_cast<int>(std::floor(x * scale + 0.5));
  step[1] = static_cast<int>(std::floor(y * scale + 0.5));
}

/// A level's samples along the line: each sample's texels with their
/// weights (mipmap_level_weights, in units of 2^-unit_bits), the texel
/// values summed in double and returned as float.
inline texel_floats sample_level_anisotropic(const texture_sampler& s, const texture_level& level,
                                             const texture_coordinates<2>& at, int slice, const int (&step)[2],
                                             const anisotropic_weights& w) {
  const std::byte* origin = level.base + static_cast<std::size_t>(slice) * level.layer_pitch;
  double sum[4] = {0, 0, 0, 0};
  double unit = std::ldexp(1.0, -w.unit_bits);
  for (int pair = 0; pair < w.pairs; ++pair) {
    int weight = pair + 1 < w.pairs ? w.inner : w.outer;
    if (weight == 0) continue;
    for (int side = -1; side <= 1; side += 2) {
      // (pair + 1/2) steps of step/64 texels, in coordinate_bits fixed point.
      fixed_texel_coordinate offset[2];
      for (int d = 0; d < 2; ++d)
        offset[d] = static_cast<fixed_texel_coordinate>(side * (2 * pair + 1) * step[d]) *
                    (fixed_texel_coordinate{1} << (coordinate_bits - anisotropic_step_bits - 1));
      const std::byte* texels[4];
      int fractions[2];
      linear_footprint<2>(s, level, at, origin, texels, fractions, offset);
      int texel_weights[4];
      mipmap_level_weights(fractions[0], fractions[1], weight, texel_weights);
      for (int corner = 0; corner < 4; ++corner) {
        if (texel_weights[corner] == 0) continue;  // as in a blend: a texel of weight 0 takes no part
        texel_floats value = s.routines->floats(texels[corner]);
        for (int c = 0; c < 4; ++c) sum[c] += texel_weights[corner] * unit * static_cast<double>(value.value[c]);
      }
    }
  }
  texel_floats out;
  for (int c = 0; c < 4; ++c) out.value[c] = flush_subnormal(static_cast<float>(sum[c]));
  return out;
}

/// A 2D fetch with gradients dx and dy (in the texture's coordinates): the
/// level of detail as level_from_gradients gives it, and, for a texture with
/// maxAnisotropy above 1 and linear filtering, the samples along the major
/// axis on each level read whose line is longer than 2 texels (a shorter
/// line, as for an isotropic footprint, takes one sample at the centre).
template <int Dims>
texel_words sample_gradients(const texture_sampler& s, const texture_coordinates<Dims>& at, int slice,
                             const float (&dx)[Dims], const float (&dy)[Dims]) {
  float level = level_from_gradients<Dims>(s, dx, dy);
  if constexpr (Dims == 2) {
    if (s.max_anisotropy > 1 && s.linear_filter) {
      float texel_dx[2], texel_dy[2];
      for (int d = 0; d < 2; ++d) {
        float scale = s.normalized_coordinates ? s.levels[0].float_size[d] : 1.0f;
        texel_dx[d] = dx[d] * scale;
        texel_dy[d] = dy[d] * scale;
      }
      double p[2], q[2];
      held_gradients(texel_dx, texel_dy, p, q);
      footprint_major_axis major = major_axis_of_footprint(p, q);
      // The levels read and their shares (256ths), as sample_lod takes them.
      int read[2] = {0, 0}, share[2] = {weight_one, 0};
      if (s.level_count() > 1) {
        float lod = clamped_level_of_detail(s, level);
        int last = s.level_count() - 1;
        if (!s.linear_mipmap_filter) {
          int nearest = static_cast<int>(std::floor(lod + 0.5f));
          read[0] = nearest > last ? last : nearest;
        } else {
          fixed_coordinate f = to_fixed_level(lod);
          if (f.texel < last) f.fraction = sharpened_level_fraction(f.fraction, s.max_anisotropy);
          if (f.fraction == weight_one) f = {f.texel + 1, 0};
          read[0] = f.texel >= last ? last : f.texel;
          if (f.texel < last && f.fraction != 0) {
            read[1] = f.texel + 1;
            share[0] = weight_one - f.fraction;
            share[1] = f.fraction;
          }
        }
      }
      // Off the axes the H100's direction is not found: weft takes the
      // samples only along an axis, one at the centre otherwise.
      bool along_an_axis = (major.x == 0) != (major.y == 0);
      if (along_an_axis && std::ldexp(major.length, -read[0]) > 2.0) {
        int step[2];
        anisotropic_step(major.x, major.y, step);
        texel_floats out{{0, 0, 0, 0}};
        for (int k = 0; k < 2 && share[k] != 0; ++k) {
          const texture_level& l = s.levels[read[k]];
          double length = std::ldexp(major.length, -read[k]);
          texel_floats value = length > 2.0
                                   ? sample_level_anisotropic(s, l, at, slice, step, anisotropic_sample_weights(length))
                                   : as_floats(sample_level<2>(s, l, at, slice));
          if (share[k] == weight_one) return as_words(value);
          for (int c = 0; c < 4; ++c) out.value[c] += static_cast<float>(share[k]) / weight_one * value.value[c];
        }
        return as_words(out);
      }
    }
  }
  return sample_lod<Dims>(s, at, slice, level, true);
}

}  // namespace weft::detail::textures
