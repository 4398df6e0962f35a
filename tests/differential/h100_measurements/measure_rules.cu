// Measurements for weft's texture rules (helper Q): trilinear weights,
// sRGB filtering, border colours read back, seamless cubemaps, array codes.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cstdlib>
struct Q { float x, y, z, lod; int op; };
__global__ void k(cudaTextureObject_t t, const Q* q, int n, float4* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Q a = q[i];
  float4 r;
  if (a.op == 0) r = tex2DLod<float4>(t, a.x, a.y, a.lod);
  else if (a.op == 1) r = tex1D<float4>(t, a.x);
  else if (a.op == 2) r = texCubemap<float4>(t, a.x, a.y, a.z);
  else if (a.op == 4) r = texCubemapLod<float4>(t, a.x, a.y, a.z, a.lod);
  else r = tex3DLod<float4>(t, a.x, a.y, a.z, a.lod);
  out[i] = r;
}
static std::vector<float4> run(cudaTextureObject_t t, const std::vector<Q>& qs) {
  Q* dq; float4* dout; int n = qs.size();
  cudaMalloc(&dq, n * sizeof(Q)); cudaMalloc(&dout, n * sizeof(float4));
  cudaMemcpy(dq, qs.data(), n * sizeof(Q), cudaMemcpyHostToDevice);
  k<<<(n + 127) / 128, 128>>>(t, dq, n, dout);
  cudaError_t e = cudaDeviceSynchronize();
  if (e) printf("!! kernel %s\n", cudaGetErrorName(e));
  std::vector<float4> r(n);
  cudaMemcpy(r.data(), dout, n * sizeof(float4), cudaMemcpyDeviceToHost);
  cudaFree(dq); cudaFree(dout);
  return r;
}
static unsigned b(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static void rep(const char* w, cudaError_t e) { printf("%s: %d %s last=%d\n", w, (int)e, cudaGetErrorName(e), (int)cudaGetLastError()); }

// 1. Trilinear: 16x16 float4 mipmap, 5 levels. Level L even: x,y channels;
// odd: z,w. Parity code: (x even,y even)->1 in ch0/2, (x odd,y even)->512 in ch0/2,
// (x even,y odd)->1 in ch1/3, (x odd, y odd)->512 in ch1/3.
static void trilinear() {
  cudaMipmappedArray_t m; cudaChannelFormatDesc fd = cudaCreateChannelDesc<float4>();
  cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(16, 16, 0), 5, 0);
  for (int l = 0; l < 5; ++l) {
    cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m, l);
    int w = 16 >> l; std::vector<float4> h(w * w);
    for (int y = 0; y < w; ++y) for (int x = 0; x < w; ++x) {
      float c = (x & 1) ? 512.f : 1.f; float v[4] = {0, 0, 0, 0};
      v[(l & 1) * 2 + (y & 1)] = c;
      h[y * w + x] = make_float4(v[0], v[1], v[2], v[3]);
    }
    cudaMemcpy2DToArray(a, 0, 0, h.data(), w * 16, w * 16, w, cudaMemcpyHostToDevice);
  }
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = m;
  cudaTextureDesc d; memset(&d, 0, sizeof d);
  d.addressMode[0] = d.addressMode[1] = cudaAddressModeWrap; d.filterMode = cudaFilterModeLinear;
  d.mipmapFilterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.maxMipmapLevelClamp = 4;
  cudaTextureObject_t t; rep("tri create", cudaCreateTextureObject(&t, &r, &d, nullptr));
  std::vector<Q> qs;
  unsigned s = 12345;
  auto rnd = [&] { s = s * 1103515245u + 12345u; return (s >> 8) & 0xffff; };
  for (int i = 0; i < 1500; ++i) {
    float x = rnd() / 65536.f, y = rnd() / 65536.f;
    float lod = (rnd() % 1024) / 256.f;
    if (i % 3 == 0) lod = (rnd() % 4) + (rnd() % 256) / 256.f;
    qs.push_back({x, y, 0, lod, 0});
  }
  // fixed fraction sweeps at two positions
  for (int f = 0; f < 256; f += 3) { qs.push_back({0.1f, 0.7f, 0, 1 + f / 256.f, 0}); qs.push_back({0.53f, 0.29f, 0, f / 256.f, 0}); }
  std::vector<float4> o = run(t, qs);
  for (size_t i = 0; i < qs.size(); ++i)
    printf("TRI %a %a %a %.1f %.1f %.1f %.1f\n", qs[i].x, qs[i].y, qs[i].lod, o[i].x * 256, o[i].y * 256, o[i].z * 256, o[i].w * 256);
  cudaDestroyTextureObject(t);
  // mipmap point filter inside levels, linear between: weights of levels
  d.filterMode = cudaFilterModePoint;
  cudaCreateTextureObject(&t, &r, &d, nullptr);
  std::vector<Q> q2(qs.begin(), qs.begin() + 300);
  o = run(t, q2);
  for (size_t i = 0; i < q2.size(); ++i)
    printf("TRIP %a %a %a %.1f %.1f %.1f %.1f\n", q2[i].x, q2[i].y, q2[i].lod, o[i].x * 256, o[i].y * 256, o[i].z * 256, o[i].w * 256);
  cudaDestroyTextureObject(t);
  cudaFreeMipmappedArray(m);
}

