// tex3DGrad's and texCubemapGrad's level of detail on a GPU: mipmaps whose
// level l holds the value l everywhere, point filtering within a level and
// linear between levels, so that each result is the level the unit chose
// (to 1/256). One line per fetch: the kind (3 for tex3DGrad, C for
// texCubemapGrad), maxAnisotropy, the direction or coordinate, both
// gradients and the result.
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct GradientQuery {
  float x, y, z;
  float4 dx, dy;
};

__global__ void volume_fetches(cudaTextureObject_t t, const GradientQuery* q, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3DGrad<float>(t, q[i].x, q[i].y, q[i].z, q[i].dx, q[i].dy);
}

__global__ void cube_fetches(cudaTextureObject_t t, const GradientQuery* q, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemapGrad<float>(t, q[i].x, q[i].y, q[i].z, q[i].dx, q[i].dy);
}

static unsigned seed = 12345;
static float uniform() {
  seed = seed * 1103515245u + 12345u;
  return ((seed >> 8) & 0xffff) / 65536.f;
}

// The maxAnisotropy values to measure: 0 2 4 16 (gradients3d.txt) unless
// given as arguments (gradients3d_anisotropy.txt: 3 5 6 ... 15).
static std::vector<unsigned> anisotropies = {0u, 2u, 4u, 16u};

static void run_and_print(char kind, cudaMipmappedArray_t m, int levels, const std::vector<GradientQuery>& qs) {
  cudaResourceDesc r;
  memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeMipmappedArray;
  r.res.mipmap.mipmap = m;
  GradientQuery* dq;
  float* dout;
  int n = static_cast<int>(qs.size());
  cudaMalloc(&dq, n * sizeof(GradientQuery));
  cudaMalloc(&dout, n * 4);
  cudaMemcpy(dq, qs.data(), n * sizeof(GradientQuery), cudaMemcpyHostToDevice);
  for (unsigned aniso : anisotropies) {
    cudaTextureDesc d;
    memset(&d, 0, sizeof d);
    d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = cudaAddressModeClamp;
    d.filterMode = cudaFilterModePoint;
    d.mipmapFilterMode = cudaFilterModeLinear;
    d.normalizedCoords = 1;
    d.maxMipmapLevelClamp = static_cast<float>(levels - 1);
    d.maxAnisotropy = aniso;
    cudaTextureObject_t t;
    if (cudaCreateTextureObject(&t, &r, &d, nullptr) != cudaSuccess) {
      printf("create failed %c %u\n", kind, aniso);
      continue;
    }
    if (kind == '3')
      volume_fetches<<<(n + 127) / 128, 128>>>(t, dq, n, dout);
    else
      cube_fetches<<<(n + 127) / 128, 128>>>(t, dq, n, dout);
    std::vector<float> out(n);
    cudaError_t e = cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) printf("error %c %u %s\n", kind, aniso, cudaGetErrorString(e));
    for (int i = 0; i < n; ++i) {
      const GradientQuery& q = qs[i];
      printf("%c %u %a %a %a dx %a %a %a dy %a %a %a = %a\n", kind, aniso, q.x, q.y, q.z, q.dx.x, q.dx.y, q.dx.z,
             q.dy.x, q.dy.y, q.dy.z, out[i]);
    }
    cudaDestroyTextureObject(t);
  }
  cudaFree(dq);
  cudaFree(dout);
}

int main(int argc, char** argv) {
  if (argc > 1) anisotropies.clear();
  for (int i = 1; i < argc; ++i) anisotropies.push_back(static_cast<unsigned>(atoi(argv[i])));
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  // A 256^3 volume, 9 levels.
  {
    const int side = 256, levels = 9;
    cudaMipmappedArray_t m;
    cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(side, side, side), levels, 0);
    for (int l = 0; l < levels; ++l) {
      cudaArray_t a;
      cudaGetMipmappedArrayLevel(&a, m, l);
      int w = side >> l;
      std::vector<float> h(size_t(w) * w * w, static_cast<float>(l));
      cudaMemcpy3DParms p;
      memset(&p, 0, sizeof p);
      p.srcPtr = make_cudaPitchedPtr(h.data(), w * 4, w, w);
      p.dstArray = a;
      p.extent = make_cudaExtent(w, w, w);
      p.kind = cudaMemcpyHostToDevice;
      cudaMemcpy3D(&p);
    }
    std::vector<GradientQuery> qs;
    for (int i = 0; i < 1500; ++i) {
      float scale = powf(2.f, -9.f + 9.f * uniform());
      GradientQuery q{0.5f, 0.5f, 0.5f,
                      make_float4(scale * (uniform() * 2 - 1), scale * (uniform() * 2 - 1), scale * (uniform() * 2 - 1), 0),
                      make_float4(scale * (uniform() * 2 - 1), scale * (uniform() * 2 - 1), scale * (uniform() * 2 - 1), 0)};
      if (i % 4 == 0) q.dx.y = q.dx.z = q.dy.x = q.dy.z = 0;  // along the axes
      if (i % 8 == 0) q.dy.y = q.dx.x;
      if (i % 16 == 1) q.dx.z = q.dy.z = 0;  // in the xy plane: compare with tex2DGrad's rule
      if (i % 16 == 3) q.dx.x = q.dx.y = 0, q.dy.x = q.dy.y = 0;  // only z
      qs.push_back(q);
    }
    run_and_print('3', m, levels, qs);
  }
  // Cubemaps with 256 x 256 faces, 9 levels.
  {
    const int side = 256, levels = 9;
    cudaMipmappedArray_t m;
    cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(side, side, 6), levels, cudaArrayCubemap);
    for (int l = 0; l < levels; ++l) {
      cudaArray_t a;
      cudaGetMipmappedArrayLevel(&a, m, l);
      int w = side >> l;
      std::vector<float> h(size_t(w) * w * 6, static_cast<float>(l));
      cudaMemcpy3DParms p;
      memset(&p, 0, sizeof p);
      p.srcPtr = make_cudaPitchedPtr(h.data(), w * 4, w, w);
      p.dstArray = a;
      p.extent = make_cudaExtent(w, w, 6);
      p.kind = cudaMemcpyHostToDevice;
      cudaMemcpy3D(&p);
    }
    std::vector<GradientQuery> qs;
    for (int i = 0; i < 1500; ++i) {
      float scale = powf(2.f, -9.f + 9.f * uniform());
      // Directions: the face centre of +x, +y, +z, -z, or a random one.
      float d[3] = {uniform() * 2 - 1, uniform() * 2 - 1, uniform() * 2 - 1};
      if (i % 5 == 0) d[0] = 1, d[1] = d[2] = 0;
      if (i % 5 == 1) d[1] = 1, d[0] = d[2] = 0;
      if (i % 5 == 2) d[2] = i % 10 < 5 ? 2.0f : -0.5f, d[0] = d[1] = 0;
      GradientQuery q{d[0], d[1], d[2],
                      make_float4(scale * (uniform() * 2 - 1), scale * (uniform() * 2 - 1), scale * (uniform() * 2 - 1), 0),
                      make_float4(scale * (uniform() * 2 - 1), scale * (uniform() * 2 - 1), scale * (uniform() * 2 - 1), 0)};
      if (i % 4 == 0) q.dx.y = q.dx.z = q.dy.x = q.dy.z = 0;
      qs.push_back(q);
    }
    run_and_print('C', m, levels, qs);
  }
  return 0;
}
