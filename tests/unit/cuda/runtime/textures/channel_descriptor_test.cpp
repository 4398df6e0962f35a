// Channel descriptors as CUDA 13's channel_descriptor.h makes them: the
// explicit form, the template over element types (CUDA's "no format" for
// the types it has none for), the template over format kinds, the half and
// NV12 helpers, and CUDA's layouts and values. Only the headers host code
// includes under CUDA's names: a .cpp sees all of it, as with CUDA.
#include <doctest/doctest.h>
#include <weft/compat/channel_descriptor.h>
#include <weft/compat/cuda_fp16.h>
#include <weft/compat/cuda_runtime.h>
#include <weft/compat/cuda_texture_types.h>
#include <weft/compat/surface_types.h>
#include <weft/compat/texture_types.h>

#include <cstddef>
#include <type_traits>

namespace {

bool same(cudaChannelFormatDesc d, int x, int y, int z, int w, cudaChannelFormatKind f) {
  return d.x == x && d.y == y && d.z == z && d.w == w && d.f == f;
}

}  // namespace

TEST_CASE("cudaChannelFormatDesc has CUDA's layout and kinds CUDA's values") {
  static_assert(sizeof(cudaChannelFormatDesc) == 20);
  static_assert(offsetof(cudaChannelFormatDesc, f) == 16);
  CHECK(cudaChannelFormatKindSigned == 0);
  CHECK(cudaChannelFormatKindUnsigned == 1);
  CHECK(cudaChannelFormatKindFloat == 2);
  CHECK(cudaChannelFormatKindNone == 3);
  CHECK(cudaChannelFormatKindNV12 == 4);
  CHECK(cudaChannelFormatKindUnsignedNormalized8X1 == 5);
  CHECK(cudaChannelFormatKindSignedNormalized16X4 == 16);
  CHECK(cudaChannelFormatKindUnsignedBlockCompressed1 == 17);
  CHECK(cudaChannelFormatKindSignedBlockCompressed6H == 28);
  CHECK(cudaChannelFormatKindUnsignedNormalized1010102 == 31);
}

TEST_CASE("cudaCreateChannelDesc's explicit form keeps what it is given") {
  CHECK(
      same(cudaCreateChannelDesc(32, 32, 0, 0, cudaChannelFormatKindFloat), 32, 32, 0, 0, cudaChannelFormatKindFloat));
  CHECK(same(cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned), 8, 0, 0, 0,
             cudaChannelFormatKindUnsigned));
}

