// Run on an H200 (2026-11-29, one run of 0.5 s); its hex output was converted to
// anisotropy5.txt's form (offsets from the delta's centre, values in 1024ths).
// Anisotropic filtering, fifth sweep (issue 15): a delta texel on level 0 or
// level 1 of a 256 x 256 float mipmap (other texels and levels zero),
// tex2DGrad swept around it on a grid; `C` lines name each configuration,
// `A config x y value` each nonzero result (x, y: the query in level-0 texels,
// value in 1024ths). Three parts:
// - U: the delta on level 1, maxAnisotropy 4, footprints whose level of
//   detail lies between 0 and 1: where the upper of two levels is read
//   (1/16-texel grid);
// - L: the delta on level 0, maxAnisotropy 4, the same footprints: the lower
//   level's samples (1/16-texel grid);
// - R: the delta on level 0, maxAnisotropy 16, dy = 0, dx at pseudo-random
//   lengths and angles, and with a minor component of 0.10 to 0.30 of the
//   direction grid (1/4-texel grid): the step's direction.
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
struct Cfg { char part; int level; unsigned aniso; float dx0, dx1, dy0, dy1; };
int main() {
  cudaMipmappedArray_t ms[2] = {make(0), make(1)};
  std::vector<Cfg> cfgs;
  const float two_level[][4] = {{4.8f, 1.6f, 0.8f, 0.32f}, {6.f, 0.f, 0.f, 1.5f}, {5.6f, 2.4f, -0.6f, 1.4f},
                                {3.2f, 4.4f, 1.1f, -0.8f}, {6.5f, 1.2f, 0.f, 1.6f}, {4.5f, 4.5f, -1.f, 1.f},
                                {7.f, 2.5f, 0.f, 1.8f}, {5.2f, 0.9f, 0.3f, 1.2f}};
  for (auto& g : two_level) cfgs.push_back({'U', 1, 4, g[0], g[1], g[2], g[3]});
  for (auto& g : two_level) cfgs.push_back({'L', 0, 4, g[0], g[1], g[2], g[3]});
  unsigned seed = 12345;
  auto next = [&] { seed = seed * 1664525u + 1013904223u; return (seed >> 8) / 16777216.f; };
  for (int i = 0; i < 120; ++i) {
    float length = 2.5f + 5.f * next(), angle = 1.5707963f * next();
    cfgs.push_back({'R', 0, 16, length * cosf(angle), length * sinf(angle), 0.f, 0.f});
  }
  for (float a : {3.9f, 3.0f, 2.2f, 5.0f, 7.5f}) {
    float grid = a < 4 ? 0.25f : 0.5f;
    for (int t = 10; t <= 30; t += 2) cfgs.push_back({'R', 0, 16, a, grid * t / 100.f, 0.f, 0.f});
  }
  Q* dq; float* dout;
  const int max_n = 321 * 321;
  cudaMalloc(&dq, max_n * sizeof(Q)); cudaMalloc(&dout, max_n * 4);
  std::vector<float> out(max_n);
  for (int c = 0; c < (int)cfgs.size(); ++c) {
    const Cfg& g = cfgs[c];
    cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = ms[g.level];
    cudaTextureDesc d; memset(&d, 0, sizeof d);
    d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp; d.filterMode = cudaFilterModeLinear;
    d.mipmapFilterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.maxMipmapLevelClamp = 8; d.maxAnisotropy = g.aniso;
    cudaTextureObject_t t; cudaError_t e = cudaCreateTextureObject(&t, &r, &d, nullptr);
    if (e) printf("create %d\n", (int)e);
    std::vector<Q> qs;
    int per = g.part == 'R' ? 4 : 16, reach = g.part == 'U' ? 10 : 6;
    for (int sy = -reach * per; sy <= reach * per; ++sy)
      for (int sx = -reach * per; sx <= reach * per; ++sx)
        qs.push_back({(128.5f + sx / (float)per) / 256, (128.5f + sy / (float)per) / 256});
    int n = qs.size();
    cudaMemcpy(dq, qs.data(), n * sizeof(Q), cudaMemcpyHostToDevice);
    k<<<(n + 127) / 128, 128>>>(t, dq, n, make_float2(g.dx0 / 256, g.dx1 / 256), make_float2(g.dy0 / 256, g.dy1 / 256), dout);
    cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
    printf("C %d part %c level %d aniso %u per %d reach %d dx %a %a dy %a %a\n", c, g.part, g.level, g.aniso, per, reach,
           g.dx0, g.dx1, g.dy0, g.dy1);
    for (int i = 0; i < n; ++i)
      if (out[i] != 0.f) printf("A %d %a %a %a\n", c, qs[i].x * 256, qs[i].y * 256, out[i]);
    cudaDestroyTextureObject(t);
  }
  printf("done %d\n", (int)cudaGetLastError());
  return 0;
}
