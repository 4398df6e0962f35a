// The level of detail texCubemapGrad takes from its gradients, checked bit for
// bit against fetches measured on an H200, whose texture unit is the H100's
// (tests/differential/h100_measurements/cubemap_gradients.txt: 256 x 256
// faces, level l holding l, point filtering within levels and linear between
// them, so that each result is the level, its fraction in 256ths).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <vector>

#include "texture_fetching.hpp"

namespace {

struct cubemap_gradient_measurement {
  float direction[3];
  float dx[3], dy[3];
  float level;  // the H200's result
};

// 256 x 256 faces, 9 levels, level l holding l.
struct level_numbered_cubemap {
  cudaMipmappedArray_t array = nullptr;

  level_numbered_cubemap() {
    cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
    REQUIRE(cudaMallocMipmappedArray(&array, &format, make_cudaExtent(256, 256, 6), 9, cudaArrayCubemap) ==
            cudaSuccess);
    for (int l = 0; l < 9; ++l) {
      cudaArray_t level = nullptr;
      REQUIRE(cudaGetMipmappedArrayLevel(&level, array, l) == cudaSuccess);
      std::size_t side = 256u >> l;
      std::vector<float> texels(side * side * 6, static_cast<float>(l));
      cudaMemcpy3DParms copy{};
      copy.srcPtr = make_cudaPitchedPtr(texels.data(), side * 4, side, side);
      copy.dstArray = level;
      copy.extent = make_cudaExtent(side, side, 6);
      copy.kind = cudaMemcpyHostToDevice;
      REQUIRE(cudaMemcpy3D(&copy) == cudaSuccess);
    }
  }
  ~level_numbered_cubemap() { CHECK(cudaFreeMipmappedArray(array) == cudaSuccess); }

  cudaTextureObject_t texture() const {
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeMipmappedArray;
    resource.res.mipmap.mipmap = array;
    cudaTextureDesc desc{};
    desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = cudaAddressModeClamp;
    desc.filterMode = cudaFilterModePoint;
    desc.mipmapFilterMode = cudaFilterModeLinear;
    desc.normalizedCoords = 1;
    desc.maxMipmapLevelClamp = 8;
    cudaTextureObject_t object = 0;
    REQUIRE(cudaCreateTextureObject(&object, &resource, &desc, nullptr) == cudaSuccess);
    return object;
  }
};

// What texCubemapGrad returns through weft for each measurement, on the
// level-numbered cubemap.
std::vector<float> cubemap_gradient_fetches(const std::vector<cubemap_gradient_measurement>& measured) {
  level_numbered_cubemap cubemap;
  cudaTextureObject_t t = cubemap.texture();
  device_buffer<cubemap_gradient_measurement> at(measured);
  const cubemap_gradient_measurement* m = at.p;
  auto got = run_fetches<float>(static_cast<int>(measured.size()), [=](int i) {
    const cubemap_gradient_measurement& q = m[i];
    return texCubemapGrad<float>(t, q.direction[0], q.direction[1], q.direction[2],
                                 make_float4(q.dx[0], q.dx[1], q.dx[2], 0), make_float4(q.dy[0], q.dy[1], q.dy[2], 0));
  });
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  return got;
}

}  // namespace

