// The texture rules the guide leaves to the hardware and an H100 answered
// (docs/textures.md, "Precision"; the measurements are in
// tests/differential/h100_measurements/): seamless cubemap filtering at an
// edge and a corner, the levels of mipmapped cubemaps, the weights of a
// trilinear fetch, sRGB filtering and sRGB border colours, and the border
// colour cudaGetTextureObjectTextureDesc hands back. Each expected value is
// the H100's.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstring>
#include <vector>

#include "device_buffer.hpp"
#include "texture_fetching.hpp"

TEST_CASE("seamless cubemaps blend across an edge, and share a corner's missing weight among three texels") {
  // The probe's cube: 4 x 4 faces, texel (face, x, y) = 100 face + 10 y + x.
  std::vector<float> texels;
  for (int f = 0; f < 6; ++f)
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 4; ++x) texels.push_back(100.f * f + 10.f * y + x);
  cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
  cudaArray_t cube = nullptr;
  REQUIRE(cudaMalloc3DArray(&cube, &format, make_cudaExtent(4, 4, 6), cudaArrayCubemap) == cudaSuccess);
  cudaMemcpy3DParms copy{};
  copy.srcPtr = make_cudaPitchedPtr(texels.data(), 16, 4, 4);
  copy.dstArray = cube;
  copy.extent = make_cudaExtent(4, 4, 6);
  copy.kind = cudaMemcpyHostToDevice;
  REQUIRE(cudaMemcpy3D(&copy) == cudaSuccess);
  cudaResourceDesc resource = array_resource(cube);
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = cudaAddressModeClamp;
  desc.filterMode = cudaFilterModeLinear;
  desc.normalizedCoords = 1;
  desc.seamlessCubemap = 1;
  cudaTextureObject_t seamless = 0;
  REQUIRE(cudaCreateTextureObject(&seamless, &resource, &desc, nullptr) == cudaSuccess);
  desc.seamlessCubemap = 0;
  cudaTextureObject_t plain = 0;
  REQUIRE(cudaCreateTextureObject(&plain, &resource, &desc, nullptr) == cudaSuccess);
  auto got = run_fetches<float>(8, [=](int i) {
    cudaTextureObject_t t = i < 4 ? seamless : plain;
    switch (i % 4) {
      case 0:
        return texCubemap<float>(t, 1, 1, 0);  // the edge of +y and +x
      case 1:
        return texCubemap<float>(t, 1, 0.99f, 0);  // +x, a row from the edge
      case 2:
        return texCubemap<float>(t, 1, 1, 1);  // the corner of +z, +x, +y
      default:
        return texCubemap<float>(t, 1, 0.875f, -0.875f);  // near the corner of +x, +y, -z
    }
  });
  // (218 + 1.5) / 2: half from +y's edge column, half from +x's top row.
  CHECK(bits(got[0]) == 0x42db8000u);
  // Weights 62, 61 (+y: 223, 213) and 66, 67 (+x: 1, 2), in 256ths.
  CHECK(bits(got[1]) == 0x42d31600u);
  // 403 (+z, its own) 86/256, 233 (+y) and 0 (+x) 85/256 each.
  CHECK(bits(got[2]) == 0x4354bf00u);
  CHECK(bits(got[3]) == 0x43134d00u);
  // Without seamless filtering each face clamps at its own edges.
  CHECK(bits(got[4]) == 0x435a0000u);
  CHECK(bits(got[6]) == 0x43c98000u);
  cudaDestroyTextureObject(seamless);
  cudaDestroyTextureObject(plain);
  cudaFreeArray(cube);
}

