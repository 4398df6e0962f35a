// Channel descriptors: how a texel of a CUDA array (or of linear memory
// read as a texture) is made, in CUDA's spelling. cudaChannelFormatKind,
// cudaChannelFormatDesc, cudaCreateChannelDesc in its explicit form, its
// template form over a scalar or vector element type, its template form over
// a format kind, and the half-precision and NV12 helpers
// (channel_descriptor.h and driver_types.h in CUDA 13).
//
// cudaCreateChannelDesc<T>() knows what CUDA's knows: 8-, 16- and 32-bit
// integers and floats of 1, 2 or 4 channels. For any other type (3-channel
// vectors, 64-bit integers, double, __half) it gives CUDA's "no format"
// descriptor {0, 0, 0, 0, cudaChannelFormatKindNone}, as CUDA's does; half
// precision has cudaCreateChannelDescHalf*() instead.
#pragma once

#include <type_traits>

#include "weft/cuda/vector_types.hpp"
#include "weft/detail/textures/arrays/texel_format.hpp"

enum cudaChannelFormatKind : int {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3,
  cudaChannelFormatKindNV12 = 4,
  cudaChannelFormatKindUnsignedNormalized8X1 = 5,
  cudaChannelFormatKindUnsignedNormalized8X2 = 6,
  cudaChannelFormatKindUnsignedNormalized8X4 = 7,
  cudaChannelFormatKindUnsignedNormalized16X1 = 8,
  cudaChannelFormatKindUnsignedNormalized16X2 = 9,
  cudaChannelFormatKindUnsignedNormalized16X4 = 10,
  cudaChannelFormatKindSignedNormalized8X1 = 11,
  cudaChannelFormatKindSignedNormalized8X2 = 12,
  cudaChannelFormatKindSignedNormalized8X4 = 13,
  cudaChannelFormatKindSignedNormalized16X1 = 14,
  cudaChannelFormatKindSignedNormalized16X2 = 15,
  cudaChannelFormatKindSignedNormalized16X4 = 16,
  cudaChannelFormatKindUnsignedBlockCompressed1 = 17,
  cudaChannelFormatKindUnsignedBlockCompressed1SRGB = 18,
  cudaChannelFormatKindUnsignedBlockCompressed2 = 19,
  cudaChannelFormatKindUnsignedBlockCompressed2SRGB = 20,
  cudaChannelFormatKindUnsignedBlockCompressed3 = 21,
  cudaChannelFormatKindUnsignedBlockCompressed3SRGB = 22,
  cudaChannelFormatKindUnsignedBlockCompressed4 = 23,
  cudaChannelFormatKindSignedBlockCompressed4 = 24,
  cudaChannelFormatKindUnsignedBlockCompressed5 = 25,
  cudaChannelFormatKindSignedBlockCompressed5 = 26,
  cudaChannelFormatKindUnsignedBlockCompressed6H = 27,
  cudaChannelFormatKindSignedBlockCompressed6H = 28,
  cudaChannelFormatKindUnsignedBlockCompressed7 = 29,
  cudaChannelFormatKindUnsignedBlockCompressed7SRGB = 30,
  cudaChannelFormatKindUnsignedNormalized1010102 = 31,
};

struct cudaChannelFormatDesc {
  int x;  // bits of each channel; 0 for an absent channel
  int y;
  int z;
  int w;
  cudaChannelFormatKind f;
};

// weft's own names for the kinds (detail/textures/arrays/texel_format.hpp) are
// CUDA's values, so that formats pass between the two by a cast.
static_assert(static_cast<int>(weft::detail::channel_kind::signed_integer) == cudaChannelFormatKindSigned);
static_assert(static_cast<int>(weft::detail::channel_kind::unsigned_integer) == cudaChannelFormatKindUnsigned);
static_assert(static_cast<int>(weft::detail::channel_kind::floating) == cudaChannelFormatKindFloat);
static_assert(static_cast<int>(weft::detail::channel_kind::none) == cudaChannelFormatKindNone);
static_assert(static_cast<int>(weft::detail::channel_kind::nv12) == cudaChannelFormatKindNV12);
static_assert(static_cast<int>(weft::detail::channel_kind::unsigned_normalized_8x1) ==
              cudaChannelFormatKindUnsignedNormalized8X1);
