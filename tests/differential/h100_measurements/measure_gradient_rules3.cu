// Sweeps of the diagonals' shares (issue 15), run on an H200 (the H100's
// GH100 texture unit), after measure_gradient_rules2.cu: mipmaps whose level
// l holds l, point filtering within levels and linear between them,
// maxAnisotropy 0, so each result is the level (256ths) the unit took.
// dx = dy = (L, b, c) texels, so that dx + dy = 2 (L, b, c) exactly and the
// diagonal, scaled by 11/16, is the major axis: b = m 2^-(9+e),
// c = n 2^-(9+e), and for each (m, n) eight largest components
// L = L0 + i/512 (L0 = b for e = 0, else 1) whose scaled lengths step by
// 11/16 of a unit, so that the eight levels pin the share the other two
// components add. Printed where the eight levels change along n:
// - D: tex2DGrad, 1024^2, c = 0, every m from 512 to 1016, e = 0, 1, 2:
//   `D e m v0 .. v7`;
// - V: tex3DGrad, 256^3: `V pass m n v0 .. v7`, passes (e, m's step) =
//   (0, 8), (1, 8), (2, 16).
//   nvcc -O2 -arch=sm_90 -std=c++17 measure_gradient_rules3.cu -o m3 && ./m3
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "level_mipmap_fetches.cuh"

int main() {
  {  // D: 2D diagonals, c = 0
    const int side = 1024, levels = 11;
    const float k = 1.0f / side;
    cudaTextureObject_t t = make_texture(level_mipmap(side, levels, false), levels, 0, 0);
    std::vector<Query> q;
    for (int e = 0; e < 3; ++e)
      for (int m = 512; m <= 1016; ++m) {
        double b = m / double(512 << e), l0 = e == 0 ? b : 1.0;
        for (int i = 0; i < 8; ++i) {
          float4 g = make_float4((l0 + i / 512.0) * k, b * k, 0, 0);
          q.push_back({g, g});
        }
      }
    std::vector<float> out = run(fetch_2d, t, q);
    size_t j = 0;
    for (int e = 0; e < 3; ++e)
      for (int m = 512; m <= 1016; ++m, j += 8) {
        printf("D %d %d", e, m);
        for (int i = 0; i < 8; ++i) printf(" %d", (int)(out[j + i] * 256 + 0.5f));
        printf("\n");
      }
  }
  {  // V: 3D diagonals
    const int side = 256, levels = 9;
    const float k = 1.0f / side;
    cudaTextureObject_t t = make_texture(level_mipmap(side, levels, true), levels, 0, 0);
    const int shapes[3][2] = {{0, 8}, {1, 8}, {2, 16}};
    for (int pass = 0; pass < 3; ++pass) {
      int e = shapes[pass][0], step = shapes[pass][1];
      double unit = 1.0 / (512 << e);
      std::vector<Query> q;
      for (int m = 512; m <= 1016; m += step) {
        double b = m * unit, l0 = e == 0 ? b : 1.0;
        for (int n = 0; n <= m; ++n)
          for (int i = 0; i < 8; ++i) {
            float4 g = make_float4((l0 + i / 512.0) * k, b * k, n * unit * k, 0);
            q.push_back({g, g});
          }
      }
      std::vector<float> out = run(fetch_3d, t, q);
      size_t j = 0;
      for (int m = 512; m <= 1016; m += step) {
        int last[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
        for (int n = 0; n <= m; ++n, j += 8) {
          int v[8];
          for (int i = 0; i < 8; ++i) v[i] = (int)(out[j + i] * 256 + 0.5f);
          if (memcmp(v, last, sizeof v) == 0) continue;
          memcpy(last, v, sizeof v);
          printf("V %d %d %d", pass, m, n);
          for (int i = 0; i < 8; ++i) printf(" %d", v[i]);
          printf("\n");
        }
      }
    }
  }
  printf("done %d\n", (int)cudaGetLastError());
  return 0;
}
