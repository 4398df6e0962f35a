// What measure_gradient_rules2.cu and measure_gradient_rules3.cu share: a
// mipmapped float texture whose level l holds l everywhere (so a fetch
// returns the level the texture unit took, in 256ths between levels), and
// kernels that make one tex2DGrad or tex3DGrad fetch per query at the
// texture's centre.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>

struct Query {
  float4 dx, dy;
};

__global__ void fetch_2d(cudaTextureObject_t t, const Query* q, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2DGrad<float>(t, 0.5f, 0.5f, make_float2(q[i].dx.x, q[i].dx.y), make_float2(q[i].dy.x, q[i].dy.y));
}
__global__ void fetch_3d(cudaTextureObject_t t, const Query* q, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3DGrad<float>(t, 0.5f, 0.5f, 0.5f, q[i].dx, q[i].dy);
}

static cudaTextureObject_t make_texture(cudaMipmappedArray_t m, int levels, int max_anisotropy, float bias) {
  cudaResourceDesc r;
  memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeMipmappedArray;
  r.res.mipmap.mipmap = m;
  cudaTextureDesc d;
  memset(&d, 0, sizeof d);
  d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = cudaAddressModeClamp;
  d.filterMode = cudaFilterModePoint;
  d.mipmapFilterMode = cudaFilterModeLinear;
  d.normalizedCoords = 1;
  d.maxAnisotropy = max_anisotropy;
  d.mipmapLevelBias = bias;
  d.maxMipmapLevelClamp = levels - 1;
  cudaTextureObject_t t;
  if (cudaCreateTextureObject(&t, &r, &d, nullptr)) printf("create failed\n");
  return t;
}

static std::vector<float> run(void (*kernel)(cudaTextureObject_t, const Query*, int, float*), cudaTextureObject_t t,
                              const std::vector<Query>& queries) {
  int n = queries.size();
  Query* dq;
  float* dout;
  cudaMalloc(&dq, n * sizeof(Query));
  cudaMalloc(&dout, n * 4);
  cudaMemcpy(dq, queries.data(), n * sizeof(Query), cudaMemcpyHostToDevice);
  kernel<<<(n + 127) / 128, 128>>>(t, dq, n, dout);
  std::vector<float> out(n);
  cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  cudaFree(dq);
  cudaFree(dout);
  return out;
}

static cudaMipmappedArray_t level_mipmap(int side, int levels, bool volume) {
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m;
  cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(side, side, volume ? side : 0), levels, 0);
  for (int l = 0; l < levels; ++l) {
    cudaArray_t a;
    cudaGetMipmappedArrayLevel(&a, m, l);
    int w = side >> l, depth = volume ? w : 1;
    std::vector<float> h(size_t(w) * w * depth, (float)l);
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(h.data(), w * 4, w, w);
    p.dstArray = a;
    p.extent = make_cudaExtent(w, w, depth);
    p.kind = cudaMemcpyHostToDevice;
    cudaMemcpy3D(&p);
  }
  return m;
}
