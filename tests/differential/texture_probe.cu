// Probe of texture and surface memory (issue 15): CUDA arrays, texture
// objects and every fetch function, surface objects and the surface
// functions, as an H100 computes them. Each line is one fact: a fetch's
// coordinates (printed with %a, exactly) and the result's bits in hex, so
// that weft's build must match the GPU bit for bit; or a call's error code.
// An unmodified CUDA program: weft builds it through the porting step
// (weft_add_cuda_executable).
//
//   nvcc -arch=sm_90 -o texture_probe texture_probe.cu && ./texture_probe > texture_probe.expected
//
// Out-of-range surface accesses with cudaBoundaryModeTrap kill the context,
// so surface_trap_probe.cu probes them in processes of their own.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

// ---------------------------------------------------------------------------
// Fetching: one kernel runs a list of queries against one texture object and
// stores each result's four components as bits.

enum FetchOp {
  kTex1D,
  kTex1Dfetch,
  kTex2D,
  kTex3D,
  kTex1DLayered,
  kTex2DLayered,
  kTexCubemap,
  kTexCubemapLayered,
  kTex1DLod,
  kTex2DLod,
  kTex3DLod,
  kTex2DGrad,
  kGather0,
  kGather1,
  kGather2,
  kGather3,
  kTex1DInt,
  kTex1DUint,
  kTex1DfetchInt,
  kTex1DfetchUint,
  kTex2DInt,
  kTex1DOut,  // the out-parameter form of tex1D
  kTexCubemapInt,
};

struct Query {
  float x, y, z;
  float level;  // level of detail, or a 1D gradient
  float dx[2], dy[2];
  int layer;
};

__device__ uint4 bits(float4 v) {
  return make_uint4(__float_as_uint(v.x), __float_as_uint(v.y), __float_as_uint(v.z), __float_as_uint(v.w));
}
__device__ uint4 bits(int4 v) { return make_uint4(v.x, v.y, v.z, v.w); }

__global__ void fetch_kernel(cudaTextureObject_t t, int op, const Query* queries, int n, uint4* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Query q = queries[i];
  uint4 r = make_uint4(0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef);
  switch (op) {
    case kTex1D: r = bits(tex1D<float4>(t, q.x)); break;
    case kTex1Dfetch: r = bits(tex1Dfetch<float4>(t, q.layer)); break;
    case kTex2D: r = bits(tex2D<float4>(t, q.x, q.y)); break;
    case kTex3D: r = bits(tex3D<float4>(t, q.x, q.y, q.z)); break;
    case kTex1DLayered: r = bits(tex1DLayered<float4>(t, q.x, q.layer)); break;
    case kTex2DLayered: r = bits(tex2DLayered<float4>(t, q.x, q.y, q.layer)); break;
    case kTexCubemap: r = bits(texCubemap<float4>(t, q.x, q.y, q.z)); break;
    case kTexCubemapLayered: r = bits(texCubemapLayered<float4>(t, q.x, q.y, q.z, q.layer)); break;
    case kTex1DLod: r = bits(tex1DLod<float4>(t, q.x, q.level)); break;
    case kTex2DLod: r = bits(tex2DLod<float4>(t, q.x, q.y, q.level)); break;
    case kTex3DLod: r = bits(tex3DLod<float4>(t, q.x, q.y, q.z, q.level)); break;
    case kTex2DGrad:
      r = bits(tex2DGrad<float4>(t, q.x, q.y, make_float2(q.dx[0], q.dx[1]), make_float2(q.dy[0], q.dy[1])));
      break;
    case kGather0: r = bits(tex2Dgather<float4>(t, q.x, q.y, 0)); break;
    case kGather1: r = bits(tex2Dgather<float4>(t, q.x, q.y, 1)); break;
    case kGather2: r = bits(tex2Dgather<float4>(t, q.x, q.y, 2)); break;
    case kGather3: r = bits(tex2Dgather<float4>(t, q.x, q.y, 3)); break;
    case kTex1DInt: r = bits(tex1D<int4>(t, q.x)); break;
    case kTex1DUint: {
      uint4 u = tex1D<uint4>(t, q.x);
      r = u;
      break;
    }
    case kTex1DfetchInt: r = bits(tex1Dfetch<int4>(t, q.layer)); break;
    case kTex1DfetchUint: r = tex1Dfetch<uint4>(t, q.layer); break;
    case kTex2DInt: r = bits(tex2D<int4>(t, q.x, q.y)); break;
    case kTexCubemapInt: r = bits(texCubemap<int4>(t, q.x, q.y, q.z)); break;
    case kTex1DOut: {
      float4 v;
      tex1D(&v, t, q.x);
      r = bits(v);
      break;
    }
  }
  out[i] = r;
}

static Query* device_queries = nullptr;
static uint4* device_results = nullptr;
static const int kMaxQueries = 4096;

static std::vector<uint4> run_queries(cudaTextureObject_t t, FetchOp op, const std::vector<Query>& queries) {
  int n = (int)queries.size();
  cudaMemcpy(device_queries, queries.data(), n * sizeof(Query), cudaMemcpyHostToDevice);
  cudaMemset(device_results, 0, n * sizeof(uint4));
  fetch_kernel<<<(n + 127) / 128, 128>>>(t, op, device_queries, n, device_results);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) std::printf("!! fetch kernel op %d: %s\n", (int)op, cudaGetErrorName(e));
  std::vector<uint4> results(n);
  cudaMemcpy(results.data(), device_results, n * sizeof(uint4), cudaMemcpyDeviceToHost);
  return results;
}

static unsigned fbits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}

static void print_components(const uint4& r, int components) {
  const unsigned c[4] = {r.x, r.y, r.z, r.w};
  for (int k = 0; k < components; ++k) std::printf("%s%08x", k ? "," : "", c[k]);
}

// The coordinates an operation reads, exactly.
static void print_query(FetchOp op, const Query& q) {
  switch (op) {
    case kTex1Dfetch:
    case kTex1DfetchInt:
    case kTex1DfetchUint: std::printf("i=%d", q.layer); return;
    case kTex1D:
    case kTex1DInt:
    case kTex1DUint:
    case kTex1DOut: std::printf("x=%a", q.x); return;
    case kTex1DLayered: std::printf("x=%a l=%d", q.x, q.layer); return;
    case kTex1DLod: std::printf("x=%a lod=%a", q.x, q.level); return;
    case kTex2DLayered: std::printf("x=%a y=%a l=%d", q.x, q.y, q.layer); return;
    case kTex3D:
    case kTexCubemapInt:
    case kTexCubemap: std::printf("x=%a y=%a z=%a", q.x, q.y, q.z); return;
    case kTexCubemapLayered: std::printf("x=%a y=%a z=%a l=%d", q.x, q.y, q.z, q.layer); return;
    case kTex2DLod: std::printf("x=%a y=%a lod=%a", q.x, q.y, q.level); return;
    case kTex3DLod: std::printf("x=%a y=%a z=%a lod=%a", q.x, q.y, q.z, q.level); return;
    case kTex2DGrad:
      std::printf("x=%a y=%a dx=(%a,%a) dy=(%a,%a)", q.x, q.y, q.dx[0], q.dx[1], q.dy[0], q.dy[1]);
      return;
    default: std::printf("x=%a y=%a", q.x, q.y); return;
  }
}

// One line per query: the results of the same query on each texture.
static void sweep(const char* label, const std::vector<cudaTextureObject_t>& textures, const char* const* names,
                  FetchOp op, const std::vector<Query>& queries, int components) {
  // A texture that was not made (0) is not fetched from: its column says "none".
  std::vector<std::vector<uint4>> results;
  for (cudaTextureObject_t t : textures) results.push_back(t ? run_queries(t, op, queries) : std::vector<uint4>());
  for (size_t i = 0; i < queries.size(); ++i) {
    std::printf("%s ", label);
    print_query(op, queries[i]);
    std::printf(":");
    for (size_t t = 0; t < textures.size(); ++t) {
      std::printf(" %s=", names[t]);
      if (textures[t] == 0)
        std::printf("none");
      else
        print_components(results[t][i], components);
    }
    std::printf("\n");
  }
}

static Query q1(float x) {
  Query q{};
  q.x = x;
  return q;
}
static Query q2(float x, float y) {
  Query q{};
  q.x = x, q.y = y;
  return q;
}
static Query q3(float x, float y, float z) {
  Query q{};
  q.x = x, q.y = y, q.z = z;
  return q;
}
static Query qi(int i) {
  Query q{};
  q.layer = i;
  return q;
}

static cudaTextureDesc texture_desc(cudaTextureAddressMode mode, cudaTextureFilterMode filter, int normalized,
                                    cudaTextureReadMode read = cudaReadModeElementType) {
  cudaTextureDesc d;
  std::memset(&d, 0, sizeof d);
  d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = mode;
  d.filterMode = filter;
  d.readMode = read;
  d.normalizedCoords = normalized;
  return d;
}

// Creates a texture object, reporting a failure (and giving 0).
static cudaTextureObject_t make_texture(const char* label, const cudaResourceDesc& resource,
                                        const cudaTextureDesc& desc) {
  cudaTextureObject_t t = 0;
  cudaError_t e = cudaCreateTextureObject(&t, &resource, &desc, nullptr);
  if (e != cudaSuccess) {
    std::printf("create %s: %d %s\n", label, (int)e, cudaGetErrorName(e));
    cudaGetLastError();
    return 0;
  }
  return t;
}

static cudaResourceDesc array_resource(cudaArray_t a) {
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  return r;
}

static const cudaTextureAddressMode kModes[4] = {cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror,
                                                 cudaAddressModeBorder};
static const char* const kModeNames[4] = {"wrap", "clamp", "mirror", "border"};

// The four address modes of one filter and coordinate kind over a resource.
static std::vector<cudaTextureObject_t> textures_per_mode(const char* label, const cudaResourceDesc& resource,
                                                          cudaTextureFilterMode filter, int normalized) {
  std::vector<cudaTextureObject_t> ts;
  for (int m = 0; m < 4; ++m) {
    char name[128];
    std::snprintf(name, sizeof name, "%s %s filter=%d norm=%d", label, kModeNames[m], (int)filter, normalized);
    ts.push_back(make_texture(name, resource, texture_desc(kModes[m], filter, normalized)));
  }
  return ts;
}

static void destroy(const std::vector<cudaTextureObject_t>& ts) {
  for (cudaTextureObject_t t : ts)
    if (t) cudaDestroyTextureObject(t);
}

// Every address mode x point/linear x unnormalized/normalized over a
// resource; normalized queries are the unnormalized ones divided by `extent`
// (per axis).
static void sweep_modes(const char* label, const cudaResourceDesc& resource, FetchOp op,
                        const std::vector<Query>& texel_queries, const float extent[3], int components) {
  for (int normalized = 0; normalized < 2; ++normalized) {
    std::vector<Query> queries = texel_queries;
    if (normalized)
      for (Query& q : queries) q.x /= extent[0], q.y /= extent[1], q.z /= extent[2];
    for (int f = 0; f < 2; ++f) {
      cudaTextureFilterMode filter = f ? cudaFilterModeLinear : cudaFilterModePoint;
      std::vector<cudaTextureObject_t> ts = textures_per_mode(label, resource, filter, normalized);
      char line_label[128];
      std::snprintf(line_label, sizeof line_label, "%s %s %s", label, f ? "linear" : "point",
                    normalized ? "norm" : "texel");
      sweep(line_label, ts, kModeNames, op, queries, components);
      destroy(ts);
    }
  }
}

static const float kNaN = std::nanf("");
static const float kInf = INFINITY;

// Coordinates in texels across a width of 8: centres, edges, quarters,
// negative and out of range, and the special values.
static std::vector<float> texel_sweep_8() {
  std::vector<float> xs;
  for (int k = -12; k <= 44; ++k) xs.push_back(k * 0.25f);
  const float extra[] = {-0.0f,         0.001f,        0.4999999f, 0.5000001f, 7.9999995f, 8.0000005f, 15.5f,   16.5f,
                         -8.5f,         -16.25f,       100.3f,     -100.3f,    1e10f,      -1e10f,     8388608.5f,
                         16777216.0f,   3.3333333f,    0.1f,       kNaN,       -kNaN,      kInf,       -kInf,
                         1.17549435e-38f, 1.4e-45f};
  for (float x : extra) xs.push_back(x);
  return xs;
}

