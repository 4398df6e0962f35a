// CUDA arrays: what cudaMallocArray, cudaMalloc3DArray and
// cudaMallocMipmappedArray allocate for each extent and flag, the limits of
// an H100 (cudaDeviceProp's maxTexture* and maxSurface*), the codes bad
// arguments get, what cudaArrayGetInfo, cudaGetChannelDesc and
// cudaGetMipmappedArrayLevel report, and freeing.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstddef>

#include "error_checks.hpp"

namespace {

struct array_info {
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};
  unsigned flags = ~0u;
};

array_info info_of(cudaArray_t a) {
  array_info i;
  REQUIRE(cudaArrayGetInfo(&i.desc, &i.extent, &i.flags, a) == cudaSuccess);
  return i;
}

bool extent_is(cudaExtent e, std::size_t w, std::size_t h, std::size_t d) {
  return e.width == w && e.height == h && e.depth == d;
}

/// cudaMalloc3DArray's code for `extent` and `flags`, freeing what it allocates.
cudaError_t try_3d(cudaChannelFormatDesc desc, cudaExtent extent, unsigned flags) {
  cudaArray_t a = nullptr;
  cudaError_t e = cudaMalloc3DArray(&a, &desc, extent, flags);
  cudaGetLastError();
  if (e == cudaSuccess) REQUIRE(cudaFreeArray(a) == cudaSuccess);
  return e;
}

}  // namespace

TEST_CASE("cudaMallocArray allocates 1D and 2D arrays and reports them as allocated") {
  auto desc = cudaCreateChannelDesc<float4>();
  cudaArray_t a = nullptr;
  check_succeeded(cudaMallocArray(&a, &desc, 64, 32));
  REQUIRE(a != nullptr);
  array_info i = info_of(a);
  CHECK(extent_is(i.extent, 64, 32, 0));
  CHECK(i.flags == cudaArrayDefault);
  CHECK(i.desc.x == 32);
  CHECK(i.desc.w == 32);
  CHECK(i.desc.f == cudaChannelFormatKindFloat);
  cudaChannelFormatDesc got{};
  check_succeeded(cudaGetChannelDesc(&got, a));
  CHECK(got.x == 32);
  CHECK(got.y == 32);
  CHECK(got.f == cudaChannelFormatKindFloat);
  check_succeeded(cudaFreeArray(a));

  cudaArray_t line = nullptr;
  auto uc = cudaCreateChannelDesc<unsigned char>();
  check_succeeded(cudaMallocArray(&line, &uc, 100));  // height 0: 1D
  CHECK(extent_is(info_of(line).extent, 100, 0, 0));
  check_succeeded(cudaFreeArray(line));
}

TEST_CASE("flags CUDA does not define are kept, as an H100 keeps them") {
  auto desc = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  check_succeeded(cudaMallocArray(&a, &desc, 16, 16, 0x100));
  CHECK(info_of(a).flags == 0x100);
  check_succeeded(cudaFreeArray(a));
  check_failed_with(cudaMallocArray(&a, &desc, 16, 16, 0x10), cudaErrorInvalidValue);
}

TEST_CASE("cudaArrayGetInfo takes null for what the caller does not want") {
  auto desc = cudaCreateChannelDesc<short2>();
  cudaArray_t a = nullptr;
  REQUIRE(cudaMallocArray(&a, &desc, 8, 8, cudaArraySurfaceLoadStore) == cudaSuccess);
  unsigned flags = 0;
  check_succeeded(cudaArrayGetInfo(nullptr, nullptr, &flags, a));
  CHECK(flags == cudaArraySurfaceLoadStore);
  cudaExtent extent{};
  check_succeeded(cudaArrayGetInfo(nullptr, &extent, nullptr, a));
  CHECK(extent_is(extent, 8, 8, 0));
  check_succeeded(cudaFreeArray(a));
}