// 2. sRGB linear.
static void srgb() {
  std::vector<uchar4> h(512);
  for (int v = 0; v < 256; ++v) { h[2 * v] = make_uchar4(v, 0, 255, v); h[2 * v + 1] = make_uchar4(0, v, v, 255); }
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a; cudaMallocArray(&a, &fd, 512, 0);
  cudaMemcpy2DToArray(a, 0, 0, h.data(), 512 * 4, 512 * 4, 1, cudaMemcpyHostToDevice);
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeArray; r.res.array.array = a;
  cudaTextureDesc d; memset(&d, 0, sizeof d);
  d.addressMode[0] = cudaAddressModeClamp; d.filterMode = cudaFilterModeLinear; d.readMode = cudaReadModeNormalizedFloat; d.sRGB = 1;
  cudaTextureObject_t t; rep("srgb create", cudaCreateTextureObject(&t, &r, &d, nullptr));
  std::vector<Q> qs;
  for (int v = 0; v < 256; ++v)
    for (int w : {0, 1, 64, 128, 192, 255}) qs.push_back({2 * v + 0.5f + w / 256.f, 0, 0, 0, 1});
  std::vector<float4> o = run(t, qs);
  for (size_t i = 0; i < qs.size(); ++i)
    printf("SRGB %a %08x %08x %08x %08x\n", qs[i].x, b(o[i].x), b(o[i].y), b(o[i].z), b(o[i].w));
  cudaDestroyTextureObject(t);
  // a ramp: r = i, g = 255 - i, b = (i * 37) & 255, queries at 16ths
  for (int i = 0; i < 256; ++i) h[i] = make_uchar4(i, 255 - i, (i * 37) & 255, i);
  cudaMemcpy2DToArray(a, 0, 0, h.data(), 256 * 4, 256 * 4, 1, cudaMemcpyHostToDevice);
  cudaCreateTextureObject(&t, &r, &d, nullptr);
  qs.clear();
  for (int i = 0; i < 255; ++i) for (int k = 1; k < 16; k += 2) qs.push_back({i + 0.5f + k / 16.f, 0, 0, 0, 1});
  o = run(t, qs);
  for (size_t i = 0; i < qs.size(); ++i)
    printf("RAMP %a %08x %08x %08x %08x\n", qs[i].x, b(o[i].x), b(o[i].y), b(o[i].z), b(o[i].w));
  cudaDestroyTextureObject(t);
  // border colours with sRGB, point and linear
  const float borders[][4] = {{0.5f, 2.f, -1.f, 0.25f}, {0.1f, 0.2f, 0.3f, 0.4f}, {0.9f, 0.04f, 0.7f, 1.f}, {0, 0, 0, 0}, {1, 1, 1, 1}, {0.0031308f, 0.5f, 0.75f, 0.6f}};
  for (auto& bc : borders)
    for (int f = 0; f < 2; ++f) {
      d.addressMode[0] = cudaAddressModeBorder; d.filterMode = f ? cudaFilterModeLinear : cudaFilterModePoint;
      memcpy(d.borderColor, bc, 16);
      cudaCreateTextureObject(&t, &r, &d, nullptr);
      qs.clear();
      for (float x : {-1.f, -0.25f, 0.f, 0.5f, 0.75f, 1.f, 300.f}) qs.push_back({x, 0, 0, 0, 1});
      o = run(t, qs);
      for (size_t i = 0; i < qs.size(); ++i)
        printf("SBORDER %g %g %g %g f%d %a %08x %08x %08x %08x\n", bc[0], bc[1], bc[2], bc[3], f, qs[i].x, b(o[i].x), b(o[i].y), b(o[i].z), b(o[i].w));
      cudaDestroyTextureObject(t);
    }
  cudaFreeArray(a);
}