TEST_CASE("mipmapped cubemaps weigh each level's texels within its share, seamless or clamped at a face's edge") {
  // The cube of h100_measurements/seamless_mipmaps.txt: 8 x 8 faces, 4
  // levels, texel (level l, face, x, y) = (1000 l + 100 face + 10 y + x, l).
  constexpr int size = 8, levels = 4;
  cudaChannelFormatDesc format = cudaCreateChannelDesc<float2>();
  cudaMipmappedArray_t cube = nullptr;
  REQUIRE(cudaMallocMipmappedArray(&cube, &format, make_cudaExtent(size, size, 6), levels, cudaArrayCubemap) ==
          cudaSuccess);
  for (int l = 0; l < levels; ++l) {
    cudaArray_t level = nullptr;
    REQUIRE(cudaGetMipmappedArrayLevel(&level, cube, static_cast<unsigned>(l)) == cudaSuccess);
    int w = size >> l;
    std::vector<float2> texels;
    for (int f = 0; f < 6; ++f)
      for (int y = 0; y < w; ++y)
        for (int x = 0; x < w; ++x) texels.push_back(make_float2(1000.f * l + 100.f * f + 10.f * y + x, float(l)));
    cudaMemcpy3DParms copy{};
    copy.srcPtr = make_cudaPitchedPtr(texels.data(), static_cast<std::size_t>(w) * 8, w, w);
    copy.dstArray = level;
    copy.extent = make_cudaExtent(w, w, 6);
    copy.kind = cudaMemcpyHostToDevice;
    REQUIRE(cudaMemcpy3D(&copy) == cudaSuccess);
  }
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeMipmappedArray;
  resource.res.mipmap.mipmap = cube;
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = cudaAddressModeClamp;
  desc.filterMode = cudaFilterModeLinear;
  desc.mipmapFilterMode = cudaFilterModeLinear;
  desc.normalizedCoords = 1;
  desc.maxMipmapLevelClamp = levels - 1;
  desc.seamlessCubemap = 1;
  cudaTextureObject_t seamless = 0;
  REQUIRE(cudaCreateTextureObject(&seamless, &resource, &desc, nullptr) == cudaSuccess);
  desc.seamlessCubemap = 0;
  cudaTextureObject_t plain = 0;
  REQUIRE(cudaCreateTextureObject(&plain, &resource, &desc, nullptr) == cudaSuccess);
  auto got = run_fetches<float2>(5, [=](int i) {
    switch (i) {
      case 0:  // -y, across its edge with +z, levels 0 and 1
        return texCubemapLod<float2>(seamless, -0x1.046p-3f, -1.0f, 0x1.f0a3d8p-1f, 0x1.0164p-2f);
      case 1:  // -y at its corner with +x and +z, on levels 2 and 3
        return texCubemapLod<float2>(seamless, 0x1.ce3p-1f, -1.0f, 0x1.f0a3d8p-1f, 0x1.6827p+1f);
      case 2:  // +y at its corner with -x and -z, on levels 0 and 1
        return texCubemapLod<float2>(seamless, -0x1.dc28f6p-1f, 1.0f, -0x1.f5c29p-1f, 0x1.5feap-1f);
      case 3:  // -y clamped at its left edge, levels 0 and 1
        return texCubemapLod<float2>(plain, -0x1.d574p-1f, -1.0f, -0x1.b94p-2f, 0x1.aa42p-1f);
      default:  // +z clamped at its left edge, levels 2 and 3
        return texCubemapLod<float2>(plain, -0x1.fae148p-1f, 0x1.5cp-3f, 1.0f, 0x1.763ap+1f);
    }
  });
  // The H200's results; blending each level's seamless fetch by the level's
  // fraction, or forming a clamped level's weights from the coordinate
  // beyond the edge's texel centre, is up to 1/256 of a texel off.
  CHECK(bits(got[0].x) == 0x4419a5c0u);
  CHECK(bits(got[1].x) == 0x453f2bb0u);
  CHECK(bits(got[2].x) == 0x4472ac00u);
  CHECK(bits(got[3].x) == 0x44910f00u);
  CHECK(bits(got[4].x) == 0x454fa260u);
  CHECK(bits(got[0].y) == 0x3e800000u);  // each level's weight: 3/4 of level 0, 1/4 of level 1
  cudaDestroyTextureObject(seamless);
  cudaDestroyTextureObject(plain);
  cudaFreeMipmappedArray(cube);
}