TEST_CASE("cudaCreateChannelDesc<T> for every scalar and vector type CUDA has a format for") {
  auto s = cudaChannelFormatKindSigned, u = cudaChannelFormatKindUnsigned, f = cudaChannelFormatKindFloat;
  CHECK(same(cudaCreateChannelDesc<char>(), 8, 0, 0, 0, std::is_signed_v<char> ? s : u));
  CHECK(same(cudaCreateChannelDesc<signed char>(), 8, 0, 0, 0, s));
  CHECK(same(cudaCreateChannelDesc<unsigned char>(), 8, 0, 0, 0, u));
  CHECK(same(cudaCreateChannelDesc<char1>(), 8, 0, 0, 0, s));
  CHECK(same(cudaCreateChannelDesc<char2>(), 8, 8, 0, 0, s));
  CHECK(same(cudaCreateChannelDesc<char4>(), 8, 8, 8, 8, s));
  CHECK(same(cudaCreateChannelDesc<uchar1>(), 8, 0, 0, 0, u));
  CHECK(same(cudaCreateChannelDesc<uchar2>(), 8, 8, 0, 0, u));
  CHECK(same(cudaCreateChannelDesc<uchar4>(), 8, 8, 8, 8, u));
  CHECK(same(cudaCreateChannelDesc<short>(), 16, 0, 0, 0, s));
  CHECK(same(cudaCreateChannelDesc<unsigned short>(), 16, 0, 0, 0, u));
  CHECK(same(cudaCreateChannelDesc<short1>(), 16, 0, 0, 0, s));
  CHECK(same(cudaCreateChannelDesc<short2>(), 16, 16, 0, 0, s));
  CHECK(same(cudaCreateChannelDesc<short4>(), 16, 16, 16, 16, s));
  CHECK(same(cudaCreateChannelDesc<ushort1>(), 16, 0, 0, 0, u));
  CHECK(same(cudaCreateChannelDesc<ushort2>(), 16, 16, 0, 0, u));
  CHECK(same(cudaCreateChannelDesc<ushort4>(), 16, 16, 16, 16, u));
  CHECK(same(cudaCreateChannelDesc<int>(), 32, 0, 0, 0, s));
  CHECK(same(cudaCreateChannelDesc<unsigned int>(), 32, 0, 0, 0, u));
  CHECK(same(cudaCreateChannelDesc<int1>(), 32, 0, 0, 0, s));
  CHECK(same(cudaCreateChannelDesc<int2>(), 32, 32, 0, 0, s));
  CHECK(same(cudaCreateChannelDesc<int4>(), 32, 32, 32, 32, s));
  CHECK(same(cudaCreateChannelDesc<uint1>(), 32, 0, 0, 0, u));
  CHECK(same(cudaCreateChannelDesc<uint2>(), 32, 32, 0, 0, u));
  CHECK(same(cudaCreateChannelDesc<uint4>(), 32, 32, 32, 32, u));
  CHECK(same(cudaCreateChannelDesc<float>(), 32, 0, 0, 0, f));
  CHECK(same(cudaCreateChannelDesc<float1>(), 32, 0, 0, 0, f));
  CHECK(same(cudaCreateChannelDesc<float2>(), 32, 32, 0, 0, f));
  CHECK(same(cudaCreateChannelDesc<float4>(), 32, 32, 32, 32, f));
}

TEST_CASE("cudaCreateChannelDesc<T> is CUDA's 'no format' for types CUDA has none for") {
  auto none = cudaChannelFormatKindNone;
  // On a 64-bit Linux host CUDA defines no format for long (LP64), 3-channel
  // vectors, 64-bit integers, double or half.
  CHECK(same(cudaCreateChannelDesc<long>(), 0, 0, 0, 0, none));
  CHECK(same(cudaCreateChannelDesc<long2>(), 0, 0, 0, 0, none));
  CHECK(same(cudaCreateChannelDesc<float3>(), 0, 0, 0, 0, none));
  CHECK(same(cudaCreateChannelDesc<uchar3>(), 0, 0, 0, 0, none));
  CHECK(same(cudaCreateChannelDesc<long long>(), 0, 0, 0, 0, none));
  CHECK(same(cudaCreateChannelDesc<double>(), 0, 0, 0, 0, none));
  CHECK(same(cudaCreateChannelDesc<double2>(), 0, 0, 0, 0, none));
  CHECK(same(cudaCreateChannelDesc<__half>(), 0, 0, 0, 0, none));
}

TEST_CASE("half precision and NV12 have helpers of their own") {
  auto f = cudaChannelFormatKindFloat;
  CHECK(same(cudaCreateChannelDescHalf(), 16, 0, 0, 0, f));
  CHECK(same(cudaCreateChannelDescHalf1(), 16, 0, 0, 0, f));
  CHECK(same(cudaCreateChannelDescHalf2(), 16, 16, 0, 0, f));
  CHECK(same(cudaCreateChannelDescHalf4(), 16, 16, 16, 16, f));
  CHECK(same(cudaCreateChannelDescNV12(), 8, 8, 8, 0, cudaChannelFormatKindNV12));
}

