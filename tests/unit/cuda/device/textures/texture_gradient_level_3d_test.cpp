// The level of detail tex3DGrad takes from its gradients, checked bit for bit
// against fetches measured on an H200, whose texture unit is the H100's
// (tests/differential/h100_measurements/gradients3d.txt: tex3DGrad at the
// centre of a 256^3 float mipmap whose level l holds l, point filtering
// within levels and linear between them, so that each result is the level
// of detail, its fraction in 256ths). Here the mipmap is 32^3, so that the
// same normalized gradients give levels exactly 3 lower.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstring>
#include <vector>

#include "texture_fetching.hpp"
#include "weft/detail/textures/sampling/gradient_level.hpp"

namespace {

namespace textures = weft::detail::textures;

struct volume_gradient_measurement {
  unsigned max_anisotropy;
  float dx[3], dy[3];
  float level;  // measured on the 256^3 mipmap, minus 3
};

// A 32^3 float mipmap of 6 levels, level l holding l.
struct volume_gradient_mipmap {
  cudaMipmappedArray_t array = nullptr;

  volume_gradient_mipmap() {
    cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
    REQUIRE(cudaMallocMipmappedArray(&array, &format, make_cudaExtent(32, 32, 32), 6, 0) == cudaSuccess);
    for (int l = 0; l < 6; ++l) {
      cudaArray_t level = nullptr;
      REQUIRE(cudaGetMipmappedArrayLevel(&level, array, l) == cudaSuccess);
      std::size_t side = 32u >> l;
      std::vector<float> texels(side * side * side, static_cast<float>(l));
      cudaMemcpy3DParms copy{};
      copy.srcPtr = make_cudaPitchedPtr(texels.data(), side * 4, side, side);
      copy.dstArray = level;
      copy.extent = make_cudaExtent(side, side, side);
      copy.kind = cudaMemcpyHostToDevice;
      REQUIRE(cudaMemcpy3D(&copy) == cudaSuccess);
    }
  }
  ~volume_gradient_mipmap() { CHECK(cudaFreeMipmappedArray(array) == cudaSuccess); }

  cudaTextureObject_t texture(unsigned max_anisotropy) const {
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeMipmappedArray;
    resource.res.mipmap.mipmap = array;
    cudaTextureDesc desc{};
    desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = cudaAddressModeClamp;
    desc.filterMode = cudaFilterModePoint;
    desc.mipmapFilterMode = cudaFilterModeLinear;
    desc.normalizedCoords = 1;
    desc.maxMipmapLevelClamp = 5;
    desc.maxAnisotropy = max_anisotropy;
    cudaTextureObject_t object = 0;
    REQUIRE(cudaCreateTextureObject(&object, &resource, &desc, nullptr) == cudaSuccess);
    return object;
  }
};

std::vector<float> volume_gradient_fetches(const std::vector<volume_gradient_measurement>& ms) {
  volume_gradient_mipmap mipmap;
  std::vector<cudaTextureObject_t> objects;
  for (const auto& m : ms) objects.push_back(mipmap.texture(m.max_anisotropy));
  device_buffer<volume_gradient_measurement> at(ms);
  device_buffer<cudaTextureObject_t> through(objects);
  const volume_gradient_measurement* measured = at.p;
  const cudaTextureObject_t* texture = through.p;
  auto got = run_fetches<float>(static_cast<int>(ms.size()), [=](int i) {
    const volume_gradient_measurement& m = measured[i];
    return tex3DGrad<float>(texture[i], 0.5f, 0.5f, 0.5f, make_float4(m.dx[0], m.dx[1], m.dx[2], 0),
                            make_float4(m.dy[0], m.dy[1], m.dy[2], 0));
  });
  for (cudaTextureObject_t t : objects) CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  return got;
}

}  // namespace

TEST_CASE("a 3D footprint's approximate length: largest + 11/32 middle + 1/4 smallest, the 2D one without z") {
  CHECK(textures::approximate_length(8.0, 0.0, 0.0) == 8.0);
  CHECK(textures::approximate_length(0.0, -8.0, 0.0) == 8.0);
  // 8 + 11/32 * 4 + 1/4 * 2, in any order and sign.
  CHECK(textures::approximate_length(4.0, -2.0, 8.0) == 8.0 + 1.375 + 0.5);
  CHECK(textures::approximate_length(2.0, 8.0, -4.0) == 8.0 + 1.375 + 0.5);
  CHECK(textures::approximate_length(3.0, 5.0, 0.0) == textures::approximate_length(3.0, 5.0));
  // The shares are summed, then truncated to 10 bits of the largest's order
  // of magnitude (1/512 for 1): 11/32 of 4/1024 and 1/4 of 3/1024 are 44
  // and 24 32768ths, each below 1/512 but together above it.
  CHECK(textures::approximate_length(1.0, 4.0 / 1024, 3.0 / 1024) == 1.0 + 1.0 / 512);
  CHECK(textures::approximate_length(1.0, 4.0 / 1024, 0.0) == 1.0);
  CHECK(textures::approximate_length(0.0, 0.0, 0.0) == 0.0);
}

TEST_CASE("tex3DGrad's level of detail: the longest of dx, dy and the diagonals, whatever maxAnisotropy") {
  // Along the axes, the H200 took log2 of the longer gradient: 0x1.6f2528p-4
  // of 256 texels is 22.95 texels, level 4.51953125 (its table's log2).
  const float dx[3] = {0x1.6f2528p-4f * 256, 0, 0}, dy[3] = {0, 0x1.6f2528p-4f * 256, 0};
  CHECK(textures::level_from_footprint(dx, dy) == 4 * 256 + 133);
  // Off the axes: gradients (-73.5, -151.6, 30.3) and (137.3, -66.4, -99.2)
  // texels: approximate lengths 184.25 and 187.75, and 189.94 for the
  // diagonal dx - dy, the longest (log2 of the longer gradient alone would
  // be 7.507); the H200 took 7.56640625.
  const float px[3] = {-0x1.2610cap-2f * 256, -0x1.2f1b3p-1f * 256, 0x1.e5351p-4f * 256};
  const float py[3] = {0x1.128c12p-1f * 256, -0x1.097cecp-2f * 256, -0x1.8c9e5ap-2f * 256};
  CHECK(textures::level_from_footprint(px, py) == 7 * 256 + 145);
}