TEST_CASE("texCubemapGrad's level: the face texels that direction + gradient moves to, by the 2D rule") {
  // Face +x. At the face's centre a gradient along the major axis x moves
  // nothing (level 0, and 2 for gradients of 4 texels across the face);
  // off the centre it moves the face coordinate y/x by 0.5 a / (1 + a), not
  // by the derivative's 0.5 a: a = 0.84 gives 29.2 texels, level 4.87.
  const std::vector<cubemap_gradient_measurement> measured = {
      {{1, 0, 0}, {0x1.6a09e6p-1f, 0x1p-5f, 0}, {0, 0, 0x1p-5f}, 0x1p+1f},
      {{1, 0x1p-1f, 0}, {0x1p-6f, 0, 0}, {0, 0, 0}, 0.0f},
      {{1, 0x1p-1f, 0}, {0x1.306fep-6f, 0, 0}, {0, 0, 0}, 0x1.c8p-3f},
      {{1, 0x1p-1f, 0}, {0x1p-2f, 0, 0}, {0, 0, 0}, 0x1.d68p+1f},
      {{1, 0x1p-1f, 0}, {0x1.306fep-2f, 0, 0}, {0, 0, 0}, 0x1.fp+1f},
      {{1, 0x1p-1f, 0}, {0x1.6a09e6p-1f, 0, 0}, {0, 0, 0}, 0x1.2ecp+2f},
      {{1, 0x1p-1f, 0}, {0x1.ae89fap-1f, 0, 0}, {0, 0, 0}, 0x1.378p+2f},
      {{1, 0x1p-1f, 0}, {0x1p-1f, 0x1p-7f, 0}, {0, 0, 0x1p-7f}, 0x1.178p+2f},
      {{1, 0, 0x1p-1f}, {0x1p-3f, 0, 0}, {0, 0, 0}, 0x1.6a8p+1f},
      {{1, 0, 0x1p-1f}, {0x1.ae89fap-3f, 0x1p-7f, 0}, {0, 0, 0x1p-7f}, 0x1.c1p+1f},
      {{1, 0, 0x1p-1f}, {0x1p-4f, 0x1p-5f, 0}, {0, 0, 0x1p-5f}, 0x1.51p+1f},
  };
  level_numbered_cubemap cubemap;
  cudaTextureObject_t t = cubemap.texture();
  device_buffer<cubemap_gradient_measurement> at(measured);
  const cubemap_gradient_measurement* m = at.p;
  auto got = run_fetches<float>(static_cast<int>(measured.size()), [=](int i) {
    const cubemap_gradient_measurement& q = m[i];
    return texCubemapGrad<float>(t, q.direction[0], q.direction[1], q.direction[2],
                                 make_float4(q.dx[0], q.dx[1], q.dx[2], 0), make_float4(q.dy[0], q.dy[1], q.dy[2], 0));
  });
  for (std::size_t i = 0; i < measured.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == measured[i].level);
  }
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
}

TEST_CASE("texCubemapGrad's level across a face edge: the face unfolded onto its neighbour") {
  // Measured on an H200 (h100_measurements/gradient_rules.txt). From
  // (1, 0.5, 0), dx = (0, 1, 0) reaches (1, 1.5, 0) on +y: 0.5 of a half
  // face to the edge and 1 - 1/1.5 beyond it, 106.7 texels (6.734375; the
  // projection onto +x alone would say 128 texels, level 7). dx = (-0.75,
  // 0, 0) reaches (0.25, 0.5, 0): 1 + (1 - 0.5) = 1.5 past the centre's 0.5,
  // 128 texels. From (1, 0.5, 0.25), dx = (0, 0, 1) reaches +z, where y
  // is read over z too: 6.9765625.
  //
  // The move along the unfolded axis is held as two pieces, to the edge and
  // past it, each truncated to 10 bits: from (1, 0.3, 0.2), dx = (-0.63,
  // 0.315, 0) moves 89.6 texels to the edge and 51.0 past it, 140.559 in
  // all, where weft took 7.19140625 and the H200 7.1875
  // (gradient_rules.txt's sweep 07, index 860); the last two
  // (gradients3d.txt) were each 1/256 above the H200's with the exact sum.
  const std::vector<cubemap_gradient_measurement> measured = {
      {{1, 0x1p-1f, 0}, {0, 1, 0}, {0, 0, 0}, 0x1.afp+2f},
      {{1, 0x1p-1f, 0}, {-0x1.8p-1f, 0, 0}, {0, 0, 0}, 0x1.cp+2f},
      {{1, 0x1p-1f, 0x1p-2f}, {0, 0, 1}, {0, 0, 0}, 0x1.be8p+2f},
      {{1, 0.3f, 0.2f}, {-0x1.428p-1f, 0x1.428p-2f, 0}, {0, 0, 0}, 0x1.ccp+2f},
      {{-0x1.9e4p-4f, 0x1.9e5p-2f, -0x1.e7p-7f}, {0x1.51ff74p-1f, 0, 0}, {0, -0x1.009826p-3f, 0}, 0x1.e7p+2f},
      {{0x1.cb84p-1f, 0x1.c0fcp-1f, 0x1.eb98p-2f},
       {0x1.41bf1ap-5f, 0x1.52f2a6p-5f, -0x1.00dea8p-5f},
       {-0x1.29b542p-6f, 0x1.cbc7cep-6f, 0x1.9fe484p-6f},
       0x1.76p+1f},
  };
  level_numbered_cubemap cubemap;
  cudaTextureObject_t t = cubemap.texture();
  device_buffer<cubemap_gradient_measurement> at(measured);
  const cubemap_gradient_measurement* m = at.p;
  auto got = run_fetches<float>(static_cast<int>(measured.size()), [=](int i) {
    const cubemap_gradient_measurement& q = m[i];
    return texCubemapGrad<float>(t, q.direction[0], q.direction[1], q.direction[2],
                                 make_float4(q.dx[0], q.dx[1], q.dx[2], 0), make_float4(q.dy[0], q.dy[1], q.dy[2], 0));
  });
  for (std::size_t i = 0; i < measured.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == measured[i].level);
  }
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
}