TEST_CASE("cudaCreateChannelDesc<kind> gives the channels the kind fixes") {
  CHECK(same(cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized8X4>(), 8, 8, 8, 8,
             cudaChannelFormatKindUnsignedNormalized8X4));
  CHECK(same(cudaCreateChannelDesc<cudaChannelFormatKindSignedNormalized16X2>(), 16, 16, 0, 0,
             cudaChannelFormatKindSignedNormalized16X2));
  CHECK(same(cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized1010102>(), 10, 10, 10, 2,
             cudaChannelFormatKindUnsignedNormalized1010102));
  CHECK(same(cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed4>(), 8, 0, 0, 0,
             cudaChannelFormatKindUnsignedBlockCompressed4));
  CHECK(same(cudaCreateChannelDesc<cudaChannelFormatKindSignedBlockCompressed6H>(), 16, 16, 16, 0,
             cudaChannelFormatKindSignedBlockCompressed6H));
  CHECK(same(cudaCreateChannelDesc<cudaChannelFormatKindNV12>(), 8, 8, 8, 0, cudaChannelFormatKindNV12));
  // The plain kinds fix no channels: "no format", as in CUDA.
  CHECK(same(cudaCreateChannelDesc<cudaChannelFormatKindFloat>(), 0, 0, 0, 0, cudaChannelFormatKindNone));
}

TEST_CASE("a descriptor's texel: bytes, and block-compressed elements") {
  auto bytes = [](cudaChannelFormatDesc d) { return weft::surface::texel_format_of(d).bytes_per_element(); };
  CHECK(bytes(cudaCreateChannelDesc<float4>()) == 16);
  CHECK(bytes(cudaCreateChannelDesc<uchar2>()) == 2);
  CHECK(bytes(cudaCreateChannelDescHalf4()) == 8);
  CHECK(bytes(cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized1010102>()) == 4);
  CHECK(bytes(cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed1>()) == 8);
  CHECK(bytes(cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed7>()) == 16);
  auto d = cudaCreateChannelDesc<short2>();
  auto back = weft::surface::channel_desc_of(weft::surface::texel_format_of(d));
  CHECK(same(back, 16, 16, 0, 0, cudaChannelFormatKindSigned));
}

TEST_CASE("texture and surface vocabulary has CUDA's values and layouts") {
  static_assert(sizeof(cudaTextureDesc) == 72);
  static_assert(offsetof(cudaTextureDesc, borderColor) == 24);
  static_assert(offsetof(cudaTextureDesc, seamlessCubemap) == 68);
  static_assert(sizeof(cudaResourceDesc) == 144);
  static_assert(offsetof(cudaResourceDesc, res.pitch2D.pitchInBytes) == 56);
  static_assert(sizeof(cudaResourceViewDesc) == 112);
  static_assert(std::is_same_v<cudaTextureObject_t, unsigned long long>);
  static_assert(std::is_same_v<cudaSurfaceObject_t, unsigned long long>);
  CHECK(cudaAddressModeBorder == 3);
  CHECK(cudaFilterModeLinear == 1);
  CHECK(cudaReadModeNormalizedFloat == 1);
  CHECK(cudaBoundaryModeTrap == 2);
  CHECK(cudaFormatModeAuto == 1);
  CHECK(cudaResourceTypePitch2D == 3);
  CHECK(cudaResViewFormatUnsignedBlockCompressed7 == 0x22);
  CHECK(cudaTextureTypeCubemapLayered == 0xFC);
  CHECK(cudaSurfaceType2DLayered == 0xF2);
  CHECK(cudaArrayDefault == 0);
  CHECK(cudaArrayLayered == 1);
  CHECK(cudaArraySurfaceLoadStore == 2);
  CHECK(cudaArrayCubemap == 4);
  CHECK(cudaArrayTextureGather == 8);
  CHECK(cudaArraySparse == 0x40);
  CHECK(cudaArrayDeferredMapping == 0x80);
  static_assert(sizeof(cudaArraySparseProperties) == 48);
  static_assert(sizeof(cudaArrayMemoryRequirements) == 32);
}
