// Anisotropic filtering's samples on an H100: level 0 of a 256 x 256 float
// mipmap is zero but for texel (128, 128) = 1 (every other level zero);
// tex2DGrad at positions swept around it shows where the filter's samples
// lie and how they are weighted. maxAnisotropy 16 (and 4, 2), linear
// filtering within and between levels, normalized coordinates (texels / 256).
#include <cuda_runtime.h>
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
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = m;
  struct Cfg { unsigned aniso; float dx0, dx1, dy0, dy1; bool grid; };
  const Cfg cfgs[] = {{16, 4, 0, 0, 1, false},  {16, 8, 0, 0, 1, false}, {16, 16, 0, 0, 1, false},
                      {16, 6, 0, 0, 1, false},  {16, 3, 0, 0, 1, false}, {4, 16, 0, 0, 4, false},
                      {4, 8, 0, 0, 1, false},   {2, 4, 0, 0, 1, false},  {16, 0, 4, 1, 0, false},
                      {16, 4.8f, 1.6f, 0.8f, 0.32f, true}, {4, 4.8f, 1.6f, 0.8f, 0.32f, true}};
  Q* dq; float* dout; const int cap = 70000;
  cudaMalloc(&dq, cap * sizeof(Q)); cudaMalloc(&dout, cap * 4);
  for (int c = 0; c < (int)(sizeof cfgs / sizeof cfgs[0]); ++c) {
    const Cfg& g = cfgs[c];
    cudaTextureDesc d; memset(&d, 0, sizeof d);
    d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp; d.filterMode = cudaFilterModeLinear;
    d.mipmapFilterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.maxMipmapLevelClamp = levels - 1;
    d.maxAnisotropy = g.aniso;
    cudaTextureObject_t t; cudaError_t e = cudaCreateTextureObject(&t, &r, &d, nullptr);
    if (e) printf("create %d\n", (int)e);
    std::vector<Q> qs;
    if (!g.grid) {
      bool along_y = g.dx0 == 0;
      for (int s = -24 * 32; s <= 24 * 32; ++s) {
        float o = s / 32.f;
        qs.push_back(along_y ? Q{128.5f / 256, (128.5f + o) / 256} : Q{(128.5f + o) / 256, 128.5f / 256});
      }
    } else {
      for (int sy = -6 * 16; sy <= 6 * 16; ++sy)
        for (int sx = -8 * 16; sx <= 8 * 16; ++sx) qs.push_back({(128.5f + sx / 16.f) / 256, (128.5f + sy / 16.f) / 256});
    }
    int n = qs.size();
    cudaMemcpy(dq, qs.data(), n * sizeof(Q), cudaMemcpyHostToDevice);
    k<<<(n + 127) / 128, 128>>>(t, dq, n, make_float2(g.dx0 / 256, g.dx1 / 256), make_float2(g.dy0 / 256, g.dy1 / 256), dout);
    std::vector<float> out(n);
    cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
    printf("C %d aniso %u dx %a %a dy %a %a\n", c, g.aniso, g.dx0, g.dx1, g.dy0, g.dy1);
    for (int i = 0; i < n; ++i)
      if (out[i] != 0.f) printf("A %d %a %a %a\n", c, qs[i].x * 256, qs[i].y * 256, out[i]);
    cudaDestroyTextureObject(t);
  }
  return 0;
}