TEST_CASE("cudaMalloc3DArray: every kind of array by extent and flags, reported back as given") {
  auto desc = cudaCreateChannelDesc<float>();
  struct shape {
    cudaExtent extent;
    unsigned flags;
  };
  const shape shapes[] = {
      {make_cudaExtent(16, 0, 0), cudaArrayDefault},                     // 1D
      {make_cudaExtent(16, 8, 0), cudaArrayDefault},                     // 2D
      {make_cudaExtent(16, 8, 4), cudaArrayDefault},                     // 3D
      {make_cudaExtent(16, 0, 5), cudaArrayLayered},                     // 1D layered: 5 layers
      {make_cudaExtent(16, 8, 5), cudaArrayLayered},                     // 2D layered
      {make_cudaExtent(8, 8, 6), cudaArrayCubemap},                      // cubemap: 6 faces
      {make_cudaExtent(8, 8, 12), cudaArrayCubemap | cudaArrayLayered},  // 2 layered cubemaps
      {make_cudaExtent(16, 8, 0), cudaArrayTextureGather},               // gather: 2D only
      {make_cudaExtent(16, 8, 4), cudaArraySurfaceLoadStore},            // surfaces on any kind
      {make_cudaExtent(8, 8, 6), cudaArrayCubemap | cudaArraySurfaceLoadStore},
  };
  for (const shape& s : shapes) {
    CAPTURE(s.flags);
    CAPTURE(s.extent.depth);
    cudaArray_t a = nullptr;
    check_succeeded(cudaMalloc3DArray(&a, &desc, s.extent, s.flags));
    array_info i = info_of(a);
    CHECK(extent_is(i.extent, s.extent.width, s.extent.height, s.extent.depth));
    CHECK(i.flags == s.flags);
    check_succeeded(cudaFreeArray(a));
  }
}

TEST_CASE("cudaMalloc3DArray refuses extents and flags that make no array") {
  auto desc = cudaCreateChannelDesc<float>();
  auto invalid = cudaErrorInvalidValue;
  CHECK(try_3d(desc, make_cudaExtent(0, 0, 0), 0) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(0, 8, 0), 0) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(8, 0, 4), 0) == invalid);                  // depth without height
  CHECK(try_3d(desc, make_cudaExtent(8, 8, 0), cudaArrayLayered) == invalid);   // no layers
  CHECK(try_3d(desc, make_cudaExtent(8, 4, 6), cudaArrayCubemap) == invalid);   // not square
  CHECK(try_3d(desc, make_cudaExtent(8, 8, 5), cudaArrayCubemap) == invalid);   // not 6 faces
  CHECK(try_3d(desc, make_cudaExtent(8, 8, 12), cudaArrayCubemap) == invalid);  // 12 faces, not layered
  CHECK(try_3d(desc, make_cudaExtent(8, 8, 7), cudaArrayCubemap | cudaArrayLayered) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(8, 0, 0), cudaArrayTextureGather) == invalid);  // gather: 2D only
  CHECK(try_3d(desc, make_cudaExtent(8, 8, 8), cudaArrayTextureGather) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(8, 8, 4), cudaArrayTextureGather | cudaArrayLayered) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(8, 8, 0), 0x10) == invalid);                      // the driver's depth texture
  CHECK(try_3d(desc, make_cudaExtent(8, 8, 0), cudaArrayColorAttachment) == invalid);  // external memory's
  CHECK(try_3d(desc, make_cudaExtent(8, 8, 0), cudaArraySparse) == cudaErrorNotSupported);
}

