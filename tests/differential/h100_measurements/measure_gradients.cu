#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
struct Q { float x, y, dx0, dx1, dy0, dy1; };
__global__ void k(cudaTextureObject_t t, const Q* q, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Q a = q[i];
  out[i] = tex2DGrad<float>(t, a.x, a.y, make_float2(a.dx0, a.dx1), make_float2(a.dy0, a.dy1));
}
// The maxAnisotropy values to measure: 0 1 2 4 16 (gradients.txt) unless
// given as arguments (gradients_anisotropy.txt: 3 5 6 ... 15).
int main(int argc, char** argv) {
  std::vector<unsigned> anisotropies = {0u, 1u, 2u, 4u, 16u};
  if (argc > 1) anisotropies.clear();
  for (int i = 1; i < argc; ++i) anisotropies.push_back((unsigned)atoi(argv[i]));
  const int levels = 11;
  cudaMipmappedArray_t m; cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(1024, 1024, 0), levels, 0);
  for (int l = 0; l < levels; ++l) {
    cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m, l);
    int w = 1024 >> l; std::vector<float> h(w * w, (float)l);
    cudaMemcpy2DToArray(a, 0, 0, h.data(), w * 4, w * 4, w, cudaMemcpyHostToDevice);
  }
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = m;
  std::vector<Q> qs;
  unsigned s = 99;
  auto rnd = [&] { s = s * 1103515245u + 12345u; return ((s >> 8) & 0xffff) / 65536.f; };
  for (int i = 0; i < 1500; ++i) {
    float scale = powf(2.f, -10.f + 10.f * rnd());
    Q q{0.5f, 0.5f, scale * (rnd() * 2 - 1), scale * (rnd() * 2 - 1), scale * (rnd() * 2 - 1), scale * (rnd() * 2 - 1)};
    if (i % 4 == 0) q.dx1 = 0, q.dy0 = 0;
    if (i % 8 == 0) q.dy1 = q.dx0;
    qs.push_back(q);
  }
  Q* dq; float* dout; int n = qs.size();
  cudaMalloc(&dq, n * sizeof(Q)); cudaMalloc(&dout, n * 4);
  cudaMemcpy(dq, qs.data(), n * sizeof(Q), cudaMemcpyHostToDevice);
  for (unsigned aniso : anisotropies) {
    cudaTextureDesc d; memset(&d, 0, sizeof d);
    d.addressMode[0] = d.addressMode[1] = cudaAddressModeWrap; d.filterMode = cudaFilterModePoint;
    d.mipmapFilterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.maxMipmapLevelClamp = levels - 1; d.maxAnisotropy = aniso;
    cudaTextureObject_t t; cudaCreateTextureObject(&t, &r, &d, nullptr);
    k<<<(n + 127) / 128, 128>>>(t, dq, n, dout);
    std::vector<float> out(n);
    cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i)
      printf("G %u %a %a %a %a %a\n", aniso, qs[i].dx0, qs[i].dx1, qs[i].dy0, qs[i].dy1, out[i]);
    cudaDestroyTextureObject(t);
  }
  return 0;
}