// 3. borderColor read back.
static void border_back() {
  cudaChannelFormatDesc ff = cudaCreateChannelDesc<float>(), fu = cudaCreateChannelDesc<uchar4>();
  cudaArray_t fa, ua; cudaMallocArray(&fa, &ff, 16, 16); cudaMallocArray(&ua, &fu, 16, 16);
  struct V { const char* n; int arr; int mode; int read; int srgb; float bc[4]; int filt; int norm; };
  V vs[] = {{"float clamp zero", 0, 1, 0, 0, {0, 0, 0, 0}, 0, 0},
            {"float border zero", 0, 3, 0, 0, {0, 0, 0, 0}, 0, 0},
            {"float clamp 1234", 0, 1, 0, 0, {1, 2, 3, 4}, 0, 0},
            {"float border 1234", 0, 3, 0, 0, {1, 2, 3, 4}, 0, 0},
            {"float wrap zero norm", 0, 0, 0, 0, {0, 0, 0, 0}, 1, 1},
            {"float clamp -0", 0, 1, 0, 0, {-0.f, 0, 0, 0}, 0, 0},
            {"float clamp 0.5", 0, 1, 0, 0, {0.5f, 0.25f, 0, 0}, 0, 0},
            {"uchar4 norm clamp zero", 1, 1, 1, 0, {0, 0, 0, 0}, 0, 0},
            {"uchar4 norm border 0.3", 1, 3, 1, 0, {0.3f, 2.f, -1.f, 0.7f}, 1, 0},
            {"uchar4 srgb clamp zero", 1, 1, 1, 1, {0, 0, 0, 0}, 0, 0},
            {"uchar4 elem clamp zero", 1, 1, 0, 0, {0, 0, 0, 0}, 0, 0},
            {"uchar4 elem border 3.7", 1, 3, 0, 0, {3.7f, -2, 1e10f, 300}, 0, 0},
            {"float clamp tiny", 0, 1, 0, 0, {1e-40f, 1e-30f, 0, 0}, 0, 0}};
  for (auto& v : vs) {
    cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeArray; r.res.array.array = v.arr ? ua : fa;
    cudaTextureDesc d; memset(&d, 0, sizeof d);
    d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = (cudaTextureAddressMode)v.mode;
    d.readMode = (cudaTextureReadMode)v.read; d.sRGB = v.srgb; memcpy(d.borderColor, v.bc, 16);
    d.filterMode = (cudaTextureFilterMode)v.filt; d.normalizedCoords = v.norm;
    cudaTextureObject_t t; cudaError_t e = cudaCreateTextureObject(&t, &r, &d, nullptr);
    cudaTextureDesc back; memset(&back, 0xcc, sizeof back);
    cudaGetTextureObjectTextureDesc(&back, t);
    printf("BACK %s: %d border %08x %08x %08x %08x modes %d %d %d\n", v.n, (int)e, b(back.borderColor[0]), b(back.borderColor[1]),
           b(back.borderColor[2]), b(back.borderColor[3]), back.addressMode[0], back.addressMode[1], back.addressMode[2]);
    cudaDestroyTextureObject(t);
  }
  // linear memory and pitch2D
  float* p; cudaMalloc(&p, 1 << 16);
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeLinear; r.res.linear.devPtr = p;
  r.res.linear.desc = ff; r.res.linear.sizeInBytes = 1024;
  cudaTextureDesc d; memset(&d, 0, sizeof d);
  cudaTextureObject_t t; cudaCreateTextureObject(&t, &r, &d, nullptr);
  cudaTextureDesc back; memset(&back, 0xcc, sizeof back); cudaGetTextureObjectTextureDesc(&back, t);
  printf("BACK linear zero: border %08x %08x %08x %08x\n", b(back.borderColor[0]), b(back.borderColor[1]), b(back.borderColor[2]), b(back.borderColor[3]));
  cudaDestroyTextureObject(t);
  r.resType = cudaResourceTypePitch2D; r.res.pitch2D.devPtr = p; r.res.pitch2D.desc = ff; r.res.pitch2D.width = 16; r.res.pitch2D.height = 16; r.res.pitch2D.pitchInBytes = 512;
  cudaCreateTextureObject(&t, &r, &d, nullptr);
  memset(&back, 0xcc, sizeof back); cudaGetTextureObjectTextureDesc(&back, t);
  printf("BACK pitch zero: border %08x %08x %08x %08x\n", b(back.borderColor[0]), b(back.borderColor[1]), b(back.borderColor[2]), b(back.borderColor[3]));
  cudaDestroyTextureObject(t);
  cudaFree(p); cudaFreeArray(fa); cudaFreeArray(ua);
}