TEST_CASE("array extents are limited as an H100's cudaDeviceProp says") {
  cudaDeviceProp p{};
  REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  auto desc = cudaCreateChannelDesc<unsigned char>();
  auto invalid = cudaErrorInvalidValue;
  auto w = [](int n) { return static_cast<std::size_t>(n); };
  CHECK(try_3d(desc, make_cudaExtent(w(p.maxTexture1D), 0, 0), 0) == cudaSuccess);
  CHECK(try_3d(desc, make_cudaExtent(w(p.maxTexture1D) + 1, 0, 0), 0) == invalid);
  // A surface's limit is lower than a texture's for 1D: both apply.
  CHECK(p.maxSurface1D < p.maxTexture1D);
  CHECK(try_3d(desc, make_cudaExtent(w(p.maxSurface1D) + 1, 0, 0), cudaArraySurfaceLoadStore) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(w(p.maxSurface1D), 0, 0), cudaArraySurfaceLoadStore) == cudaSuccess);
  CHECK(try_3d(desc, make_cudaExtent(1, w(p.maxTexture2D[1]) + 1, 0), 0) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(w(p.maxTexture2DGather[0]) + 1, 1, 0), cudaArrayTextureGather) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(w(p.maxTexture2DGather[0]), 1, 0), cudaArrayTextureGather) == cudaSuccess);
  // 3D: within maxTexture3D, or within maxTexture3DAlt (deeper but narrower).
  CHECK(try_3d(desc, make_cudaExtent(1, 1, w(p.maxTexture3D[2])), 0) == cudaSuccess);
  CHECK(p.maxTexture3DAlt[2] > p.maxTexture3D[2]);
  CHECK(try_3d(desc, make_cudaExtent(1, 1, w(p.maxTexture3DAlt[2])), 0) == cudaSuccess);
  CHECK(try_3d(desc, make_cudaExtent(w(p.maxTexture3D[0]), 1, w(p.maxTexture3DAlt[2])), 0) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(1, 0, w(p.maxTexture1DLayered[1])), cudaArrayLayered) == cudaSuccess);
  CHECK(try_3d(desc, make_cudaExtent(1, 0, w(p.maxTexture1DLayered[1]) + 1), cudaArrayLayered) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(1, 1, w(p.maxTexture2DLayered[2]) + 1), cudaArrayLayered) == invalid);
  CHECK(try_3d(desc, make_cudaExtent(w(p.maxTextureCubemap) + 1, w(p.maxTextureCubemap) + 1, 6), cudaArrayCubemap) ==
        invalid);
  // The layered cubemap limit counts faces (2046 on an H100: 341 cubes).
  CHECK(try_3d(desc, make_cudaExtent(1, 1, w(p.maxTextureCubemapLayered[1])), cudaArrayCubemap | cudaArrayLayered) ==
        cudaSuccess);
  CHECK(try_3d(desc, make_cudaExtent(1, 1, w(p.maxTextureCubemapLayered[1]) + 6),
               cudaArrayCubemap | cudaArrayLayered) == invalid);
}

TEST_CASE("an array's format must be one an array holds") {
  cudaArray_t a = nullptr;
  auto bad = cudaErrorInvalidChannelDescriptor;
  auto d3 = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);  // 3 channels
  check_failed_with(cudaMallocArray(&a, &d3, 8, 8), bad);
  auto mixed = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
  check_failed_with(cudaMallocArray(&a, &mixed, 8, 8), bad);
  auto gap = cudaCreateChannelDesc(8, 0, 8, 0, cudaChannelFormatKindUnsigned);
  check_failed_with(cudaMallocArray(&a, &gap, 8, 8), bad);
  auto float8 = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat);
  check_failed_with(cudaMallocArray(&a, &float8, 8, 8), bad);
  auto int64 = cudaCreateChannelDesc(64, 0, 0, 0, cudaChannelFormatKindSigned);
  check_failed_with(cudaMallocArray(&a, &int64, 8, 8), bad);
  auto none = cudaCreateChannelDesc<double>();
  check_failed_with(cudaMallocArray(&a, &none, 8, 8), bad);
  auto wrong_normalized = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsignedNormalized8X2);
  check_failed_with(cudaMallocArray(&a, &wrong_normalized, 8, 8), bad);
  auto bad_kind = cudaCreateChannelDesc(8, 0, 0, 0, static_cast<cudaChannelFormatKind>(99));
  check_failed_with(cudaMallocArray(&a, &bad_kind, 8, 8), bad);

  for (auto ok : {cudaCreateChannelDesc<char1>(), cudaCreateChannelDesc<ushort4>(), cudaCreateChannelDesc<int2>(),
                  cudaCreateChannelDescHalf(), cudaCreateChannelDescHalf4(),
                  cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized8X4>(),
                  cudaCreateChannelDesc<cudaChannelFormatKindSignedNormalized16X2>(),
                  cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized1010102>()}) {
    CAPTURE(ok.f);
    check_succeeded(cudaMallocArray(&a, &ok, 8, 8));
    check_succeeded(cudaFreeArray(a));
  }
}

