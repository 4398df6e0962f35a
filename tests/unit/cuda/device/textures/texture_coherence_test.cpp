// Texture fetches in a kernel see every write made before the launch: by a
// kernel launched before (to linear memory, or to an array through a
// surface), and by cudaMemcpy to linear memory or to an array (CUDA guide
// 6.2.14.4, "Read/Write Coherency": the texture cache is kept coherent only
// between launches). Values as the H100 gave them (tests/differential/
// texture_probe.cu, its "coherent" and "after surf write" lines).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstring>
#include <vector>

#include "device_buffer.hpp"
#include "surface_arrays.hpp"
#include "texture_fetching.hpp"

namespace {

cudaTextureObject_t texture_over(const cudaResourceDesc& resource, cudaTextureFilterMode filter, int normalized) {
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = cudaAddressModeClamp;
  desc.filterMode = filter;
  desc.readMode = cudaReadModeElementType;
  desc.normalizedCoords = normalized;
  cudaTextureObject_t t = 0;
  REQUIRE(cudaCreateTextureObject(&t, &resource, &desc, nullptr) == cudaSuccess);
  return t;
}

}  // namespace

__global__ void fill_linear(float* p, int n, float base) {
  int i = threadIdx.x;
  if (i < n) p[i] = base + i;
}

__global__ void fetch_linear(cudaTextureObject_t t, const int* is, int n, float* out) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, is[i]);
}

__global__ void fetch_1d(cudaTextureObject_t t, const float* xs, int n, float* out) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex1D<float>(t, xs[i]);
}