// 4. Seamless cubemap, 8x8 faces, value = 100 f + 10 y + x.
static void seamless() {
  const int n = 8; std::vector<float> h(6 * n * n);
  for (int f = 0; f < 6; ++f) for (int y = 0; y < n; ++y) for (int x = 0; x < n; ++x) h[f * n * n + y * n + x] = 100.f * f + 10.f * y + x;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t a; cudaMalloc3DArray(&a, &fd, make_cudaExtent(n, n, 6), cudaArrayCubemap);
  cudaMemcpy3DParms p; memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(h.data(), n * 4, n, n); p.dstArray = a; p.extent = make_cudaExtent(n, n, 6); p.kind = cudaMemcpyHostToDevice;
  rep("cube copy", cudaMemcpy3D(&p));
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeArray; r.res.array.array = a;
  for (int mode : {1, 0, 3}) {
    cudaTextureDesc d; memset(&d, 0, sizeof d);
    d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = (cudaTextureAddressMode)mode;
    d.filterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.seamlessCubemap = 1;
    cudaTextureObject_t t; rep("seamless create", cudaCreateTextureObject(&t, &r, &d, nullptr));
    std::vector<Q> qs;
    unsigned s = 777;
    auto rnd = [&] { s = s * 1103515245u + 12345u; return ((s >> 8) & 0xffff) / 32768.f - 1.f; };
    for (int i = 0; i < 400; ++i) {
      float v[3] = {rnd(), rnd(), rnd()};
      int ax = i % 3; v[ax] = (i & 4) ? 1.f : -1.f;  // on a face, near edges sometimes
      if (i % 5 == 0) v[(ax + 1) % 3] = (i & 8) ? 0.97f : -0.99f;
      if (i % 7 == 0) { v[(ax + 2) % 3] = (i & 16) ? 0.95f : -0.93f; v[(ax + 1) % 3] = (i & 32) ? 0.96f : -0.98f; }
      qs.push_back({v[0], v[1], v[2], 0, 2});
    }
    std::vector<float4> o = run(t, qs);
    for (size_t i = 0; i < qs.size(); ++i) printf("CUBE m%d %a %a %a %08x\n", mode, qs[i].x, qs[i].y, qs[i].z, b(o[i].x));
    cudaDestroyTextureObject(t);
  }
  cudaFreeArray(a);
}

// 6. Mipmapped cubemaps, 8x8 faces, 4 levels, seamless and not: texel
// (1000 l + 100 f + 10 y + x, l), so that y of a result is the weight the
// fetch gave the levels and x the texels' blend.
static void seamless_mipmaps() {
  const int n = 8, levels = 4;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float2>();
  cudaMipmappedArray_t m;
  rep("cube mipmap", cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(n, n, 6), levels, cudaArrayCubemap));
  for (int l = 0; l < levels; ++l) {
    cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m, l);
    int w = n >> l; std::vector<float2> h(6 * w * w);
    for (int f = 0; f < 6; ++f) for (int y = 0; y < w; ++y) for (int x = 0; x < w; ++x)
      h[f * w * w + y * w + x] = make_float2(1000.f * l + 100.f * f + 10.f * y + x, (float)l);
    cudaMemcpy3DParms p; memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(h.data(), w * 8, w, w); p.dstArray = a; p.extent = make_cudaExtent(w, w, 6);
    p.kind = cudaMemcpyHostToDevice;
    rep("cube level copy", cudaMemcpy3D(&p));
  }
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = m;
  std::vector<Q> qs;
  unsigned s = 4242;
  auto rnd = [&] { s = s * 1103515245u + 12345u; return ((s >> 8) & 0xffff) / 32768.f - 1.f; };
  for (int i = 0; i < 600; ++i) {
    float v[3] = {rnd(), rnd(), rnd()};
    int ax = i % 3; v[ax] = (i & 4) ? 1.f : -1.f;
    if (i % 5 == 0) v[(ax + 1) % 3] = (i & 8) ? 0.97f : -0.99f;
    if (i % 7 == 0) { v[(ax + 2) % 3] = (i & 16) ? 0.95f : -0.93f; v[(ax + 1) % 3] = (i & 32) ? 0.96f : -0.98f; }
    float lod = (i % 4 == 0) ? (float)(i / 4 % 4) : ((rnd() + 1.f) * 1.5f);
    qs.push_back({v[0], v[1], v[2], lod, 4});
  }
  for (int seamless : {1, 0})
    for (int mip_linear : {1, 0}) {
      cudaTextureDesc d; memset(&d, 0, sizeof d);
      d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = cudaAddressModeClamp;
      d.filterMode = cudaFilterModeLinear; d.normalizedCoords = 1; d.seamlessCubemap = seamless;
      d.mipmapFilterMode = mip_linear ? cudaFilterModeLinear : cudaFilterModePoint; d.maxMipmapLevelClamp = levels - 1;
      cudaTextureObject_t t; rep("cube mipmap create", cudaCreateTextureObject(&t, &r, &d, nullptr));
      std::vector<float4> o = run(t, qs);
      for (size_t i = 0; i < qs.size(); ++i)
        printf("SMIP s%d m%d %a %a %a %a %08x %08x\n", seamless, mip_linear, qs[i].x, qs[i].y, qs[i].z, qs[i].lod, b(o[i].x),
               b(o[i].y));
      cudaDestroyTextureObject(t);
    }
  cudaFreeMipmappedArray(m);
}

