// Surface reads and writes (surf1D ... surfCubemapLayered, both read forms
// and the write), with the byte-addressed x and the three boundary modes.
// The expected values are the H100's, from tests/differential/
// texture_probe.cu (its "surf" lines) and surface_trap_probe.cu, which run
// the same accesses on arrays of the same shapes.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "surface_arrays.hpp"
#include "texture_fetching.hpp"

// ---- 1D: 16 floats ----

__global__ void write_1d(cudaSurfaceObject_t s, int n) {
  int i = threadIdx.x;
  if (i < n) surf1Dwrite(1.5f * i + 0.25f, s, i * 4);
}

__global__ void read_1d(cudaSurfaceObject_t s, const int* xs, int n, unsigned* out) {
  int i = threadIdx.x;
  if (i >= n) return;
  out[3 * i] = __float_as_uint(surf1Dread<float>(s, xs[i], cudaBoundaryModeClamp));
  out[3 * i + 1] = __float_as_uint(surf1Dread<float>(s, xs[i], cudaBoundaryModeZero));
  float v;
  surf1Dread(&v, s, xs[i], cudaBoundaryModeClamp);
  out[3 * i + 2] = __float_as_uint(v);
}

__global__ void write_1d_at(cudaSurfaceObject_t s, int x, float v, cudaSurfaceBoundaryMode mode) {
  surf1Dwrite(v, s, x, mode);
}