TEST_CASE("texCubemapGrad's level across a face edge: the longer gradient's alone, no diagonal") {
  // Measured on an H200 (h100_measurements/gradients3d.txt, maxAnisotropy
  // 0). Where a gradient crosses an edge, the level is the longer gradient's
  // (in unfolded face texels); the diagonals dx + dy and dx - dy, which the
  // level takes within a face, would give 1677/256 and 1621/256 here.
  const std::vector<cubemap_gradient_measurement> measured = {
      {{-0x1.b6ep-3f, -0x1.0388p-1f, 0x1.4a68p-2f},
       {-0x1.714504p-2f, -0x1.6a249ep-3f, 0x1.91e458p-2f},
       {-0x1.7aef7cp-5f, -0x1.1038bep-1f, -0x1.354eeep-3f},
       0x1.86cp+2f},
      {{0x1.d988p-2f, 0x1.171p-1f, 0x1.cd88p-2f},
       {-0x1.1cafdap-3f, 0x1.43262ap-5f, 0x1.a0562p-3f},
       {0x1.a4d7dcp-3f, -0x1.fa685cp-6f, -0x1.143a2p-4f},
       0x1.7ap+2f},
  };
  auto got = cubemap_gradient_fetches(measured);
  for (std::size_t i = 0; i < measured.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == measured[i].level);
  }
}

TEST_CASE("texCubemapGrad's level where a gradient reaches the opposite face: the texture's last") {
  // Measured on an H200 (h100_measurements/gradients3d.txt, 256 x 256 faces,
  // 9 levels): each fetch whose direction + gradient lies on the opposite
  // face took level 8, where the face projection gives 7.49, 7.86 and 7.32.
  const std::vector<cubemap_gradient_measurement> measured = {
      {{0, 0, -0x1p-1f},
       {0x1.6028b4p-1f, 0x1.b6e96ap-2f, -0x1.92088ep-3f},
       {-0x1.68b5e2p-2f, 0x1.194cb4p-4f, 0x1.c53e76p-1f},
       0x1p+3f},
      {{0x1.254p-2f, 0x1.152p-4f, 0x1.be9p-3f},
       {0x1.1f1658p-1f, -0x1.0d1cbcp-1f, -0x1.582346p-3f},
       {-0x1.1ca168p-1f, -0x1.97548cp-3f, -0x1.944062p-2f},
       0x1p+3f},
      {{-0x1.749p-2f, -0x1.f94p-4f, -0x1.0ad8p-2f}, {0x1.956c62p-1f, 0, 0}, {0, -0x1.207ae2p-1f, 0}, 0x1p+3f},
  };
  auto got = cubemap_gradient_fetches(measured);
  for (std::size_t i = 0; i < measured.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == measured[i].level);
  }
}