// ---------------------------------------------------------------------------
// Arrays.

static cudaArray_t make_array(cudaChannelFormatDesc desc, size_t w, size_t h, const void* host, size_t element_size,
                              unsigned flags = 0) {
  cudaArray_t a = nullptr;
  cudaError_t e = cudaMallocArray(&a, &desc, w, h, flags);
  if (e != cudaSuccess) {
    std::printf("!! cudaMallocArray %zux%zu: %s\n", w, h, cudaGetErrorName(e));
    return nullptr;
  }
  size_t rows = h ? h : 1;
  if (host) cudaMemcpy2DToArray(a, 0, 0, host, w * element_size, w * element_size, rows, cudaMemcpyHostToDevice);
  return a;
}

static cudaArray_t make_array_3d(cudaChannelFormatDesc desc, cudaExtent extent, const void* host,
                                 size_t element_size, unsigned flags) {
  cudaArray_t a = nullptr;
  cudaError_t e = cudaMalloc3DArray(&a, &desc, extent, flags);
  if (e != cudaSuccess) {
    std::printf("!! cudaMalloc3DArray %zux%zux%zu flags %u: %s\n", extent.width, extent.height, extent.depth, flags,
                cudaGetErrorName(e));
    return nullptr;
  }
  if (host) {
    cudaMemcpy3DParms p;
    std::memset(&p, 0, sizeof p);
    size_t h = extent.height ? extent.height : 1;
    size_t d = extent.depth ? extent.depth : 1;
    p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(host), extent.width * element_size, extent.width, h);
    p.dstArray = a;
    p.extent = make_cudaExtent(extent.width, h, d);
    p.kind = cudaMemcpyHostToDevice;
    cudaError_t c = cudaMemcpy3D(&p);
    if (c != cudaSuccess) std::printf("!! cudaMemcpy3D to array: %s\n", cudaGetErrorName(c));
  }
  return a;
}

// ---------------------------------------------------------------------------
// Sections.

static void device_limits() {
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  std::printf("textureAlignment %zu texturePitchAlignment %zu surfaceAlignment %zu\n", p.textureAlignment,
              p.texturePitchAlignment, p.surfaceAlignment);
  std::printf("maxTexture1D %d maxTexture1DMipmap %d maxTexture1DLinear(attr) ", p.maxTexture1D,
              p.maxTexture1DMipmap);
  int v = 0;
  cudaDeviceGetAttribute(&v, cudaDevAttrMaxTexture1DLinearWidth, 0);
  std::printf("%d\n", v);
  std::printf("maxTexture2D %d %d maxTexture2DMipmap %d %d maxTexture2DLinear %d %d %d maxTexture2DGather %d %d\n",
              p.maxTexture2D[0], p.maxTexture2D[1], p.maxTexture2DMipmap[0], p.maxTexture2DMipmap[1],
              p.maxTexture2DLinear[0], p.maxTexture2DLinear[1], p.maxTexture2DLinear[2], p.maxTexture2DGather[0],
              p.maxTexture2DGather[1]);
  std::printf("maxTexture3D %d %d %d maxTexture3DAlt %d %d %d maxTextureCubemap %d\n", p.maxTexture3D[0],
              p.maxTexture3D[1], p.maxTexture3D[2], p.maxTexture3DAlt[0], p.maxTexture3DAlt[1], p.maxTexture3DAlt[2],
              p.maxTextureCubemap);
  std::printf("maxTexture1DLayered %d %d maxTexture2DLayered %d %d %d maxTextureCubemapLayered %d %d\n",
              p.maxTexture1DLayered[0], p.maxTexture1DLayered[1], p.maxTexture2DLayered[0], p.maxTexture2DLayered[1],
              p.maxTexture2DLayered[2], p.maxTextureCubemapLayered[0], p.maxTextureCubemapLayered[1]);
  std::printf("maxSurface1D %d maxSurface2D %d %d maxSurface3D %d %d %d\n", p.maxSurface1D, p.maxSurface2D[0],
              p.maxSurface2D[1], p.maxSurface3D[0], p.maxSurface3D[1], p.maxSurface3D[2]);
  std::printf("maxSurface1DLayered %d %d maxSurface2DLayered %d %d %d maxSurfaceCubemap %d maxSurfaceCubemapLayered %d %d\n",
              p.maxSurface1DLayered[0], p.maxSurface1DLayered[1], p.maxSurface2DLayered[0], p.maxSurface2DLayered[1],
              p.maxSurface2DLayered[2], p.maxSurfaceCubemap, p.maxSurfaceCubemapLayered[0],
              p.maxSurfaceCubemapLayered[1]);
}

// 1D array of 8 floats 2^i: every result is a sum of weighted powers of two,
// which shows which texels a fetch read and with what weights.
static void one_d_array() {
  float host[8];
  for (int i = 0; i < 8; ++i) host[i] = (float)(1 << i);
  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), 8, 0, host, 4);
  std::vector<Query> qs;
  for (float x : texel_sweep_8()) qs.push_back(q1(x));
  const float extent[3] = {8, 1, 1};
  sweep_modes("1d", array_resource(a), kTex1D, qs, extent, 1);

  // The out-parameter form gives the same bits as the template form.
  cudaTextureObject_t t = make_texture("1d out", array_resource(a), texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 0));
  std::vector<Query> few = {q1(0.7f), q1(3.1f), q1(-2.f)};
  const char* name[] = {"clamp"};
  sweep("1d out-param linear texel", {t}, name, kTex1DOut, few, 1);
  // tex1DLod on an array without mipmaps reads its only level.
  std::vector<Query> lods;
  for (float l : {-1.f, 0.f, 0.5f, 1.f, 3.f}) {
    Query q = q1(2.3f);
    q.level = l;
    lods.push_back(q);
  }
  sweep("1d lod no-mipmap linear texel", {t}, name, kTex1DLod, lods, 1);
  cudaDestroyTextureObject(t);
  cudaFreeArray(a);
}

// Filter weights: texels 0, 1, 3, 1024 read with linear filtering at steps
// of 1/512 texel across whole intervals and 1/4096 near a texel centre, so
// the 8-bit fixed-point weight and its rounding show.
static void filter_weights() {
  float host[4] = {0.f, 1.f, 3.f, 1024.f};
  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), 4, 0, host, 4);
  cudaTextureObject_t t =
      make_texture("weights", array_resource(a), texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 0));
  cudaTextureObject_t tn =
      make_texture("weights norm", array_resource(a), texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 1));
  std::vector<Query> qs;
  for (int k = 0; k <= 512; ++k) qs.push_back(q1(0.5f + k / 512.f));
  for (int k = 0; k < 128; ++k) qs.push_back(q1(1.5f + k / 128.f));
  for (int k = 0; k < 128; ++k) qs.push_back(q1(2.5f + k / 4096.f));
  for (int k = 0; k < 64; ++k) qs.push_back(q1(3.0f + k / 4096.f + 1.f / 8192.f));
  const char* name[] = {"v"};
  sweep("weights linear texel", {t}, name, kTex1D, qs, 1);
  std::vector<Query> qn;
  for (int k = 0; k <= 256; ++k) qn.push_back(q1(k / 256.f));
  for (int k = 0; k < 32; ++k) qn.push_back(q1(0.625f + k / 8192.f));
  sweep("weights linear norm", {tn}, name, kTex1D, qn, 1);
  cudaDestroyTextureObject(t);
  cudaDestroyTextureObject(tn);
  cudaFreeArray(a);

  // A width that is no power of two: normalized coordinates times 5.
  float five[5] = {1.f, 2.f, 4.f, 8.f, 16.f};
  cudaArray_t b = make_array(cudaCreateChannelDesc<float>(), 5, 0, five, 4);
  cudaTextureObject_t p5 =
      make_texture("width5 point", array_resource(b), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 1));
  cudaTextureObject_t l5 =
      make_texture("width5 linear", array_resource(b), texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 1));
  cudaTextureObject_t w5 =
      make_texture("width5 wrap", array_resource(b), texture_desc(cudaAddressModeWrap, cudaFilterModeLinear, 1));
  cudaTextureObject_t m5 =
      make_texture("width5 mirror", array_resource(b), texture_desc(cudaAddressModeMirror, cudaFilterModePoint, 1));
  std::vector<Query> q5;
  for (int k = -8; k <= 136; ++k) q5.push_back(q1(k / 128.f));
  for (int i = 0; i <= 5; ++i) {
    float u = i / 5.f;
    q5.push_back(q1(std::nextafter(u, -1.f)));
    q5.push_back(q1(u));
    q5.push_back(q1(std::nextafter(u, 2.f)));
  }
  const char* names5[] = {"point", "linear", "wrap-linear", "mirror-point"};
  sweep("width5 norm", {p5, l5, w5, m5}, names5, kTex1D, q5, 1);
  cudaDestroyTextureObject(p5);
  cudaDestroyTextureObject(l5);
  cudaDestroyTextureObject(w5);
  cudaDestroyTextureObject(m5);
  cudaFreeArray(b);
}

// tex1Dfetch over linear memory: in range, out of range, and the read modes.
static void linear_memory() {
  const int n = 10;
  float host[n];
  for (int i = 0; i < n; ++i) host[i] = 1.5f * i - 3.f;
  float* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(float));
  cudaMemset(d, 0x7f, 64 * sizeof(float));
  cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = d;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = n * sizeof(float);
  std::vector<Query> qs;
  for (int i : {-1000000, -65536, -2, -1, 0, 1, 5, 9, 10, 11, 12, 16, 63, 64, 1000, 1 << 30, 0x7fffffff}) qs.push_back(qi(i));
  std::vector<cudaTextureObject_t> ts;
  for (int m = 0; m < 4; ++m) {
    // Address and filter modes do not apply to tex1Dfetch; the point is that
    // they change nothing.
    cudaTextureDesc desc = texture_desc(kModes[m], m == 3 ? cudaFilterModeLinear : cudaFilterModePoint, m == 2);
    desc.borderColor[0] = 5.f;
    ts.push_back(make_texture("linear float", r, desc));
  }
  const char* names[] = {"wrap", "clamp", "mirror-norm", "border-linear"};
  sweep("fetch float", ts, names, kTex1Dfetch, qs, 4);
  destroy(ts);

  // 2-channel float2 over linear memory (5 elements).
  r.res.linear.desc = cudaCreateChannelDesc<float2>();
  cudaTextureObject_t t2 = make_texture("linear float2", r, texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  const char* one[] = {"v"};
  std::vector<Query> q2s;
  for (int i : {-1, 0, 1, 4, 5, 6}) q2s.push_back(qi(i));
  sweep("fetch float2", {t2}, one, kTex1Dfetch, q2s, 4);
  cudaDestroyTextureObject(t2);

  // Integer element types and normalized float from linear memory.
  unsigned char bytes[16] = {0, 1, 2, 127, 128, 129, 254, 255, 10, 20, 30, 40, 50, 60, 70, 80};
  unsigned char* db = nullptr;
  cudaMalloc(&db, 16);
  cudaMemcpy(db, bytes, 16, cudaMemcpyHostToDevice);
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = db;
  r.res.linear.sizeInBytes = 16;
  std::vector<Query> qb;
  for (int i : {-1, 0, 1, 2, 3, 4, 5, 6, 7, 15, 16, 17}) qb.push_back(qi(i));
  r.res.linear.desc = cudaCreateChannelDesc<unsigned char>();
  cudaTextureObject_t u8e = make_texture("u8 elem", r, texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  cudaTextureObject_t u8n = make_texture(
      "u8 norm", r, texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0, cudaReadModeNormalizedFloat));
  r.res.linear.desc = cudaCreateChannelDesc<signed char>();
  cudaTextureObject_t s8e = make_texture("s8 elem", r, texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  cudaTextureObject_t s8n = make_texture(
      "s8 norm", r, texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0, cudaReadModeNormalizedFloat));
  sweep("fetch u8 elem", {u8e}, one, kTex1DfetchUint, qb, 4);
  sweep("fetch s8 elem", {s8e}, one, kTex1DfetchInt, qb, 4);
  sweep("fetch u8 norm", {u8n}, one, kTex1Dfetch, qb, 4);
  sweep("fetch s8 norm", {s8n}, one, kTex1Dfetch, qb, 4);
  for (cudaTextureObject_t t : {u8e, u8n, s8e, s8n}) cudaDestroyTextureObject(t);
  cudaFree(db);
  cudaFree(d);
}