TEST_CASE("a 2D mipmap clamped at an edge weighs the clamped dimension's texels as one, between two levels") {
  // h100_measurements/clamped_mipmaps.txt: 8 x 8, 4 levels, texel (level l,
  // x, y) = (1000 l + 10 y + x, l), linear filtering within and between
  // levels, clamp.
  constexpr int size = 8, levels = 4;
  cudaChannelFormatDesc format = cudaCreateChannelDesc<float2>();
  cudaMipmappedArray_t m = nullptr;
  REQUIRE(cudaMallocMipmappedArray(&m, &format, make_cudaExtent(size, size, 0), levels) == cudaSuccess);
  for (int l = 0; l < levels; ++l) {
    cudaArray_t level = nullptr;
    REQUIRE(cudaGetMipmappedArrayLevel(&level, m, static_cast<unsigned>(l)) == cudaSuccess);
    int w = size >> l;
    std::vector<float2> texels;
    for (int y = 0; y < w; ++y)
      for (int x = 0; x < w; ++x) texels.push_back(make_float2(1000.f * l + 10.f * y + x, float(l)));
    REQUIRE(cudaMemcpy2DToArray(level, 0, 0, texels.data(), static_cast<std::size_t>(w) * 8,
                                static_cast<std::size_t>(w) * 8, w, cudaMemcpyHostToDevice) == cudaSuccess);
  }
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeMipmappedArray;
  resource.res.mipmap.mipmap = m;
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
  desc.filterMode = cudaFilterModeLinear;
  desc.mipmapFilterMode = cudaFilterModeLinear;
  desc.normalizedCoords = 1;
  desc.maxMipmapLevelClamp = levels - 1;
  cudaTextureObject_t t = 0;
  REQUIRE(cudaCreateTextureObject(&t, &resource, &desc, nullptr) == cudaSuccess);
  auto got = run_fetches<float2>(3, [=](int i) {
    switch (i) {
      case 0:  // past the right edge, levels 0 and 1
        return tex2DLod<float2>(t, 0x1.2b5fccp+0f, 0x1.12ab9ap-1f, 0x1.ca1p-3f);
      case 1:  // before the left edge, levels 1 and 2
        return tex2DLod<float2>(t, 0x1.24ap-6f, 0x1.05599ap-3f, 0x1.c80fp+0f);
      default:  // near the right edge, levels 2 and 3
        return tex2DLod<float2>(t, 0x1.ebd766p-1f, 0x1.4478p-1f, 0x1.76bbp+1f);
    }
  });
  // The H200's results; weights formed from the coordinate beyond the edge
  // texel's centre are off by a 256th of a texel in one level.
  CHECK(bits(got[0].x) == 0x4382f700u);
  CHECK(bits(got[1].x) == 0x44dea940u);
  CHECK(bits(got[2].x) == 0x4536e710u);
  cudaDestroyTextureObject(t);
  cudaFreeMipmappedArray(m);
}

