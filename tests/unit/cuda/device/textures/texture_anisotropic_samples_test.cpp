// Anisotropic filtering's samples along the major axis, checked against what
// an H200 (the H100's texture unit) returned for a delta texel swept by
// tex2DGrad (tests/differential/h100_measurements/anisotropy.txt), and,
// with the direction the H200 took, against texture_probe's anisotropic
// fetches (texture_probe.expected).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <vector>

#include "texture_fetching.hpp"
#include "weft/detail/textures/anisotropic_sampling.hpp"

namespace {

namespace textures = weft::detail::textures;

// A float mipmap of `levels` levels of size x size texels, each level's texel
// (x, y) given by `texel(level, x, y)`.
template <class Texel>
cudaMipmappedArray_t make_anisotropy_mipmap(int size, int levels, Texel texel) {
  cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t array = nullptr;
  REQUIRE(cudaMallocMipmappedArray(&array, &format,
                                   make_cudaExtent(static_cast<std::size_t>(size), static_cast<std::size_t>(size), 0),
                                   static_cast<unsigned>(levels), 0) == cudaSuccess);
  for (int l = 0; l < levels; ++l) {
    cudaArray_t level = nullptr;
    REQUIRE(cudaGetMipmappedArrayLevel(&level, array, static_cast<unsigned>(l)) == cudaSuccess);
    int width = size >> l;
    std::vector<float> texels;
    for (int y = 0; y < width; ++y)
      for (int x = 0; x < width; ++x) texels.push_back(texel(l, x, y));
    auto pitch = static_cast<std::size_t>(width) * 4;
    REQUIRE(cudaMemcpy2DToArray(level, 0, 0, texels.data(), pitch, pitch, static_cast<std::size_t>(width),
                                cudaMemcpyHostToDevice) == cudaSuccess);
  }
  return array;
}

cudaTextureObject_t anisotropic_texture(cudaMipmappedArray_t array, cudaTextureAddressMode mode, unsigned anisotropy,
                                        float max_level) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeMipmappedArray;
  resource.res.mipmap.mipmap = array;
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = mode;
  desc.filterMode = cudaFilterModeLinear;
  desc.mipmapFilterMode = cudaFilterModeLinear;
  desc.normalizedCoords = 1;
  desc.maxMipmapLevelClamp = max_level;
  desc.maxAnisotropy = anisotropy;
  cudaTextureObject_t object = 0;
  REQUIRE(cudaCreateTextureObject(&object, &resource, &desc, nullptr) == cudaSuccess);
  return object;
}

}  // namespace

TEST_CASE("anisotropic fetches along an axis blend the H100's samples one texel apart") {
  // 256 x 256, level 0 zero but texel (128, 128) = 1, the other levels zero:
  // each fetch returns the delta's total weight, in 1024ths.
  cudaMipmappedArray_t array =
      make_anisotropy_mipmap(256, 9, [](int l, int x, int y) { return l == 0 && x == 128 && y == 128 ? 1.0f : 0.0f; });
  cudaTextureObject_t t = anisotropic_texture(array, cudaAddressModeClamp, 16, 8);
  struct along_axis_fetch {
    float dx[2], dy[2];  // texels
    float offset;        // from the delta's centre, along the major axis
    float expected;      // the H200's, in 1024ths
  };
  const std::vector<along_axis_fetch> fetches = {
      // major axis 3 along x: samples at +-0.5 (171/512) and +-1.5 (85/512)
      {{3, 0}, {0, 1}, 0.0f, 342},
      {{3, 0}, {0, 1}, -0.71875f, 306},
      {{3, 0}, {0, 1}, -1.0f, 256},
      {{3, 0}, {0, 1}, -1.5f, 170},
      {{3, 0}, {0, 1}, -2.46875f, 6},
      // 6 along x: 171/1024 four times, 170/1024 twice
      {{6, 0}, {0, 1}, 0.0f, 171},
      {{6, 0}, {0, 1}, -2.5f, 170},
      {{6, 0}, {0, 1}, -2.75f, 128},
      {{6, 0}, {0, 1}, -3.0f, 85},
      // 4 along y: four samples of 1/4
      {{0, 4}, {1, 0}, 0.0f, 256},
      {{0, 4}, {1, 0}, -1.5f, 256},
      {{0, 4}, {1, 0}, -2.0f, 128},
  };
  device_buffer<along_axis_fetch> at(fetches);
  const along_axis_fetch* f = at.p;
  auto got = run_fetches<float>(static_cast<int>(fetches.size()), [=](int i) {
    bool along_y = f[i].dx[0] == 0;
    float x = 128.5f + (along_y ? 0.0f : f[i].offset), y = 128.5f + (along_y ? f[i].offset : 0.0f);
    return tex2DGrad<float>(t, x / 256, y / 256, make_float2(f[i].dx[0] / 256, f[i].dx[1] / 256),
                            make_float2(f[i].dy[0] / 256, f[i].dy[1] / 256));
  });
  for (std::size_t i = 0; i < fetches.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] * 1024 == fetches[i].expected);
  }
  cudaDestroyTextureObject(t);
  cudaFreeMipmappedArray(array);
}

