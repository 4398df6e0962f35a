// Sweeps that pin down the H100 texture unit's level-of-detail arithmetic
// (issue 15), run on an H200 (the same GH100 texture unit): mipmaps whose
// level l holds l, point filtering within levels and linear between them,
// maxAnisotropy 0, so each result is the level (256ths) the unit took.
// - D: tex2DGrad, 1024^2, dx = dy (texels), so that the diagonal dx + dy,
//   scaled by 11/16, is the major axis: (a, b) with b from 0 to a in a/8192
//   steps, and a from 1 to 2 in 4096ths for fixed b; and dy = dx + (j/512, 0)
//   so that dx + dy needs 11 bits.
// - T: tex3DGrad, 256^3, dx = (1, b, c) texels, dy = 0: c swept at fixed b,
//   b swept at fixed c, and a 65 x 65 grid.
// - C: texCubemapGrad, 256^2 faces, dy = 0, a gradient g along one axis swept
//   so that direction + gradient crosses onto another face.
// Prints the first query of each sweep and every query whose result differs
// from the one before: `part sweep i x y z dx0 dx1 dx2 dy0 dy1 dy2 value`.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>

struct Query {
  float x, y, z;
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
__global__ void fetch_cube(cudaTextureObject_t t, const Query* q, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemapGrad<float>(t, q[i].x, q[i].y, q[i].z, q[i].dx, q[i].dy);
}

struct Sweep {
  std::vector<Query> queries;
  std::vector<int> sweep, index;
  void add(int s, int i, Query q) {
    queries.push_back(q);
    sweep.push_back(s);
    index.push_back(i);
  }
};

static cudaTextureObject_t make_texture(cudaMipmappedArray_t m, int levels) {
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
  d.maxMipmapLevelClamp = levels - 1;
  cudaTextureObject_t t;
  if (cudaCreateTextureObject(&t, &r, &d, nullptr)) printf("create failed\n");
  return t;
}

static void run(char part, void (*kernel)(cudaTextureObject_t, const Query*, int, float*), cudaTextureObject_t t,
                const Sweep& s) {
  int n = s.queries.size();
  Query* dq;
  float* dout;
  cudaMalloc(&dq, n * sizeof(Query));
  cudaMalloc(&dout, n * 4);
  cudaMemcpy(dq, s.queries.data(), n * sizeof(Query), cudaMemcpyHostToDevice);
  kernel<<<(n + 127) / 128, 128>>>(t, dq, n, dout);
  std::vector<float> out(n);
  cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    if (i > 0 && s.sweep[i] == s.sweep[i - 1] && out[i] == out[i - 1]) continue;
    const Query& q = s.queries[i];
    printf("%c %d %d %a %a %a %a %a %a %a %a %a %a\n", part, s.sweep[i], s.index[i], q.x, q.y, q.z, q.dx.x, q.dx.y,
           q.dx.z, q.dy.x, q.dy.y, q.dy.z, out[i]);
  }
  cudaFree(dq);
  cudaFree(dout);
}

