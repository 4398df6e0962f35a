// Anisotropic filtering, sixth sweep (issue 15): what the earlier sweeps left
// out. A delta texel (value 1) on level 0 or 1 of a 256 x 256 float mipmap,
// other texels and levels zero; tex2DGrad swept around it. `C` lines name a
// configuration, `A config x y value` each nonzero result (x, y the query in
// level-0 texels, hex floats). Parts:
// - P: point filtering (filterMode point) with maxAnisotropy 16 or 4: does the
//   H100 take several samples, where (1/8-texel grid);
// - S: short lines, major axes of 1 to 3 texels, linear filtering
//   (1/16-texel grid);
// - T, t: an upper level's line of 2 texels or less: level of detail between
//   0 and 1 (minor axis dy), the delta on level 1 (T) or level 0 (t);
// - W: along x, maxAnisotropy 16, dy = 0, major axes 2 to 9 in 32nds; queries
//   at half-integer offsets along x through the delta, so that each value is
//   one sample's weight.
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
struct Q { float x, y; };
__global__ void k(cudaTextureObject_t t, const Q* q, int n, float2 dx, float2 dy, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = tex2DGrad<float>(t, q[i].x, q[i].y, dx, dy);
}
static cudaMipmappedArray_t make(int delta_level) {
  const int levels = 9, size = 256;
  cudaMipmappedArray_t m; cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(size, size, 0), levels, 0);
  for (int l = 0; l < levels; ++l) {
    cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m, l);
    int w = size >> l; std::vector<float> h(w * w, 0.f);
    if (l == delta_level) h[(128 >> l) * w + (128 >> l)] = 1.f;
    cudaMemcpy2DToArray(a, 0, 0, h.data(), w * 4, w * 4, w, cudaMemcpyHostToDevice);
  }
  return m;
}
struct Cfg { char part; int level; unsigned aniso; bool point; bool point_mip; float dx0, dx1, dy0, dy1; int per, reach; };
int main() {
  cudaMipmappedArray_t ms[2] = {make(0), make(1)};
  std::vector<Cfg> cfgs;
  const float pdx[][4] = {{4, 0, 0, 0}, {8, 0, 0, 0}, {3, 0, 0, 0}, {6, 0, 0, 0}, {2.5f, 0, 0, 0}, {1.5f, 0, 0, 0},
                          {3, 1, 0, 0}, {4.8f, 1.6f, 0, 0}, {0, 5, 0, 0}};
  for (auto& g : pdx) cfgs.push_back({'P', 0, 16, true, false, g[0], g[1], g[2], g[3], 8, 6});
  cfgs.push_back({'P', 0, 4, true, false, 4.8f, 1.6f, 0.8f, 0.32f, 8, 6});
  cfgs.push_back({'P', 0, 16, true, true, 4, 0, 0, 0, 8, 6});
  cfgs.push_back({'P', 1, 16, true, false, 6, 0, 0, 1.41421356f, 8, 8});
  cfgs.push_back({'P', 0, 16, true, false, 6, 0, 0, 1.41421356f, 8, 8});
  for (float L : {1.f, 1.25f, 1.5f, 1.75f, 2.f, 2.125f, 2.25f, 2.5f, 2.75f, 3.f})
    cfgs.push_back({'S', 0, 16, false, false, L, 0, 0, 0, 16, 4});
  for (float L : {1.25f, 1.5f, 1.75f, 2.f, 2.5f})
    cfgs.push_back({'S', 0, 16, false, false, L * 0.9396926f, L * 0.3420201f, 0, 0, 16, 4});
  cfgs.push_back({'S', 0, 2, false, false, 2, 0, 0, 1, 16, 4});
  cfgs.push_back({'S', 0, 4, false, false, 1.5f, 0, 0, 0.5f, 16, 4});
  for (float m : {1.41421356f, 1.18920712f})
    for (float L : {2.f, 2.5f, 3.f, 3.5f, 4.f, 5.f}) {
      cfgs.push_back({'T', 1, 16, false, false, L, 0, 0, m, 16, 8});
      cfgs.push_back({'t', 0, 16, false, false, L, 0, 0, m, 16, 8});
    }
  cfgs.push_back({'T', 1, 16, false, false, 2.4f, 1.0f, -0.5f, 1.2f, 16, 8});
  cfgs.push_back({'t', 0, 16, false, false, 2.4f, 1.0f, -0.5f, 1.2f, 16, 8});
  for (int i = 64; i <= 288; ++i) cfgs.push_back({'W', 0, 16, false, false, i / 32.f, 0, 0, 0, 2, 7});
  Q* dq; float* dout;
  const int max_n = 257 * 257;
  cudaMalloc(&dq, max_n * sizeof(Q)); cudaMalloc(&dout, max_n * 4);
  std::vector<float> out(max_n);
  for (int c = 0; c < (int)cfgs.size(); ++c) {
    const Cfg& g = cfgs[c];
    cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = ms[g.level];
    cudaTextureDesc d; memset(&d, 0, sizeof d);
    d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp;
    d.filterMode = g.point ? cudaFilterModePoint : cudaFilterModeLinear;
    d.mipmapFilterMode = g.point_mip ? cudaFilterModePoint : cudaFilterModeLinear;
    d.normalizedCoords = 1; d.maxMipmapLevelClamp = 8; d.maxAnisotropy = g.aniso;
    cudaTextureObject_t t; cudaError_t e = cudaCreateTextureObject(&t, &r, &d, nullptr);
    if (e) printf("create %d\n", (int)e);
    std::vector<Q> qs;
    if (g.part == 'W') {
      for (int sx = -g.reach * 2; sx <= g.reach * 2; ++sx) qs.push_back({(128.5f + sx * 0.5f) / 256, 128.5f / 256});
    } else {
      for (int sy = -g.reach * g.per; sy <= g.reach * g.per; ++sy)
        for (int sx = -g.reach * g.per; sx <= g.reach * g.per; ++sx)
          qs.push_back({(128.5f + sx / (float)g.per) / 256, (128.5f + sy / (float)g.per) / 256});
    }
    int n = qs.size();
    cudaMemcpy(dq, qs.data(), n * sizeof(Q), cudaMemcpyHostToDevice);
    k<<<(n + 127) / 128, 128>>>(t, dq, n, make_float2(g.dx0 / 256, g.dx1 / 256), make_float2(g.dy0 / 256, g.dy1 / 256), dout);
    cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
    printf("C %d part %c level %d aniso %u point %d pointmip %d per %d reach %d dx %a %a dy %a %a\n", c, g.part, g.level,
           g.aniso, (int)g.point, (int)g.point_mip, g.per, g.reach, g.dx0, g.dx1, g.dy0, g.dy1);
    for (int i = 0; i < n; ++i)
      if (out[i] != 0.f) printf("A %d %a %a %a\n", c, qs[i].x * 256, qs[i].y * 256, out[i]);
    cudaDestroyTextureObject(t);
  }
  printf("done %d\n", (int)cudaGetLastError());
  return 0;
}
