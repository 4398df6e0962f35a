// Anisotropic filtering: the samples an H100 takes along a footprint's
// major axis when a 2D fetch with gradients (tex2DGrad, tex2DLayeredGrad)
// reads a texture whose maxAnisotropy is above 1. Fitted to a delta texel
// swept by such fetches on an H200, the H100's texture unit
// (tests/differential/h100_measurements/anisotropy*.txt), and to
// texture_probe's anisotropic lines:
// - The line has length P: the major axis's approximate length
//   (gradient_level.hpp) over 2^lod, lod the level of detail before its
//   sharpening (their logs in 256ths subtracted). Where P is above 2,
//   samples lie at +-0.5, +-1.5, ..., ceil(P/2) on each side, in steps of
//   one texel of the lower level read, or, between two levels, of 2^f of
//   them, f the sharpened fraction (rounded to 64ths). Where 1 < P <= 2,
//   two samples of 1/2 lie at +-(1 - 1/P) steps (short_line_weights).
// - Each sample but the outermost pair weighs 1/P, taken from P's 8-bit
//   log2 (2^-log2(P)) rounded to nearest at 8 significant bits (truncated
//   to 1024ths past P = 8); the outermost pair shares what is left of 1. So
//   weights are multiples of 2^-8 to 2^-10, the unit of the inner weight's
//   8th bit.
// - The step is a vector of one texel in 64ths (anisotropic_step): the
//   major axis's components cut to 4 bits of the longer one's binade and
//   taken at the middle of their cells, so off the axes it departs from the
//   major axis by up to a few degrees.
// - Between two levels, on the lower one the step times 2^f is truncated to
//   64ths; the upper level takes a line of its own over the same length
//   (P 2^f / 2 of its texels, two samples where that is 2 or less), its
//   samples one step of its own texels apart and weighted by that length's
//   rule. The samples' weights times their level's share are rounded as a
//   running sum, and each goes to the sample's four texels as a trilinear
//   fetch shares a level's weight among them (mipmap_level_weights), or,
//   with point filtering, to the one texel the sample falls in.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "weft/detail/textures/sampling/gradient_level.hpp"
#include "weft/detail/textures/sampling/texel_values.hpp"
#include "weft/detail/textures/sampling/texture_addressing.hpp"
#include "weft/detail/textures/sampling/texture_sampler.hpp"
#include "weft/detail/textures/sampling/texture_sampling.hpp"