TEST_CASE("between two levels, anisotropic samples lie 2^(sharpened fraction) texels of the lower level apart") {
  // The delta on level 1 (texel (64, 64)); major axis 12 texels along x,
  // minor 2, maxAnisotropy 4: level 1 + 150/256, sharpened to 168/256, so
  // level 1's share is 88/256 and the four samples lie 101/64 level-1
  // texels apart (anisotropy2.txt, configuration 15; values in 1024ths).
  cudaMipmappedArray_t array =
      make_anisotropy_mipmap(256, 9, [](int l, int x, int y) { return l == 1 && x == 64 && y == 64 ? 1.0f : 0.0f; });
  cudaTextureObject_t t = anisotropic_texture(array, cudaAddressModeClamp, 4, 8);
  const std::vector<float> offsets = {-6.125f, -4.125f, -1.125f, 0.375f, 1.875f, 5.375f, 6.875f};
  const std::vector<float> expected = {5, 83, 86, 37, 79, 82, 16};
  device_buffer<float> at(offsets);
  const float* o = at.p;
  auto got = run_fetches<float>(static_cast<int>(offsets.size()), [=](int i) {
    return tex2DGrad<float>(t, (128.5f + o[i]) / 256, 129.0f / 256, make_float2(12.0f / 256, 0),
                            make_float2(0, 2.0f / 256));
  });
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    CAPTURE(offsets[i]);
    CHECK(got[i] * 1024 == expected[i]);
  }
  cudaDestroyTextureObject(t);
  cudaFreeMipmappedArray(array);
}

TEST_CASE("anisotropic sample weights: 1/P from P's 8-bit log, at 8 significant bits; the outer pair the rest") {
  struct expected_weights {
    double length;
    int pairs, inner, outer, unit_bits;
  };
  // Measured lengths (anisotropy.txt, anisotropy2.txt, anisotropy3.txt);
  // 4.2265625 weighs 243/1024 where 1024/P would round to 242, and 9.390625
  // 109/1024, not 218/2048.
  for (auto e :
       {expected_weights{3, 2, 171, 85, 9}, expected_weights{4, 2, 256, 256, 10}, expected_weights{6, 3, 171, 170, 10},
        expected_weights{3.34375, 2, 153, 103, 9}, expected_weights{4.2265625, 3, 243, 26, 10},
        expected_weights{5.34375, 3, 192, 128, 10}, expected_weights{9.390625, 5, 109, 76, 10}}) {
    CAPTURE(e.length);
    auto w = textures::anisotropic_sample_weights(e.length);
    CHECK(w.pairs == e.pairs);
    CHECK(w.inner == e.inner);
    CHECK(w.outer == e.outer);
    CHECK(w.unit_bits == e.unit_bits);
  }
}

TEST_CASE("with the H100's direction, texture_probe's anisotropic samples give its results") {
  // texture_probe's mipmap: 16 x 16, level l's texel (x, y) = 1024 (l + 1) + 32 y + x.
  cudaMipmappedArray_t array =
      make_anisotropy_mipmap(16, 5, [](int l, int x, int y) { return 1024.0f * (l + 1) + 32.0f * y + x; });
  cudaTextureObject_t t = anisotropic_texture(array, cudaAddressModeWrap, 16, 4);
  const textures::texture_sampler& s = *reinterpret_cast<const textures::texture_sampler*>(t);
  // Gradients (0.3, 0.1) and (0.05, 0.02): a major axis of 5.34375 texels,
  // level 0, and the step (60/64, 22/64) the H200 took for them
  // (anisotropy2.txt, configuration 12); weft's own direction differs.
  textures::anisotropic_line line{};
  line.step[0] = 60;
  line.step[1] = 22;
  line.spacing = 64;
  line.weights[0] = textures::anisotropic_sample_weights(5.34375);
  line.share[0] = 256;
  auto fetch_at = [&](float x, float y) {
    textures::texture_coordinates<2> at{{x, y}};
    return textures::sample_anisotropic(s, at, 0, line).value[0];
  };
  CHECK(bits(fetch_at(0.23f, 0.61f)) == 0x44a56fd0u);  // 15.5/256 below the centre's 0x44a571c0
  CHECK(bits(fetch_at(0.5f, 0.5f)) == 0x449ef000u);
  cudaDestroyTextureObject(t);
  cudaFreeMipmappedArray(array);
}