int main() {
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  {  // D: 2D diagonals
    const int side = 1024, levels = 11;
    cudaMipmappedArray_t m;
    cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(side, side, 0), levels, 0);
    for (int l = 0; l < levels; ++l) {
      cudaArray_t a;
      cudaGetMipmappedArrayLevel(&a, m, l);
      int w = side >> l;
      std::vector<float> h(w * w, (float)l);
      cudaMemcpy2DToArray(a, 0, 0, h.data(), w * 4, w * 4, w, cudaMemcpyHostToDevice);
    }
    Sweep s;
    int id = 0;
    const float k = 1.0f / side;
    for (float a : {1.0f, 1.5f, 1.2890625f, 1.90625f}) {
      for (int i = 0; i <= 8192; ++i) {
        float b = a * i / 8192;
        s.add(id, i, {0, 0, 0, make_float4(a * k, b * k, 0, 0), make_float4(a * k, b * k, 0, 0)});
      }
      ++id;
    }
    for (float b : {0.375f, 0.7109375f, 0.123046875f}) {
      for (int i = 0; i <= 4096; ++i) {
        float a = 1.0f + i / 4096.0f;
        s.add(id, i, {0, 0, 0, make_float4(a * k, b * k, 0, 0), make_float4(a * k, b * k, 0, 0)});
      }
      ++id;
    }
    for (float b : {0.375f, 0.7109375f}) {  // dx + dy with 11 significant bits
      for (int j = 0; j <= 2048; ++j) {
        float a2 = 1.0f + j / 2048.0f;
        s.add(id, j, {0, 0, 0, make_float4(1.0f * k, b * k, 0, 0), make_float4(a2 * k, b * k, 0, 0)});
      }
      ++id;
    }
    for (int j = 0; j <= 8192; ++j) {  // the smaller component with 11 bits in the sum
      float b2 = 0.5f * j / 8192;
      s.add(id, j, {0, 0, 0, make_float4(1.0f * k, 0.5f * k, 0, 0), make_float4(1.0f * k, b2 * k, 0, 0)});
    }
    ++id;
    run('D', fetch_2d, make_texture(m, levels), s);
  }
  {  // T: 3D lengths
    const int side = 256, levels = 9;
    cudaMipmappedArray_t m;
    cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(side, side, side), levels, 0);
    for (int l = 0; l < levels; ++l) {
      cudaArray_t a;
      cudaGetMipmappedArrayLevel(&a, m, l);
      int w = side >> l;
      std::vector<float> h(size_t(w) * w * w, (float)l);
      cudaMemcpy3DParms p;
      memset(&p, 0, sizeof p);
      p.srcPtr = make_cudaPitchedPtr(h.data(), w * 4, w, w);
      p.dstArray = a;
      p.extent = make_cudaExtent(w, w, w);
      p.kind = cudaMemcpyHostToDevice;
      cudaMemcpy3D(&p);
    }
    Sweep s;
    int id = 0;
    const float k = 1.0f / side;
    for (float b : {0.375f, 0.7109375f, 0.5f, 0.90625f, 0.123046875f}) {
      for (int i = 0; i <= 4096; ++i) {
        float c = b * i / 4096;
        s.add(id, i, {0, 0, 0, make_float4(k, b * k, c * k, 0), make_float4(0, 0, 0, 0)});
      }
      ++id;
    }
    for (float c : {0.1f, 0.2f, 0.3f, 0.0625f, 0.123046875f}) {
      for (int i = 0; i <= 4096; ++i) {
        float b = c + (1 - c) * i / 4096;
        s.add(id, i, {0, 0, 0, make_float4(k, b * k, c * k, 0), make_float4(0, 0, 0, 0)});
      }
      ++id;
    }
    for (int i = 0; i <= 64; ++i)
      for (int j = 0; j <= i; ++j)
        s.add(id, i * 65 + j, {0, 0, 0, make_float4(k, i / 64.0f * k, j / 64.0f * k, 0), make_float4(0, 0, 0, 0)});
    ++id;
    run('T', fetch_3d, make_texture(m, levels), s);
  }
  {  // C: cubemap gradients that cross onto another face
    const int side = 256, levels = 9;
    cudaMipmappedArray_t m;
    cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(side, side, 6), levels, cudaArrayCubemap);
    for (int l = 0; l < levels; ++l) {
      cudaArray_t a;
      cudaGetMipmappedArrayLevel(&a, m, l);
      int w = side >> l;
      std::vector<float> h(size_t(w) * w * 6, (float)l);
      cudaMemcpy3DParms p;
      memset(&p, 0, sizeof p);
      p.srcPtr = make_cudaPitchedPtr(h.data(), w * 4, w, w);
      p.dstArray = a;
      p.extent = make_cudaExtent(w, w, 6);
      p.kind = cudaMemcpyHostToDevice;
      cudaMemcpy3D(&p);
    }
    struct Family {
      float x, y, z, gx, gy, gz, reach;
    };
    const Family families[] = {
        {1, 0.5f, 0, 0, 1, 0, 2},     {1, 0.5f, 0, -1, 0, 0, 1.5f},
        {1, 0.5f, 0, 1, 0, 0, 2},     {1, 0, 0, 0, 1, 0, 3},
        {1, 0.5f, 0.25f, 0, 0, 1, 2}, {1, 0.5f, 0, 0, -1, 0, 3},
        {1, 0.25f, 0, 0, 1, 0, 2},    {1, 0.3f, 0.2f, -1, 0.5f, 0, 1.5f},
        {0.5f, 1, 0, 1, 0, 0, 2},     {1, 0.5f, 0, 0, 1, 1, 2},
        {2, 1, 0, 0, 2, 0, 4},        {-1, 0.5f, 0.5f, 0, 0, -1, 2},
    };
    Sweep s;
    int id = 0;
    for (const Family& f : families) {
      for (int i = 0; i <= 2048; ++i) {
        float g = f.reach * i / 2048;
        s.add(id, i, {f.x, f.y, f.z, make_float4(g * f.gx, g * f.gy, g * f.gz, 0), make_float4(0, 0, 0, 0)});
      }
      ++id;
    }
    run('C', fetch_cube, make_texture(m, levels), s);
  }
  printf("done %d\n", (int)cudaGetLastError());
  return 0;
}