namespace weft::detail::textures {

/// Fractional bits of the components of the step between samples.
inline constexpr int anisotropic_step_bits = 6;

/// The weights of the samples along a line of length P > 2 texels.
struct anisotropic_weights {
  int pairs;         // samples on each side of the centre
  int inner;         // each sample's weight but the outermost pair's, in units of 2^-unit_bits
  int outer;         // each of the outermost pair's
  int unit_bits;     // 8 to 11
  int short_offset;  // a line of 1 to 2 texels: its pair's offset from the centre, 256ths of a step
  bool short_line;
};

/// A line of P texels, 1 < P <= 2 (its 8-bit log2 `log_length` in (0, 256]):
/// two samples of 1/2 each (in 512ths), at +-(1 - 1/P) steps from the
/// centre, 1/P taken as 2^-(P's 8-bit log2) truncated to 256ths (an H200:
/// P = 1.25, 1.5, 1.75 at +-52, 86, 110 256ths; P = 2 at +-1/2). A line of
/// 1 or less (log_length <= 0; an upper level's) has both at the centre.
inline anisotropic_weights short_line_weights(int log_length) {
  double reciprocal = std::exp2(-static_cast<double>(log_length) / (1 << gradient_level_bits));
  int kept = log_length > 0 ? static_cast<int>(std::floor(std::ldexp(reciprocal, 8))) : 1 << 8;
  return anisotropic_weights{1, 0, 1 << 8, 9, (1 << 8) - kept, true};
}

/// The weights for a line of `length` texels of the level sampled, whose
/// base-2 logarithm is `log_length` (256ths, as fixed_level_log2 gives it):
/// the count from the length, the weights from its log (P = 6: three pairs,
/// though 2^(log/256) is 6.0017).
inline anisotropic_weights anisotropic_sample_weights_of_log(int log_length, double length) {
  anisotropic_weights w{};
  w.pairs = static_cast<int>(std::ceil(length / 2));
  double reciprocal = std::exp2(-static_cast<double>(log_length) / (1 << gradient_level_bits));
  int exponent = 0;
  std::frexp(reciprocal, &exponent);  // reciprocal in [2^(exponent - 1), 2^exponent)
  // 8 significant bits, but no finer than 1/1024 (P = 9.39: 109/1024, the
  // texels' shares in 1024ths too); a power of two counts in the binade
  // below it (P = 4 weighs 256/1024, not 128/512: texture_probe's fetch
  // along y).
  int significant_bits = 8 - exponent + (std::ldexp(1.0, exponent - 1) == reciprocal ? 1 : 0);
  w.unit_bits = significant_bits > 10 ? 10 : significant_bits;
  // Rounded to nearest at 8 significant bits: P = 3 (log 406/256) weighs
  // 170.55/512, so 171/512; 4.44531 (log 551/256) 230.35/1024, so 230/1024
  // (anisotropy5.txt: 174 of 175 random lines). Past P = 8 that is then
  // truncated to 1024ths: P = 8.0625 weighs 126.62/1024, 253/2048, so
  // 126/1024 (anisotropy6.txt: every P from 2 to 9 in 32nds).
  w.inner =
      static_cast<int>(std::floor(std::ldexp(reciprocal, significant_bits) + 0.5)) >> (significant_bits - w.unit_bits);
  int rest = (1 << w.unit_bits) - 2 * w.inner * (w.pairs - 1);
  w.outer = rest > 0 ? rest / 2 : 0;
  return w;
}

/// The weights for a line of `length` texels of the level sampled.
inline anisotropic_weights anisotropic_sample_weights(double length) {
  return anisotropic_sample_weights_of_log(fixed_level_log2(length), length);
}

/// Bits of the major axis's components that choose the step's direction:
/// each is cut to a grid of 1/16 of the binade above the longer component.
inline constexpr int anisotropic_direction_bits = 4;

/// The step between samples, in 64ths of a texel, along the major axis
/// (x, y), as the H100 takes it: each component truncated to the grid of
/// 2^(e - 4), 2^e the power of two above the longer one's magnitude, and
/// moved to the middle of its cell; that vector's direction at length 64,
/// each component rounded. A component under a quarter of the grid counts as
/// zero, so that a footprint along an axis steps along it (measured once:
/// 0.0349 beside 3.996 counts as zero, 0.0698 does not).
inline void anisotropic_step(double x, double y, int (&step)[2]) {
  double longer = std::fmax(std::fabs(x), std::fabs(y));
  if (!(longer > 0) || std::isinf(longer)) {
    step[0] = step[1] = 0;
    return;
  }
  int exponent = 0;
  std::frexp(longer, &exponent);  // longer in [2^(exponent - 1), 2^exponent)
  double grid = std::ldexp(1.0, exponent - anisotropic_direction_bits);
  double middle[2];
  double component[2] = {x, y};
  for (int d = 0; d < 2; ++d) {
    double magnitude = std::fabs(component[d]);
    middle[d] = magnitude < grid / 4 ? 0.0 : std::copysign(std::floor(magnitude / grid) + 0.5, component[d]);
  }
  double scale = (1 << anisotropic_step_bits) / std::hypot(middle[0], middle[1]);
  for (int d = 0; d < 2; ++d)
    step[d] = static_cast<int>(std::copysign(std::floor(std::fabs(middle[d]) * scale + 0.5), middle[d]));
}

/// The spacing of the samples between two levels, 2^f steps (f the
/// sharpened fraction, in 256ths), in 64ths: the 8-bit mantissa whose log
/// the log table (level_log2_fraction) first gives as f or more, rounded to
/// 64ths half to even. f = 112 gives 86, where 2^f is 86.67/64 (anisotropy5.txt,
/// configuration 15), and 168 gives 101, where 2^f is 100.86/64.
inline int anisotropic_spacing(int sharpened) {
  int mantissa = 0;  // 256ths above 1
  while (mantissa < 256 && level_log2_fraction[mantissa] < sharpened) ++mantissa;
  int whole = mantissa >> 2, rest = mantissa & 3;
  if (rest > 2 || (rest == 2 && (whole & 1) != 0)) ++whole;
  return (1 << anisotropic_step_bits) + whole;
}

/// Where and how an anisotropic fetch samples: the step (64ths of a texel),
/// the spacing of the samples on `lower` in steps (64ths), each level's
/// weights, and the one or two levels with their shares (256ths). The level
/// above `lower` takes its samples one step of its own texels apart.
struct anisotropic_line {
  int step[2];
  int spacing;
  anisotropic_weights weights[2];  // on `lower` and on the level above it
  int lower;
  int share[2];  // of `lower` and of the level above it
};

/// The shift of a short line's sample (1 < P <= 2) from the centre: `offset`
/// 256ths of a step of `step` 64ths, each component's magnitude truncated to
/// 256ths of a texel (an H200, off the axes: 15 of 17 short lines match
/// with this, 14 with the exact product).
inline fixed_texel_coordinate short_line_shift(int side, int offset, int step) {
  int magnitude = (offset * (step < 0 ? -step : step)) >> anisotropic_step_bits;  // 256ths of a texel
  int sign = (step < 0) == (side < 0) ? 1 : -1;
  return static_cast<fixed_texel_coordinate>(sign * magnitude) * (fixed_texel_coordinate{1} << (coordinate_bits - 8));
}

/// The samples along the line on each level, each sample's weight scaled by
/// the level's share (rounded half up, in the weights' unit) and shared among
/// its four texels there (mipmap_level_weights). On `lower` the samples lie
/// spacing/64 steps apart, the product truncated to 64ths of a texel; on the
/// level above, one step apart. The texel values are summed in double and
/// returned as float.
inline texel_floats sample_anisotropic(const texture_sampler& s, const texture_coordinates<2>& at, int slice,
                                       const anisotropic_line& line) {
  double sum[4] = {0, 0, 0, 0};
  for (int k = 0; k < 2; ++k) {
    if (line.share[k] == 0) continue;
    const anisotropic_weights& weights = line.weights[k];
    double unit = std::ldexp(1.0, -weights.unit_bits);
    const texture_level& level = s.levels[line.lower + k];
    const std::byte* origin = level.base + static_cast<std::size_t>(slice) * level.layer_pitch;
    int spaced[2];  // 64ths of a texel of this level
    for (int d = 0; d < 2; ++d) {
      int product = k == 0 ? line.step[d] * line.spacing : line.step[d] << anisotropic_step_bits;
      spaced[d] = product < 0 ? -((-product) >> anisotropic_step_bits) : product >> anisotropic_step_bits;
    }
    // Each weight times the level's share is rounded as a running sum, from
    // the sample furthest back along the step, so that the shares add up:
    // a pair's two samples may differ by one unit (point filtering between
    // levels: 84, 172, 170, 86).
    int running = 0, rounded_before = 0;
    for (int order = 0; order < 2 * weights.pairs; ++order) {
      int side = order < weights.pairs ? -1 : 1;
      int pair = side < 0 ? weights.pairs - 1 - order : order - weights.pairs;
      int sample_weight = pair + 1 < weights.pairs ? weights.inner : weights.outer;
      running += sample_weight * line.share[k];
      int rounded = (running + weight_one / 2) >> weight_bits;
      int weight = rounded - rounded_before;
      rounded_before = rounded;
      if (weight == 0) continue;
      // pair + 1/2 spacings, in coordinate_bits fixed point of this level.
      fixed_texel_coordinate shift[2];
      for (int d = 0; d < 2; ++d)
        shift[d] = weights.short_line
                       ? short_line_shift(side, weights.short_offset, spaced[d])
                       : static_cast<fixed_texel_coordinate>(side * (2 * pair + 1) * spaced[d]) *
                             (fixed_texel_coordinate{1} << (coordinate_bits - anisotropic_step_bits - 1));
      if (!s.linear_filter) {  // the one texel under the sample takes its whole weight
        const std::byte* texel = origin;
        for (int d = 0; d < 2 && texel != s.border_texel; ++d) {
          int i = address_texel(point_texel(to_texel_space(s, level, d, at.value[d]) + shift[d]), level.size[d],
                                s.address[d]);
          texel = i == outside_texture ? s.border_texel : texel + static_cast<std::size_t>(i) * level.stride[d];
        }
        texel_floats value = s.routines->floats(texel);
        for (int c = 0; c < 4; ++c) sum[c] += weight * unit * static_cast<double>(value.value[c]);
        continue;
      }
      const std::byte* texels[4];
      int fractions[2];
      linear_footprint<2>(s, level, at, origin, texels, fractions, shift);
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
/// maxAnisotropy above 1, the samples along the major axis where its line
/// is longer than 1 texel (a line of 1 or less, as an isotropic footprint,
/// takes one sample at the centre). The line's
/// length P is the major axis over 2^lod (its log2 that of the major axis
/// less the level of detail, both in 256ths); between two levels the
/// samples lie 2^f texels of the lower level apart, f the sharpened
/// fraction, rounded to 64ths (the H200's configuration 15 of
/// anisotropy2.txt, between levels 1 and 2, bit for bit).
template <int Dims>
texel_words sample_gradients(const texture_sampler& s, const texture_coordinates<Dims>& at, int slice,
                             const float (&dx)[Dims], const float (&dy)[Dims]) {
  float level = level_from_gradients<Dims>(s, dx, dy);
  if constexpr (Dims == 2) {
    if (s.max_anisotropy > 1) {
      float texel_dx[2], texel_dy[2];
      for (int d = 0; d < 2; ++d) {
        float scale = s.normalized_coordinates ? s.levels[0].float_size[d] : 1.0f;
        texel_dx[d] = dx[d] * scale;
        texel_dy[d] = dy[d] * scale;
      }
      double p[2], q[2];
      held_gradients(texel_dx, texel_dy, p, q);
      footprint_major_axis major = major_axis_of_footprint(p, q);
      anisotropic_line line{};
      line.share[0] = weight_one;
      line.spacing = 1 << anisotropic_step_bits;
      int lod = 0;  // in 256ths, before the sharpening
      if (s.level_count() > 1) {
        float clamped = clamped_level_of_detail(s, level);
        int last = s.level_count() - 1;
        if (!s.linear_mipmap_filter) {
          int nearest = static_cast<int>(std::floor(clamped + 0.5f));
          line.lower = nearest > last ? last : nearest;
          lod = line.lower << weight_bits;
        } else {
          fixed_coordinate f = to_fixed_level(clamped);
          if (f.texel >= last) f = {last, 0};
          lod = (f.texel << weight_bits) + f.fraction;
          int sharpened = f.texel < last ? sharpened_level_fraction(f.fraction, s.max_anisotropy) : 0;
          if (sharpened == weight_one) {
            f.texel += 1;
            sharpened = 0;
          }
          line.lower = f.texel;
          if (sharpened != 0) {
            line.share[0] = weight_one - sharpened;
            line.share[1] = sharpened;
            line.spacing = anisotropic_spacing(sharpened);
          }
        }
      }
      int log_length = fixed_level_log2(major.length) - lod;
      if (log_length > 0) {  // P > 1
        anisotropic_step(major.x, major.y, line.step);
        double length = major.length * std::exp2(-static_cast<double>(lod) / weight_one);
        line.weights[0] = log_length <= (1 << gradient_level_bits)
                              ? short_line_weights(log_length)
                              : anisotropic_sample_weights_of_log(log_length, length);
        if (line.share[1] != 0) {
          // The level above covers the lower line's length, P spacings of
          // the lower level, in its own texels: P 2^(log/256) spacing/128.
          double upper_length = std::exp2(static_cast<double>(log_length) / (1 << gradient_level_bits)) * line.spacing /
                                (2 << anisotropic_step_bits);
          int upper_log = fixed_level_log2(upper_length);
          line.weights[1] = upper_log <= (1 << gradient_level_bits) ? short_line_weights(upper_log)
                                                                    : anisotropic_sample_weights(upper_length);
        }
        return as_words(sample_anisotropic(s, at, slice, line));
      }
    }
  }
  return sample_lod<Dims>(s, at, slice, level, true);
}

}  // namespace weft::detail::textures
