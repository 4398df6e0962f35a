// CUDA's vector types: sizes and alignments as nvcc gives them on a 64-bit
// Linux host, aggregate initialisation, make_* functions, and the vectorised
// loads teaching code does through them.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <type_traits>
#include <vector>

#include "device_buffer.hpp"

// Size and alignment of each type, from CUDA's vector_types.h.
#define CHECK_LAYOUT(type, size, align)                          \
  static_assert(sizeof(type) == (size), #type "'s size");        \
  static_assert(alignof(type) == (align), #type "'s alignment"); \
  static_assert(std::is_aggregate_v<type> && std::is_trivially_copyable_v<type>, #type " is a plain aggregate")

CHECK_LAYOUT(char1, 1, 1);
CHECK_LAYOUT(char2, 2, 2);
CHECK_LAYOUT(char3, 3, 1);
CHECK_LAYOUT(char4, 4, 4);
CHECK_LAYOUT(uchar1, 1, 1);
CHECK_LAYOUT(uchar2, 2, 2);
CHECK_LAYOUT(uchar3, 3, 1);
CHECK_LAYOUT(uchar4, 4, 4);
CHECK_LAYOUT(short1, 2, 2);
CHECK_LAYOUT(short2, 4, 4);
CHECK_LAYOUT(short3, 6, 2);
CHECK_LAYOUT(short4, 8, 8);
CHECK_LAYOUT(ushort1, 2, 2);
CHECK_LAYOUT(ushort2, 4, 4);
CHECK_LAYOUT(ushort3, 6, 2);
CHECK_LAYOUT(ushort4, 8, 8);
CHECK_LAYOUT(int1, 4, 4);
CHECK_LAYOUT(int2, 8, 8);
CHECK_LAYOUT(int3, 12, 4);
CHECK_LAYOUT(int4, 16, 16);
CHECK_LAYOUT(uint1, 4, 4);
CHECK_LAYOUT(uint2, 8, 8);
CHECK_LAYOUT(uint3, 12, 4);
CHECK_LAYOUT(uint4, 16, 16);
CHECK_LAYOUT(long1, 8, 8);
CHECK_LAYOUT(long2, 16, 16);
CHECK_LAYOUT(long3, 24, 8);
CHECK_LAYOUT(long4, 32, 16);
CHECK_LAYOUT(long4_16a, 32, 16);
CHECK_LAYOUT(long4_32a, 32, 32);
CHECK_LAYOUT(ulong1, 8, 8);
CHECK_LAYOUT(ulong2, 16, 16);
CHECK_LAYOUT(ulong3, 24, 8);
CHECK_LAYOUT(ulong4, 32, 16);
CHECK_LAYOUT(ulong4_16a, 32, 16);
CHECK_LAYOUT(ulong4_32a, 32, 32);
CHECK_LAYOUT(longlong1, 8, 8);
CHECK_LAYOUT(longlong2, 16, 16);
CHECK_LAYOUT(longlong3, 24, 8);
CHECK_LAYOUT(longlong4, 32, 16);
CHECK_LAYOUT(longlong4_16a, 32, 16);
CHECK_LAYOUT(longlong4_32a, 32, 32);
CHECK_LAYOUT(ulonglong1, 8, 8);
CHECK_LAYOUT(ulonglong2, 16, 16);
CHECK_LAYOUT(ulonglong3, 24, 8);
CHECK_LAYOUT(ulonglong4, 32, 16);
CHECK_LAYOUT(ulonglong4_16a, 32, 16);
CHECK_LAYOUT(ulonglong4_32a, 32, 32);
CHECK_LAYOUT(float1, 4, 4);
CHECK_LAYOUT(float2, 8, 8);
CHECK_LAYOUT(float3, 12, 4);
CHECK_LAYOUT(float4, 16, 16);
CHECK_LAYOUT(double1, 8, 8);
CHECK_LAYOUT(double2, 16, 16);
CHECK_LAYOUT(double3, 24, 8);
CHECK_LAYOUT(double4, 32, 16);
CHECK_LAYOUT(double4_16a, 32, 16);
CHECK_LAYOUT(double4_32a, 32, 32);

// The component types CUDA declares (char is signed char, long is long int).
static_assert(std::is_same_v<decltype(char1::x), signed char>);
static_assert(std::is_same_v<decltype(uchar4::w), unsigned char>);
static_assert(std::is_same_v<decltype(short3::z), short>);
static_assert(std::is_same_v<decltype(long2::y), long>);
static_assert(std::is_same_v<decltype(ulonglong2::y), unsigned long long>);
static_assert(std::is_same_v<decltype(float4::w), float>);
static_assert(std::is_same_v<decltype(double3::z), double>);

// dim3 and uint3 are unchanged: threadIdx's type, and 1-filled shapes.
static_assert(std::is_same_v<std::remove_cvref_t<decltype(threadIdx)>, uint3>);
static_assert(dim3(256).y == 1 && dim3(256).z == 1);

TEST_CASE("vector types are aggregates, initialised as in CUDA") {
  float4 v = {1, 2, 3, 4};
  CHECK(v.x == 1.0f);
  CHECK(v.w == 4.0f);
  int2 i = {-3, 7};
  CHECK(i.x == -3);
  CHECK(i.y == 7);
  uchar3 c = {255, 0, 128};
  CHECK(c.x == 255);
  CHECK(c.z == 128);
  double2 zero = {};
  CHECK(zero.x == 0.0);
  CHECK(zero.y == 0.0);
  longlong2 big{1LL << 40, -(1LL << 40)};
  CHECK(big.y == -(1LL << 40));
}

TEST_CASE("make_* functions build each type") {
  constexpr float4 f = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
  static_assert(f.z == 3.0f);
  CHECK(make_float1(2.5f).x == 2.5f);
  CHECK(make_float2(1.0f, -1.0f).y == -1.0f);
  CHECK(make_float3(1.0f, 2.0f, 3.0f).z == 3.0f);
  CHECK(make_int2(3, 4).x == 3);
  CHECK(make_int3(1, 2, 3).y == 2);
  CHECK(make_int4(1, 2, 3, 4).w == 4);
  CHECK(make_uint3(7, 8, 9).z == 9u);
  CHECK(make_uint4(1, 2, 3, 4294967295u).w == 4294967295u);
  CHECK(make_char4(-1, 2, -3, 4).z == -3);
  CHECK(make_uchar2(200, 100).x == 200);
  CHECK(make_short2(-32768, 32767).x == -32768);
  CHECK(make_ushort4(1, 2, 3, 65535).w == 65535);
  CHECK(make_long2(-5, 5).x == -5);
  CHECK(make_ulong3(1, 2, 3).z == 3ul);
  CHECK(make_longlong4(1, 2, 3, -4).w == -4);
  CHECK(make_ulonglong2(1, 18446744073709551615ull).y == 18446744073709551615ull);
  CHECK(make_double2(0.5, 0.25).y == 0.25);
  CHECK(make_double3(1, 2, 3).x == 1.0);
  CHECK(make_double4(1, 2, 3, 4).w == 4.0);
  CHECK(make_double4_32a(1, 2, 3, 4).z == 3.0);
  CHECK(make_long4_16a(1, 2, 3, 4).y == 2);
  static_assert(std::is_same_v<decltype(make_short3(1, 2, 3)), short3>);
  static_assert(std::is_same_v<decltype(make_ulonglong4_16a(1, 2, 3, 4)), ulonglong4_16a>);
}

// The vectorised copy of CUDA's "float4" idiom: each thread moves four floats.
__global__ void copy_as_float4(const float* in, float* out, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = reinterpret_cast<const float4*>(in)[i];
    reinterpret_cast<float4*>(out)[i] = make_float4(v.w, v.z, v.y, v.x);
  }
}

__global__ void structure_of_vectors(double2* points, int3* cells) {
  unsigned i = threadIdx.x;
  points[i] = make_double2(i * 0.5, -1.0 * i);
  cells[i] = {static_cast<int>(i), static_cast<int>(2 * i), static_cast<int>(3 * i)};
}

TEST_CASE("vector types in kernels: vectorised loads and stores through device memory") {
  constexpr int n = 1024;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  device_buffer<float> in(host), out(n);
  // cudaMalloc's memory is aligned for any vector type.
  CHECK(reinterpret_cast<std::uintptr_t>(in.p) % alignof(double4_32a) == 0);
  REQUIRE(weft::launch((n / 4 + 127) / 128, 128, copy_as_float4, in.p, out.p, n / 4) == cudaSuccess);
  auto o = out.to_host();
  for (int i = 0; i < n; i += 4) {
    CHECK(o[i] == host[i + 3]);
    CHECK(o[i + 3] == host[i]);
  }
  device_buffer<double2> points(64);
  device_buffer<int3> cells(64);
  REQUIRE(weft::launch(1, 64, structure_of_vectors, points.p, cells.p) == cudaSuccess);
  auto p = points.to_host();
  auto c = cells.to_host();
  CHECK(p[10].x == 5.0);
  CHECK(p[10].y == -10.0);
  CHECK(c[7].z == 21);
}
