// The direction of anisotropic filtering's samples, finer than
// measure_anisotropy3.cu: a delta texel on level 0 of a 256 x 256 float
// mipmap (the other levels zero), tex2DGrad swept around it on a grid of 1/2
// texel, maxAnisotropy 16, dy = 0, for dx of length 4 at every half degree
// from 0 to 45, and of lengths 2 to 8 in steps of 1/8 at 10, 20 and 30
// degrees. One `C` line per configuration, then `A config x y value` per
// nonzero result (x, y: the query's offset from the delta's centre in
// texels; value in 1024ths).
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
  for (int half = 0; half <= 90; ++half)
    cfgs.push_back({4.f * cosf(half * 0.5f * rad), 4.f * sinf(half * 0.5f * rad), 0.f, 0.f});
  for (int deg : {10, 20, 30})
    for (int eighth = 16; eighth <= 64; ++eighth)
      cfgs.push_back({eighth / 8.f * cosf(deg * rad), eighth / 8.f * sinf(deg * rad), 0.f, 0.f});
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = m;
  cudaTextureDesc d; memset(&d, 0, sizeof d);
  d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp; d.filterMode = cudaFilterModeLinear;
  d.mipmapFilterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.maxMipmapLevelClamp = 8; d.maxAnisotropy = 16;
  cudaTextureObject_t t; cudaError_t e = cudaCreateTextureObject(&t, &r, &d, nullptr);
  if (e) printf("create %d\n", (int)e);
  std::vector<Q> qs;
  const int reach = 6 * 2;
  for (int sy = -reach; sy <= reach; ++sy)
    for (int sx = -reach; sx <= reach; ++sx) qs.push_back({(128.5f + sx / 2.f) / 256, (128.5f + sy / 2.f) / 256});
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
