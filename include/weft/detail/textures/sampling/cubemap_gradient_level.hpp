// The level of detail of a cubemap fetch with gradients (texCubemapGrad,
// texCubemapLayeredGrad), as an H100 takes it: the 2D rule
// (gradient_level.hpp, maxAnisotropy included) on the face texels each
// gradient moves the direction by. That move is a difference, not a
// derivative: the direction plus the gradient and the direction itself,
// each as a coordinate of the direction's face (the other two components
// over the major one), subtracted, times half the face's size. So at a
// face's centre a gradient along the major axis changes nothing, while off
// the centre it moves the face coordinate.
//
// Where direction + gradient lies on another face (its largest component is
// another axis N), the face is unfolded across the edge they share: the
// coordinate along N goes on past the edge, 1 + (1 - major / |N|) (2 at the
// far edge of the neighbouring face), and the third coordinate is taken on
// the neighbouring face (over |N|). The move along N is the move to the edge
// plus the move past it, each in texels truncated to 10 bits (as a gradient
// component is held) before they are added. From (1, 0.5, 0) on 256-texel
// faces, a gradient (0, 1, 0) reaches (1, 1.5, 0) on +y: 0.5 + (1 - 1/1.5)
// of a half face, 64 + 42.625 texels (42.67 exactly), where the projection
// onto +x alone would say 128. Such a footprint takes the level of its
// longer gradient alone (no diagonal, no minor axis), whatever maxAnisotropy
// is. Where direction + gradient lies on the opposite face, the level is the
// texture's last.
//
// Fitted on an H200 (the H100's texture unit): cubemap_gradients.txt,
// gradients3d.txt and gradient_rules.txt's crossing sweeps
// (tests/differential/h100_measurements/check_gradient_levels.cpp counts
// them).
#pragma once

#include <cmath>

#include "weft/detail/textures/sampling/gradient_level.hpp"

namespace weft::detail::textures {

/// The axis of the largest magnitude, ties going to z over y over x, as
/// cubemap_face picks a face.
inline int cubemap_major_axis(const double (&v)[3]) {
  double x = std::fabs(v[0]), y = std::fabs(v[1]), z = std::fabs(v[2]);
  return z >= y && z >= x ? 2 : (y >= x ? 1 : 0);
}

/// The texels of level 0 (faces of `face_size`) that `gradient` moves the
/// direction by, along the two axes across the direction's face; true where
/// direction + gradient lies on another face.
inline bool cubemap_face_texels(const double (&direction)[3], const double (&gradient)[3], double face_size,
                                float (&texels)[2]) {
  int major = cubemap_major_axis(direction);
  int across[2] = {major == 0 ? 1 : 0, major == 2 ? 1 : 2};
  double major_magnitude = std::fabs(direction[major]);
  const double moved[3] = {direction[0] + gradient[0], direction[1] + gradient[1], direction[2] + gradient[2]};
  int moved_major = cubemap_major_axis(moved);
  bool crosses = moved_major != major;
  double over = crosses ? std::fabs(moved[moved_major]) : std::fabs(moved[major]);
  double toward_face = direction[major] < 0 ? -moved[major] : moved[major];
  const double half_face = face_size / 2;
  for (int k = 0; k < 2; ++k) {
    int a = across[k];
    double start = direction[a] / major_magnitude;
    if (crosses && a == moved_major) {
      // The H200 holds the move to the edge and the move past it to 10 bits
      // each before adding them: with the exact sum, weft's level was 1/256
      // or 2/256 above the H200's wherever either piece was off its grid
      // (gradient_rules.txt's sweep 07, from (1, 0.3, 0.2): 221 of 2049).
      double toward_edge = std::copysign(1.0, moved[a]);
      double to_edge = truncate_to_bits((toward_edge - start) * half_face, gradient_component_bits);
      double past_edge = truncate_to_bits((1 - toward_face / over) * half_face, gradient_component_bits);
      texels[k] = static_cast<float>(to_edge + toward_edge * past_edge);
      continue;
    }
    texels[k] = static_cast<float>((moved[a] / over - start) * half_face);
  }
  return crosses;
}

/// True where direction + gradient lies on the face opposite the
/// direction's (the same major axis, the other sign).
inline bool cubemap_reaches_opposite_face(const double (&direction)[3], const double (&gradient)[3]) {
  int major = cubemap_major_axis(direction);
  const double moved[3] = {direction[0] + gradient[0], direction[1] + gradient[1], direction[2] + gradient[2]};
  return cubemap_major_axis(moved) == major && (moved[major] < 0) != (direction[major] < 0);
}

/// A level above every texture's last: a footprint without bound.
inline constexpr int unbounded_gradient_level = 1 << 20;

/// The level, in 256ths, of the longer of two gradients (in face texels) by
/// their approximate lengths alone: no diagonal, no minor axis.
inline int longer_gradient_level(const float (&dx)[2], const float (&dy)[2]) {
  double p[2], q[2];
  held_gradients(dx, dy, p, q);
  return fixed_level_log2(std::fmax(approximate_length(p[0], p[1]), approximate_length(q[0], q[1])));
}

/// The level of detail, in 256ths, of a cubemap fetch in direction (x, y, z)
/// with gradients dx and dy, on faces of `face_size` texels at level 0,
/// before the texture's bias and clamps. Where a gradient crosses onto
/// another face, the H200 takes the level of the longer gradient alone (no
/// diagonal, no minor axis), whatever maxAnisotropy is; the blend between
/// levels is still sharpened. Of gradients3d.txt's 135 such fetches for
/// each maxAnisotropy 0, 2, 4 and 16, none misses so; with the major
/// axis of four lengths, the diagonals too, 66, 61, 60 and 56 missed, and
/// with the minor axis every one. Where a gradient reaches the opposite
/// face, the level is the texture's last (gradients3d.txt: the 12 such
/// fetches, 3 footprints, where the face projection gave 7.3 to 7.9 on
/// 256-texel faces).
inline int cubemap_level_from_footprint(const double (&direction)[3], const double (&dx)[3], const double (&dy)[3],
                                        double face_size, unsigned max_anisotropy) {
  if (cubemap_reaches_opposite_face(direction, dx) || cubemap_reaches_opposite_face(direction, dy))
    return unbounded_gradient_level;
  float texel_dx[2], texel_dy[2];
  bool crosses = cubemap_face_texels(direction, dx, face_size, texel_dx);
  crosses |= cubemap_face_texels(direction, dy, face_size, texel_dy);
  if (crosses) return longer_gradient_level(texel_dx, texel_dy);
  return level_from_footprint(texel_dx, texel_dy, max_anisotropy);
}

}  // namespace weft::detail::textures
