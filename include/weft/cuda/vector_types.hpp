// CUDA's vector types (CUDA guide, "Built-in Vector Types"): uint3 for
// threadIdx/blockIdx, dim3 for launch shapes and blockDim/gridDim, and the
// char1 ... double4 family with their make_* functions.
//
// dim3's unspecified components are 1, as in CUDA, so dim3(256) is a 256x1x1
// shape. The others are plain aggregates (`float4 v = {1, 2, 3, 4};`) with
// the alignment CUDA gives them on a 64-bit Linux host, so that structures
// holding them, and the vectorised loads teaching code does through them
// (`reinterpret_cast<float4*>(p)[i]`), have the same layout as with nvcc.
// CUDA 13 deprecates long4, ulong4, longlong4, ulonglong4 and double4 in
// favour of the _16a and _32a variants; weft provides all of them without
// the deprecation warning.
#pragma once

#include <cstdint>

#include "weft/detail/base/cuda_vocabulary.hpp"

// Two- and four-component vectors are aligned to their size, capped at 16
// bytes (long4 and the like: 16, or 32 for the _32a variants); one- and
// three-component vectors keep their member's alignment.
struct char1 {
  signed char x;
};
struct alignas(2) char2 {
  signed char x, y;
};
struct char3 {
  signed char x, y, z;
};
struct alignas(4) char4 {
  signed char x, y, z, w;
};

struct uchar1 {
  unsigned char x;
};
struct alignas(2) uchar2 {
  unsigned char x, y;
};
struct uchar3 {
  unsigned char x, y, z;
};
struct alignas(4) uchar4 {
  unsigned char x, y, z, w;
};

struct short1 {
  short x;
};
struct alignas(4) short2 {
  short x, y;
};
struct short3 {
  short x, y, z;
};
struct alignas(8) short4 {
  short x, y, z, w;
};

struct ushort1 {
  unsigned short x;
};
struct alignas(4) ushort2 {
  unsigned short x, y;
};
struct ushort3 {
  unsigned short x, y, z;
};
struct alignas(8) ushort4 {
  unsigned short x, y, z, w;
};

struct int1 {
  int x;
};
struct alignas(8) int2 {
  int x, y;
};
struct int3 {
  int x, y, z;
};
struct alignas(16) int4 {
  int x, y, z, w;
};

struct uint1 {
  unsigned int x;
};
struct alignas(8) uint2 {
  unsigned int x, y;
};
// uint3: above.
struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};

struct long1 {
  long int x;
};
struct alignas(16) long2 {
  long int x, y;
};
struct long3 {
  long int x, y, z;
};
struct alignas(16) long4 {
  long int x, y, z, w;
};
struct alignas(16) long4_16a {
  long int x, y, z, w;
};
struct alignas(32) long4_32a {
  long int x, y, z, w;
};

struct ulong1 {
  unsigned long int x;
};
struct alignas(16) ulong2 {
  unsigned long int x, y;
};
struct ulong3 {
  unsigned long int x, y, z;
};
struct alignas(16) ulong4 {
  unsigned long int x, y, z, w;
};
struct alignas(16) ulong4_16a {
  unsigned long int x, y, z, w;
};
struct alignas(32) ulong4_32a {
  unsigned long int x, y, z, w;
};

struct longlong1 {
  long long int x;
};
struct alignas(16) longlong2 {
  long long int x, y;
};
struct longlong3 {
  long long int x, y, z;
};
struct alignas(16) longlong4 {
  long long int x, y, z, w;
};
struct alignas(16) longlong4_16a {
  long long int x, y, z, w;
};
struct alignas(32) longlong4_32a {
  long long int x, y, z, w;
};

struct ulonglong1 {
  unsigned long long int x;
};
struct alignas(16) ulonglong2 {
  unsigned long long int x, y;
};
struct ulonglong3 {
  unsigned long long int x, y, z;
};
struct alignas(16) ulonglong4 {
  unsigned long long int x, y, z, w;
};
struct alignas(16) ulonglong4_16a {
  unsigned long long int x, y, z, w;
};
struct alignas(32) ulonglong4_32a {
  unsigned long long int x, y, z, w;
};

struct float1 {
  float x;
};
struct alignas(8) float2 {
  float x, y;
};
struct float3 {
  float x, y, z;
};
struct alignas(16) float4 {
  float x, y, z, w;
};

struct double1 {
  double x;
};
struct alignas(16) double2 {
  double x, y;
};
struct double3 {
  double x, y, z;
};
struct alignas(16) double4 {
  double x, y, z, w;
};
struct alignas(16) double4_16a {
  double x, y, z, w;
};
struct alignas(32) double4_32a {
  double x, y, z, w;
};