TEST_CASE("cudaMallocArray and cudaMalloc3DArray refuse null arguments, and layered flags in the 2D form") {
  auto desc = cudaCreateChannelDesc<int>();
  cudaArray_t a = nullptr;
  check_failed_with(cudaMallocArray(nullptr, &desc, 8, 8), cudaErrorInvalidValue);
  check_failed_with(cudaMallocArray(&a, nullptr, 8, 8), cudaErrorInvalidValue);
  check_failed_with(cudaMalloc3DArray(nullptr, &desc, make_cudaExtent(8, 8, 8)), cudaErrorInvalidValue);
  check_failed_with(cudaMallocArray(&a, &desc, 8, 8, cudaArrayLayered), cudaErrorInvalidValue);
  check_failed_with(cudaMallocArray(&a, &desc, 8, 8, cudaArrayCubemap), cudaErrorInvalidValue);
  check_failed_with(cudaMallocArray(&a, &desc, 0, 8), cudaErrorInvalidValue);
}

TEST_CASE("freeing: null is nothing, a freed array's handle is refused, a mipmap level is not freed alone") {
  check_succeeded(cudaFreeArray(nullptr));
  check_succeeded(cudaFreeMipmappedArray(nullptr));
  auto desc = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  REQUIRE(cudaMallocArray(&a, &desc, 8, 8) == cudaSuccess);
  check_succeeded(cudaFreeArray(a));
  check_failed_with(cudaFreeArray(a), cudaErrorInvalidResourceHandle);
  cudaChannelFormatDesc got{};
  check_failed_with(cudaGetChannelDesc(&got, a), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaArrayGetInfo(nullptr, nullptr, nullptr, a), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaArrayGetInfo(nullptr, nullptr, nullptr, nullptr), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaGetChannelDesc(nullptr, a), cudaErrorInvalidValue);

  cudaMipmappedArray_t m = nullptr;
  REQUIRE(cudaMallocMipmappedArray(&m, &desc, make_cudaExtent(8, 8, 0), 2) == cudaSuccess);
  cudaArray_t level = nullptr;
  REQUIRE(cudaGetMipmappedArrayLevel(&level, m, 1) == cudaSuccess);
  check_succeeded(cudaFreeArray(level));  // as on an H100: nothing is freed
  check_succeeded(cudaFreeMipmappedArray(m));
  check_failed_with(cudaFreeMipmappedArray(m), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaArrayGetInfo(nullptr, nullptr, nullptr, level), cudaErrorInvalidResourceHandle);
}

TEST_CASE("cudaMallocMipmappedArray: levels halve, layers and faces stay, the level count is clamped") {
  auto desc = cudaCreateChannelDesc<uchar4>();
  cudaMipmappedArray_t m = nullptr;
  check_succeeded(cudaMallocMipmappedArray(&m, &desc, make_cudaExtent(64, 16, 0), 100));
  // 1 + floor(log2(64)) = 7 levels: 64x16, 32x8, 16x4, 8x2, 4x1, 2x1, 1x1.
  const std::size_t widths[] = {64, 32, 16, 8, 4, 2, 1};
  const std::size_t heights[] = {16, 8, 4, 2, 1, 1, 1};
  for (unsigned l = 0; l < 7; ++l) {
    CAPTURE(l);
    cudaArray_t level = nullptr;
    check_succeeded(cudaGetMipmappedArrayLevel(&level, m, l));
    array_info i = info_of(level);
    CHECK(extent_is(i.extent, widths[l], heights[l], 0));
    CHECK(i.desc.x == 8);
    CHECK(i.desc.w == 8);
  }
  cudaArray_t level = nullptr;
  check_failed_with(cudaGetMipmappedArrayLevel(&level, m, 7), cudaErrorInvalidValue);
  check_failed_with(cudaGetMipmappedArrayLevel(nullptr, m, 0), cudaErrorInvalidValue);
  check_failed_with(cudaGetMipmappedArrayLevel(&level, nullptr, 0), cudaErrorInvalidResourceHandle);
  check_succeeded(cudaFreeMipmappedArray(m));

  // A layered cubemap's depth (faces) does not shrink, nor count toward the levels.
  check_succeeded(
      cudaMallocMipmappedArray(&m, &desc, make_cudaExtent(4, 4, 12), 0, cudaArrayCubemap | cudaArrayLayered));
  // 0 levels asked: clamped to 1.
  check_succeeded(cudaGetMipmappedArrayLevel(&level, m, 0));
  check_failed_with(cudaGetMipmappedArrayLevel(&level, m, 1), cudaErrorInvalidValue);
  check_succeeded(cudaFreeMipmappedArray(m));

  check_succeeded(
      cudaMallocMipmappedArray(&m, &desc, make_cudaExtent(4, 4, 12), 3, cudaArrayCubemap | cudaArrayLayered));
  check_succeeded(cudaGetMipmappedArrayLevel(&level, m, 2));
  array_info i = info_of(level);
  CHECK(extent_is(i.extent, 1, 1, 12));
  CHECK(i.flags == (cudaArrayCubemap | cudaArrayLayered));
  check_failed_with(cudaGetMipmappedArrayLevel(&level, m, 3), cudaErrorInvalidValue);
  check_succeeded(cudaFreeMipmappedArray(m));

  // A 3D array's depth halves too.
  check_succeeded(cudaMallocMipmappedArray(&m, &desc, make_cudaExtent(4, 2, 16), 5));
  check_succeeded(cudaGetMipmappedArrayLevel(&level, m, 4));
  CHECK(extent_is(info_of(level).extent, 1, 1, 1));
  check_succeeded(cudaFreeMipmappedArray(m));
}

