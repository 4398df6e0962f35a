// Seamless cubemap filtering (cudaTextureDesc::seamlessCubemap): a linear
// fetch near a face's edge blends the texels across the edge, on the
// neighbouring face, instead of clamping to the edge of its own face.
//
// As an H100 does it (tests/differential/texture_probe.cu, "cube", and a
// sweep of 400 directions over 8 x 8 faces in each address mode, all
// matched): the four texels and their weights are the bilinear ones on the
// face the direction meets; a texel one past an edge is the texel of the
// neighbouring face that touches the edge there, and the address modes
// play no part. At a cube's corner one of the four lies past two edges and
// has no texel: its weight w goes to the other three, round(w / 3) to each
// of the two beside it and the rest to the one across.
#pragma once

#include <cmath>
#include <cstddef>

#include "weft/detail/textures/sampling/cubemap_faces.hpp"
#include "weft/detail/textures/sampling/texel_reading.hpp"
#include "weft/detail/textures/sampling/texel_values.hpp"
#include "weft/detail/textures/sampling/texture_addressing.hpp"
#include "weft/detail/textures/sampling/texture_sampler.hpp"
#include "weft/detail/textures/sampling/texture_sampling.hpp"

namespace weft::detail::textures {

/// A texel of a cube: its face and its column and row on it.
struct cube_texel {
  int face, i, j;
};

/// The direction, in integers, of the point of face `face` at major-axis
/// distance m and face coordinates (s, t): cubemap_face's table backwards.
inline void face_point_direction(int face, int m, int s, int t, int (&d)[3]) {
  switch (face) {
    case 0:
      d[0] = m, d[1] = -t, d[2] = -s;
      return;
    case 1:
      d[0] = -m, d[1] = -t, d[2] = s;
      return;
    case 2:
      d[0] = s, d[1] = m, d[2] = t;
      return;
    case 3:
      d[0] = s, d[1] = -m, d[2] = -t;
      return;
    case 4:
      d[0] = s, d[1] = -t, d[2] = m;
      return;
    default:
      d[0] = -s, d[1] = -t, d[2] = -m;
      return;
  }
}

/// Texel (i, j) of `face` of a cube `n` texels wide, one of i and j one
/// past an edge: the texel of the neighbouring face beside it. Coordinates
/// are counted in half texels from the face's centre (texel i's centre at
/// 2i + 1 - n), so that all of it is exact.
inline cube_texel across_edge(int face, int n, int i, int j) {
  int s = 2 * i + 1 - n, t = 2 * j + 1 - n;
  // The point past the edge, folded onto the neighbouring face: its
  // coordinate across the edge becomes that face's major axis, and the
  // distance past the edge comes off this face's.
  int d[3];
  if (i < 0 || i >= n)
    face_point_direction(face, n - 1, s < 0 ? -n : n, t, d);
  else
    face_point_direction(face, n - 1, s, t < 0 ? -n : n, d);
  cube_texel out;
  int ss, tt;
  if (d[0] == n || d[0] == -n) {
    out.face = d[0] > 0 ? 0 : 1;
    ss = d[0] > 0 ? -d[2] : d[2];
    tt = -d[1];
  } else if (d[1] == n || d[1] == -n) {
    out.face = d[1] > 0 ? 2 : 3;
    ss = d[0];
    tt = d[1] > 0 ? d[2] : -d[2];
  } else {
    out.face = d[2] > 0 ? 4 : 5;
    ss = d[2] > 0 ? d[0] : -d[0];
    tt = -d[1];
  }
  out.i = (ss + n - 1) / 2;
  out.j = (tt + n - 1) / 2;
  return out;
}

/// The four texels (x fastest) of a seamless linear fetch of cube `cube` of
/// one level at position `p`, and their weights in 256ths, the level's share
/// of the fetch being `share` 256ths: a level's weights as a 2D linear
/// mipmap fetch forms them (mipmap_level_weights), then a missing corner's
/// weight shared out.
inline void seamless_footprint(const texture_sampler& s, const texture_level& level, const cubemap_position& p,
                               int cube, int share, const std::byte** texels, int* w) {
  int n = level.size[0];
  fixed_coordinate fx = linear_texels(to_fixed_texel(p.u, true, n));
  fixed_coordinate fy = linear_texels(to_fixed_texel(p.v, true, n));
  mipmap_level_weights(fx.fraction, fy.fraction, share, w);
  auto texel_at = [&](int face, int i, int j) {
    return level.base + static_cast<std::size_t>(cube * 6 + face) * level.layer_pitch +
           static_cast<std::size_t>(i) * level.stride[0] + static_cast<std::size_t>(j) * level.stride[1];
  };
  int missing = -1;
  for (int corner = 0; corner < 4; ++corner) {
    int i = fx.texel + (corner & 1), j = fy.texel + (corner >> 1);
    bool i_on = i >= 0 && i < n, j_on = j >= 0 && j < n;
    if (i_on && j_on) {
      texels[corner] = texel_at(p.face, i, j);
    } else if (i_on || j_on) {
      cube_texel t = across_edge(p.face, n, i, j);
      texels[corner] = texel_at(t.face, t.i, t.j);
    } else {
      missing = corner;
      texels[corner] = s.border_texel;  // weight 0: never read
    }
  }
  if (missing >= 0) {
    int lost = w[missing], beside = (lost + 1) / 3;
    w[missing ^ 1] += beside;
    w[missing ^ 2] += beside;
    w[missing ^ 3] += lost - 2 * beside;
    w[missing] = 0;
  }
}

/// A seamless linear fetch of cube `cube` of one level at position `p`.
inline texel_words sample_seamless_cubemap(const texture_sampler& s, const texture_level& level,
                                           const cubemap_position& p, int cube) {
  const std::byte* texels[4];
  int w[4];
  seamless_footprint(s, level, p, cube, weight_one, texels, w);
  float weights[4];
  for (int k = 0; k < 4; ++k) weights[k] = static_cast<float>(w[k]) / weight_one;
  return s.routines->blend[1](texels, weights, s.border_floats);
}

/// A seamless fetch at a level of detail: the levels chosen as sample_lod
/// chooses them. Two levels are one blend of their eight texels, each
/// level's weights formed within its share as a 2D linear mipmap fetch forms
/// them, a missing corner's share then given to the other three (all 600
/// fetches of h100_measurements/seamless_mipmaps.txt); mixing two seamless
/// fetches by the level's fraction is up to 1/256 of a texel off.
inline texel_words sample_seamless_lod(const texture_sampler& s, const cubemap_position& p, int cube, float level) {
  if (s.level_count() == 1) return sample_seamless_cubemap(s, s.levels[0], p, cube);
  float lod = clamped_level_of_detail(s, level);
  int last = s.level_count() - 1;
  if (!s.linear_mipmap_filter) {
    int nearest = static_cast<int>(std::floor(lod + 0.5f));
    return sample_seamless_cubemap(s, s.levels[nearest > last ? last : nearest], p, cube);
  }
  fixed_coordinate f = to_fixed_level(lod);
  if (f.texel >= last) return sample_seamless_cubemap(s, s.levels[last], p, cube);
  if (f.fraction == 0) return sample_seamless_cubemap(s, s.levels[f.texel], p, cube);
  const std::byte* texels[8];
  int w[8];
  seamless_footprint(s, s.levels[f.texel], p, cube, weight_one - f.fraction, texels, w);
  seamless_footprint(s, s.levels[f.texel + 1], p, cube, f.fraction, texels + 4, w + 4);
  float weights[8];
  for (int k = 0; k < 8; ++k) weights[k] = static_cast<float>(w[k]) / weight_one;
  return s.routines->blend[2](texels, weights, s.border_floats);
}

}  // namespace weft::detail::textures