// make_<type>(x, y, ...): a vector from its components.
constexpr char1 make_char1(signed char x) { return {x}; }
constexpr char2 make_char2(signed char x, signed char y) { return {x, y}; }
constexpr char3 make_char3(signed char x, signed char y, signed char z) { return {x, y, z}; }
constexpr char4 make_char4(signed char x, signed char y, signed char z, signed char w) { return {x, y, z, w}; }
constexpr uchar1 make_uchar1(unsigned char x) { return {x}; }
constexpr uchar2 make_uchar2(unsigned char x, unsigned char y) { return {x, y}; }
constexpr uchar3 make_uchar3(unsigned char x, unsigned char y, unsigned char z) { return {x, y, z}; }
constexpr uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) {
  return {x, y, z, w};
}
constexpr short1 make_short1(short x) { return {x}; }
constexpr short2 make_short2(short x, short y) { return {x, y}; }
constexpr short3 make_short3(short x, short y, short z) { return {x, y, z}; }
constexpr short4 make_short4(short x, short y, short z, short w) { return {x, y, z, w}; }
constexpr ushort1 make_ushort1(unsigned short x) { return {x}; }
constexpr ushort2 make_ushort2(unsigned short x, unsigned short y) { return {x, y}; }
constexpr ushort3 make_ushort3(unsigned short x, unsigned short y, unsigned short z) { return {x, y, z}; }
constexpr ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z, unsigned short w) {
  return {x, y, z, w};
}
constexpr int1 make_int1(int x) { return {x}; }
constexpr int2 make_int2(int x, int y) { return {x, y}; }
constexpr int3 make_int3(int x, int y, int z) { return {x, y, z}; }
constexpr int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
constexpr uint1 make_uint1(unsigned int x) { return {x}; }
constexpr uint2 make_uint2(unsigned int x, unsigned int y) { return {x, y}; }
constexpr uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return {x, y, z}; }
constexpr uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return {x, y, z, w}; }
constexpr long1 make_long1(long int x) { return {x}; }
constexpr long2 make_long2(long int x, long int y) { return {x, y}; }
constexpr long3 make_long3(long int x, long int y, long int z) { return {x, y, z}; }
constexpr long4 make_long4(long int x, long int y, long int z, long int w) { return {x, y, z, w}; }
constexpr long4_16a make_long4_16a(long int x, long int y, long int z, long int w) { return {x, y, z, w}; }
constexpr long4_32a make_long4_32a(long int x, long int y, long int z, long int w) { return {x, y, z, w}; }
constexpr ulong1 make_ulong1(unsigned long int x) { return {x}; }
constexpr ulong2 make_ulong2(unsigned long int x, unsigned long int y) { return {x, y}; }
constexpr ulong3 make_ulong3(unsigned long int x, unsigned long int y, unsigned long int z) { return {x, y, z}; }
constexpr ulong4 make_ulong4(unsigned long int x, unsigned long int y, unsigned long int z, unsigned long int w) {
  return {x, y, z, w};
}
constexpr ulong4_16a make_ulong4_16a(unsigned long int x, unsigned long int y, unsigned long int z,
                                     unsigned long int w) {
  return {x, y, z, w};
}
constexpr ulong4_32a make_ulong4_32a(unsigned long int x, unsigned long int y, unsigned long int z,
                                     unsigned long int w) {
  return {x, y, z, w};
}
constexpr longlong1 make_longlong1(long long int x) { return {x}; }
constexpr longlong2 make_longlong2(long long int x, long long int y) { return {x, y}; }
constexpr longlong3 make_longlong3(long long int x, long long int y, long long int z) { return {x, y, z}; }
constexpr longlong4 make_longlong4(long long int x, long long int y, long long int z, long long int w) {
  return {x, y, z, w};
}
constexpr longlong4_16a make_longlong4_16a(long long int x, long long int y, long long int z, long long int w) {
  return {x, y, z, w};
}
constexpr longlong4_32a make_longlong4_32a(long long int x, long long int y, long long int z, long long int w) {
  return {x, y, z, w};
}
constexpr ulonglong1 make_ulonglong1(unsigned long long int x) { return {x}; }
constexpr ulonglong2 make_ulonglong2(unsigned long long int x, unsigned long long int y) { return {x, y}; }
constexpr ulonglong3 make_ulonglong3(unsigned long long int x, unsigned long long int y, unsigned long long int z) {
  return {x, y, z};
}
constexpr ulonglong4 make_ulonglong4(unsigned long long int x, unsigned long long int y, unsigned long long int z,
                                     unsigned long long int w) {
  return {x, y, z, w};
}
constexpr ulonglong4_16a make_ulonglong4_16a(unsigned long long int x, unsigned long long int y,
                                             unsigned long long int z, unsigned long long int w) {
  return {x, y, z, w};
}
constexpr ulonglong4_32a make_ulonglong4_32a(unsigned long long int x, unsigned long long int y,
                                             unsigned long long int z, unsigned long long int w) {
  return {x, y, z, w};
}
constexpr float1 make_float1(float x) { return {x}; }
constexpr float2 make_float2(float x, float y) { return {x, y}; }
constexpr float3 make_float3(float x, float y, float z) { return {x, y, z}; }
constexpr float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
constexpr double1 make_double1(double x) { return {x}; }
constexpr double2 make_double2(double x, double y) { return {x, y}; }
constexpr double3 make_double3(double x, double y, double z) { return {x, y, z}; }
constexpr double4 make_double4(double x, double y, double z, double w) { return {x, y, z, w}; }
constexpr double4_16a make_double4_16a(double x, double y, double z, double w) { return {x, y, z, w}; }
constexpr double4_32a make_double4_32a(double x, double y, double z, double w) { return {x, y, z, w}; }
