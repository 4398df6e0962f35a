// Anisotropic filtering's samples along the major axis, checked against what
// an H200 (the H100's texture unit) returned for a delta texel swept by
// tex2DGrad (tests/differential/h100_measurements/anisotropy*.txt), and
// against texture_probe's anisotropic fetches (texture_probe.expected).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <vector>

#include "texture_fetching.hpp"
#include "weft/detail/textures/sampling/anisotropic_sampling.hpp"

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
                                        float max_level, cudaTextureFilterMode filter = cudaFilterModeLinear) {
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeMipmappedArray;
  resource.res.mipmap.mipmap = array;
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = mode;
  desc.filterMode = filter;
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

TEST_CASE("off the axes the samples step along the major axis's components cut to 4 bits, as the H200 steps") {
  // Major axes (after the gradients' 10-bit truncation) and the steps the
  // H200 took for them (anisotropy2.txt to anisotropy4.txt, each found
  // exactly from a delta texel's response), in 64ths of a texel.
  struct measured_step {
    double x, y;
    int step_x, step_y;
  };
  for (auto m : {
           measured_step{0x1.33p+2, 0x1.998p+0, 60, 22},   // texture_probe's gradients
           measured_step{3.0, 1.0, 60, 22},                // (3, 1): the same step, 18.43 degrees
           measured_step{0x1.7ap+1, 0x1.0a8p-1, 63, 14},   // 10 degrees, y just past a power of two
           measured_step{0x1.6ap+1, 0x1.ffp-2, 63, 8},     // 10 degrees, y just below one
           measured_step{0x1.72p+2, 0x1.05p+0, 63, 14},    // both doubled: the step repeats
           measured_step{0x1.6ap+2, 0x1.ffp-1, 63, 8},     //
           measured_step{4.0, 0x1.28p+1, 57, 30},          // 30 degrees
           measured_step{0x1.d9p+1, 0x1.878p+0, 58, 26},   // 22.5 degrees
           measured_step{0x1.73p+1, 2.75, 45, 45},         // 43.5 degrees
           measured_step{0x1.ff8p+0, 0x1.bbp+1, 31, 56},   // 60 degrees: y the longer
           measured_step{-0x1.e1p+1, 0x1.5ep+0, -60, 21},  // opposite signs
           measured_step{0x1.ff8p+1, 0x1.1d8p-4, 64, 2},   // a small minor component
           measured_step{0x1.ff8p+1, 0x1.1d8p-5, 64, 0},   // under a quarter of the grid: zero
           measured_step{0.0, 4.0, 0, 64},                 // along an axis
       }) {
    CAPTURE(m.x);
    CAPTURE(m.y);
    int step[2];
    textures::anisotropic_step(m.x, m.y, step);
    bool same_line = (step[0] == m.step_x && step[1] == m.step_y) || (step[0] == -m.step_x && step[1] == -m.step_y);
    CHECK(same_line);
  }
}

TEST_CASE("texture_probe's anisotropic fetches off the axes give the H100's results") {
  // texture_probe's mipmap: 16 x 16, level l's texel (x, y) = 1024 (l + 1) + 32 y + x.
  cudaMipmappedArray_t array =
      make_anisotropy_mipmap(16, 5, [](int l, int x, int y) { return 1024.0f * (l + 1) + 32.0f * y + x; });
  // Gradients (0.3, 0.1) and (0.05, 0.02): a major axis of 5.34375 texels,
  // the step (60, 22)/64; maxAnisotropy 16 samples level 0 alone,
  // maxAnisotropy 4 blends levels 0 and 1 (92/256 to level 1).
  struct probe_fetch {
    unsigned anisotropy;
    float x, y;
    unsigned expected;
  };
  for (auto f : {probe_fetch{16, 0.23f, 0.61f, 0x44a56fd0u}, probe_fetch{16, 0.5f, 0.5f, 0x449ef000u},
                 probe_fetch{4, 0.23f, 0.61f, 0x44cc5720u}, probe_fetch{4, 0.5f, 0.5f, 0x44c70200u}}) {
    CAPTURE(f.anisotropy);
    CAPTURE(f.x);
    cudaTextureObject_t t = anisotropic_texture(array, cudaAddressModeWrap, f.anisotropy, 4);
    auto got = run_fetches<float>(
        1, [=](int) { return tex2DGrad<float>(t, f.x, f.y, make_float2(0.3f, 0.1f), make_float2(0.05f, 0.02f)); });
    CHECK(bits(got[0]) == f.expected);
    cudaDestroyTextureObject(t);
  }
  cudaFreeMipmappedArray(array);
}

TEST_CASE("between two levels, the upper level takes its own line, one step of its texels apart") {
  // maxAnisotropy 4, level of detail between 0 and 1; a delta texel on level
  // 1 (texel (64, 64)) shows the upper level's samples, one on level 0 (texel
  // (128, 128)) the lower level's (anisotropy5.txt, configurations 0, 1 and
  // 8; offsets in level-0 texels from (128.5, 128.5), values in 1024ths).
  struct two_level_fetch {
    int delta_level;
    float dx[2], dy[2];  // texels
    float offset[2];
    float expected;
  };
  const std::vector<two_level_fetch> fetches = {
      // dx (6, 0), dy (0, 1.5): level 1's share 168/256; on level 1 four
      // samples one texel apart weighing 162/512 and 94/512 (a line of
      // 4 x 101/128 texels), not the lower level's 101/64 apart
      {1, {6, 0}, {0, 1.5f}, {3.25f, 1.875f}, 42},
      {1, {6, 0}, {0, 1.5f}, {5.0f, 1.0625f}, 22},
      {1, {6, 0}, {0, 1.5f}, {-3.375f, 0.9375f}, 54},
      {1, {6, 0}, {0, 1.5f}, {3.1875f, 0.875f}, 112},
      {1, {6, 0}, {0, 1.5f}, {0.5f, 0.5f}, 212},
      // texture_probe's gradients, twice: level 1's share 92/256
      {1, {4.8f, 1.6f}, {0.8f, 0.32f}, {-0.5625f, 2.0625f}, 6},
      {1, {4.8f, 1.6f}, {0.8f, 0.32f}, {4.625f, 2.375f}, 8},
      {1, {4.8f, 1.6f}, {0.8f, 0.32f}, {3.8125f, 2.5f}, 16},
      {1, {4.8f, 1.6f}, {0.8f, 0.32f}, {-2.0625f, 0.5625f}, 38},
      {1, {4.8f, 1.6f}, {0.8f, 0.32f}, {1.3125f, -0.5625f}, 52},
      // on level 0, steps of trunc((60, 22) x 82/64) = (76, 28) 64ths
      {0, {4.8f, 1.6f}, {0.8f, 0.32f}, {-0.875f, 0.5625f}, 26},
      {0, {4.8f, 1.6f}, {0.8f, 0.32f}, {1.1875f, 1.5625f}, 6},
      {0, {4.8f, 1.6f}, {0.8f, 0.32f}, {-1.0f, -1.0625f}, 36},
      {0, {4.8f, 1.6f}, {0.8f, 0.32f}, {2.5f, -0.3125f}, 1},
      {0, {4.8f, 1.6f}, {0.8f, 0.32f}, {0.6875f, -0.625f}, 23},
  };
  for (int delta_level = 0; delta_level < 2; ++delta_level) {
    cudaMipmappedArray_t array = make_anisotropy_mipmap(
        256, 9, [=](int l, int x, int y) { return l == delta_level && x == 128 >> l && y == 128 >> l ? 1.0f : 0.0f; });
    cudaTextureObject_t t = anisotropic_texture(array, cudaAddressModeClamp, 4, 8);
    std::vector<two_level_fetch> these;
    for (const auto& f : fetches)
      if (f.delta_level == delta_level) these.push_back(f);
    device_buffer<two_level_fetch> at(these);
    const two_level_fetch* f = at.p;
    auto got = run_fetches<float>(static_cast<int>(these.size()), [=](int i) {
      return tex2DGrad<float>(t, (128.5f + f[i].offset[0]) / 256, (128.5f + f[i].offset[1]) / 256,
                              make_float2(f[i].dx[0] / 256, f[i].dx[1] / 256),
                              make_float2(f[i].dy[0] / 256, f[i].dy[1] / 256));
    });
    for (std::size_t i = 0; i < these.size(); ++i) {
      CAPTURE(delta_level);
      CAPTURE(these[i].offset[0]);
      CAPTURE(these[i].offset[1]);
      CHECK(got[i] * 1024 == these[i].expected);
    }
    cudaDestroyTextureObject(t);
    cudaFreeMipmappedArray(array);
  }
}

TEST_CASE("point-filtered anisotropic fetches take the same samples, each reading the one texel under it") {
  // An H200 (anisotropy6.txt, configurations 2 and 11; values in 1024ths):
  // along x with a major axis of 3, the samples at +-0.5 (342/1024) and
  // +-1.5 (170/1024), each the whole weight of the texel it falls in; on
  // the upper of two levels (share 1/2, a line of 3 of its texels) each
  // weight times the share rounded as a running sum from the back of the
  // line, so that a pair's two samples differ: 84, 172, 170, 86.
  cudaMipmappedArray_t on_level0 =
      make_anisotropy_mipmap(256, 9, [](int l, int x, int y) { return l == 0 && x == 128 && y == 128 ? 1.0f : 0.0f; });
  cudaMipmappedArray_t on_level1 =
      make_anisotropy_mipmap(256, 9, [](int l, int x, int y) { return l == 1 && x == 64 && y == 64 ? 1.0f : 0.0f; });
  cudaTextureObject_t lower = anisotropic_texture(on_level0, cudaAddressModeClamp, 16, 8, cudaFilterModePoint);
  cudaTextureObject_t upper = anisotropic_texture(on_level1, cudaAddressModeClamp, 16, 8, cudaFilterModePoint);
  struct point_anisotropic_fetch {
    bool on_upper_level;
    float offset;    // from texel (128, 128)'s centre along x, in level-0 texels
    float expected;  // the H200's, in 1024ths
  };
  const std::vector<point_anisotropic_fetch> fetches = {
      {false, -2.0f, 170}, {false, -1.125f, 170}, {false, -1.0f, 342}, {false, 0.875f, 342},
      {false, 1.0f, 170},  {false, 2.0f, 0},      {true, -3.5f, 84},   {true, -1.5f, 172},
      {true, 0.5f, 170},   {true, 2.5f, 86},      {true, 4.5f, 0},
  };
  device_buffer<point_anisotropic_fetch> at(fetches);
  const point_anisotropic_fetch* f = at.p;
  auto got = run_fetches<float>(static_cast<int>(fetches.size()), [=](int i) {
    float x = (128.5f + f[i].offset) / 256, y = 128.5f / 256;
    if (f[i].on_upper_level)
      return tex2DGrad<float>(upper, x, y, make_float2(6.0f / 256, 0), make_float2(0, 1.41421356f / 256));
    return tex2DGrad<float>(lower, x, y, make_float2(3.0f / 256, 0), make_float2(0, 0));
  });
  for (std::size_t i = 0; i < fetches.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] * 1024 == fetches[i].expected);
  }
  cudaDestroyTextureObject(lower);
  cudaDestroyTextureObject(upper);
  cudaFreeMipmappedArray(on_level0);
  cudaFreeMipmappedArray(on_level1);
}