// 2D: 4 x 4 floats 2^(x + 4y), from pitched linear memory and from an array.
static void two_d() {
  float host[16];
  for (int i = 0; i < 16; ++i) host[i] = (float)(1 << i);
  std::vector<Query> qs;
  const float xs[] = {-1.25f, -0.5f, 0.f, 0.3f, 0.5f, 1.75f, 3.9f, 4.f, 4.5f, 9.f};
  const float ys[] = {-0.75f, 0.5f, 1.2f, 3.5f, 4.25f, 6.f};
  for (float y : ys)
    for (float x : xs) qs.push_back(q2(x, y));
  qs.push_back(q2(kNaN, 1.5f));
  qs.push_back(q2(1.5f, kNaN));
  qs.push_back(q2(kInf, -kInf));
  const float extent[3] = {4, 4, 1};

  float* d = nullptr;
  size_t pitch = 0;
  cudaMallocPitch(&d, &pitch, 4 * sizeof(float), 4);
  cudaMemcpy2D(d, pitch, host, 16, 16, 4, cudaMemcpyHostToDevice);
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = d;
  r.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  r.res.pitch2D.width = 4;
  r.res.pitch2D.height = 4;
  r.res.pitch2D.pitchInBytes = pitch;
  sweep_modes("2d pitch", r, kTex2D, qs, extent, 1);

  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), 4, 4, host, 4);
  sweep_modes("2d array", array_resource(a), kTex2D, qs, extent, 1);

  // A different address mode per axis, with a border colour.
  cudaTextureDesc desc = texture_desc(cudaAddressModeWrap, cudaFilterModeLinear, 1);
  desc.addressMode[1] = cudaAddressModeBorder;
  desc.borderColor[0] = 0.125f;
  cudaTextureObject_t wb = make_texture("2d wrap-border", array_resource(a), desc);
  desc.addressMode[0] = cudaAddressModeMirror;
  desc.addressMode[1] = cudaAddressModeClamp;
  cudaTextureObject_t mc = make_texture("2d mirror-clamp", array_resource(a), desc);
  std::vector<Query> qn = qs;
  for (Query& q : qn) q.x /= 4, q.y /= 4;
  const char* names[] = {"wrap-border", "mirror-clamp"};
  sweep("2d array mixed linear norm", {wb, mc}, names, kTex2D, qn, 1);
  cudaDestroyTextureObject(wb);
  cudaDestroyTextureObject(mc);
  cudaFreeArray(a);
  cudaFree(d);
}

static void three_d() {
  float host[64];
  for (int i = 0; i < 64; ++i) host[i] = (float)(i + 1) * (i % 3 == 0 ? 1.f : 256.f);
  cudaArray_t a = make_array_3d(cudaCreateChannelDesc<float>(), make_cudaExtent(4, 4, 4), host, 4, 0);
  std::vector<Query> qs;
  const float ps[][3] = {{0.5f, 0.5f, 0.5f},  {1.f, 1.f, 1.f},   {1.25f, 2.75f, 3.5f}, {-0.5f, 2.f, 2.f},
                         {4.5f, 2.f, 2.f},    {2.f, -1.f, 2.f},  {2.f, 5.f, 2.f},      {2.f, 2.f, -0.25f},
                         {2.f, 2.f, 4.75f},   {0.f, 0.f, 0.f},   {4.f, 4.f, 4.f},      {3.9f, 0.1f, 2.6f},
                         {-3.f, -3.f, -3.f},  {7.5f, 6.5f, 9.5f}, {kNaN, 1.f, 1.f},     {1.f, 1.f, kInf}};
  for (auto& p : ps) qs.push_back(q3(p[0], p[1], p[2]));
  const float extent[3] = {4, 4, 4};
  sweep_modes("3d", array_resource(a), kTex3D, qs, extent, 1);
  // tex3DLod on a plain array.
  cudaTextureObject_t t = make_texture("3d lod", array_resource(a), texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 0));
  std::vector<Query> lq;
  for (float l : {0.f, 1.f, 2.5f}) {
    Query q = q3(1.3f, 2.2f, 0.9f);
    q.level = l;
    lq.push_back(q);
  }
  const char* one[] = {"v"};
  sweep("3d lod no-mipmap", {t}, one, kTex3DLod, lq, 1);
  cudaDestroyTextureObject(t);
  cudaFreeArray(a);
}

// Layered: 1D of width 8 and 2D of 4 x 4, three layers; layers out of range.
static void layered() {
  float host1[24];
  for (int l = 0; l < 3; ++l)
    for (int i = 0; i < 8; ++i) host1[l * 8 + i] = (float)(1 << i) + 1024.f * l;
  cudaArray_t a1 = make_array_3d(cudaCreateChannelDesc<float>(), make_cudaExtent(8, 0, 3), host1, 4, cudaArrayLayered);
  std::vector<Query> qs;
  for (int layer : {-100, -1, 0, 1, 2, 3, 100})
    for (float x : {-1.f, 0.25f, 0.5f, 3.7f, 7.5f, 8.25f}) {
      Query q = q1(x);
      q.layer = layer;
      qs.push_back(q);
    }
  for (int f = 0; f < 2; ++f) {
    std::vector<cudaTextureObject_t> ts =
        textures_per_mode("1d layered", array_resource(a1), f ? cudaFilterModeLinear : cudaFilterModePoint, 0);
    sweep(f ? "1d layered linear texel" : "1d layered point texel", ts, kModeNames, kTex1DLayered, qs, 1);
    destroy(ts);
  }
  std::vector<Query> qn = qs;
  for (Query& q : qn) q.x /= 8;
  std::vector<cudaTextureObject_t> ts = textures_per_mode("1d layered", array_resource(a1), cudaFilterModeLinear, 1);
  sweep("1d layered linear norm", ts, kModeNames, kTex1DLayered, qn, 1);
  destroy(ts);
  cudaFreeArray(a1);

  float host2[48];
  for (int l = 0; l < 3; ++l)
    for (int i = 0; i < 16; ++i) host2[l * 16 + i] = (float)(i + 1) + 100.f * l;
  cudaArray_t a2 = make_array_3d(cudaCreateChannelDesc<float>(), make_cudaExtent(4, 4, 3), host2, 4, cudaArrayLayered);
  std::vector<Query> q2s;
  for (int layer : {-1, 0, 2, 3, 7})
    for (auto p : {std::make_pair(0.5f, 0.5f), std::make_pair(1.7f, 2.2f), std::make_pair(-0.5f, 3.9f),
                   std::make_pair(4.5f, 4.5f)}) {
      Query q = q2(p.first, p.second);
      q.layer = layer;
      q2s.push_back(q);
    }
  for (int f = 0; f < 2; ++f) {
    std::vector<cudaTextureObject_t> t2 =
        textures_per_mode("2d layered", array_resource(a2), f ? cudaFilterModeLinear : cudaFilterModePoint, 0);
    sweep(f ? "2d layered linear texel" : "2d layered point texel", t2, kModeNames, kTex2DLayered, q2s, 1);
    destroy(t2);
  }
  cudaFreeArray(a2);
}

// Cubemaps: six faces of 4 x 4, texel (face, x, y) = 100 face + 10 y + x.
static std::vector<Query> cube_directions() {
  std::vector<Query> qs;
  const float ds[][3] = {
      {1, 0, 0},       {-1, 0, 0},      {0, 1, 0},        {0, -1, 0},       {0, 0, 1},        {0, 0, -1},
      {1, 0.5f, 0.25f}, {-1, 0.5f, 0.25f}, {0.5f, 1, 0.25f}, {0.5f, -1, 0.25f}, {0.5f, 0.25f, 1}, {0.5f, 0.25f, -1},
      {1, 1, 0},       {1, -1, 0},      {-1, 1, 0},       {1, 0, 1},        {0, 1, 1},        {0, -1, -1},
      {1, 1, 1},       {-1, -1, -1},    {1, -1, 1},       {2, 0.3f, -0.7f}, {0.1f, 0.1f, 0.1f}, {1, 0.99f, 0},
      {1, 0.875f, -0.875f}, {1, 0.95f, 0.95f}, {0, 0, 0},   {-0.f, 0, 0},     {kNaN, 0, 1},     {kInf, 1, 0},
      {1e30f, 1e30f, 1e29f}, {1e-30f, 0, 0}, {-3, 2.999f, 1}, {0.25f, -0.75f, 0.5f}};
  for (auto& d : ds) qs.push_back(q3(d[0], d[1], d[2]));
  return qs;
}

static void cubemaps() {
  std::vector<float> host(6 * 16);
  for (int f = 0; f < 6; ++f)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) host[f * 16 + y * 4 + x] = 100.f * f + 10.f * y + x;
  cudaArray_t a = make_array_3d(cudaCreateChannelDesc<float>(), make_cudaExtent(4, 4, 6), host.data(), 4, cudaArrayCubemap);
  cudaTextureDesc desc = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 1);
  cudaTextureObject_t point = make_texture("cube point", array_resource(a), desc);
  desc.filterMode = cudaFilterModeLinear;
  cudaTextureObject_t linear = make_texture("cube linear", array_resource(a), desc);
  desc.seamlessCubemap = 1;
  cudaTextureObject_t seamless = make_texture("cube seamless", array_resource(a), desc);
  desc.seamlessCubemap = 0;
  desc.normalizedCoords = 0;
  cudaTextureObject_t texel = make_texture("cube linear texel", array_resource(a), desc);
  desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = cudaAddressModeWrap;
  desc.normalizedCoords = 1;
  cudaTextureObject_t wrap = make_texture("cube linear wrap", array_resource(a), desc);
  const char* names[] = {"point", "linear", "seamless", "linear-texel", "linear-wrap"};
  sweep("cube", {point, linear, seamless, texel, wrap}, names, kTexCubemap, cube_directions(), 1);
  for (cudaTextureObject_t t : {point, linear, seamless, texel, wrap})
    if (t) cudaDestroyTextureObject(t);
  cudaFreeArray(a);

  // Layered: two cubes, the second 1000 more.
  std::vector<float> host2(12 * 16);
  for (int i = 0; i < 12 * 16; ++i) host2[i] = host[i % 96] + (i >= 96 ? 1000.f : 0.f);
  cudaArray_t b = make_array_3d(cudaCreateChannelDesc<float>(), make_cudaExtent(4, 4, 12), host2.data(), 4,
                                cudaArrayCubemap | cudaArrayLayered);
  desc = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 1);
  cudaTextureObject_t lp = make_texture("cube layered point", array_resource(b), desc);
  desc.filterMode = cudaFilterModeLinear;
  cudaTextureObject_t ll = make_texture("cube layered linear", array_resource(b), desc);
  std::vector<Query> qs;
  std::vector<Query> dirs = cube_directions();
  for (int layer : {-1, 0, 1, 2, 5})
    for (int k : {0, 3, 4, 6, 11, 18, 24}) {
      Query q = dirs[k];
      q.layer = layer;
      qs.push_back(q);
    }
  const char* names2[] = {"point", "linear"};
  sweep("cube layered", {lp, ll}, names2, kTexCubemapLayered, qs, 1);
  if (lp) cudaDestroyTextureObject(lp);
  if (ll) cudaDestroyTextureObject(ll);
  cudaFreeArray(b);
}