TEST_CASE("trilinear fetches weigh the eight texels as an H100 does") {
  // The probe's mipmap: 16 x 16, 5 levels; level l texel (x, y) = 1024 (l + 1) + 32 y + x.
  cudaMipmappedArray_t m = nullptr;
  cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
  REQUIRE(cudaMallocMipmappedArray(&m, &format, make_cudaExtent(16, 16, 0), 5) == cudaSuccess);
  for (unsigned l = 0; l < 5; ++l) {
    cudaArray_t level = nullptr;
    REQUIRE(cudaGetMipmappedArrayLevel(&level, m, l) == cudaSuccess);
    int w = 16 >> l;
    std::vector<float> host(static_cast<std::size_t>(w * w));
    for (int y = 0; y < w; ++y)
      for (int x = 0; x < w; ++x) host[static_cast<std::size_t>(y * w + x)] = 1024.f * (l + 1) + 32.f * y + x;
    REQUIRE(cudaMemcpy2DToArray(level, 0, 0, host.data(), w * 4, w * 4, w, cudaMemcpyHostToDevice) == cudaSuccess);
  }
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeMipmappedArray;
  resource.res.mipmap.mipmap = m;
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeWrap;
  desc.filterMode = cudaFilterModeLinear;
  desc.mipmapFilterMode = cudaFilterModeLinear;
  desc.normalizedCoords = 1;
  desc.maxMipmapLevelClamp = 4;
  cudaTextureObject_t t = 0;
  REQUIRE(cudaCreateTextureObject(&t, &resource, &desc, nullptr) == cudaSuccess);
  auto got = run_fetches<float>(4, [=](int i) {
    switch (i) {
      case 0:
        return tex2DLod<float>(t, 0.1f, 0.7f, 2.5f);
      case 1:
        return tex2DLod<float>(t, 0.1f, 0.7f, 0.25f);
      case 2:
        return tex2DLod<float>(t, 0.03f, 0.97f, 0.5f);
      default:
        return tex2DLod<float>(t, 0.5f, 0.5f, 0.999f);
    }
  });
  CHECK(bits(got[0]) == 0x456338d0u);  // 3635.55078125: not the mix of two bilinear fetches (3635.49)
  CHECK(bits(got[1]) == 0x44c550e0u);  // 1578.52734375
  CHECK(bits(got[2]) == 0x44e7f0a0u);  // 1855.51953125
  CHECK(bits(got[3]) == 0x45070050u);  // 2160.01953125
  cudaDestroyTextureObject(t);
  cudaFreeMipmappedArray(m);
}

TEST_CASE("sRGB filtering cuts texels to 8 bits of the largest and rounds to half; sRGB borders are sRGB texels") {
  // Texel 2v = (v, 0, 255, v), texel 2v + 1 = (0, v, v, 255), for v = 0..255.
  std::vector<uchar4> texels(512);
  for (int v = 0; v < 256; ++v) {
    auto c = static_cast<unsigned char>(v);
    texels[static_cast<std::size_t>(2 * v)] = make_uchar4(c, 0, 255, c);
    texels[static_cast<std::size_t>(2 * v + 1)] = make_uchar4(0, c, c, 255);
  }
  cudaChannelFormatDesc format = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a = nullptr;
  REQUIRE(cudaMallocArray(&a, &format, 512) == cudaSuccess);
  REQUIRE(cudaMemcpy2DToArray(a, 0, 0, texels.data(), 2048, 2048, 1, cudaMemcpyHostToDevice) == cudaSuccess);
  cudaResourceDesc resource = array_resource(a);
  cudaTextureDesc desc{};
  desc.addressMode[0] = cudaAddressModeBorder;
  desc.filterMode = cudaFilterModeLinear;
  desc.readMode = cudaReadModeNormalizedFloat;
  desc.sRGB = 1;
  desc.borderColor[0] = 0.5f, desc.borderColor[1] = 0.1f, desc.borderColor[2] = 0.2f, desc.borderColor[3] = 0.25f;
  cudaTextureObject_t t = 0;
  REQUIRE(cudaCreateTextureObject(&t, &resource, &desc, nullptr) == cudaSuccess);
  // v = 1 at 255/256 beside 255 at 1/256 (blue), v = 100 at 255/256 beside 0 (red), the border.
  auto got = run_fetches<float4>(3, [=](int i) {
    switch (i) {
      case 0:
        return tex1D<float4>(t, 2 + 0.5f + 255.f / 256);
      case 1:
        return tex1D<float4>(t, 200 + 0.5f + 1.f / 256);
      default:
        return tex1D<float4>(t, -1.0f);
    }
  });
  CHECK(bits(got[0].z) == 0x3b800000u);  // 1/256: v = 1's 0.000305 vanishes beside 1.0
  CHECK(bits(got[1].x) == 0x3e018000u);  // 0.126953 x 255/256, rounded to half: 0.12646484
  // The border: r, g, b encoded to sRGB texels (188, 89, 124) and decoded; alpha 64/255.
  CHECK(bits(got[2].x) == 0x3f010000u);
  CHECK(bits(got[2].y) == 0x3dcd0000u);
  CHECK(bits(got[2].z) == 0x3e4e0000u);
  CHECK(bits(got[2].w) == 0x3e808081u);
  cudaDestroyTextureObject(t);
  cudaFreeArray(a);
}