static_assert(static_cast<int>(weft::detail::channel_kind::unsigned_normalized_16x4) ==
              cudaChannelFormatKindUnsignedNormalized16X4);
static_assert(static_cast<int>(weft::detail::channel_kind::signed_normalized_8x1) ==
              cudaChannelFormatKindSignedNormalized8X1);
static_assert(static_cast<int>(weft::detail::channel_kind::signed_normalized_16x4) ==
              cudaChannelFormatKindSignedNormalized16X4);
static_assert(static_cast<int>(weft::detail::channel_kind::unsigned_block_compressed_1) ==
              cudaChannelFormatKindUnsignedBlockCompressed1);
static_assert(static_cast<int>(weft::detail::channel_kind::unsigned_block_compressed_1_srgb) ==
              cudaChannelFormatKindUnsignedBlockCompressed1SRGB);
static_assert(static_cast<int>(weft::detail::channel_kind::unsigned_block_compressed_4) ==
              cudaChannelFormatKindUnsignedBlockCompressed4);
static_assert(static_cast<int>(weft::detail::channel_kind::signed_block_compressed_4) ==
              cudaChannelFormatKindSignedBlockCompressed4);
static_assert(static_cast<int>(weft::detail::channel_kind::unsigned_block_compressed_6h) ==
              cudaChannelFormatKindUnsignedBlockCompressed6H);
static_assert(static_cast<int>(weft::detail::channel_kind::unsigned_block_compressed_7_srgb) ==
              cudaChannelFormatKindUnsignedBlockCompressed7SRGB);
static_assert(static_cast<int>(weft::detail::last_channel_kind) == cudaChannelFormatKindUnsignedNormalized1010102);

inline cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return {x, y, z, w, f};
}

namespace weft::surface {

/// `channels` (1, 2 or 4) channels of Scalar's bits, of `kind`.
template <class Scalar>
cudaChannelFormatDesc channel_desc_of(int channels, cudaChannelFormatKind kind) {
  int bits = static_cast<int>(sizeof(Scalar)) * 8;
  return {bits, channels >= 2 ? bits : 0, channels == 4 ? bits : 0, channels == 4 ? bits : 0, kind};
}

/// A descriptor in weft's terms (detail/textures/arrays/texel_format.hpp).
inline weft::detail::texel_format texel_format_of(const cudaChannelFormatDesc& d) {
  return {d.x, d.y, d.z, d.w, static_cast<weft::detail::channel_kind>(d.f)};
}

/// A format in CUDA's terms.
inline cudaChannelFormatDesc channel_desc_of(const weft::detail::texel_format& f) {
  return {f.x_bits, f.y_bits, f.z_bits, f.w_bits, static_cast<cudaChannelFormatKind>(f.kind)};
}

}  // namespace weft::surface

/// CUDA's "no format" for an element type it has no format for.
template <class T>
cudaChannelFormatDesc cudaCreateChannelDesc() {
  return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}