TEST_CASE("a line of 1 to 2 texels takes two samples of 1/2; past P = 8 the inner weight is truncated to 1024ths") {
  // An H200 (anisotropy6.txt, configurations 14, 250 and 280; values in
  // 1024ths): along x with P = 1.25 the samples lie at +-52/256 of a texel,
  // so the delta reads 1 - 52/256 around its centre and falls off linearly
  // past it; P = 8.0625 weighs its inner samples 126/1024 (253/2048 at 8
  // significant bits, truncated), P = 9 113/1024 (227.25/2048 rounds to
  // 227, truncated to 113).
  cudaMipmappedArray_t array =
      make_anisotropy_mipmap(256, 9, [](int l, int x, int y) { return l == 0 && x == 128 && y == 128 ? 1.0f : 0.0f; });
  cudaTextureObject_t t = anisotropic_texture(array, cudaAddressModeClamp, 16, 8);
  struct line_fetch {
    float length;    // the major axis along x, in texels; dy = 0
    float offset;    // from the delta's centre along x
    float expected;  // the H200's, in 1024ths
  };
  const std::vector<line_fetch> fetches = {
      {1.25f, 0.0f, 816}, {1.25f, -0.1875f, 816}, {1.25f, 0.25f, 768},  {1.25f, -0.5f, 512},   {1.25f, 1.1875f, 8},
      {1.0f, 0.25f, 768}, {2.0f, 0.0f, 512},      {8.0625f, 0.0f, 126}, {8.03125f, 0.0f, 127}, {9.0f, 0.0f, 113},
  };
  device_buffer<line_fetch> at(fetches);
  const line_fetch* f = at.p;
  auto got = run_fetches<float>(static_cast<int>(fetches.size()), [=](int i) {
    return tex2DGrad<float>(t, (128.5f + f[i].offset) / 256, 128.5f / 256, make_float2(f[i].length / 256, 0),
                            make_float2(0, 0));
  });
  for (std::size_t i = 0; i < fetches.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] * 1024 == fetches[i].expected);
  }
  cudaDestroyTextureObject(t);
  cudaFreeMipmappedArray(array);
}