TEST_CASE("sRGB filtering takes the scale of a code just below a power of two from the next power") {
  // Codes 48, 98, 64 and 249 sit just below 2^-5, 2^-3, 2^-4 and 1: their
  // blend scale is the next power of two's, so 47, 61, 27 and 30 beside them
  // keep only 7 significant bits (measured: h100_measurements/srgb.txt).
  std::vector<uchar4> pair = {make_uchar4(47, 61, 27, 0), make_uchar4(48, 98, 64, 0), make_uchar4(249, 0, 0, 0),
                              make_uchar4(30, 0, 0, 0)};
  cudaChannelFormatDesc format = cudaCreateChannelDesc<uchar4>();
  cudaArray_t a = nullptr;
  REQUIRE(cudaMallocArray(&a, &format, 4) == cudaSuccess);
  REQUIRE(cudaMemcpy2DToArray(a, 0, 0, pair.data(), 16, 16, 1, cudaMemcpyHostToDevice) == cudaSuccess);
  cudaResourceDesc resource = array_resource(a);
  cudaTextureDesc desc{};
  desc.addressMode[0] = cudaAddressModeClamp;
  desc.filterMode = cudaFilterModeLinear;
  desc.readMode = cudaReadModeNormalizedFloat;
  desc.sRGB = 1;
  cudaTextureObject_t t = 0;
  REQUIRE(cudaCreateTextureObject(&t, &resource, &desc, nullptr) == cudaSuccess);
  auto got = run_fetches<float4>(3, [=](int i) {
    switch (i) {
      case 0:
        return tex1D<float4>(t, 0.5f + 16.f / 256);  // texel 1 at 16/256
      case 1:
        return tex1D<float4>(t, 0.5f + 48.f / 256);
      default:
        return tex1D<float4>(t, 2.5f + 16.f / 256);
    }
  });
  CHECK(bits(got[0].x) == 0x3ce8a000u);  // 8 bits of 48's own exponent would give 0x3ce9a000
  CHECK(bits(got[0].y) == 0x3d4f8000u);  // not 0x3d516000
  CHECK(bits(got[1].z) == 0x3c964000u);  // not 0x3c97e000
  CHECK(bits(got[2].x) == 0x3f630000u);  // 30 beside 249: not 0x3f632000
  cudaDestroyTextureObject(t);
  cudaFreeArray(a);
}

TEST_CASE("after cudaGetTextureObjectResourceDesc, the texture descriptor's border colour is the format's sizes") {
  cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  REQUIRE(cudaMallocArray(&a, &format, 16, 16) == cudaSuccess);
  cudaResourceDesc resource = array_resource(a);
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = cudaAddressModeClamp;
  desc.borderColor[0] = 1.f, desc.borderColor[1] = 2.f;
  cudaTextureObject_t t = 0;
  REQUIRE(cudaCreateTextureObject(&t, &resource, &desc, nullptr) == cudaSuccess);
  cudaTextureDesc back{};
  REQUIRE(cudaGetTextureObjectTextureDesc(&back, t) == cudaSuccess);
  CHECK(back.borderColor[0] == 1.f);
  CHECK(back.borderColor[1] == 2.f);
  cudaResourceDesc resource_back{};
  REQUIRE(cudaGetTextureObjectResourceDesc(&resource_back, t) == cudaSuccess);
  REQUIRE(cudaGetTextureObjectTextureDesc(&back, t) == cudaSuccess);
  CHECK(bits(back.borderColor[0]) == 0x20u);
  CHECK(bits(back.borderColor[1]) == 0u);
  CHECK(bits(back.borderColor[2]) == 0u);
  CHECK(bits(back.borderColor[3]) == 0u);
  CHECK(back.addressMode[0] == cudaAddressModeClamp);  // the rest is as given
  cudaDestroyTextureObject(t);
  cudaFreeArray(a);
}
