// Sweeps that separate the candidate rules for the gradient levels that
// measure_gradient_rules.cu left open (issue 15), run on an H200 (the
// H100's GH100 texture unit). Mipmaps whose level l holds l, point
// filtering within levels and linear between them, so each result is the
// level (256ths) the unit took, after maxAnisotropy's sharpened blend.
// - E: tex2DGrad, 1024^2, maxAnisotropy 0, 12000 pseudo-random gradient
//   pairs, most with a diagonal as the major axis, whose components mix
//   signs and exponents and keep bits below the 10-bit grid. Every query
//   printed: `E i dx0 dx1 dy0 dy1 value` (normalized coordinates).
// - F: tex2DGrad, 1024^2, maxAnisotropy 16, mipmapLevelBias 0 (F) and 0.5
//   (G): 6000 pseudo-random footprints, dx = (P, s), dy = (t, Q) with the
//   minor axis the level, then 8 sweeps of t across (-Q, Q) in 4096 steps
//   with P, s, Q fixed (the area P Q - s t crossing the log table's steps).
//   Random ones all printed (`F r i ...`), sweeps the first and each change
//   (`F s sweep i ...`); G the same with the bias.
// - T: tex3DGrad, 256^3, maxAnisotropy 0, dx = (L, b, c) texels, dy = 0:
//   b = m 2^-(9+e), c = (n + h) 2^-(9+e), n = 0..m, and for each (m, n) four
//   largest components L = L0 + i/512 (L0 = 1, or b for e = 0), so that the
//   four levels give the length L + share to 1/512: the share itself, as
//   the unit truncates it to the largest's 10-bit grid. Printed where the
//   four levels change along n: `T pass m n v0 v1 v2 v3` (256ths).
//   nvcc -O2 -arch=sm_90 -std=c++17 measure_gradient_rules2.cu -o m2 && ./m2
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "level_mipmap_fetches.cuh"

// A deterministic generator, so that weft's build makes the same queries.
static unsigned long long state = 0x9e3779b97f4a7c15ull;
static double uniform() {  // [0, 1)
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (state >> 11) * (1.0 / 9007199254740992.0);
}
static double between(double lo, double hi) { return lo + (hi - lo) * uniform(); }
static double power_of_two_between(double lo, double hi) {  // 2^u, u uniform in [lo, hi)
  double u = between(lo, hi), v = 1;
  while (u >= 1) v *= 2, u -= 1;
  while (u < 0) v /= 2, u += 1;
  return v * (1 + u * (0.6931 + u * (0.2402 + u * 0.0667)));  // close enough to 2^u: only a spread
}
static double sign() { return uniform() < 0.5 ? -1 : 1; }