TEST_CASE("tex1Dfetch sees what earlier kernels and cudaMemcpy wrote to its linear memory") {
  const int n = 8;
  device_buffer<float> memory(n);
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = memory.p;
  r.res.linear.desc = cudaCreateChannelDesc<float>();
  r.res.linear.sizeInBytes = n * sizeof(float);
  cudaTextureObject_t t = texture_over(r, cudaFilterModePoint, 0);
  device_buffer<int> is(std::vector<int>{0, 3, 7});
  device_buffer<float> out(3);
  auto fetch = [&] {
    REQUIRE(weft::launch(1, 3, fetch_linear, t, is.p, 3, out.p) == cudaSuccess);
    std::vector<float> v = out.to_host();
    return std::vector<unsigned>{bits(v[0]), bits(v[1]), bits(v[2])};
  };
  CHECK(fetch() == std::vector<unsigned>{0, 0, 0});
  REQUIRE(weft::launch(1, n, fill_linear, memory.p, n, 10.f) == cudaSuccess);
  CHECK(fetch() == std::vector<unsigned>{0x41200000, 0x41500000, 0x41880000});
  REQUIRE(weft::launch(1, n, fill_linear, memory.p, n, 20.f) == cudaSuccess);
  CHECK(fetch() == std::vector<unsigned>{0x41a00000, 0x41b80000, 0x41d80000});
  const float host[n] = {-1, -2, -3, -4, -5, -6, -7, -8};
  REQUIRE(cudaMemcpy(memory.p, host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(fetch() == std::vector<unsigned>{0xbf800000, 0xc0800000, 0xc1000000});
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
}

TEST_CASE("tex1D over an array sees cudaMemcpy2DToArray's copy made between two launches") {
  const int n = 8;
  float host[n] = {-1, -2, -3, -4, -5, -6, -7, -8};
  test_array array(cudaCreateChannelDesc<float>(), n, 0, 0, cudaArrayDefault);
  REQUIRE(cudaMemcpy2DToArray(array.handle(), 0, 0, host, sizeof host, sizeof host, 1, cudaMemcpyHostToDevice) ==
          cudaSuccess);
  cudaTextureObject_t t = texture_over(array_resource(array.handle()), cudaFilterModePoint, 0);
  device_buffer<float> xs(std::vector<float>{0.5f, 7.5f});
  device_buffer<float> out(2);
  REQUIRE(weft::launch(1, 2, fetch_1d, t, xs.p, 2, out.p) == cudaSuccess);
  std::vector<float> before = out.to_host();
  CHECK(bits(before[0]) == 0xbf800000);
  CHECK(bits(before[1]) == 0xc1000000);
  for (int i = 0; i < n; ++i) host[i] = 100.f + i;
  REQUIRE(cudaMemcpy2DToArray(array.handle(), 0, 0, host, sizeof host, sizeof host, 1, cudaMemcpyHostToDevice) ==
          cudaSuccess);
  REQUIRE(weft::launch(1, 2, fetch_1d, t, xs.p, 2, out.p) == cudaSuccess);
  std::vector<float> after = out.to_host();
  CHECK(bits(after[0]) == 0x42c80000);
  CHECK(bits(after[1]) == 0x42d60000);
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
}

__global__ void surface_fill(cudaSurfaceObject_t s, int n) {
  int i = threadIdx.x;
  if (i < n) surf1Dwrite(1.5f * i + 0.25f, s, i * 4);
}

__global__ void surface_write_at(cudaSurfaceObject_t s, int x, float v) { surf1Dwrite(v, s, x, cudaBoundaryModeClamp); }

TEST_CASE("a texture over an array sees surface writes of an earlier launch, linear filtering included") {
  test_array array(cudaCreateChannelDesc<float>(), 16, 0, 0, cudaArraySurfaceLoadStore);
  surface_handle s(array.handle());
  REQUIRE(weft::launch(1, 16, surface_fill, s.get(), 16) == cudaSuccess);
  REQUIRE(weft::launch(1, 1, surface_write_at, s.get(), -4, 111.f) == cudaSuccess);
  REQUIRE(weft::launch(1, 1, surface_write_at, s.get(), 4000, 333.f) == cudaSuccess);
  cudaTextureObject_t t = texture_over(array_resource(array.handle()), cudaFilterModeLinear, 0);
  device_buffer<float> xs(std::vector<float>{0.5f, 1.0f, 15.5f});
  device_buffer<float> out(3);
  REQUIRE(weft::launch(1, 3, fetch_1d, t, xs.p, 3, out.p) == cudaSuccess);
  std::vector<float> v = out.to_host();
  // The H100's "tex after surf write" lines: 111, between 111 and 1.75, 333.
  CHECK(bits(v[0]) == 0x42de0000);
  CHECK(bits(v[1]) == 0x42618000);
  CHECK(bits(v[2]) == 0x43a68000);
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
}

__global__ void cube_fill(cudaSurfaceObject_t cube) {
  int x = threadIdx.x, y = threadIdx.y, face = threadIdx.z;
  surfCubemapwrite(x + 10 * y + 100 * face, cube, x * 4, y, face);
}

__global__ void fetch_cube(cudaTextureObject_t t, const float4* directions, int n, int* out) {
  int i = threadIdx.x;
  if (i < n) out[i] = texCubemap<int>(t, directions[i].x, directions[i].y, directions[i].z);
}

TEST_CASE("texCubemap sees the faces an earlier launch wrote through surfCubemapwrite") {
  test_array cube(cudaCreateChannelDesc<int>(), 4, 4, 6, cudaArrayCubemap | cudaArraySurfaceLoadStore);
  surface_handle s(cube.handle());
  REQUIRE(weft::launch(1, dim3(4, 4, 6), cube_fill, s.get()) == cudaSuccess);
  cudaTextureObject_t t = texture_over(array_resource(cube.handle()), cudaFilterModePoint, 1);
  const std::vector<float4> directions = {{1, 0, 0, 0},         {-1, 0, 0, 0},        {0, 1, 0, 0},
                                          {0, -1, 0, 0},        {0, 0, 1, 0},         {0, 0, -1, 0},
                                          {1, 0.5f, 0.25f, 0},  {-1, 0.5f, 0.25f, 0}, {0.5f, 1, 0.25f, 0},
                                          {0.5f, -1, 0.25f, 0}, {0.5f, 0.25f, 1, 0},  {0.5f, 0.25f, -1, 0}};
  // The H100's "texCubemap after surf write" lines.
  const std::vector<int> expected = {0x16, 0x7a, 0xde, 0x142, 0x1a6, 0x20a, 0x0b, 0x70, 0xdf, 0x139, 0x19d, 0x1ff};
  device_buffer<float4> d(directions);
  device_buffer<int> out(directions.size());
  int n = static_cast<int>(directions.size());
  REQUIRE(weft::launch(1, n, fetch_cube, t, d.p, n, out.p) == cudaSuccess);
  CHECK(out.to_host() == expected);
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
}