// 7. A 2D float2 mipmap, 8x8, 4 levels, texel (1000 l + 10 y + x, l),
// linear filtering and linear mipmap filtering, clamp and border, tex2DLod
// at coordinates around and past the edges: whether a clamped dimension
// counts as one texel in the levels' weights, as on cubemap faces.
static void clamped_mipmaps() {
  const int n = 8, levels = 4;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float2>();
  cudaMipmappedArray_t m;
  rep("2D mipmap", cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(n, n, 0), levels, 0));
  for (int l = 0; l < levels; ++l) {
    cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m, l);
    int w = n >> l; std::vector<float2> h(w * w);
    for (int y = 0; y < w; ++y) for (int x = 0; x < w; ++x) h[y * w + x] = make_float2(1000.f * l + 10.f * y + x, (float)l);
    rep("2D level copy", cudaMemcpy2DToArray(a, 0, 0, h.data(), w * 8, w * 8, w, cudaMemcpyHostToDevice));
  }
  cudaResourceDesc r; memset(&r, 0, sizeof r); r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = m;
  std::vector<Q> qs;
  unsigned s = 5151;
  auto rnd = [&] { s = s * 1103515245u + 12345u; return ((s >> 8) & 0xffff) / 65536.f; };
  for (int i = 0; i < 600; ++i) {
    float x = rnd() * 1.4f - 0.2f, y = rnd() * 1.4f - 0.2f;
    if (i % 3 == 0) x = (i & 4) ? 1.f - rnd() * 0.1f : rnd() * 0.1f;
    float lod = (i % 4 == 0) ? (float)(i / 4 % 4) : rnd() * 3.f;
    qs.push_back({x, y, 0, lod, 0});
  }
  for (int mode : {1, 3}) {
    cudaTextureDesc d; memset(&d, 0, sizeof d);
    d.addressMode[0] = d.addressMode[1] = (cudaTextureAddressMode)mode;
    d.filterMode = cudaFilterModeLinear; d.normalizedCoords = 1;
    d.mipmapFilterMode = cudaFilterModeLinear; d.maxMipmapLevelClamp = levels - 1;
    cudaTextureObject_t t; rep("2D mipmap create", cudaCreateTextureObject(&t, &r, &d, nullptr));
    std::vector<float4> o = run(t, qs);
    for (size_t i = 0; i < qs.size(); ++i)
      printf("CMIP m%d %a %a %a %08x %08x\n", mode, qs[i].x, qs[i].y, qs[i].lod, b(o[i].x), b(o[i].y));
    cudaDestroyTextureObject(t);
  }
  cudaFreeMipmappedArray(m);
}

