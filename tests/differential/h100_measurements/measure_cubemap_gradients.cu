// texCubemapGrad's level of detail, structured (issue 15): how a gradient's
// component along the major axis enters. 256 x 256 faces, 9 levels, level l
// holding l; point filtering within levels and linear between them, so each
// result is the level chosen (clamped to [0, 8]). On the +x face (s = -z,
// t = -y over the major axis x): directions (1, 0, 0), (2, 0, 0),
// (1, 0.5, 0), (1, 0, 0.5), (1, 0.25, -0.5); dx = (a, b, 0) and dy = (0, 0, b)
// for b = 0, 2^-7 (one texel at the face centre for x = 1) and 2^-5, a = 0
// and 2^(-10 + i/4), i = 0..40; maxAnisotropy 0.
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
struct Q { float x, y, z; float4 dx, dy; };
__global__ void k(cudaTextureObject_t t, const Q* q, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemapGrad<float>(t, q[i].x, q[i].y, q[i].z, q[i].dx, q[i].dy);
}
int main() {
  const int side = 256, levels = 9;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m;
  cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(side, side, 6), levels, cudaArrayCubemap);
  for (int l = 0; l < levels; ++l) {
    cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m, l);
    int w = side >> l; std::vector<float> h(size_t(w) * w * 6, float(l));
    cudaMemcpy3DParms p; memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(h.data(), w * 4, w, w); p.dstArray = a; p.extent = make_cudaExtent(w, w, 6);
    p.kind = cudaMemcpyHostToDevice; cudaMemcpy3D(&p);
  }
  std::vector<Q> qs;
  const float dirs[][3] = {{1, 0, 0}, {2, 0, 0}, {1, 0.5f, 0}, {1, 0, 0.5f}, {1, 0.25f, -0.5f}};
  for (auto& d : dirs)
    for (float b : {0.f, 0.0078125f, 0.03125f})
      for (int i = -1; i <= 40; ++i) {
        float a = i < 0 ? 0.f : exp2f(-10.f + i / 4.f);
        qs.push_back({d[0], d[1], d[2], make_float4(a, b, 0, 0), make_float4(0, 0, b, 0)});
      }
  int n = qs.size(); Q* dq; float* dout;
  cudaMalloc(&dq, n * sizeof(Q)); cudaMalloc(&dout, n * 4);
  cudaMemcpy(dq, qs.data(), n * sizeof(Q), cudaMemcpyHostToDevice);
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = m;
  cudaTextureDesc d; memset(&d, 0, sizeof d);
  d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = cudaAddressModeClamp; d.filterMode = cudaFilterModePoint;
  d.mipmapFilterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.maxMipmapLevelClamp = levels - 1;
  cudaTextureObject_t t; if (cudaCreateTextureObject(&t, &r, &d, nullptr)) printf("create failed\n");
  k<<<(n + 127) / 128, 128>>>(t, dq, n, dout);
  std::vector<float> out(n);
  cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    const Q& q = qs[i];
    printf("C 0 %a %a %a dx %a %a %a dy %a %a %a = %a\n", q.x, q.y, q.z, q.dx.x, q.dx.y, q.dx.z, q.dy.x, q.dy.y, q.dy.z, out[i]);
  }
  printf("done %d\n", (int)cudaGetLastError());
  return 0;
}