TEST_CASE("array memory counts as device memory") {
  std::size_t free_before = 0, total = 0;
  REQUIRE(cudaMemGetInfo(&free_before, &total) == cudaSuccess);
  auto desc = cudaCreateChannelDesc<float4>();
  cudaArray_t a = nullptr;
  // 64 MiB: far above the noise of other allocations in the process.
  REQUIRE(cudaMallocArray(&a, &desc, 2048, 2048) == cudaSuccess);
  auto* storage = weft::surface::storage_of(a);
  CHECK(storage->bytes() == std::size_t{2048} * 2048 * 16);
  cudaPointerAttributes attributes{};
  REQUIRE(cudaPointerGetAttributes(&attributes, storage->base) == cudaSuccess);
  CHECK(attributes.type == cudaMemoryTypeDevice);
  check_succeeded(cudaFreeArray(a));
}

TEST_CASE("an array's storage: packed rows and slices, as fetches index them") {
  auto desc = cudaCreateChannelDesc<ushort2>();
  cudaArray_t a = nullptr;
  REQUIRE(cudaMalloc3DArray(&a, &desc, make_cudaExtent(5, 0, 3), cudaArrayLayered) == cudaSuccess);
  auto* s = weft::surface::storage_of(a);
  CHECK(s->element_bytes == 4);
  CHECK(s->row_pitch == 20);
  CHECK(s->rows() == 1);
  CHECK(s->slice_pitch == 20);
  CHECK(s->layers() == 3);
  CHECK(s->element(2, 0, 1) == s->base + 20 + 8);
  REQUIRE(cudaFreeArray(a) == cudaSuccess);

  REQUIRE(cudaMalloc3DArray(&a, &desc, make_cudaExtent(4, 4, 18), cudaArrayCubemap | cudaArrayLayered) == cudaSuccess);
  s = weft::surface::storage_of(a);
  CHECK(s->layers() == 3);
  CHECK(s->slice_pitch == 4 * 4 * 4);
  REQUIRE(cudaFreeArray(a) == cudaSuccess);
}

TEST_CASE("cudaDeviceReset takes the device's arrays with its memory") {
  auto desc = cudaCreateChannelDesc<int>();
  cudaArray_t a = nullptr;
  cudaMipmappedArray_t m = nullptr;
  REQUIRE(cudaMallocArray(&a, &desc, 64, 64) == cudaSuccess);
  REQUIRE(cudaMallocMipmappedArray(&m, &desc, make_cudaExtent(64, 64, 0), 3) == cudaSuccess);
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  // A stale handle is refused; it does not free memory allocated since.
  void* p = nullptr;
  REQUIRE(cudaMalloc(&p, 64 * 64 * 4) == cudaSuccess);
  check_failed_with(cudaFreeArray(a), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaFreeMipmappedArray(m), cudaErrorInvalidResourceHandle);
  cudaPointerAttributes attributes{};
  REQUIRE(cudaPointerGetAttributes(&attributes, p) == cudaSuccess);
  CHECK(attributes.type == cudaMemoryTypeDevice);
  check_succeeded(cudaFree(p));
  check_succeeded(cudaMallocArray(&a, &desc, 64, 64));
  check_succeeded(cudaFreeArray(a));
}