int main() {
  {
    const int side = 1024, levels = 11;
    const float k = 1.0f / side;
    cudaMipmappedArray_t m = level_mipmap(side, levels, false);
    // E: diagonals. dy near +-dx (so that a diagonal is the major axis),
    // its components' magnitudes and signs perturbed apart.
    std::vector<Query> e;
    while (e.size() < 12000) {
      double a = sign() * power_of_two_between(-2, 7), b = sign() * a * power_of_two_between(-9, 0.3);
      double c = a * between(0.4, 1.6), d = b * between(-1.6, 1.6);
      if (uniform() < 0.5) d = sign() * std::fabs(a) * power_of_two_between(-9, 0.3);
      if (uniform() < 0.5) c += sign() * std::fabs(a) * power_of_two_between(-6, -1);
      if (uniform() < 0.5) std::swap(a, b), std::swap(c, d);
      double sx = a + c, sy = b + d, tx = a - c, ty = b - d;
      double diagonal = std::fmax(std::fabs(sx) + std::fabs(sy) / 3, std::fabs(tx) + std::fabs(ty) / 3) * 11 / 16;
      double longer = std::fmax(std::fabs(a) + std::fabs(b) / 3, std::fabs(c) + std::fabs(d) / 3);
      if (diagonal < longer * 1.01 && uniform() < 0.8) continue;
      e.push_back({make_float4(a * k, b * k, 0, 0), make_float4(c * k, d * k, 0, 0)});
    }
    std::vector<float> out = run(fetch_2d, make_texture(m, levels, 0, 0), e);
    for (size_t i = 0; i < e.size(); ++i)
      printf("E %zu %a %a %a %a %a\n", i, e[i].dx.x, e[i].dx.y, e[i].dy.x, e[i].dy.y, out[i]);

    // F: minor axes.
    std::vector<Query> f;
    std::vector<int> sweep, index;
    for (int i = 0; i < 6000; ++i) {
      double p = sign() * power_of_two_between(1, 3.5), q = sign() * power_of_two_between(-1, 1.5);
      double s = sign() * std::fabs(p) * power_of_two_between(-10, -1.2);
      double t = sign() * std::fabs(q) * power_of_two_between(-10, 0);
      if (i % 3 == 0) {  // arbitrary footprints
        s = sign() * power_of_two_between(-4, 3.5);
        t = sign() * power_of_two_between(-4, 3.5);
      }
      f.push_back({make_float4(p * k, s * k, 0, 0), make_float4(t * k, q * k, 0, 0)});
      sweep.push_back(-1);
      index.push_back(i);
    }
    int id = 0;
    for (double p : {6.0, 6.12345}) {
      for (double s : {0.75, -0.3}) {
        for (double q : {1.0, 1.3}) {
          for (int i = 0; i <= 4096; ++i) {
            double t = q * (2.0 * i / 4096 - 1);
            f.push_back({make_float4(p * k, s * k, 0, 0), make_float4(t * k, q * k, 0, 0)});
            sweep.push_back(id);
            index.push_back(i);
          }
          ++id;
        }
      }
    }
    for (int variant = 0; variant < 2; ++variant) {
      std::vector<float> out = run(fetch_2d, make_texture(m, levels, 16, variant ? 0.5f : 0.0f), f);
      char name = variant ? 'G' : 'F';
      for (size_t i = 0; i < f.size(); ++i) {
        bool same = i > 0 && sweep[i] >= 0 && sweep[i] == sweep[i - 1] && out[i] == out[i - 1];
        if (same) continue;
        if (sweep[i] < 0)
          printf("%c r %d %a %a %a %a %a\n", name, index[i], f[i].dx.x, f[i].dx.y, f[i].dy.x, f[i].dy.y, out[i]);
        else
          printf("%c s %d %d %a %a %a %a %a\n", name, sweep[i], index[i], f[i].dx.x, f[i].dx.y, f[i].dy.x, f[i].dy.y,
                 out[i]);
      }
    }
  }
  {  // T: 3D shares, read exactly through four largest components
    const int side = 256, levels = 9;
    const float k = 1.0f / side;
    cudaTextureObject_t t = make_texture(level_mipmap(side, levels, true), levels, 0, 0);
    struct Pass {
      int e, step;
      double h;
    };
    const Pass passes[] = {{0, 4, 0}, {1, 4, 0}, {2, 4, 0}, {1, 16, 0.5}, {3, 16, 0}};
    for (int pass = 0; pass < 5; ++pass) {
      const Pass& ps = passes[pass];
      double unit = 1.0 / (512 << ps.e);
      std::vector<Query> q;
      for (int m = 512; m <= 1020; m += ps.step) {
        double b = m * unit, l0 = ps.e == 0 ? b : 1.0;
        for (int n = 0; n <= m; ++n)
          for (int i = 0; i < 4; ++i)
            q.push_back({make_float4((l0 + i / 512.0) * k, b * k, (n + ps.h) * unit * k, 0), make_float4(0, 0, 0, 0)});
      }
      std::vector<float> out = run(fetch_3d, t, q);
      size_t j = 0;
      for (int m = 512; m <= 1020; m += ps.step) {
        int last[4] = {-1, -1, -1, -1};
        for (int n = 0; n <= m; ++n, j += 4) {
          int v[4];
          for (int i = 0; i < 4; ++i) v[i] = (int)(out[j + i] * 256 + 0.5f);
          if (memcmp(v, last, sizeof v) == 0) continue;
          memcpy(last, v, sizeof v);
          printf("T %d %d %d %d %d %d %d\n", pass, m, n, v[0], v[1], v[2], v[3]);
        }
      }
    }
  }
  printf("done %d\n", (int)cudaGetLastError());
  return 0;
}
