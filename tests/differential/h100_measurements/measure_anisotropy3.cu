// The direction of anisotropic filtering's samples: a delta texel on level 0
// of a 256 x 256 float mipmap (the other levels zero), tex2DGrad swept around
// it on a grid of 1/4 texel, maxAnisotropy 16, for gradients chosen to tell
// what sets the direction: dx alone (dy = 0) at every degree from 0 to 45;
// dx along x with dy at 15-degree steps; texture_probe's dx direction (3, 1)
// with dy at 15-degree steps; a few angles at other lengths. One `C` line per
// configuration, then `A config x y value` per nonzero result (x, y: the
// query's offset from the delta's centre in texels; value in 1024ths).
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
int main() {
  const int levels = 9, size = 256;
  cudaMipmappedArray_t m; cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(size, size, 0), levels, 0);
  for (int l = 0; l < levels; ++l) {
    cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m, l);
    int w = size >> l; std::vector<float> h(w * w, 0.f);
    if (l == 0) h[128 * w + 128] = 1.f;
    cudaMemcpy2DToArray(a, 0, 0, h.data(), w * 4, w * 4, w, cudaMemcpyHostToDevice);
  }
  struct Cfg { float dx0, dx1, dy0, dy1; };
  std::vector<Cfg> cfgs;
  const float rad = 3.14159265f / 180.f;
  for (int deg = 0; deg <= 45; ++deg) cfgs.push_back({4.f * cosf(deg * rad), 4.f * sinf(deg * rad), 0.f, 0.f});
  for (int phi = 0; phi < 180; phi += 15) cfgs.push_back({4.f, 0.f, 0.25f * cosf(phi * rad), 0.25f * sinf(phi * rad)});
  for (int phi = 0; phi < 180; phi += 15) cfgs.push_back({3.f, 1.f, 0.25f * cosf(phi * rad), 0.25f * sinf(phi * rad)});
  for (int phi = 0; phi < 180; phi += 15) cfgs.push_back({3.f, 1.f, 0.75f * cosf(phi * rad), 0.75f * sinf(phi * rad)});
  for (float len : {2.5f, 6.f, 9.f})
    for (int deg : {10, 20, 30, 40}) cfgs.push_back({len * cosf(deg * rad), len * sinf(deg * rad), 0.f, 0.f});
  for (int deg : {10, 20, 30, 40}) cfgs.push_back({4.f * cosf(deg * rad), 4.f * sinf(deg * rad), -0.25f * sinf(deg * rad), 0.25f * cosf(deg * rad)});
  for (int deg : {10, 20, 30, 40}) cfgs.push_back({4.f * cosf(deg * rad), 4.f * sinf(deg * rad), 0.25f * sinf(deg * rad), -0.25f * cosf(deg * rad)});
  cfgs.push_back({4.f, 0.f, 1.f, 1.f});
  cfgs.push_back({4.f, 0.f, 0.5f, 0.25f});
  cfgs.push_back({0.f, 4.f, 0.25f, 0.5f});
  cfgs.push_back({4.8f, 1.6f, 0.8f, 0.32f});
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = m;
  cudaTextureDesc d; memset(&d, 0, sizeof d);
  d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp; d.filterMode = cudaFilterModeLinear;
  d.mipmapFilterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.maxMipmapLevelClamp = 8; d.maxAnisotropy = 16;
  cudaTextureObject_t t; cudaError_t e = cudaCreateTextureObject(&t, &r, &d, nullptr);
  if (e) printf("create %d\n", (int)e);
  std::vector<Q> qs;
  const int reach = 6 * 4;
  for (int sy = -reach; sy <= reach; ++sy)
    for (int sx = -reach; sx <= reach; ++sx) qs.push_back({(128.5f + sx / 4.f) / 256, (128.5f + sy / 4.f) / 256});
  int n = qs.size();
  Q* dq; float* dout;
  cudaMalloc(&dq, n * sizeof(Q)); cudaMalloc(&dout, n * 4);
  cudaMemcpy(dq, qs.data(), n * sizeof(Q), cudaMemcpyHostToDevice);
  std::vector<float> out(n);
  for (int c = 0; c < (int)cfgs.size(); ++c) {
    const Cfg& g = cfgs[c];
    k<<<(n + 127) / 128, 128>>>(t, dq, n, make_float2(g.dx0 / 256, g.dx1 / 256), make_float2(g.dy0 / 256, g.dy1 / 256), dout);
    cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
    printf("C %d dx %a %a dy %a %a\n", c, g.dx0, g.dx1, g.dy0, g.dy1);
    for (int i = 0; i < n; ++i)
      if (out[i] != 0.f) printf("A %d %g %g %g\n", c, qs[i].x * 256 - 128.5f, qs[i].y * 256 - 128.5f, out[i] * 1024);
  }
  printf("done %d\n", (int)cudaGetLastError());
  return 0;
}