// Read modes of 8- and 16-bit integers, signed and unsigned; sRGB; half;
// float specials; missing channels; border colours.
static void read_modes() {
  const char* one[] = {"v"};
  // Every 8-bit value, at texel centres, both read modes.
  unsigned char all8[256];
  for (int i = 0; i < 256; ++i) all8[i] = (unsigned char)i;
  std::vector<Query> centres;
  for (int i = 0; i < 256; ++i) centres.push_back(q1(i + 0.5f));
  cudaArray_t u8 = make_array(cudaCreateChannelDesc<unsigned char>(), 256, 0, all8, 1);
  cudaArray_t s8 = make_array(cudaCreateChannelDesc<signed char>(), 256, 0, all8, 1);
  cudaTextureObject_t u8n = make_texture(
      "u8 norm", array_resource(u8), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0, cudaReadModeNormalizedFloat));
  cudaTextureObject_t s8n = make_texture(
      "s8 norm", array_resource(s8), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0, cudaReadModeNormalizedFloat));
  const char* n2[] = {"u8", "s8"};
  sweep("norm8 point", {u8n, s8n}, n2, kTex1D, centres, 1);
  cudaTextureObject_t u8e =
      make_texture("u8 elem", array_resource(u8), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  cudaTextureObject_t s8e =
      make_texture("s8 elem", array_resource(s8), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  std::vector<Query> some = {q1(0.5f), q1(1.5f), q1(127.5f), q1(128.5f), q1(255.5f), q1(-3.f), q1(300.f)};
  sweep("u8 elem point", {u8e}, one, kTex1DUint, some, 4);
  sweep("s8 elem point", {s8e}, one, kTex1DInt, some, 4);
  // Linear filtering in normalized-float mode, between 127/128 and 255/0.
  cudaTextureObject_t u8l = make_texture(
      "u8 norm linear", array_resource(u8), texture_desc(cudaAddressModeWrap, cudaFilterModeLinear, 0, cudaReadModeNormalizedFloat));
  cudaTextureObject_t s8l = make_texture(
      "s8 norm linear", array_resource(s8), texture_desc(cudaAddressModeWrap, cudaFilterModeLinear, 0, cudaReadModeNormalizedFloat));
  std::vector<Query> between;
  for (int k = 0; k <= 32; ++k) between.push_back(q1(128.f + k / 32.f));
  for (int k = 0; k <= 16; ++k) between.push_back(q1(255.5f + k / 32.f));
  for (int k = 0; k <= 8; ++k) between.push_back(q1(1.5f + k / 8.f));
  sweep("norm8 linear", {u8l, s8l}, n2, kTex1D, between, 1);
  for (cudaTextureObject_t t : {u8n, s8n, u8e, s8e, u8l, s8l}) cudaDestroyTextureObject(t);
  cudaFreeArray(u8);
  cudaFreeArray(s8);

  // 16-bit values.
  unsigned short v16[] = {0, 1, 2, 127, 128, 255, 256, 1000, 16383, 16384, 32766, 32767, 32768, 32769, 49152, 65534, 65535};
  const int n16 = sizeof v16 / sizeof v16[0];
  cudaArray_t u16 = make_array(cudaCreateChannelDesc<unsigned short>(), n16, 0, v16, 2);
  cudaArray_t s16 = make_array(cudaCreateChannelDesc<short>(), n16, 0, v16, 2);
  cudaTextureObject_t u16n = make_texture(
      "u16 norm", array_resource(u16), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0, cudaReadModeNormalizedFloat));
  cudaTextureObject_t s16n = make_texture(
      "s16 norm", array_resource(s16), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0, cudaReadModeNormalizedFloat));
  cudaTextureObject_t u16l = make_texture(
      "u16 norm linear", array_resource(u16), texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 0, cudaReadModeNormalizedFloat));
  cudaTextureObject_t s16l = make_texture(
      "s16 norm linear", array_resource(s16), texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 0, cudaReadModeNormalizedFloat));
  std::vector<Query> c16;
  for (int i = 0; i < n16; ++i) c16.push_back(q1(i + 0.5f));
  for (int i = 0; i < n16; ++i) c16.push_back(q1(i + 0.75f));
  const char* n4[] = {"u16", "s16", "u16-linear", "s16-linear"};
  sweep("norm16", {u16n, s16n, u16l, s16l}, n4, kTex1D, c16, 1);
  cudaTextureObject_t u16e =
      make_texture("u16 elem", array_resource(u16), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  cudaTextureObject_t s16e =
      make_texture("s16 elem", array_resource(s16), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  std::vector<Query> c16e = {q1(0.5f), q1(11.5f), q1(12.5f), q1(16.5f), q1(-1.f)};
  sweep("u16 elem", {u16e}, one, kTex1DUint, c16e, 4);
  sweep("s16 elem", {s16e}, one, kTex1DInt, c16e, 4);
  for (cudaTextureObject_t t : {u16n, s16n, u16l, s16l, u16e, s16e}) cudaDestroyTextureObject(t);
  cudaFreeArray(u16);
  cudaFreeArray(s16);

  // sRGB: uchar4 (i, 255 - i, i ^ 0x55, i) read as normalized float with
  // and without sRGB; the alpha channel stays linear.
  unsigned char rgba[256 * 4];
  for (int i = 0; i < 256; ++i) {
    rgba[4 * i] = (unsigned char)i;
    rgba[4 * i + 1] = (unsigned char)(255 - i);
    rgba[4 * i + 2] = (unsigned char)(i ^ 0x55);
    rgba[4 * i + 3] = (unsigned char)i;
  }
  cudaArray_t c4 = make_array(cudaCreateChannelDesc<uchar4>(), 256, 0, rgba, 4);
  cudaTextureDesc desc = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0, cudaReadModeNormalizedFloat);
  desc.sRGB = 1;
  cudaTextureObject_t srgb = make_texture("srgb", array_resource(c4), desc);
  std::vector<Query> c4q;
  for (int i = 0; i < 256; ++i) c4q.push_back(q1(i + 0.5f));
  sweep("srgb point", {srgb}, one, kTex1D, c4q, 4);
  desc.filterMode = cudaFilterModeLinear;
  cudaTextureObject_t srgbl = make_texture("srgb linear", array_resource(c4), desc);
  desc.sRGB = 0;
  cudaTextureObject_t rgbl = make_texture("rgba linear", array_resource(c4), desc);
  desc.filterMode = cudaFilterModePoint;
  cudaTextureObject_t rgb = make_texture("rgba", array_resource(c4), desc);
  std::vector<Query> sl;
  for (float x : {1.f, 1.25f, 100.7f, 128.f, 200.33f, 255.9f}) sl.push_back(q1(x));
  const char* n3[] = {"srgb-linear", "rgba-linear", "rgba-point"};
  sweep("uchar4 norm", {srgbl, rgbl, rgb}, n3, kTex1D, sl, 4);
  // sRGB on element-type reads and on float textures: accepted or not.
  desc = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0, cudaReadModeElementType);
  desc.sRGB = 1;
  cudaTextureObject_t srgbe = make_texture("srgb elem", array_resource(c4), desc);
  sweep("srgb elem", {srgbe}, one, kTex1DUint, sl, 4);
  for (cudaTextureObject_t t : {srgb, srgbl, rgbl, rgb, srgbe})
    if (t) cudaDestroyTextureObject(t);
  cudaFreeArray(c4);

  // Half: specials at point sampling, and linear filtering between them.
  unsigned short halves[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01,
                             0xfe01, 0x0001, 0x03ff, 0x0400, 0x3555, 0x3c01};
  const int nh = sizeof halves / sizeof halves[0];
  cudaArray_t h = make_array(cudaCreateChannelDescHalf(), nh, 0, halves, 2);
  cudaTextureObject_t hp =
      make_texture("half point", array_resource(h), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  cudaTextureObject_t hl =
      make_texture("half linear", array_resource(h), texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 0));
  std::vector<Query> hq;
  for (int i = 0; i < nh; ++i) hq.push_back(q1(i + 0.5f));
  for (int i = 0; i < nh; ++i) hq.push_back(q1(i + 0.5f + 0.3f));
  const char* nhn[] = {"point", "linear"};
  sweep("half", {hp, hl}, nhn, kTex1D, hq, 4);
  cudaDestroyTextureObject(hp);
  cudaDestroyTextureObject(hl);
  cudaFreeArray(h);

  // Float specials: NaN payloads, -0, subnormals, through point and linear.
  unsigned fl[] = {0x7fc00001, 0x7f800001, 0xffffffff, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff,
                   0x7f800000, 0xff800000, 0x3f800000, 0x40490fdb};
  const int nf = sizeof fl / sizeof fl[0];
  cudaArray_t fa = make_array(cudaCreateChannelDesc<float>(), nf, 0, fl, 4);
  cudaTextureObject_t fp =
      make_texture("float point", array_resource(fa), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  cudaTextureObject_t flin =
      make_texture("float linear", array_resource(fa), texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 0));
  std::vector<Query> fq;
  for (int i = 0; i < nf; ++i) fq.push_back(q1(i + 0.5f));
  for (int i = 0; i < nf; ++i) fq.push_back(q1(i + 1.f));
  sweep("float specials", {fp, flin}, nhn, kTex1D, fq, 1);
  cudaDestroyTextureObject(fp);
  cudaDestroyTextureObject(flin);
  cudaFreeArray(fa);
}

// Missing channels of 1- and 2-channel formats, read as four components, in
// range and from a border whose colour has all four.
static void channels_and_borders() {
  const char* names[] = {"point", "linear", "border-point", "border-linear"};
  std::vector<Query> qs = {q1(0.5f), q1(1.3f), q1(-0.25f), q1(-2.f), q1(4.5f)};
  auto four = [&](const char* label, cudaArray_t a, cudaTextureReadMode read, FetchOp op, bool linear_allowed) {
    std::vector<cudaTextureObject_t> ts;
    for (int k = 0; k < 4; ++k) {
      bool linear = k & 1;
      cudaTextureDesc d = texture_desc(k >= 2 ? cudaAddressModeBorder : cudaAddressModeClamp,
                                       linear ? cudaFilterModeLinear : cudaFilterModePoint, 0, read);
      d.borderColor[0] = 0.25f, d.borderColor[1] = -3.5f, d.borderColor[2] = 7.f, d.borderColor[3] = 1e30f;
      ts.push_back(linear && !linear_allowed ? 0 : make_texture(label, array_resource(a), d));
    }
    sweep(label, ts, names, op, qs, 4);
    destroy(ts);
  };
  float f1[4] = {1.f, 2.f, 3.f, 4.f};
  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), 4, 0, f1, 4);
  four("chan float1", a, cudaReadModeElementType, kTex1D, true);
  cudaFreeArray(a);
  float f2[8] = {1.f, -1.f, 2.f, -2.f, 3.f, -3.f, 4.f, -4.f};
  a = make_array(cudaCreateChannelDesc<float2>(), 4, 0, f2, 8);
  four("chan float2", a, cudaReadModeElementType, kTex1D, true);
  cudaFreeArray(a);
  unsigned char b1[4] = {0, 51, 204, 255};
  a = make_array(cudaCreateChannelDesc<unsigned char>(), 4, 0, b1, 1);
  four("chan u8 norm", a, cudaReadModeNormalizedFloat, kTex1D, true);
  four("chan u8 elem", a, cudaReadModeElementType, kTex1DUint, false);
  cudaFreeArray(a);
  short s2[8] = {-32768, 32767, -1, 1, 100, -100, 0, 5};
  a = make_array(cudaCreateChannelDesc<short2>(), 4, 0, s2, 4);
  four("chan s16x2 norm", a, cudaReadModeNormalizedFloat, kTex1D, true);
  four("chan s16x2 elem", a, cudaReadModeElementType, kTex1DInt, false);
  cudaFreeArray(a);
  int i1[4] = {-7, 0, 123456789, -2147483647 - 1};
  a = make_array(cudaCreateChannelDesc<int>(), 4, 0, i1, 4);
  four("chan int1 elem", a, cudaReadModeElementType, kTex1DInt, false);
  cudaFreeArray(a);
  unsigned short h1[4] = {0x3c00, 0x4000, 0x4200, 0x4400};
  a = make_array(cudaCreateChannelDescHalf(), 4, 0, h1, 2);
  four("chan half1", a, cudaReadModeElementType, kTex1D, true);
  cudaFreeArray(a);
  unsigned short h2[8] = {0x3c00, 0xbc00, 0x4000, 0xc000, 0x4200, 0xc200, 0x4400, 0xc400};
  a = make_array(cudaCreateChannelDescHalf2(), 4, 0, h2, 4);
  four("chan half2", a, cudaReadModeElementType, kTex1D, true);
  cudaFreeArray(a);
  // Border colours with NaN, out-of-range values on normalized reads.
  unsigned char c4[16] = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160};
  a = make_array(cudaCreateChannelDesc<uchar4>(), 4, 0, c4, 4);
  cudaTextureDesc d = texture_desc(cudaAddressModeBorder, cudaFilterModeLinear, 0, cudaReadModeNormalizedFloat);
  d.borderColor[0] = 0.5f, d.borderColor[1] = 2.f, d.borderColor[2] = -1.f, d.borderColor[3] = kNaN;
  cudaTextureObject_t t1 = make_texture("border uchar4 norm", array_resource(a), d);
  d.sRGB = 1;
  cudaTextureObject_t t2 = make_texture("border uchar4 srgb", array_resource(a), d);
  d = texture_desc(cudaAddressModeBorder, cudaFilterModePoint, 0, cudaReadModeElementType);
  d.borderColor[0] = 3.7f, d.borderColor[1] = -2.f, d.borderColor[2] = 1e10f, d.borderColor[3] = 300.f;
  cudaTextureObject_t t3 = make_texture("border uchar4 elem", array_resource(a), d);
  const char* bn[] = {"norm-linear", "srgb-linear"};
  sweep("border uchar4", {t1, t2}, bn, kTex1D, qs, 4);
  const char* en[] = {"elem"};
  sweep("border uchar4", {t3}, en, kTex1DUint, qs, 4);
  for (cudaTextureObject_t t : {t1, t2, t3})
    if (t) cudaDestroyTextureObject(t);
  cudaFreeArray(a);
}