static void arrays() {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr; std::vector<float> host(64 * 64);
  if (getenv("NULLARR")) rep("2DToArray null array", cudaMemcpy2DToArray(nullptr, 0, 0, host.data(), 64, 64, 4, cudaMemcpyHostToDevice));
  cudaMallocArray(&a, &f, 16, 16); cudaFreeArray(a);
  if (getenv("FREED")) rep("2DToArray freed array", cudaMemcpy2DToArray(a, 0, 0, host.data(), 64, 64, 4, cudaMemcpyHostToDevice));
  if (getenv("FREED")) rep("FromArray freed", cudaMemcpy2DFromArray(host.data(), 64, a, 0, 0, 64, 4, cudaMemcpyDeviceToHost));
  if (getenv("FREED")) rep("GetInfo freed", cudaArrayGetInfo(nullptr, nullptr, nullptr, a));
  if (getenv("FREED")) rep("FreeArray freed", cudaFreeArray(a));
  cudaMipmappedArray_t m; cudaMallocMipmappedArray(&m, &f, make_cudaExtent(16, 16, 0), 3, 0);
  cudaArray_t l1; cudaGetMipmappedArrayLevel(&l1, m, 1);
  rep("FreeArray mip level", cudaFreeArray(l1));
  rep("copy to level after free attempt", cudaMemcpy2DToArray(l1, 0, 0, host.data(), 32, 32, 8, cudaMemcpyHostToDevice));
  cudaFreeMipmappedArray(m);
  if (getenv("FREED")) rep("copy to level after mip free", cudaMemcpy2DToArray(l1, 0, 0, host.data(), 32, 32, 8, cudaMemcpyHostToDevice));
  cudaMallocArray(&a, &f, 16, 16);
  float* dp; cudaMalloc(&dp, 1 << 16);
  const char* kn[] = {"HtoH", "HtoD", "DtoH", "DtoD", "Default"};
  for (int kind = 0; kind < 5; ++kind) {
    char w[128];
    snprintf(w, sizeof w, "2DToArray host src kind %s", kn[kind]); rep(w, cudaMemcpy2DToArray(a, 0, 0, host.data(), 64, 64, 4, (cudaMemcpyKind)kind));
    snprintf(w, sizeof w, "2DToArray dev src kind %s", kn[kind]); rep(w, cudaMemcpy2DToArray(a, 0, 0, dp, 64, 64, 4, (cudaMemcpyKind)kind));
    snprintf(w, sizeof w, "2DFromArray host dst kind %s", kn[kind]); rep(w, cudaMemcpy2DFromArray(host.data(), 64, a, 0, 0, 64, 4, (cudaMemcpyKind)kind));
    snprintf(w, sizeof w, "2DFromArray dev dst kind %s", kn[kind]); rep(w, cudaMemcpy2DFromArray(dp, 64, a, 0, 0, 64, 4, (cudaMemcpyKind)kind));
    snprintf(w, sizeof w, "ToArray host src kind %s", kn[kind]); rep(w, cudaMemcpyToArray(a, 0, 0, host.data(), 64, (cudaMemcpyKind)kind));
  }
  rep("2DToArray kind 7", cudaMemcpy2DToArray(a, 0, 0, host.data(), 64, 64, 4, (cudaMemcpyKind)7));
  rep("2DToArray wOffset 2", cudaMemcpy2DToArray(a, 2, 0, host.data(), 64, 8, 4, cudaMemcpyHostToDevice));
  rep("2DToArray width 6", cudaMemcpy2DToArray(a, 0, 0, host.data(), 64, 6, 4, cudaMemcpyHostToDevice));
  rep("2DToArray width 0", cudaMemcpy2DToArray(a, 0, 0, host.data(), 64, 0, 4, cudaMemcpyHostToDevice));
  rep("2DToArray height 0", cudaMemcpy2DToArray(a, 0, 0, host.data(), 64, 64, 0, cudaMemcpyHostToDevice));
  rep("2DFromArray wOffset 2", cudaMemcpy2DFromArray(host.data(), 64, a, 2, 0, 8, 4, cudaMemcpyDeviceToHost));
  rep("2DFromArray width 6", cudaMemcpy2DFromArray(host.data(), 64, a, 0, 0, 6, 4, cudaMemcpyDeviceToHost));
  rep("ToArray wOffset 2", cudaMemcpyToArray(a, 2, 0, host.data(), 8, cudaMemcpyHostToDevice));
  rep("ToArray count 6", cudaMemcpyToArray(a, 0, 0, host.data(), 6, cudaMemcpyHostToDevice));
  // Past the end of a row: does it continue on the next row?
  for (int i = 0; i < 256; ++i) host[i] = i;
  std::vector<float> zeros(256, 0.f);
  cudaMemcpy2DToArray(a, 0, 0, zeros.data(), 64, 64, 16, cudaMemcpyHostToDevice);
  rep("ToArray row 0 count 128 (2 rows)", cudaMemcpyToArray(a, 0, 0, host.data(), 128, cudaMemcpyHostToDevice));
  rep("ToArray x 32 count 64 (crosses row)", cudaMemcpyToArray(a, 32, 2, host.data() + 100, 64, cudaMemcpyHostToDevice));
  rep("ToArray row 15 count 128 (past end)", cudaMemcpyToArray(a, 0, 15, host.data(), 128, cudaMemcpyHostToDevice));
  rep("ToArray whole 1024", cudaMemcpyToArray(a, 0, 0, zeros.data(), 1024, cudaMemcpyHostToDevice));
  rep("ToArray 1028", cudaMemcpyToArray(a, 0, 0, zeros.data(), 1028, cudaMemcpyHostToDevice));
  cudaMemcpy2DToArray(a, 0, 0, zeros.data(), 64, 64, 16, cudaMemcpyHostToDevice);
  cudaMemcpyToArray(a, 0, 0, host.data(), 128, cudaMemcpyHostToDevice);
  cudaMemcpyToArray(a, 32, 2, host.data() + 100, 64, cudaMemcpyHostToDevice);
  std::vector<float> back(256);
  cudaMemcpy2DFromArray(back.data(), 64, a, 0, 0, 64, 4, cudaMemcpyDeviceToHost);
  printf("rows 0..3 after ToArray:");
  for (int i = 0; i < 64; ++i) printf(" %g", back[i]);
  printf("\n");
  rep("FromArray x 32 count 64 (crosses row)", cudaMemcpyFromArray(back.data(), a, 32, 2, 64, cudaMemcpyDeviceToHost));
  printf("FromArray crossing:"); for (int i = 0; i < 16; ++i) printf(" %g", back[i]); printf("\n");
  // cudaMemcpy3D with both srcArray and srcPtr
  cudaMemcpy3DParms p; memset(&p, 0, sizeof p);
  cudaArray_t b2; cudaMallocArray(&b2, &f, 16, 16);
  p.srcArray = a; p.srcPtr = make_cudaPitchedPtr(host.data(), 64, 16, 16); p.dstArray = b2; p.extent = make_cudaExtent(16, 16, 1); p.kind = cudaMemcpyDeviceToDevice;
  rep("3D srcArray+srcPtr", cudaMemcpy3D(&p));
  p.kind = cudaMemcpyHostToDevice; rep("3D srcArray+srcPtr HtoD", cudaMemcpy3D(&p));
  memset(&p, 0, sizeof p);
  p.srcArray = a; p.dstArray = b2; p.dstPtr = make_cudaPitchedPtr(dp, 64, 16, 16); p.extent = make_cudaExtent(16, 16, 1); p.kind = cudaMemcpyDeviceToDevice;
  rep("3D dstArray+dstPtr", cudaMemcpy3D(&p));
  memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(host.data(), 64, 16, 16); p.dstArray = b2; p.extent = make_cudaExtent(16, 16, 1); p.kind = cudaMemcpyHostToHost;
  rep("3D to array kind HtoH", cudaMemcpy3D(&p));
  p.kind = cudaMemcpyDeviceToDevice; rep("3D to array host src kind DtoD", cudaMemcpy3D(&p));
  cudaFreeArray(b2);
  cudaFreeArray(a);
  // color attachment
  a = nullptr;
  rep("MallocArray colorAttachment", cudaMallocArray(&a, &f, 16, 16, cudaArrayColorAttachment));
  if (a) { unsigned fl = 0; cudaExtent e; cudaArrayGetInfo(nullptr, &e, &fl, a); printf("  flags %u\n", fl); cudaFreeArray(a); }
  a = nullptr;
  rep("Malloc3DArray colorAttachment", cudaMalloc3DArray(&a, &f, make_cudaExtent(16, 16, 0), cudaArrayColorAttachment));
  if (a) { unsigned fl = 0; cudaExtent e; cudaArrayGetInfo(nullptr, &e, &fl, a); printf("  flags %u\n", fl); cudaFreeArray(a); }
  a = nullptr;
  rep("MallocArray colorAttachment|surface", cudaMallocArray(&a, &f, 16, 16, cudaArrayColorAttachment | cudaArraySurfaceLoadStore));
  if (a) cudaFreeArray(a);
  // layered cubemap mipmapped level counts
  for (unsigned req : {0u, 1u, 3u, 5u, 6u, 10u}) {
    m = nullptr;
    cudaError_t e = cudaMallocMipmappedArray(&m, &f, make_cudaExtent(16, 16, 12), req, cudaArrayCubemap | cudaArrayLayered);
    int count = 0;
    if (!e) { for (unsigned l = 0; l < 20; ++l) { cudaArray_t x; if (cudaGetMipmappedArrayLevel(&x, m, l)) { cudaGetLastError(); break; } ++count; cudaExtent ex; cudaArrayGetInfo(nullptr, &ex, nullptr, x); if (l == count - 1 && req == 10u) printf("   level %u %zu %zu %zu\n", l, ex.width, ex.height, ex.depth); } cudaFreeMipmappedArray(m); }
    printf("layered cube mip req %u: %d levels %d\n", req, (int)e, count); cudaGetLastError();
    m = nullptr;
    e = cudaMallocMipmappedArray(&m, &f, make_cudaExtent(16, 16, 6), req, cudaArrayCubemap);
    count = 0;
    if (!e) { for (unsigned l = 0; l < 20; ++l) { cudaArray_t x; if (cudaGetMipmappedArrayLevel(&x, m, l)) { cudaGetLastError(); break; } ++count; } cudaFreeMipmappedArray(m); }
    printf("cube mip req %u: %d levels %d\n", req, (int)e, count); cudaGetLastError();
    m = nullptr;
    e = cudaMallocMipmappedArray(&m, &f, make_cudaExtent(16, 1, 7), req, cudaArrayLayered);
    count = 0;
    if (!e) { for (unsigned l = 0; l < 20; ++l) { cudaArray_t x; if (cudaGetMipmappedArrayLevel(&x, m, l)) { cudaGetLastError(); break; } ++count; } cudaFreeMipmappedArray(m); }
    printf("2d layered 16x1x7 mip req %u: %d levels %d\n", req, (int)e, count); cudaGetLastError();
  }
  // surface limits
  struct S { const char* n; size_t w, h, d; unsigned fl; } ss[] = {
      {"surf 1D 32768", 32768, 0, 0, 2}, {"surf 1D 32769", 32769, 0, 0, 2}, {"surf 1D 131072", 131072, 0, 0, 2},
      {"surf 2D 131072x65536", 131072, 65536, 0, 2}, {"surf 2D 131073x1", 131073, 1, 0, 2}, {"surf 2D 1x65537", 1, 65537, 0, 2},
      {"surf 3D 16384^2x16", 16384, 16384, 16, 2}, {"surf 3D 16385x1x1", 16385, 1, 1, 2}, {"surf 3D 1x1x16385", 1, 1, 16385, 2},
      {"surf 1DLayered 32768x2048", 32768, 0, 2048, 3}, {"surf 1DLayered 32769x1", 32769, 0, 1, 3}, {"surf 1DLayered 1x2049", 1, 0, 2049, 3},
      {"surf 2DLayered 32768x32768x1", 32768, 32768, 1, 3}, {"surf 2DLayered 32769x1x1", 32769, 1, 1, 3}, {"surf 2DLayered 1x32769x1", 1, 32769, 1, 3}, {"surf 2DLayered 1x1x2049", 1, 1, 2049, 3},
      {"surf cube 32768", 32768, 32768, 6, 6}, {"surf cube 32769", 32769, 32769, 6, 6},
      {"surf cubeLayered 32768 x 2046", 32768, 32768, 6, 7}, {"surf cubeLayered 1x1x6*342", 1, 1, 6 * 342, 7}, {"surf cubeLayered 1x1x6*341", 1, 1, 6 * 341, 7}, {"surf cubeLayered 32769", 32769, 32769, 6, 7},
      {"tex 1DLayered 1x2049", 1, 0, 2049, 1}, {"tex cubeLayered 1x1x6*342", 1, 1, 6 * 342, 5}};
  for (auto& s : ss) {
    a = nullptr; cudaError_t e = cudaMalloc3DArray(&a, &f, make_cudaExtent(s.w, s.h, s.d), s.fl);
    rep(s.n, e); if (a) cudaFreeArray(a);
  }
  cudaDeviceProp pr; cudaGetDeviceProperties(&pr, 0);
  printf("maxSurface1DLayered %d %d maxSurface2DLayered %d %d %d maxSurfaceCubemap %d maxSurfaceCubemapLayered %d %d totalGlobalMem %zu\n",
         pr.maxSurface1DLayered[0], pr.maxSurface1DLayered[1], pr.maxSurface2DLayered[0], pr.maxSurface2DLayered[1], pr.maxSurface2DLayered[2],
         pr.maxSurfaceCubemap, pr.maxSurfaceCubemapLayered[0], pr.maxSurfaceCubemapLayered[1], pr.totalGlobalMem);
  // big arrays and memory info
  size_t fr, tot; cudaMemGetInfo(&fr, &tot); printf("meminfo before %zu %zu\n", fr, tot);
  a = nullptr; cudaError_t e = cudaMallocArray(&a, &f, 131072, 65536);
  rep("big 32GiB", e); cudaMemGetInfo(&fr, &tot); printf("meminfo with 32GiB array %zu %zu\n", fr, tot);
  cudaArray_t a2 = nullptr; e = cudaMallocArray(&a2, &f, 131072, 65536); rep("second 32GiB", e); cudaMemGetInfo(&fr, &tot); printf("meminfo %zu %zu\n", fr, tot);
  cudaArray_t a3 = nullptr; e = cudaMallocArray(&a3, &f, 131072, 65536); rep("third 32GiB", e);
  if (a) cudaFreeArray(a); if (a2) cudaFreeArray(a2); if (a3) cudaFreeArray(a3);
  cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
  a = nullptr; e = cudaMallocArray(&a, &f4, 131072, 65536); rep("float4 131072x65536 (128GiB)", e); if (a) cudaFreeArray(a);
  cudaFree(dp);
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  cudaFree(0);
  int w = argc > 1 ? atoi(argv[1]) : 0;
  if (w == 0) arrays();
  if (w == 1) border_back();
  if (w == 2) srgb();
  if (w == 3) seamless();
  if (w == 4) trilinear();
  if (w == 6) seamless_mipmaps();
  if (w == 7) clamped_mipmaps();
  return 0;
}
