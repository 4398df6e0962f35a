// Anisotropic samples off the axes and on level 1: a delta texel on level 0
// (configs by angle) or on level 1 (level-1 configs), tex2DGrad swept on a
// grid around it. Normalized coordinates of a 256 x 256 float mipmap.
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
int main() {
  struct Cfg { int level; unsigned aniso; float dx0, dx1, dy0, dy1; };
  std::vector<Cfg> cfgs;
  for (float deg : {5.f, 10.f, 15.f, 18.4349488f, 25.f, 30.f, 35.f, 40.f, 45.f, 60.f, 100.f, 160.f}) {
    float a = deg * 3.14159265f / 180.f;
    cfgs.push_back({0, 16, 4.f * cosf(a), 4.f * sinf(a), -0.25f * sinf(a), 0.25f * cosf(a)});
  }
  cfgs.push_back({0, 16, 4.8f, 1.6f, 0.8f, 0.32f});
  cfgs.push_back({0, 16, 3.f, 1.f, 0.f, 0.25f});
  cfgs.push_back({1, 4, 8.f, 0.f, 0.f, 2.f});
  cfgs.push_back({1, 4, 12.f, 0.f, 0.f, 2.f});
  cfgs.push_back({1, 4, 9.6f, 3.2f, 0.f, 2.f});
  Q* dq; float* dout; const int cap = 200000;
  cudaMalloc(&dq, cap * sizeof(Q)); cudaMalloc(&dout, cap * 4);
  cudaMipmappedArray_t ms[2] = {make(0), make(1)};
  for (int c = 0; c < (int)cfgs.size(); ++c) {
    const Cfg& g = cfgs[c];
    cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = ms[g.level];
    cudaTextureDesc d; memset(&d, 0, sizeof d);
    d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp; d.filterMode = cudaFilterModeLinear;
    d.mipmapFilterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.maxMipmapLevelClamp = 8;
    d.maxAnisotropy = g.aniso;
    cudaTextureObject_t t; cudaError_t e = cudaCreateTextureObject(&t, &r, &d, nullptr);
    if (e) printf("create %d\n", (int)e);
    std::vector<Q> qs;
    int reach = g.level ? 12 : 6;
    for (int sy = -reach * 16; sy <= reach * 16; ++sy)
      for (int sx = -reach * 16; sx <= reach * 16; ++sx) qs.push_back({(128.5f + sx / 16.f) / 256, (128.5f + sy / 16.f) / 256});
    int n = qs.size();
    cudaMemcpy(dq, qs.data(), n * sizeof(Q), cudaMemcpyHostToDevice);
    k<<<(n + 127) / 128, 128>>>(t, dq, n, make_float2(g.dx0 / 256, g.dx1 / 256), make_float2(g.dy0 / 256, g.dy1 / 256), dout);
    std::vector<float> out(n);
    cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
    printf("C %d level %d aniso %u dx %a %a dy %a %a\n", c, g.level, g.aniso, g.dx0, g.dx1, g.dy0, g.dy1);
    for (int i = 0; i < n; ++i)
      if (out[i] != 0.f) printf("A %d %a %a %a\n", c, qs[i].x * 256, qs[i].y * 256, out[i]);
    cudaDestroyTextureObject(t);
  }
  return 0;
}
