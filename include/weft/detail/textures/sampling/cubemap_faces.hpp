// Which face of a cubemap a direction (x, y, z) meets, and where on it: the
// CUDA guide's cubemap table (appendix "Cubemap Textures"). The major axis
// (the coordinate of largest magnitude) picks the face; the other two,
// divided by it, give (s, t) in [-1, 1], and the face is read at the
// normalized coordinates ((s + 1) / 2, (t + 1) / 2).
#pragma once

#include <cmath>

namespace weft::detail::textures {

struct cubemap_position {
  int face;  // 0..5: +x, -x, +y, -y, +z, -z
  float u;   // normalized coordinates on the face
  float v;
};

/// Ties go to z over y over x, as on an H100: (1, 1, 0) reads the +y
/// face, (1, 1, 1) the +z face. A zero direction reads the centre of +z,
/// and so does one with an infinite component (an H100 reads (inf, 1, 0)
/// there, not at the centre of +x).
inline cubemap_position cubemap_face(float x, float y, float z) {
  if (std::isinf(x) || std::isinf(y) || std::isinf(z)) x = y = z = 0.0f;
  float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  int face;
  float s, t, major;
  if (ax > ay && ax > az) {
    face = x >= 0 ? 0 : 1;
    s = x >= 0 ? -z : z;
    t = -y;
    major = ax;
  } else if (ay > az) {
    face = y >= 0 ? 2 : 3;
    s = x;
    t = y >= 0 ? z : -z;
    major = ay;
  } else {
    face = z >= 0 ? 4 : 5;
    s = z >= 0 ? x : -x;
    t = -y;
    major = az;
  }
  float sm = s / major, tm = t / major;
  if (!(sm == sm)) sm = 0.0f;
  if (!(tm == tm)) tm = 0.0f;
  return {face, (sm + 1.0f) * 0.5f, (tm + 1.0f) * 0.5f};
}

}  // namespace weft::detail::textures
