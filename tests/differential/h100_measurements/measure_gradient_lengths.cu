// tex2DGrad's approximate length, swept finely (issue 15): one gradient
// dx = (a, b) texels, dy = 0, maxAnisotropy 0, over a 1024 x 1024 mipmap
// whose level l holds l (point filtering within levels, linear between), so
// each result is the level. Part B: a fixed, b from 0 to a in steps of
// a/8192; part A: b fixed, a from 1 to 2 in steps of 1/4096. Prints only
// the first query of each sweep and every query whose level differs from
// the one before it: `S part a b level` (texels, hex floats).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>
struct Q { float dx0, dx1; };
__global__ void k(cudaTextureObject_t t, const Q* q, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DGrad<float>(t, 0.5f, 0.5f, make_float2(q[i].dx0, q[i].dx1), make_float2(0, 0));
}
int main() {
  const int levels = 11;
  cudaMipmappedArray_t m; cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(1024, 1024, 0), levels, 0);
  for (int l = 0; l < levels; ++l) {
    cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m, l);
    int w = 1024 >> l; std::vector<float> h(w * w, (float)l);
    cudaMemcpy2DToArray(a, 0, 0, h.data(), w * 4, w * 4, w, cudaMemcpyHostToDevice);
  }
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = m;
  cudaTextureDesc d; memset(&d, 0, sizeof d);
  d.addressMode[0] = d.addressMode[1] = cudaAddressModeWrap; d.filterMode = cudaFilterModePoint;
  d.mipmapFilterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.maxMipmapLevelClamp = levels - 1;
  cudaTextureObject_t t; cudaCreateTextureObject(&t, &r, &d, nullptr);
  std::vector<Q> qs; std::vector<char> part; std::vector<int> first;
  for (float a : {1.0f, 1.5f, 1.2890625f, 1.90625f, 6.0f}) {
    first.push_back(qs.size());
    for (int i = 0; i <= 8192; ++i) { qs.push_back({a / 1024, a * i / 8192 / 1024}); part.push_back('B'); }
  }
  for (float b : {0.375f, 0.7109375f, 0.123046875f}) {
    first.push_back(qs.size());
    for (int i = 0; i <= 4096; ++i) { qs.push_back({(1.0f + i / 4096.0f) / 1024, b / 1024}); part.push_back('A'); }
  }
  int n = qs.size(); Q* dq; float* dout;
  cudaMalloc(&dq, n * sizeof(Q)); cudaMalloc(&dout, n * 4);
  cudaMemcpy(dq, qs.data(), n * sizeof(Q), cudaMemcpyHostToDevice);
  k<<<(n + 127) / 128, 128>>>(t, dq, n, dout);
  std::vector<float> out(n); cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    bool starts = false; for (int f : first) starts |= f == i;
    if (starts || out[i] != out[i - 1]) printf("S %c %a %a %a\n", part[i], qs[i].dx0 * 1024, qs[i].dx1 * 1024, out[i]);
  }
  printf("done %d\n", (int)cudaGetLastError());
  return 0;
}