TEST_CASE("surf1Dwrite and surf1Dread: bytes in x; Clamp takes the nearest element, Zero reads 0 and drops writes") {
  test_array array(cudaCreateChannelDesc<float>(), 16, 0, 0, cudaArraySurfaceLoadStore);
  surface_handle s(array.handle());
  REQUIRE(weft::launch(1, 16, write_1d, s.get(), 16) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<float> contents = array.contents<float>();
  for (int i = 0; i < 16; ++i) CHECK(contents[i] == 1.5f * i + 0.25f);

  const std::vector<int> xs = {0, 4, 60, -4, -400, 64, 68, 1000, INT_MIN, 2147483644};
  device_buffer<int> dxs(xs);
  device_buffer<unsigned> out(3 * xs.size());
  REQUIRE(weft::launch(1, static_cast<int>(xs.size()), read_1d, s.get(), dxs.p, static_cast<int>(xs.size()), out.p) ==
          cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<unsigned> r = out.to_host();
  // clamp, zero, out-parameter clamp: the H100's "surf1Dread x=..." lines.
  const unsigned expected[][3] = {{0x3e800000, 0x3e800000, 0x3e800000}, {0x3fe00000, 0x3fe00000, 0x3fe00000},
                                  {0x41b60000, 0x41b60000, 0x41b60000}, {0x3e800000, 0x00000000, 0x3e800000},
                                  {0x3e800000, 0x00000000, 0x3e800000}, {0x41b60000, 0x00000000, 0x41b60000},
                                  {0x41b60000, 0x00000000, 0x41b60000}, {0x41b60000, 0x00000000, 0x41b60000},
                                  {0x3e800000, 0x00000000, 0x3e800000}, {0x41b60000, 0x00000000, 0x41b60000}};
  for (std::size_t i = 0; i < xs.size(); ++i) {
    INFO("x = " << xs[i]);
    CHECK(r[3 * i] == expected[i][0]);
    CHECK(r[3 * i + 1] == expected[i][1]);
    CHECK(r[3 * i + 2] == expected[i][2]);
  }

  // Writes out of range: clamped ones land on the edge elements, the last
  // one launched winning; Zero's are dropped.
  weft::launch(1, 1, write_1d_at, s.get(), -4, 111.f, cudaBoundaryModeClamp);
  weft::launch(1, 1, write_1d_at, s.get(), 64, 222.f, cudaBoundaryModeClamp);
  weft::launch(1, 1, write_1d_at, s.get(), 4000, 333.f, cudaBoundaryModeClamp);
  weft::launch(1, 1, write_1d_at, s.get(), -8, 444.f, cudaBoundaryModeZero);
  weft::launch(1, 1, write_1d_at, s.get(), 68, 555.f, cudaBoundaryModeZero);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const unsigned after[16] = {0x42de0000, 0x3fe00000, 0x40500000, 0x40980000, 0x40c80000, 0x40f80000,
                              0x41140000, 0x412c0000, 0x41440000, 0x415c0000, 0x41740000, 0x41860000,
                              0x41920000, 0x419e0000, 0x41aa0000, 0x43a68000};
  contents = array.contents<float>();
  for (int i = 0; i < 16; ++i) CHECK(bits(contents[i]) == after[i]);
}

// ---- Accesses wider or narrower than the element ----

__global__ void read_wide(cudaSurfaceObject_t s, int x, int kind, cudaSurfaceBoundaryMode mode, unsigned* out) {
  if (kind == 2) {
    float2 v = surf1Dread<float2>(s, x, mode);
    out[0] = __float_as_uint(v.x), out[1] = __float_as_uint(v.y);
  } else if (kind == 4) {
    float4 v = surf1Dread<float4>(s, x, mode);
    out[0] = __float_as_uint(v.x), out[1] = __float_as_uint(v.w);
  } else {
    out[0] = surf1Dread<unsigned char>(s, x, mode);
  }
}

TEST_CASE("an access of another size than the element: x stays in bytes, Clamp keeps the whole access inside") {
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i) values[i] = i + 0.5f;
  test_array a16(cudaCreateChannelDesc<float>(), 16, 0, 0, cudaArraySurfaceLoadStore);
  test_array a15(cudaCreateChannelDesc<float>(), 15, 0, 0, cudaArraySurfaceLoadStore);
  a16.fill(values.data());
  a15.fill(values.data());
  surface_handle s16(a16.handle()), s15(a15.handle());
  device_buffer<unsigned> out(2);
  auto read = [&](cudaSurfaceObject_t s, int x, int kind, cudaSurfaceBoundaryMode mode) {
    std::vector<unsigned> clear(2, 0xeeeeeeee);
    REQUIRE(cudaMemcpy(out.p, clear.data(), 8, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(weft::launch(1, 1, read_wide, s, x, kind, mode, out.p) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    return out.to_host();
  };
  // surface_trap_probe's cases, with the H100's results.
  CHECK(read(s16.get(), 0, 2, cudaBoundaryModeClamp) == std::vector<unsigned>{0x3f000000, 0x3fc00000});
  CHECK(read(s16.get(), 56, 2, cudaBoundaryModeClamp) == std::vector<unsigned>{0x41680000, 0x41780000});
  // 60 bytes: a float2 at 56 straddles the end; Clamp moves it back to 48.
  CHECK(read(s15.get(), 56, 2, cudaBoundaryModeClamp) == std::vector<unsigned>{0x41480000, 0x41580000});
  CHECK(read(s15.get(), 56, 2, cudaBoundaryModeZero) == std::vector<unsigned>{0, 0});
  CHECK(read(s15.get(), 64, 2, cudaBoundaryModeClamp) == std::vector<unsigned>{0x41480000, 0x41580000});
  CHECK(read(s15.get(), 48, 4, cudaBoundaryModeClamp) == std::vector<unsigned>{0x41080000, 0x41380000});
  CHECK(read(s16.get(), 5, 1, cudaBoundaryModeTrap)[0] == 0x00);    // byte 1 of 1.5f
  CHECK(read(s16.get(), 65, 1, cudaBoundaryModeClamp)[0] == 0x41);  // the last byte of 15.5f
  // Surface object 0 reads zero.
  CHECK(read(0, 0, 2, cudaBoundaryModeClamp) == std::vector<unsigned>{0, 0});
}

// ---- 2D: 5 x 3 uchar4 ----

__global__ void write_2d(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = threadIdx.y;
  if (x < w && y < h) surf2Dwrite(make_uchar4(x, y, x + y, 255 - x), s, x * 4, y);
}

__global__ void read_2d(cudaSurfaceObject_t s, const int* xy, int n, unsigned* out) {
  int i = threadIdx.x;
  if (i >= n) return;
  uchar4 c = surf2Dread<uchar4>(s, xy[2 * i], xy[2 * i + 1], cudaBoundaryModeClamp);
  uchar4 z;
  surf2Dread(&z, s, xy[2 * i], xy[2 * i + 1], cudaBoundaryModeZero);
  out[2 * i] = c.x | c.y << 8 | c.z << 16 | static_cast<unsigned>(c.w) << 24;
  out[2 * i + 1] = z.x | z.y << 8 | z.z << 16 | static_cast<unsigned>(z.w) << 24;
}

TEST_CASE("surf2Dwrite and surf2Dread of uchar4, in range and clamped per axis") {
  test_array array(cudaCreateChannelDesc<uchar4>(), 5, 3, 0, cudaArraySurfaceLoadStore);
  surface_handle s(array.handle());
  REQUIRE(weft::launch(1, dim3(5, 3), write_2d, s.get(), 5, 3) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const unsigned contents[15] = {0xff000000, 0xfe010001, 0xfd020002, 0xfc030003, 0xfb040004,
                                 0xff010100, 0xfe020101, 0xfd030102, 0xfc040103, 0xfb050104,
                                 0xff020200, 0xfe030201, 0xfd040202, 0xfc050203, 0xfb060204};
  std::vector<unsigned> stored = array.contents<unsigned>();
  for (int i = 0; i < 15; ++i) CHECK(stored[i] == contents[i]);

  const std::vector<int> xy = {0, 0, 16, 2, 4, 1, -4, 0, 20, 1, 0, -1, 0, 3, 100, 100, -100, -100, 8, 7};
  const unsigned expected[][2] = {
      {0xff000000, 0xff000000}, {0xfb060204, 0xfb060204}, {0xfe020101, 0xfe020101}, {0xff000000, 0}, {0xfb050104, 0},
      {0xff000000, 0},          {0xff020200, 0},          {0xfb060204, 0},          {0xff000000, 0}, {0xfd040202, 0}};
  device_buffer<int> dxy(xy);
  device_buffer<unsigned> out(xy.size());
  int n = static_cast<int>(xy.size() / 2);
  REQUIRE(weft::launch(1, n, read_2d, s.get(), dxy.p, n, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<unsigned> r = out.to_host();
  for (int i = 0; i < n; ++i) {
    INFO("x = " << xy[2 * i] << ", y = " << xy[2 * i + 1]);
    CHECK(r[2 * i] == expected[i][0]);
    CHECK(r[2 * i + 1] == expected[i][1]);
  }
}

// ---- 3D: 4 x 3 x 2 shorts ----

__global__ void write_3d(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
  surf3Dwrite(static_cast<short>(x + 10 * y + 100 * z), s, x * 2, y, z);
}

__global__ void read_3d(cudaSurfaceObject_t s, const int* p, int n, unsigned* out) {
  int i = threadIdx.x;
  if (i >= n) return;
  out[2 * i] =
      static_cast<unsigned short>(surf3Dread<short>(s, p[3 * i], p[3 * i + 1], p[3 * i + 2], cudaBoundaryModeClamp));
  short z;
  surf3Dread(&z, s, p[3 * i], p[3 * i + 1], p[3 * i + 2], cudaBoundaryModeZero);
  out[2 * i + 1] = static_cast<unsigned short>(z);
}

TEST_CASE("surf3Dwrite and surf3Dread: z is signed, clamped to the depth") {
  test_array array(cudaCreateChannelDesc<short>(), 4, 3, 2, cudaArraySurfaceLoadStore);
  surface_handle s(array.handle());
  REQUIRE(weft::launch(1, dim3(4, 3, 2), write_3d, s.get()) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<int> p = {0, 0, 0, 6, 2, 1, 2, 1, 1, -2, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, -1, 100, 100, 100};
  const unsigned expected[][2] = {{0, 0},    {0x7b, 0x7b}, {0x6f, 0x6f}, {0, 0},   {3, 0},
                                  {0x14, 0}, {0x64, 0},    {0, 0},       {0x7b, 0}};
  device_buffer<int> dp(p);
  int n = static_cast<int>(p.size() / 3);
  device_buffer<unsigned> out(2 * n);
  REQUIRE(weft::launch(1, n, read_3d, s.get(), dp.p, n, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<unsigned> r = out.to_host();
  for (int i = 0; i < n; ++i) {
    INFO("x = " << p[3 * i] << ", y = " << p[3 * i + 1] << ", z = " << p[3 * i + 2]);
    CHECK(r[2 * i] == expected[i][0]);
    CHECK(r[2 * i + 1] == expected[i][1]);
  }
}

// ---- Layered and cubemap: the layer or face is unsigned, -1 past the last ----

__global__ void write_layered(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t cube,
                              cudaSurfaceObject_t cube_layered) {
  int x = threadIdx.x, y = threadIdx.y, l = threadIdx.z;
  if (y == 0) surf1DLayeredwrite(x + 100 * l, s1, x * 4, l);
  surf2DLayeredwrite(make_float2(x + 10 * y, 100 * l), s2, x * 8, y, l);
  surfCubemapwrite(x + 10 * y + 100 * l, cube, x * 4, y, l);
  surfCubemapLayeredwrite(x + 10 * y + 100 * l, cube_layered, x * 4, y, l);
  surfCubemapLayeredwrite(x + 10 * y + 100 * l + 1000, cube_layered, x * 4, y, l + 6);
}

__global__ void read_layered(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t cube,
                             cudaSurfaceObject_t cube_layered, const int* p, int n, unsigned* out) {
  int i = threadIdx.x;
  if (i >= n) return;
  int x = p[3 * i], y = p[3 * i + 1], l = p[3 * i + 2];
  unsigned* o = out + 8 * i;
  o[0] = surf1DLayeredread<int>(s1, x * 4, l, cudaBoundaryModeClamp);
  int v;
  surf1DLayeredread(&v, s1, x * 4, l, cudaBoundaryModeZero);
  o[1] = v;
  float2 f = surf2DLayeredread<float2>(s2, x * 8, y, l, cudaBoundaryModeClamp);
  o[2] = __float_as_uint(f.x);
  surf2DLayeredread(&f, s2, x * 8, y, l, cudaBoundaryModeClamp);
  o[3] = __float_as_uint(f.y);
  o[4] = surfCubemapread<int>(cube, x * 4, y, l, cudaBoundaryModeClamp);
  surfCubemapread(&v, cube, x * 4, y, l, cudaBoundaryModeZero);
  o[5] = v;
  o[6] = surfCubemapLayeredread<int>(cube_layered, x * 4, y, l, cudaBoundaryModeClamp);
  surfCubemapLayeredread(&v, cube_layered, x * 4, y, l, cudaBoundaryModeZero);
  o[7] = v;
}

TEST_CASE("layered and cubemap surfaces: each layer and face apart; a layer out of range clamps as unsigned") {
  auto f2 = cudaCreateChannelDesc<float2>();
  auto i1 = cudaCreateChannelDesc<int>();
  test_array l1(i1, 4, 0, 6, cudaArrayLayered | cudaArraySurfaceLoadStore);
  test_array l2(f2, 4, 4, 6, cudaArrayLayered | cudaArraySurfaceLoadStore);
  test_array cube(i1, 4, 4, 6, cudaArrayCubemap | cudaArraySurfaceLoadStore);
  test_array cube_layered(i1, 4, 4, 12, cudaArrayCubemap | cudaArrayLayered | cudaArraySurfaceLoadStore);
  surface_handle s1(l1.handle()), s2(l2.handle()), sc(cube.handle()), scl(cube_layered.handle());
  REQUIRE(weft::launch(1, dim3(4, 4, 6), write_layered, s1.get(), s2.get(), sc.get(), scl.get()) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<int> p = {0, 0, 0, 3, 3, 5,  1, 2, 3, -1, 0, 2,  4, 0, 2,  0, -1, 1,
                              0, 4, 1, 2, 2, -1, 2, 2, 6, 2,  2, 11, 2, 2, 12, 1, 1,  100};
  // The H100's "surf layered" lines: 1D layered clamp, zero; 2D layered x,
  // y; cubemap clamp, zero; layered cubemap clamp, zero.
  const unsigned expected[][8] = {{0x000, 0x000, 0x00000000, 0x00000000, 0x000, 0x000, 0x000, 0x000},
                                  {0x1f7, 0x1f7, 0x42040000, 0x43fa0000, 0x215, 0x215, 0x215, 0x215},
                                  {0x12d, 0x12d, 0x41a80000, 0x43960000, 0x141, 0x141, 0x141, 0x141},
                                  {0x0c8, 0x000, 0x00000000, 0x43480000, 0x0c8, 0x000, 0x0c8, 0x000},
                                  {0x0cb, 0x000, 0x40400000, 0x43480000, 0x0cb, 0x000, 0x0cb, 0x000},
                                  {0x064, 0x064, 0x00000000, 0x42c80000, 0x064, 0x000, 0x064, 0x000},
                                  {0x064, 0x064, 0x41f00000, 0x42c80000, 0x082, 0x000, 0x082, 0x000},
                                  {0x1f6, 0x000, 0x41b00000, 0x43fa0000, 0x20a, 0x000, 0x5f2, 0x000},
                                  {0x1f6, 0x000, 0x41b00000, 0x43fa0000, 0x20a, 0x000, 0x3fe, 0x3fe},
                                  {0x1f6, 0x000, 0x41b00000, 0x43fa0000, 0x20a, 0x000, 0x5f2, 0x5f2},
                                  {0x1f6, 0x000, 0x41b00000, 0x43fa0000, 0x20a, 0x000, 0x5f2, 0x000},
                                  {0x1f5, 0x000, 0x41300000, 0x43fa0000, 0x1ff, 0x000, 0x5e7, 0x000}};
  device_buffer<int> dp(p);
  int n = static_cast<int>(p.size() / 3);
  device_buffer<unsigned> out(8 * n);
  REQUIRE(weft::launch(1, n, read_layered, s1.get(), s2.get(), sc.get(), scl.get(), dp.p, n, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<unsigned> r = out.to_host();
  for (int i = 0; i < n; ++i) {
    INFO("x = " << p[3 * i] << ", y = " << p[3 * i + 1] << ", layer = " << p[3 * i + 2]);
    for (int k = 0; k < 8; ++k) CHECK(r[8 * i + k] == expected[i][k]);
  }
}

// ---- Faults ----

__global__ void touch_1d(cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode mode, bool write) {
  if (blockIdx.x != 1 || threadIdx.x != 5) return;
  if (write)
    surf1Dwrite(-1.0f, s, x, mode);
  else
    (void)surf1Dread<float>(s, x, mode);
}

__global__ void read_layer(cudaSurfaceObject_t s, int layer) { (void)surf2DLayeredread<float>(s, 0, 0, layer); }

namespace {

// Runs touch_1d and returns the launch's code and report; resets the device.
std::pair<cudaError_t, std::string> fault_of(cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode mode, bool write) {
  REQUIRE(weft::launch(2, 32, touch_1d, s, x, mode, write) == cudaSuccess);
  cudaError_t code = cudaDeviceSynchronize();
  std::string report = weft::fault_message();
  return {code, report};
}

}  // namespace

namespace {

void trap_out_of_range() {
  test_array array(cudaCreateChannelDesc<float>(), 16, 0, 0, cudaArraySurfaceLoadStore);
  cudaSurfaceObject_t s = 0;
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = array.handle();
  REQUIRE(cudaCreateSurfaceObject(&s, &r) == cudaSuccess);

  // The last element in range is fine, with Trap, the default.
  REQUIRE(weft::launch(2, 32, touch_1d, s, 60, cudaBoundaryModeTrap, false) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);

  auto [code, report] = fault_of(s, 64, cudaBoundaryModeTrap, false);
  INFO(report);
  CHECK(code == cudaErrorIllegalAddress);
  CHECK(report.find("kernel 'touch_1d") != std::string::npos);
  CHECK(report.find("block (1,0,0), thread (5,0,0): surf1Dread (") != std::string::npos);
  CHECK(report.find("surface_test.cpp:") != std::string::npos);
  CHECK(report.find("out of range with cudaBoundaryModeTrap: x 64 bytes") != std::string::npos);
  CHECK(report.find("the surface has rows of 64 bytes") != std::string::npos);
  // Sticky, as on the H100 (surface_trap_probe: cudaMalloc after = 700).
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
  CHECK(cudaGetLastError() == cudaSuccess);
  void* more = nullptr;
  CHECK(cudaMalloc(&more, 16) == cudaErrorIllegalAddress);
  CHECK(cudaDestroySurfaceObject(s) == cudaErrorIllegalAddress);
  cudaGetLastError();
}

}  // namespace

TEST_CASE("cudaBoundaryModeTrap: an access out of range fails the launch with cudaErrorIllegalAddress, sticky") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  trap_out_of_range();
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("writes and layers out of range with Trap, and a misaligned x in every mode, fault as on an H100") {
  struct Case {
    int x;
    cudaSurfaceBoundaryMode mode;
    bool write;
    cudaError_t code;
    const char* says;
  };
  const Case cases[] = {
      {-4, cudaBoundaryModeTrap, false, cudaErrorIllegalAddress, "surf1Dread"},
      {64, cudaBoundaryModeTrap, true, cudaErrorIllegalAddress, "surf1Dwrite"},
      {1000, cudaBoundaryModeTrap, true, cudaErrorIllegalAddress, "x 1000 bytes"},
      {2, cudaBoundaryModeTrap, false, cudaErrorMisalignedAddress, "misaligned address: x 2 bytes"},
      {2, cudaBoundaryModeClamp, false, cudaErrorMisalignedAddress, "misaligned"},
      {2, cudaBoundaryModeZero, false, cudaErrorMisalignedAddress, "misaligned"},
      {6, cudaBoundaryModeClamp, true, cudaErrorMisalignedAddress, "surf1Dwrite"},
      {62, cudaBoundaryModeZero, false, cudaErrorMisalignedAddress, "misaligned"},
  };
  // Each fault ends the device's work until a reset, which frees the
  // arrays: they go first, so that nothing is freed twice.
  for (const Case& c : cases) {
    INFO("x = " << c.x << ", mode " << c.mode << (c.write ? ", write" : ", read"));
    {
      test_array array(cudaCreateChannelDesc<float>(), 16, 0, 0, cudaArraySurfaceLoadStore);
      surface_handle s(array.handle());
      auto [code, report] = fault_of(s.get(), c.x, c.mode, c.write);
      INFO(report);
      CHECK(code == c.code);
      CHECK(report.find(c.says) != std::string::npos);
    }
    CHECK(cudaDeviceReset() == cudaSuccess);
    cudaGetLastError();
  }
  // Layer -1 is past the last layer.
  {
    test_array layered(cudaCreateChannelDesc<float>(), 4, 4, 2, cudaArrayLayered | cudaArraySurfaceLoadStore);
    surface_handle s(layered.handle());
    REQUIRE(weft::launch(1, 1, read_layer, s.get(), -1) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
    std::string report = weft::fault_message();
    INFO(report);
    CHECK(report.find("surf2DLayeredread") != std::string::npos);
    CHECK(report.find("layer -1") != std::string::npos);
  }
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();
}