/// char is signed or unsigned as the compiler makes it, and so is its format.
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<char>() {
  return weft::surface::channel_desc_of<char>(
      1, std::is_signed_v<char> ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<signed char>() {
  return weft::surface::channel_desc_of<signed char>(1, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<unsigned char>() {
  return weft::surface::channel_desc_of<unsigned char>(1, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<short>() {
  return weft::surface::channel_desc_of<short>(1, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<unsigned short>() {
  return weft::surface::channel_desc_of<unsigned short>(1, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<int>() {
  return weft::surface::channel_desc_of<int>(1, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<unsigned int>() {
  return weft::surface::channel_desc_of<unsigned int>(1, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<float>() {
  return weft::surface::channel_desc_of<float>(1, cudaChannelFormatKindFloat);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<char1>() {
  return weft::surface::channel_desc_of<signed char>(1, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<char2>() {
  return weft::surface::channel_desc_of<signed char>(2, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<char4>() {
  return weft::surface::channel_desc_of<signed char>(4, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<uchar1>() {
  return weft::surface::channel_desc_of<unsigned char>(1, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<uchar2>() {
  return weft::surface::channel_desc_of<unsigned char>(2, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<uchar4>() {
  return weft::surface::channel_desc_of<unsigned char>(4, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<short1>() {
  return weft::surface::channel_desc_of<short>(1, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<short2>() {
  return weft::surface::channel_desc_of<short>(2, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<short4>() {
  return weft::surface::channel_desc_of<short>(4, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<ushort1>() {
  return weft::surface::channel_desc_of<unsigned short>(1, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<ushort2>() {
  return weft::surface::channel_desc_of<unsigned short>(2, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<ushort4>() {
  return weft::surface::channel_desc_of<unsigned short>(4, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<int1>() {
  return weft::surface::channel_desc_of<int>(1, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<int2>() {
  return weft::surface::channel_desc_of<int>(2, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<int4>() {
  return weft::surface::channel_desc_of<int>(4, cudaChannelFormatKindSigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<uint1>() {
  return weft::surface::channel_desc_of<unsigned int>(1, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<uint2>() {
  return weft::surface::channel_desc_of<unsigned int>(2, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<uint4>() {
  return weft::surface::channel_desc_of<unsigned int>(4, cudaChannelFormatKindUnsigned);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<float1>() {
  return weft::surface::channel_desc_of<float>(1, cudaChannelFormatKindFloat);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<float2>() {
  return weft::surface::channel_desc_of<float>(2, cudaChannelFormatKindFloat);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<float4>() {
  return weft::surface::channel_desc_of<float>(4, cudaChannelFormatKindFloat);
}
// Half precision has no element type of its own here (as in CUDA, whose
// cudaCreateChannelDesc<__half>() is "no format"): 16-bit float channels.
inline cudaChannelFormatDesc cudaCreateChannelDescHalf() {
  return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf1() {
  return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf2() {
  return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat);
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf4() {
  return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat);
}

/// Planar 4:2:0 YUV of 8-bit samples.
inline cudaChannelFormatDesc cudaCreateChannelDescNV12() {
  return cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindNV12);
}

/// The descriptor of a format kind that fixes its own channels; "no format"
/// for the plain signed, unsigned and float kinds, which do not.
template <cudaChannelFormatKind>
cudaChannelFormatDesc cudaCreateChannelDesc() {
  return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindSignedNormalized8X1>() {
  return cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindSignedNormalized8X1);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindSignedNormalized8X2>() {
  return cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindSignedNormalized8X2);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindSignedNormalized8X4>() {
  return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindSignedNormalized8X4);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized8X1>() {
  return cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsignedNormalized8X1);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized8X2>() {
  return cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindUnsignedNormalized8X2);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized8X4>() {
  return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsignedNormalized8X4);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindSignedNormalized16X1>() {
  return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindSignedNormalized16X1);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindSignedNormalized16X2>() {
  return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindSignedNormalized16X2);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindSignedNormalized16X4>() {
  return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindSignedNormalized16X4);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized16X1>() {
  return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindUnsignedNormalized16X1);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized16X2>() {
  return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindUnsignedNormalized16X2);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized16X4>() {
  return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindUnsignedNormalized16X4);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindNV12>() {
  return cudaCreateChannelDesc(8, 8, 8, 0, cudaChannelFormatKindNV12);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized1010102>() {
  return cudaCreateChannelDesc(10, 10, 10, 2, cudaChannelFormatKindUnsignedNormalized1010102);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed1>() {
  return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed1);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed1SRGB>() {
  return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed1SRGB);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed2>() {
  return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed2);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed2SRGB>() {
  return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed2SRGB);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed3>() {
  return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed3);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed3SRGB>() {
  return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed3SRGB);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed4>() {
  return cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsignedBlockCompressed4);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindSignedBlockCompressed4>() {
  return cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindSignedBlockCompressed4);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed5>() {
  return cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindUnsignedBlockCompressed5);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindSignedBlockCompressed5>() {
  return cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindSignedBlockCompressed5);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed6H>() {
  return cudaCreateChannelDesc(16, 16, 16, 0, cudaChannelFormatKindUnsignedBlockCompressed6H);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindSignedBlockCompressed6H>() {
  return cudaCreateChannelDesc(16, 16, 16, 0, cudaChannelFormatKindSignedBlockCompressed6H);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed7>() {
  return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed7);
}
template <>
inline cudaChannelFormatDesc cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed7SRGB>() {
  return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsignedBlockCompressed7SRGB);
}