// tex2Dgather of each component, on a gather array of float4 and of float.
static void gather() {
  float4 host[16];
  for (int i = 0; i < 16; ++i) host[i] = make_float4(i, 100.f + i, 200.f + i, 300.f + i);
  cudaArray_t a = make_array(cudaCreateChannelDesc<float4>(), 4, 4, host, 16, cudaArrayTextureGather);
  std::vector<Query> qs;
  for (auto p : {std::make_pair(0.5f, 0.5f), std::make_pair(1.f, 1.f), std::make_pair(1.3f, 2.8f),
                 std::make_pair(0.f, 0.f), std::make_pair(-0.6f, 1.5f), std::make_pair(3.9f, 4.2f),
                 std::make_pair(2.5f, 0.49f)})
    qs.push_back(q2(p.first, p.second));
  for (int comp = 0; comp < 4; ++comp) {
    std::vector<cudaTextureObject_t> ts;
    for (int m = 0; m < 4; ++m) {
      cudaTextureDesc d = texture_desc(kModes[m], cudaFilterModePoint, 0);
      d.borderColor[0] = -1.f, d.borderColor[1] = -2.f, d.borderColor[2] = -3.f, d.borderColor[3] = -4.f;
      ts.push_back(make_texture("gather", array_resource(a), d));
    }
    char label[32];
    std::snprintf(label, sizeof label, "gather%d", comp);
    sweep(label, ts, kModeNames, (FetchOp)(kGather0 + comp), qs, 4);
    destroy(ts);
  }
  // Linear filter mode and normalized coordinates do not change a gather.
  cudaTextureDesc d = texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 1);
  cudaTextureObject_t tn = make_texture("gather linear norm", array_resource(a), d);
  std::vector<Query> qn = qs;
  for (Query& q : qn) q.x /= 4, q.y /= 4;
  const char* one[] = {"linear-norm"};
  sweep("gather0", {tn}, one, kGather0, qn, 4);
  cudaDestroyTextureObject(tn);
  cudaFreeArray(a);

  float f1[16];
  for (int i = 0; i < 16; ++i) f1[i] = i + 0.5f;
  cudaArray_t b = make_array(cudaCreateChannelDesc<float>(), 4, 4, f1, 4, cudaArrayTextureGather);
  cudaTextureObject_t t1 = make_texture("gather float1", array_resource(b), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  const char* names[] = {"v"};
  std::vector<Query> few(qs.begin(), qs.begin() + 3);
  for (int comp = 0; comp < 4; ++comp) {
    char label[32];
    std::snprintf(label, sizeof label, "gather%d float1", comp);
    sweep(label, {t1}, names, (FetchOp)(kGather0 + comp), few, 4);
  }
  cudaDestroyTextureObject(t1);
  cudaFreeArray(b);
}

// Mipmaps: 16 x 16 with 5 levels; level l texel (x, y) = 1024 (l + 1) + 32 y + x.
static void mipmaps() {
  cudaMipmappedArray_t m = nullptr;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaError_t e = cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(16, 16, 0), 5, 0);
  std::printf("cudaMallocMipmappedArray 16x16 5 levels: %d\n", (int)e);
  for (int l = 0; l < 5; ++l) {
    cudaArray_t level = nullptr;
    e = cudaGetMipmappedArrayLevel(&level, m, l);
    int w = 16 >> l;
    std::vector<float> host(w * w);
    for (int y = 0; y < w; ++y)
      for (int x = 0; x < w; ++x) host[y * w + x] = 1024.f * (l + 1) + 32.f * y + x;
    cudaMemcpy2DToArray(level, 0, 0, host.data(), w * 4, w * 4, w, cudaMemcpyHostToDevice);
    cudaChannelFormatDesc ld;
    cudaExtent ext;
    unsigned flags = 0;
    cudaArrayGetInfo(&ld, &ext, &flags, level);
    std::printf("mip level %d: get=%d extent %zu %zu %zu flags %u\n", l, (int)e, ext.width, ext.height, ext.depth,
                flags);
  }
  cudaArray_t past = nullptr;
  e = cudaGetMipmappedArrayLevel(&past, m, 5);
  std::printf("mip level 5: %d\n", (int)e);
  cudaGetLastError();

  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeMipmappedArray;
  r.res.mipmap.mipmap = m;
  std::vector<cudaTextureObject_t> ts;
  struct Variant {
    const char* name;
    cudaTextureFilterMode filter, mip;
    float bias, lo, hi;
  };
  const Variant vs[] = {{"pp", cudaFilterModePoint, cudaFilterModePoint, 0, 0, 4},
                        {"lp", cudaFilterModeLinear, cudaFilterModePoint, 0, 0, 4},
                        {"pl", cudaFilterModePoint, cudaFilterModeLinear, 0, 0, 4},
                        {"ll", cudaFilterModeLinear, cudaFilterModeLinear, 0, 0, 4},
                        {"ll-clamp1-2.5", cudaFilterModeLinear, cudaFilterModeLinear, 0, 1, 2.5f},
                        {"ll-bias0.5", cudaFilterModeLinear, cudaFilterModeLinear, 0.5f, 0, 4},
                        {"ll-bias-1.25", cudaFilterModeLinear, cudaFilterModeLinear, -1.25f, 0, 4},
                        {"pl-max10", cudaFilterModePoint, cudaFilterModeLinear, 0, -3, 10}};
  const int nv = sizeof vs / sizeof vs[0];
  const char* names[nv];
  for (int i = 0; i < nv; ++i) {
    cudaTextureDesc d = texture_desc(cudaAddressModeWrap, vs[i].filter, 1);
    d.mipmapFilterMode = vs[i].mip;
    d.mipmapLevelBias = vs[i].bias;
    d.minMipmapLevelClamp = vs[i].lo;
    d.maxMipmapLevelClamp = vs[i].hi;
    names[i] = vs[i].name;
    ts.push_back(make_texture(vs[i].name, r, d));
  }
  std::vector<Query> qs;
  for (auto p : {std::make_pair(0.5f, 0.5f), std::make_pair(0.1f, 0.7f), std::make_pair(0.03f, 0.97f),
                 std::make_pair(-0.2f, 1.3f)})
    for (float l : {-1.f, -0.5f, 0.f, 0.25f, 0.5f, 0.999f, 1.f, 1.5f, 1.0039f, 2.f, 3.75f, 4.f, 4.5f, 5.f, 100.f, kNaN,
                    kInf, -kInf}) {
      Query q = q2(p.first, p.second);
      q.level = l;
      qs.push_back(q);
    }
  sweep("lod", ts, names, kTex2DLod, qs, 1);

  std::vector<Query> gs;
  const float grads[][4] = {{0, 0, 0, 0},           {1 / 16.f, 0, 0, 1 / 16.f}, {1 / 8.f, 0, 0, 1 / 8.f},
                            {1 / 4.f, 0, 0, 1 / 4.f}, {3 / 64.f, 0, 0, 3 / 64.f}, {1 / 16.f, 0, 0, 1 / 4.f},
                            {1 / 8.f, 1 / 8.f, -1 / 8.f, 1 / 8.f}, {1, 0, 0, 1}, {0.3f, 0.1f, 0.05f, 0.02f},
                            {-1 / 8.f, 0, 0, -1 / 8.f}};
  for (auto p : {std::make_pair(0.5f, 0.5f), std::make_pair(0.23f, 0.61f)})
    for (auto& g : grads) {
      Query q = q2(p.first, p.second);
      q.dx[0] = g[0], q.dx[1] = g[1], q.dy[0] = g[2], q.dy[1] = g[3];
      gs.push_back(q);
    }
  sweep("grad", ts, names, kTex2DGrad, gs, 1);
  destroy(ts);

  // Anisotropy: the same gradients with maxAnisotropy 1, 4 and 16.
  std::vector<cudaTextureObject_t> an;
  const char* an_names[] = {"aniso1", "aniso4", "aniso16"};
  for (unsigned a : {1u, 4u, 16u}) {
    cudaTextureDesc d = texture_desc(cudaAddressModeWrap, cudaFilterModeLinear, 1);
    d.mipmapFilterMode = cudaFilterModeLinear;
    d.maxMipmapLevelClamp = 4;
    d.maxAnisotropy = a;
    an.push_back(make_texture("aniso", r, d));
  }
  sweep("grad", an, an_names, kTex2DGrad, gs, 1);
  destroy(an);
  cudaFreeMipmappedArray(m);
}

// Texture reads see what earlier launches and copies wrote.
__global__ void fill_kernel(float* p, int n, float base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}

static void coherence() {
  const int n = 8;
  float* d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemset(d, 0, n * sizeof(float));
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = d;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = n * sizeof(float);
  cudaTextureObject_t t = make_texture("coherence", r, texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  std::vector<Query> qs = {qi(0), qi(3), qi(7)};
  const char* one[] = {"v"};
  sweep("coherent before", {t}, one, kTex1Dfetch, qs, 1);
  fill_kernel<<<1, n>>>(d, n, 10.f);
  sweep("coherent after kernel", {t}, one, kTex1Dfetch, qs, 1);
  fill_kernel<<<1, n>>>(d, n, 20.f);
  sweep("coherent after second kernel", {t}, one, kTex1Dfetch, qs, 1);
  float host[n] = {-1, -2, -3, -4, -5, -6, -7, -8};
  cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
  sweep("coherent after memcpy", {t}, one, kTex1Dfetch, qs, 1);
  cudaDestroyTextureObject(t);

  // An array rewritten by cudaMemcpy2DToArray between two reads.
  cudaArray_t a = make_array(cudaCreateChannelDesc<float>(), n, 0, host, 4);
  cudaTextureObject_t ta = make_texture("coherence array", array_resource(a), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0));
  std::vector<Query> xs = {q1(0.5f), q1(7.5f)};
  sweep("coherent array before", {ta}, one, kTex1D, xs, 1);
  for (int i = 0; i < n; ++i) host[i] = 100.f + i;
  cudaMemcpy2DToArray(a, 0, 0, host, sizeof host, sizeof host, 1, cudaMemcpyHostToDevice);
  sweep("coherent array after copy", {ta}, one, kTex1D, xs, 1);
  cudaDestroyTextureObject(ta);
  cudaFreeArray(a);
  cudaFree(d);
}