TEST_CASE("tex3DGrad's components are rounded to 1/65536 texel before they are kept to 10 bits") {
  // Measured on an H200 (gradient_rules.txt, sweeps of dx = (1, b, c)
  // texels on 256^3): c = 241150/2^19 = 0.4599571 lies 1/128 of a unit
  // (2^-11) below 942/2048; rounded to 1/65536 it is that step, and the level
  // 114/256 (113 with c truncated from its float).
  const float dx[3] = {1, 0.7109375f, 241150.0f / (1 << 19)}, dy[3] = {0, 0, 0};
  CHECK(textures::level_from_footprint(dx, dy) == 114);
  // The middle component too: b = 0x1.f5fe6p-2 (1003.987 units of 2^-11)
  // counts as 1004 units beside c = 0.123046875: level 68/256 (66 from b
  // truncated).
  const float dx2[3] = {1, 0x1.f5fe6p-2f, 0.123046875f};
  CHECK(textures::level_from_footprint(dx2, dy) == 68);
}

TEST_CASE("tex3DGrad returns the H200's measured levels, each maxAnisotropy") {
  // Along the axes, in the xy plane (as tex2DGrad), along z alone, and
  // across all three; with maxAnisotropy 2 and above the same level, its
  // blend sharpened.
  const std::vector<volume_gradient_measurement> measured = {
      {0, {0x1.6f2528p-4f, 0, 0}, {0, 0x1.6f2528p-4f, 0}, 0x1.85p+0f},
      {0, {0x1.0180cap-5f, 0, 0}, {0, 0x1.0180cap-5f, 0}, 0x1p-7f},
      {0, {0x1.85dd68p-4f, 0x1.0348bep-4f, 0}, {0x1.14ad18p-3f, 0x1.480c2cp-5f, 0}, 0x1.458p+1f},
      {0, {0x1.db4cdcp-6f, -0x1.bbee5cp-7f, 0}, {0x1.ac719ap-7f, -0x1.f1d832p-7f, 0}, 0x1.88p-3f},
      {0, {0, 0, -0x1.76302ep-5f}, {0, 0, 0x1.8111bap-5f}, 0x1.08p+0f},
      {0, {0, 0, 0x1.c74608p-4f}, {0, 0, 0x1.333f46p-4f}, 0x1.048p+1f},
      {0,
       {-0x1.d88d1cp-7f, 0x1.1d3e36p-6f, 0x1.2a7572p-4f},
       {0x1.312102p-6f, 0x1.e0ee7p-6f, 0x1.1cca3ep-4f},
       0x1.cfp+0f},
      {0,
       {-0x1.53927ap-3f, 0x1.1cbf48p-3f, -0x1.09811p-3f},
       {0x1.416384p-6f, -0x1.61087cp-3f, 0x1.e66d1cp-4f},
       0x1.a4p+1f},
      {0,
       {-0x1.2610cap-2f, -0x1.2f1b3p-1f, 0x1.e5351p-4f},
       {0x1.128c12p-1f, -0x1.097cecp-2f, -0x1.8c9e5ap-2f},
       0x1.244p+2f},
      {2,
       {-0x1.b5cbfp-2f, 0x1.b1e572p-2f, 0x1.c1b452p-2f},
       {0x1.f59f86p-4f, -0x1.46db14p-1f, 0x1.0fcc74p-1f},
       0x1.3d8p+2f},
      {4,
       {0x1.dbcb12p-7f, -0x1.6599dp-5f, -0x1.3ad09cp-5f},
       {0x1.8f581cp-5f, 0x1.0081d4p-5f, 0x1.8555ccp-5f},
       0x1.55p+0f},
      {16,
       {-0x1.507504p-5f, -0x1.a5a338p-5f, 0x1.f63f4ep-6f},
       {-0x1.b3bb7ap-5f, 0x1.2877c2p-5f, -0x1.131148p-5f},
       0x1.1ep+0f},
      // From 8 on the blend is sharpened as 16's, not as 4's
      // (gradients3d_anisotropy.txt; 4's blend gives other weights).
      {8, {-0x1.008ad6p-9f, 0, 0}, {0, -0x1.6b3b7ep-3f, 0}, 0x1.41p+1f},
      {12, {-0x1.008ad6p-9f, 0, 0}, {0, -0x1.6b3b7ep-3f, 0}, 0x1.41p+1f},
      {8,
       {-0x1.00d736p-3f, 0x1.d8f18cp-4f, -0x1.536868p-3f},
       {0x1.bfbefcp-3f, 0x1.df6b2ep-4f, 0x1.69042ap-3f},
       0x1.98p+1f},
      {15,
       {-0x1.00d736p-3f, 0x1.d8f18cp-4f, -0x1.536868p-3f},
       {0x1.bfbefcp-3f, 0x1.df6b2ep-4f, 0x1.69042ap-3f},
       0x1.98p+1f},
  };
  auto got = volume_gradient_fetches(measured);
  for (std::size_t i = 0; i < measured.size(); ++i) {
    CAPTURE(i);
    CHECK(bits(got[i]) == bits(measured[i].level));
  }
}