// ---------------------------------------------------------------------------
// Error codes.

static void report(const char* what, cudaError_t e) {
  cudaError_t last = cudaGetLastError();
  std::printf("%-52s returned=%d(%s) last=%d\n", what, (int)e, cudaGetErrorName(e), (int)last);
}

static void texture_errors() {
  float* d = nullptr;
  cudaMalloc(&d, 1 << 20);
  cudaArray_t fa = make_array(cudaCreateChannelDesc<float>(), 16, 16, nullptr, 4);
  cudaArray_t ia = make_array(cudaCreateChannelDesc<int>(), 16, 0, nullptr, 4);
  cudaTextureObject_t t = 0;
  cudaResourceDesc r = array_resource(fa);
  cudaTextureDesc desc = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0);

  cudaError_t e = cudaCreateTextureObject(&t, &r, &desc, nullptr);
  report("create float array point", e);
  if (e == cudaSuccess) {
    cudaResourceDesc back;
    cudaTextureDesc tback;
    std::memset(&back, 0xcc, sizeof back);
    std::memset(&tback, 0xcc, sizeof tback);
    report("get resource desc", cudaGetTextureObjectResourceDesc(&back, t));
    std::printf("resource desc: type %d array-equal %d\n", (int)back.resType, back.res.array.array == fa);
    report("get texture desc", cudaGetTextureObjectTextureDesc(&tback, t));
    std::printf("texture desc: modes %d %d %d filter %d read %d srgb %d border %08x norm %d aniso %u mip %d bias %08x "
                "min %08x max %08x trilinear %d seamless %d\n",
                (int)tback.addressMode[0], (int)tback.addressMode[1], (int)tback.addressMode[2], (int)tback.filterMode,
                (int)tback.readMode, tback.sRGB, fbits(tback.borderColor[0]), tback.normalizedCoords,
                tback.maxAnisotropy, (int)tback.mipmapFilterMode, fbits(tback.mipmapLevelBias),
                fbits(tback.minMipmapLevelClamp), fbits(tback.maxMipmapLevelClamp), tback.disableTrilinearOptimization,
                tback.seamlessCubemap);
    cudaResourceViewDesc vback;
    std::memset(&vback, 0xcc, sizeof vback);
    report("get resource view desc (none given)", cudaGetTextureObjectResourceViewDesc(&vback, t));
    report("destroy", cudaDestroyTextureObject(t));
  }
  report("destroy 0", cudaDestroyTextureObject(0));
  report("create null out", cudaCreateTextureObject(nullptr, &r, &desc, nullptr));
  report("create null resource", cudaCreateTextureObject(&t, nullptr, &desc, nullptr));
  report("create null texture desc", cudaCreateTextureObject(&t, &r, nullptr, nullptr));
  r.res.array.array = nullptr;
  report("create null array", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r = array_resource(fa);
  r.resType = (cudaResourceType)7;
  report("create bad resource type", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r = array_resource(ia);
  desc.filterMode = cudaFilterModeLinear;
  report("create linear filter int elem", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  desc.filterMode = cudaFilterModePoint;
  desc.readMode = cudaReadModeNormalizedFloat;
  report("create 32-bit int normalized float", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r = array_resource(fa);
  report("create float normalized float", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  desc = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0);
  desc.addressMode[0] = (cudaTextureAddressMode)9;
  report("create bad address mode", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  desc = texture_desc(cudaAddressModeClamp, (cudaTextureFilterMode)5, 0);
  report("create bad filter mode", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  desc = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0, (cudaTextureReadMode)3);
  report("create bad read mode", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  desc = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0);
  desc.maxAnisotropy = 17;
  report("create maxAnisotropy 17", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  desc = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 0);
  r.resType = cudaResourceTypeMipmappedArray;
  r.res.mipmap.mipmap = nullptr;
  report("create null mipmap", cudaCreateTextureObject(&t, &r, &desc, nullptr));

  // Linear resources.
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = d;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = 1024;
  e = cudaCreateTextureObject(&t, &r, &desc, nullptr);
  report("create linear ok", e);
  if (e == cudaSuccess) cudaDestroyTextureObject(t);
  r.res.linear.devPtr = (char*)d + 4;
  report("create linear misaligned 4", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.linear.devPtr = (char*)d + 256;
  e = cudaCreateTextureObject(&t, &r, &desc, nullptr);
  report("create linear offset 256", e);
  if (e == cudaSuccess) cudaDestroyTextureObject(t);
  r.res.linear.devPtr = nullptr;
  report("create linear null pointer", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.linear.devPtr = d;
  r.res.linear.sizeInBytes = 0;
  report("create linear size 0", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.linear.sizeInBytes = 1022;
  report("create linear size not whole elements", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.linear.sizeInBytes = (size_t)1 << 40;
  report("create linear size 2^40", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.linear.sizeInBytes = 1024;
  r.res.linear.desc = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
  report("create linear 3-channel float", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.linear.desc = cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindFloat);
  report("create linear 0-bit", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.linear.desc = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat);
  report("create linear 8-bit float", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindNone);
  report("create linear kind none", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.linear.desc = cudaCreateChannelDesc<int>();
  desc.filterMode = cudaFilterModeLinear;
  report("create linear int linear filter", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  desc.filterMode = cudaFilterModePoint;

  // Pitched 2D resources.
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = d;
  r.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  r.res.pitch2D.width = 16;
  r.res.pitch2D.height = 16;
  r.res.pitch2D.pitchInBytes = 128;
  e = cudaCreateTextureObject(&t, &r, &desc, nullptr);
  report("create pitch2D pitch 128", e);
  if (e == cudaSuccess) cudaDestroyTextureObject(t);
  r.res.pitch2D.pitchInBytes = 64;
  e = cudaCreateTextureObject(&t, &r, &desc, nullptr);
  report("create pitch2D pitch 64 (= row)", e);
  if (e == cudaSuccess) cudaDestroyTextureObject(t);
  r.res.pitch2D.pitchInBytes = 96;
  e = cudaCreateTextureObject(&t, &r, &desc, nullptr);
  report("create pitch2D pitch 96", e);
  if (e == cudaSuccess) cudaDestroyTextureObject(t);
  r.res.pitch2D.pitchInBytes = 68;
  report("create pitch2D pitch 68 misaligned", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.pitch2D.pitchInBytes = 32;
  report("create pitch2D pitch < row", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.pitch2D.pitchInBytes = 128;
  r.res.pitch2D.devPtr = (char*)d + 16;
  report("create pitch2D pointer +16", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.pitch2D.devPtr = d;
  r.res.pitch2D.width = 0;
  report("create pitch2D width 0", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.pitch2D.width = 16;
  r.res.pitch2D.height = 0;
  report("create pitch2D height 0", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.pitch2D.height = 1 << 20;
  report("create pitch2D height 2^20", cudaCreateTextureObject(&t, &r, &desc, nullptr));
  r.res.pitch2D.height = 16;
  r.res.pitch2D.width = 1 << 20;
  r.res.pitch2D.pitchInBytes = 4 << 20;
  report("create pitch2D width 2^20", cudaCreateTextureObject(&t, &r, &desc, nullptr));

  // A resource view on a linear resource, and on an array.
  cudaResourceViewDesc view;
  std::memset(&view, 0, sizeof view);
  view.format = cudaResViewFormatFloat1;
  view.width = 16;
  view.height = 16;
  r = array_resource(fa);
  e = cudaCreateTextureObject(&t, &r, &desc, &view);
  report("create array with view", e);
  if (e == cudaSuccess) cudaDestroyTextureObject(t);
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = d;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = 1024;
  report("create linear with view", cudaCreateTextureObject(&t, &r, &desc, &view));

  cudaFreeArray(fa);
  cudaFreeArray(ia);
  cudaFree(d);
}

static void array_info(const char* what, cudaArray_t a) {
  cudaChannelFormatDesc d;
  cudaExtent e;
  unsigned flags = 0;
  std::memset(&d, 0, sizeof d);
  cudaError_t r = cudaArrayGetInfo(&d, &e, &flags, a);
  std::printf("info %s: %d desc %d %d %d %d kind %d extent %zu %zu %zu flags %u\n", what, (int)r, d.x, d.y, d.z, d.w,
              (int)d.f, e.width, e.height, e.depth, flags);
  cudaChannelFormatDesc g;
  std::memset(&g, 0, sizeof g);
  r = cudaGetChannelDesc(&g, a);
  std::printf("channel desc %s: %d %d %d %d %d kind %d\n", what, (int)r, g.x, g.y, g.z, g.w, (int)g.f);
}

static void array_errors() {
  cudaArray_t a = nullptr;
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  auto malloc_array = [&](const char* what, cudaChannelFormatDesc desc, size_t w, size_t h, unsigned flags) {
    a = nullptr;
    cudaError_t e = cudaMallocArray(&a, &desc, w, h, flags);
    report(what, e);
    if (e == cudaSuccess) {
      array_info(what, a);
      cudaFreeArray(a);
    }
  };
  malloc_array("cudaMallocArray 16x0", f, 16, 0, 0);
  malloc_array("cudaMallocArray 16x1", f, 16, 1, 0);
  malloc_array("cudaMallocArray 0x16", f, 0, 16, 0);
  malloc_array("cudaMallocArray 0x0", f, 0, 0, 0);
  malloc_array("cudaMallocArray 2^17 x 0", f, 1 << 17, 0, 0);
  malloc_array("cudaMallocArray 2^18 x 0", f, 1 << 18, 0, 0);
  malloc_array("cudaMallocArray 131072 x 65536", f, 131072, 65536, 0);
  malloc_array("cudaMallocArray 131073 x 1", f, 131073, 1, 0);
  malloc_array("cudaMallocArray 16x16 surface", f, 16, 16, cudaArraySurfaceLoadStore);
  malloc_array("cudaMallocArray 16x16 gather", f, 16, 16, cudaArrayTextureGather);
  malloc_array("cudaMallocArray 16x16 layered flag", f, 16, 16, cudaArrayLayered);
  malloc_array("cudaMallocArray 16x16 cubemap flag", f, 16, 16, cudaArrayCubemap);
  malloc_array("cudaMallocArray 16x16 flags 0x100", f, 16, 16, 0x100);
  malloc_array("cudaMallocArray 16x16 flags 0x10", f, 16, 16, 0x10);
  malloc_array("cudaMallocArray 3-channel float", cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat), 16, 16, 0);
  malloc_array("cudaMallocArray channels 8,16", cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned), 16, 16, 0);
  malloc_array("cudaMallocArray 0-bit", cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindFloat), 16, 16, 0);
  malloc_array("cudaMallocArray 8-bit float", cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat), 16, 16, 0);
  malloc_array("cudaMallocArray 64-bit signed", cudaCreateChannelDesc(64, 0, 0, 0, cudaChannelFormatKindSigned), 16, 16, 0);
  malloc_array("cudaMallocArray kind none", cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindNone), 16, 16, 0);
  malloc_array("cudaMallocArray gap channel", cudaCreateChannelDesc(32, 0, 32, 0, cudaChannelFormatKindFloat), 16, 16, 0);
  malloc_array("cudaMallocArray unorm8x4", cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized8X4>(), 16, 16, 0);
  malloc_array("cudaMallocArray half4", cudaCreateChannelDescHalf4(), 16, 16, 0);
  malloc_array("cudaMallocArray uchar2", cudaCreateChannelDesc<uchar2>(), 16, 16, 0);
  report("cudaMallocArray null out", cudaMallocArray(nullptr, &f, 16, 16, 0));
  report("cudaMallocArray null desc", cudaMallocArray(&a, nullptr, 16, 16, 0));
  report("cudaFreeArray null", cudaFreeArray(nullptr));

  auto malloc_3d = [&](const char* what, cudaChannelFormatDesc desc, size_t w, size_t h, size_t dd, unsigned flags) {
    a = nullptr;
    cudaError_t e = cudaMalloc3DArray(&a, &desc, make_cudaExtent(w, h, dd), flags);
    report(what, e);
    if (e == cudaSuccess) {
      array_info(what, a);
      cudaFreeArray(a);
    }
  };
  malloc_3d("cudaMalloc3DArray 4x4x4", f, 4, 4, 4, 0);
  malloc_3d("cudaMalloc3DArray 4x0x4", f, 4, 0, 4, 0);
  malloc_3d("cudaMalloc3DArray 4x4x0", f, 4, 4, 0, 0);
  malloc_3d("cudaMalloc3DArray 0x0x0", f, 0, 0, 0, 0);
  malloc_3d("cudaMalloc3DArray 2049x4x4", f, 2049, 4, 4, 0);
  malloc_3d("cudaMalloc3DArray 16384x4x4", f, 16384, 4, 4, 0);
  malloc_3d("cudaMalloc3DArray 16385x4x4", f, 16385, 4, 4, 0);
  malloc_3d("cudaMalloc3DArray layered 8x0x3", f, 8, 0, 3, cudaArrayLayered);
  malloc_3d("cudaMalloc3DArray layered 8x4x3", f, 8, 4, 3, cudaArrayLayered);
  malloc_3d("cudaMalloc3DArray layered 8x4x0", f, 8, 4, 0, cudaArrayLayered);
  malloc_3d("cudaMalloc3DArray layered 8x4x2049", f, 8, 4, 2049, cudaArrayLayered);
  malloc_3d("cudaMalloc3DArray cubemap 4x4x6", f, 4, 4, 6, cudaArrayCubemap);
  malloc_3d("cudaMalloc3DArray cubemap 4x8x6", f, 4, 8, 6, cudaArrayCubemap);
  malloc_3d("cudaMalloc3DArray cubemap 4x4x5", f, 4, 4, 5, cudaArrayCubemap);
  malloc_3d("cudaMalloc3DArray cubemap 4x4x12", f, 4, 4, 12, cudaArrayCubemap);
  malloc_3d("cudaMalloc3DArray cubemap layered 4x4x12", f, 4, 4, 12, cudaArrayCubemap | cudaArrayLayered);
  malloc_3d("cudaMalloc3DArray cubemap layered 4x4x9", f, 4, 4, 9, cudaArrayCubemap | cudaArrayLayered);
  malloc_3d("cudaMalloc3DArray cubemap 4x0x6", f, 4, 0, 6, cudaArrayCubemap);
  malloc_3d("cudaMalloc3DArray cubemap surface 4x4x6", f, 4, 4, 6, cudaArrayCubemap | cudaArraySurfaceLoadStore);
  malloc_3d("cudaMalloc3DArray gather 4x4x0", f, 4, 4, 0, cudaArrayTextureGather);
  malloc_3d("cudaMalloc3DArray gather 4x4x4", f, 4, 4, 4, cudaArrayTextureGather);
  malloc_3d("cudaMalloc3DArray flags 0x100", f, 4, 4, 4, 0x100);
  report("cudaMalloc3DArray null out", cudaMalloc3DArray(nullptr, &f, make_cudaExtent(4, 4, 4), 0));

  cudaMipmappedArray_t m = nullptr;
  auto malloc_mip = [&](const char* what, size_t w, size_t h, size_t dd, unsigned levels, unsigned flags) {
    m = nullptr;
    cudaError_t e = cudaMallocMipmappedArray(&m, &f, make_cudaExtent(w, h, dd), levels, flags);
    report(what, e);
    if (e == cudaSuccess) {
      cudaArray_t level = nullptr;
      for (unsigned l = 0; l < 12; ++l) {
        cudaError_t g = cudaGetMipmappedArrayLevel(&level, m, l);
        if (g != cudaSuccess) {
          std::printf("  level %u: %d\n", l, (int)g);
          cudaGetLastError();
          break;
        }
        cudaExtent ext;
        cudaChannelFormatDesc dd2;
        unsigned fl;
        cudaArrayGetInfo(&dd2, &ext, &fl, level);
        std::printf("  level %u: %zu %zu %zu flags %u\n", l, ext.width, ext.height, ext.depth, fl);
      }
      cudaFreeMipmappedArray(m);
    }
  };
  malloc_mip("cudaMallocMipmappedArray 16x16 levels 0", 16, 16, 0, 0, 0);
  malloc_mip("cudaMallocMipmappedArray 16x16 levels 5", 16, 16, 0, 5, 0);
  malloc_mip("cudaMallocMipmappedArray 16x16 levels 6", 16, 16, 0, 6, 0);
  malloc_mip("cudaMallocMipmappedArray 16x16 levels 2", 16, 16, 0, 2, 0);
  malloc_mip("cudaMallocMipmappedArray 13x5 levels 4", 13, 5, 0, 4, 0);
  malloc_mip("cudaMallocMipmappedArray 16x0 levels 5", 16, 0, 0, 5, 0);
  malloc_mip("cudaMallocMipmappedArray 8x8x8 levels 4", 8, 8, 8, 4, 0);
  malloc_mip("cudaMallocMipmappedArray 0x0 levels 1", 0, 0, 0, 1, 0);
  malloc_mip("cudaMallocMipmappedArray layered 8x8x3 levels 4", 8, 8, 3, 4, cudaArrayLayered);
  malloc_mip("cudaMallocMipmappedArray surface 8x8 levels 4", 8, 8, 0, 4, cudaArraySurfaceLoadStore);
  report("cudaFreeMipmappedArray null", cudaFreeMipmappedArray(nullptr));
  report("cudaGetMipmappedArrayLevel null", cudaGetMipmappedArrayLevel(&a, nullptr, 0));
}

// ---------------------------------------------------------------------------
// Surfaces.

__global__ void surf1d_write(cudaSurfaceObject_t s, int n) {
  int i = threadIdx.x;
  if (i < n) surf1Dwrite(1.5f * i + 0.25f, s, i * 4);
}
__global__ void surf1d_read(cudaSurfaceObject_t s, const int* xs, int n, unsigned* out) {
  int i = threadIdx.x;
  if (i >= n) return;
  out[3 * i] = __float_as_uint(surf1Dread<float>(s, xs[i], cudaBoundaryModeClamp));
  out[3 * i + 1] = __float_as_uint(surf1Dread<float>(s, xs[i], cudaBoundaryModeZero));
  float v;
  surf1Dread(&v, s, xs[i], cudaBoundaryModeClamp);
  out[3 * i + 2] = __float_as_uint(v);
}
__global__ void surf1d_write_out_of_range(cudaSurfaceObject_t s, int x, float v, bool clamp) {
  surf1Dwrite(v, s, x, clamp ? cudaBoundaryModeClamp : cudaBoundaryModeZero);
}
__global__ void surf2d_write(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = threadIdx.y;
  if (x < w && y < h) surf2Dwrite(make_uchar4(x, y, x + y, 255 - x), s, x * 4, y);
}
__global__ void surf2d_read(cudaSurfaceObject_t s, const int* xy, int n, unsigned* out) {
  int i = threadIdx.x;
  if (i >= n) return;
  uchar4 c = surf2Dread<uchar4>(s, xy[2 * i], xy[2 * i + 1], cudaBoundaryModeClamp);
  uchar4 z = surf2Dread<uchar4>(s, xy[2 * i], xy[2 * i + 1], cudaBoundaryModeZero);
  unsigned u = surf2Dread<unsigned>(s, xy[2 * i], xy[2 * i + 1], cudaBoundaryModeClamp);
  out[3 * i] = c.x | c.y << 8 | c.z << 16 | (unsigned)c.w << 24;
  out[3 * i + 1] = z.x | z.y << 8 | z.z << 16 | (unsigned)z.w << 24;
  out[3 * i + 2] = u;
}
__global__ void surf3d_write(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  surf3Dwrite((short)(x + 10 * y + 100 * z), s, x * 2, y, z);
}
__global__ void surf3d_read(cudaSurfaceObject_t s, const int* p, int n, unsigned* out) {
  int i = threadIdx.x;
  if (i >= n) return;
  out[2 * i] = (unsigned short)surf3Dread<short>(s, p[3 * i], p[3 * i + 1], p[3 * i + 2], cudaBoundaryModeClamp);
  out[2 * i + 1] = (unsigned short)surf3Dread<short>(s, p[3 * i], p[3 * i + 1], p[3 * i + 2], cudaBoundaryModeZero);
}
__global__ void surf_layered_write(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t cube,
                                   cudaSurfaceObject_t cube_layered) {
  int x = threadIdx.x, y = threadIdx.y, l = threadIdx.z;
  if (y == 0) surf1DLayeredwrite(x + 100 * l, s1, x * 4, l);
  surf2DLayeredwrite(make_float2(x + 10 * y, 100 * l), s2, x * 8, y, l);
  surfCubemapwrite(x + 10 * y + 100 * l, cube, x * 4, y, l);
  surfCubemapLayeredwrite(x + 10 * y + 100 * l, cube_layered, x * 4, y, l);
  surfCubemapLayeredwrite(x + 10 * y + 100 * l + 1000, cube_layered, x * 4, y, l + 6);
}
__global__ void surf_layered_read(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t cube,
                                  cudaSurfaceObject_t cube_layered, const int* p, int n, int* out) {
  int i = threadIdx.x;
  if (i >= n) return;
  int x = p[3 * i], y = p[3 * i + 1], l = p[3 * i + 2];
  out[8 * i] = surf1DLayeredread<int>(s1, x * 4, l, cudaBoundaryModeClamp);
  out[8 * i + 1] = surf1DLayeredread<int>(s1, x * 4, l, cudaBoundaryModeZero);
  float2 f = surf2DLayeredread<float2>(s2, x * 8, y, l, cudaBoundaryModeClamp);
  out[8 * i + 2] = __float_as_int(f.x);
  out[8 * i + 3] = __float_as_int(f.y);
  out[8 * i + 4] = surfCubemapread<int>(cube, x * 4, y, l, cudaBoundaryModeClamp);
  out[8 * i + 5] = surfCubemapread<int>(cube, x * 4, y, l, cudaBoundaryModeZero);
  out[8 * i + 6] = surfCubemapLayeredread<int>(cube_layered, x * 4, y, l, cudaBoundaryModeClamp);
  out[8 * i + 7] = surfCubemapLayeredread<int>(cube_layered, x * 4, y, l, cudaBoundaryModeZero);
}

static cudaSurfaceObject_t make_surface(const char* label, cudaArray_t a) {
  cudaSurfaceObject_t s = 0;
  cudaResourceDesc r = array_resource(a);
  cudaError_t e = cudaCreateSurfaceObject(&s, &r);
  if (e != cudaSuccess) {
    std::printf("create surface %s: %d %s\n", label, (int)e, cudaGetErrorName(e));
    cudaGetLastError();
  }
  return s;
}

template <class T>
static T* device_copy(const std::vector<T>& v) {
  T* d = nullptr;
  cudaMalloc(&d, v.size() * sizeof(T));
  cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

static void surfaces() {
  // 1D: write 16 floats, read back at byte offsets in and out of range.
  cudaArray_t a1 = make_array(cudaCreateChannelDesc<float>(), 16, 0, nullptr, 4, cudaArraySurfaceLoadStore);
  cudaSurfaceObject_t s1 = make_surface("1d", a1);
  surf1d_write<<<1, 16>>>(s1, 16);
  report("surf1d write sync", cudaDeviceSynchronize());
  std::vector<int> xs = {0, 4, 60, -4, -400, 64, 68, 1000, -2147483647 - 1, 2147483644};
  int* dxs = device_copy(xs);
  unsigned* dout = nullptr;
  cudaMalloc(&dout, 4096 * sizeof(unsigned));
  surf1d_read<<<1, (int)xs.size()>>>(s1, dxs, (int)xs.size(), dout);
  report("surf1d read sync", cudaDeviceSynchronize());
  std::vector<unsigned> out(3 * xs.size());
  cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < xs.size(); ++i)
    std::printf("surf1Dread x=%d: clamp=%08x zero=%08x out-param-clamp=%08x\n", xs[i], out[3 * i], out[3 * i + 1],
                out[3 * i + 2]);
  // Out-of-range writes: clamped ones land on an edge element, zero-mode
  // ones are dropped.
  surf1d_write_out_of_range<<<1, 1>>>(s1, -4, 111.f, true);
  surf1d_write_out_of_range<<<1, 1>>>(s1, 64, 222.f, true);
  surf1d_write_out_of_range<<<1, 1>>>(s1, 4000, 333.f, true);
  surf1d_write_out_of_range<<<1, 1>>>(s1, -8, 444.f, false);
  surf1d_write_out_of_range<<<1, 1>>>(s1, 68, 555.f, false);
  report("surf1d out-of-range writes sync", cudaDeviceSynchronize());
  float back[16];
  cudaMemcpy2DFromArray(back, 64, a1, 0, 0, 64, 1, cudaMemcpyDeviceToHost);
  std::printf("surf1d after out-of-range writes:");
  for (float v : back) std::printf(" %08x", fbits(v));
  std::printf("\n");
  // A texture over the same array sees the surface's writes in a later launch.
  cudaTextureObject_t t1 =
      make_texture("tex over surface", array_resource(a1), texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, 0));
  std::vector<Query> tq = {q1(0.5f), q1(1.0f), q1(15.5f)};
  const char* one[] = {"v"};
  sweep("tex after surf write", {t1}, one, kTex1D, tq, 1);
  cudaDestroyTextureObject(t1);
  cudaDestroySurfaceObject(s1);
  cudaFreeArray(a1);

  // 2D uchar4, 5 x 3.
  cudaArray_t a2 = make_array(cudaCreateChannelDesc<uchar4>(), 5, 3, nullptr, 4, cudaArraySurfaceLoadStore);
  cudaSurfaceObject_t s2 = make_surface("2d", a2);
  surf2d_write<<<1, dim3(5, 3)>>>(s2, 5, 3);
  report("surf2d write sync", cudaDeviceSynchronize());
  unsigned host2[15];
  cudaMemcpy2DFromArray(host2, 20, a2, 0, 0, 20, 3, cudaMemcpyDeviceToHost);
  std::printf("surf2d contents:");
  for (unsigned v : host2) std::printf(" %08x", v);
  std::printf("\n");
  std::vector<int> xy = {0, 0, 16, 2, 4, 1, -4, 0, 20, 1, 0, -1, 0, 3, 100, 100, -100, -100, 8, 7};
  int* dxy = device_copy(xy);
  surf2d_read<<<1, (int)xy.size() / 2>>>(s2, dxy, (int)xy.size() / 2, dout);
  report("surf2d read sync", cudaDeviceSynchronize());
  out.resize(3 * xy.size() / 2);
  cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < xy.size() / 2; ++i)
    std::printf("surf2Dread x=%d y=%d: clamp=%08x zero=%08x uint-clamp=%08x\n", xy[2 * i], xy[2 * i + 1], out[3 * i],
                out[3 * i + 1], out[3 * i + 2]);
  cudaDestroySurfaceObject(s2);
  cudaFreeArray(a2);

  // 3D short, 4 x 3 x 2.
  cudaArray_t a3 = make_array_3d(cudaCreateChannelDesc<short>(), make_cudaExtent(4, 3, 2), nullptr, 2, cudaArraySurfaceLoadStore);
  cudaSurfaceObject_t s3 = make_surface("3d", a3);
  surf3d_write<<<1, dim3(4, 3, 2)>>>(s3);
  report("surf3d write sync", cudaDeviceSynchronize());
  std::vector<int> p3 = {0, 0, 0, 6, 2, 1, 2, 1, 1, -2, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, -1, 100, 100, 100};
  int* dp3 = device_copy(p3);
  surf3d_read<<<1, (int)p3.size() / 3>>>(s3, dp3, (int)p3.size() / 3, dout);
  report("surf3d read sync", cudaDeviceSynchronize());
  out.resize(2 * p3.size() / 3);
  cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < p3.size() / 3; ++i)
    std::printf("surf3Dread x=%d y=%d z=%d: clamp=%04x zero=%04x\n", p3[3 * i], p3[3 * i + 1], p3[3 * i + 2],
                out[2 * i], out[2 * i + 1]);
  cudaDestroySurfaceObject(s3);
  cudaFreeArray(a3);

  // Layered and cubemap surfaces: 1D layered int 4 x 6 layers, 2D layered
  // float2 4 x 4 x 6, cubemap int 4 x 4, cubemap layered int 4 x 4 x 12.
  cudaArray_t l1 = make_array_3d(cudaCreateChannelDesc<int>(), make_cudaExtent(4, 0, 6), nullptr, 4,
                                 cudaArrayLayered | cudaArraySurfaceLoadStore);
  cudaArray_t l2 = make_array_3d(cudaCreateChannelDesc<float2>(), make_cudaExtent(4, 4, 6), nullptr, 8,
                                 cudaArrayLayered | cudaArraySurfaceLoadStore);
  cudaArray_t cu = make_array_3d(cudaCreateChannelDesc<int>(), make_cudaExtent(4, 4, 6), nullptr, 4,
                                 cudaArrayCubemap | cudaArraySurfaceLoadStore);
  cudaArray_t cl = make_array_3d(cudaCreateChannelDesc<int>(), make_cudaExtent(4, 4, 12), nullptr, 4,
                                 cudaArrayCubemap | cudaArrayLayered | cudaArraySurfaceLoadStore);
  cudaSurfaceObject_t sl1 = make_surface("1d layered", l1), sl2 = make_surface("2d layered", l2),
                      scu = make_surface("cubemap", cu), scl = make_surface("cubemap layered", cl);
  surf_layered_write<<<1, dim3(4, 4, 6)>>>(sl1, sl2, scu, scl);
  report("surf layered write sync", cudaDeviceSynchronize());
  std::vector<int> pl = {0, 0, 0, 3, 3, 5, 1, 2, 3, -1, 0, 2, 4, 0, 2, 0, -1, 1, 0, 4, 1, 2, 2, -1, 2, 2, 6, 2, 2, 11, 2, 2, 12, 1, 1, 100};
  int* dpl = device_copy(pl);
  surf_layered_read<<<1, (int)pl.size() / 3>>>(sl1, sl2, scu, scl, dpl, (int)pl.size() / 3, (int*)dout);
  report("surf layered read sync", cudaDeviceSynchronize());
  out.resize(8 * pl.size() / 3);
  cudaMemcpy(out.data(), dout, out.size() * 4, cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < pl.size() / 3; ++i) {
    const unsigned* o = &out[8 * i];
    std::printf("surf layered x=%d y=%d l=%d: 1dl=%08x,%08x 2dl=%08x:%08x cube=%08x,%08x cubel=%08x,%08x\n", pl[3 * i],
                pl[3 * i + 1], pl[3 * i + 2], o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]);
  }
  // The cubemap written by surfaces, read by texCubemap in a later launch.
  cudaTextureObject_t tc =
      make_texture("cube after surf", array_resource(cu), texture_desc(cudaAddressModeClamp, cudaFilterModePoint, 1));
  std::vector<Query> cq = cube_directions();
  cq.resize(12);
  sweep("texCubemap after surf write", {tc}, one, kTexCubemapInt, cq, 1);
  if (tc) cudaDestroyTextureObject(tc);
  for (cudaSurfaceObject_t s : {sl1, sl2, scu, scl})
    if (s) cudaDestroySurfaceObject(s);
  for (cudaArray_t a : {l1, l2, cu, cl}) cudaFreeArray(a);

  cudaFree(dxs);
  cudaFree(dxy);
  cudaFree(dp3);
  cudaFree(dpl);
  cudaFree(dout);
}

static void surface_errors() {
  cudaSurfaceObject_t s = 0;
  cudaArray_t plain = make_array(cudaCreateChannelDesc<float>(), 16, 16, nullptr, 4);
  cudaArray_t ok = make_array(cudaCreateChannelDesc<float>(), 16, 16, nullptr, 4, cudaArraySurfaceLoadStore);
  cudaResourceDesc r = array_resource(ok);
  cudaError_t e = cudaCreateSurfaceObject(&s, &r);
  report("create surface ok", e);
  if (e == cudaSuccess) {
    cudaResourceDesc back;
    std::memset(&back, 0xcc, sizeof back);
    report("get surface resource desc", cudaGetSurfaceObjectResourceDesc(&back, s));
    std::printf("surface resource desc: type %d array-equal %d\n", (int)back.resType, back.res.array.array == ok);
    report("destroy surface", cudaDestroySurfaceObject(s));
  }
  report("destroy surface 0", cudaDestroySurfaceObject(0));
  r = array_resource(plain);
  report("create surface no load-store flag", cudaCreateSurfaceObject(&s, &r));
  r.res.array.array = nullptr;
  report("create surface null array", cudaCreateSurfaceObject(&s, &r));
  report("create surface null desc", cudaCreateSurfaceObject(&s, nullptr));
  r = array_resource(ok);
  report("create surface null out", cudaCreateSurfaceObject(nullptr, &r));
  float* d = nullptr;
  cudaMalloc(&d, 4096);
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = d;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = 4096;
  report("create surface linear", cudaCreateSurfaceObject(&s, &r));
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = d;
  r.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  r.res.pitch2D.width = 16;
  r.res.pitch2D.height = 16;
  r.res.pitch2D.pitchInBytes = 128;
  report("create surface pitch2D", cudaCreateSurfaceObject(&s, &r));
  cudaMipmappedArray_t m = nullptr;
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaMallocMipmappedArray(&m, &f, make_cudaExtent(8, 8, 0), 3, cudaArraySurfaceLoadStore);
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeMipmappedArray;
  r.res.mipmap.mipmap = m;
  report("create surface mipmapped", cudaCreateSurfaceObject(&s, &r));
  cudaArray_t level = nullptr;
  cudaGetMipmappedArrayLevel(&level, m, 1);
  r = array_resource(level);
  e = cudaCreateSurfaceObject(&s, &r);
  report("create surface on mip level 1", e);
  if (e == cudaSuccess) cudaDestroySurfaceObject(s);
  cudaFreeMipmappedArray(m);
  cudaFree(d);
  cudaFreeArray(plain);
  cudaFreeArray(ok);
}

int main() {
  cudaFree(0);
  cudaMalloc(&device_queries, kMaxQueries * sizeof(Query));
  cudaMalloc(&device_results, kMaxQueries * sizeof(uint4));
  std::printf("== limits\n");
  device_limits();
  std::printf("== 1d array\n");
  one_d_array();
  std::printf("== filter weights\n");
  filter_weights();
  std::printf("== linear memory\n");
  linear_memory();
  std::printf("== 2d\n");
  two_d();
  std::printf("== 3d\n");
  three_d();
  std::printf("== layered\n");
  layered();
  std::printf("== cubemaps\n");
  cubemaps();
  std::printf("== read modes\n");
  read_modes();
  std::printf("== channels and borders\n");
  channels_and_borders();
  std::printf("== gather\n");
  gather();
  std::printf("== mipmaps\n");
  mipmaps();
  std::printf("== coherence\n");
  coherence();
  std::printf("== texture errors\n");
  texture_errors();
  std::printf("== array errors\n");
  array_errors();
  std::printf("== surfaces\n");
  surfaces();
  std::printf("== surface errors\n");
  surface_errors();
  std::printf("== end: last error %d\n", (int)cudaGetLastError());
  return 0;
}
