// The level of detail tex2DGrad takes from its gradients, checked bit for bit
// against fetches measured on an H100
// (tests/differential/h100_measurements/gradients.txt: tex2DGrad at the
// centre of a 1024 x 1024 float mipmap whose level l holds l, point
// filtering within levels and linear between them, so that each result is
// the level of detail, its fraction in 256ths).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstring>
#include <vector>

#include "texture_fetching.hpp"
#include "weft/detail/textures/sampling/gradient_level.hpp"

namespace {

namespace textures = weft::detail::textures;

// One measured fetch: the gradients as the program passed them (normalized
// coordinates of the 1024-texel mipmap), the texture's maxAnisotropy, and the
// level the H100 returned.
struct gradient_level_measurement {
  unsigned max_anisotropy;
  float dx[2], dy[2];
  float level;
};

// The level of detail, in 256ths, weft computes for a measurement (before
// the blend's sharpening): the gradients in texels of level 0.
int gradient_level_in_256ths(const gradient_level_measurement& m) {
  const float dx[2] = {m.dx[0] * 1024, m.dx[1] * 1024}, dy[2] = {m.dy[0] * 1024, m.dy[1] * 1024};
  return textures::level_from_footprint(dx, dy, m.max_anisotropy);
}

// A 1024 x 1024 float mipmap of 11 levels, level l holding l, as the H100's
// measuring program made it; a texture over it per maxAnisotropy.
struct gradient_level_mipmap {
  cudaMipmappedArray_t array = nullptr;

  gradient_level_mipmap() {
    cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
    REQUIRE(cudaMallocMipmappedArray(&array, &format, make_cudaExtent(1024, 1024, 0), 11, 0) == cudaSuccess);
    for (int l = 0; l < 11; ++l) {
      cudaArray_t level = nullptr;
      REQUIRE(cudaGetMipmappedArrayLevel(&level, array, l) == cudaSuccess);
      std::size_t width = 1024u >> l;
      std::vector<float> texels(width * width, static_cast<float>(l));
      REQUIRE(cudaMemcpy2DToArray(level, 0, 0, texels.data(), width * 4, width * 4, width, cudaMemcpyHostToDevice) ==
              cudaSuccess);
    }
  }
  ~gradient_level_mipmap() { CHECK(cudaFreeMipmappedArray(array) == cudaSuccess); }

  cudaTextureObject_t texture(unsigned max_anisotropy) const {
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeMipmappedArray;
    resource.res.mipmap.mipmap = array;
    cudaTextureDesc desc{};
    desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeWrap;
    desc.filterMode = cudaFilterModePoint;
    desc.mipmapFilterMode = cudaFilterModeLinear;
    desc.normalizedCoords = 1;
    desc.maxMipmapLevelClamp = 10;
    desc.maxAnisotropy = max_anisotropy;
    cudaTextureObject_t object = 0;
    REQUIRE(cudaCreateTextureObject(&object, &resource, &desc, nullptr) == cudaSuccess);
    return object;
  }
};

// What tex2DGrad returns through weft for each measurement.
std::vector<float> gradient_level_fetches(const std::vector<gradient_level_measurement>& ms) {
  gradient_level_mipmap mipmap;
  std::vector<cudaTextureObject_t> objects;
  for (const auto& m : ms) objects.push_back(mipmap.texture(m.max_anisotropy));
  device_buffer<gradient_level_measurement> at(ms);
  device_buffer<cudaTextureObject_t> through(objects);
  const gradient_level_measurement* measured = at.p;
  const cudaTextureObject_t* texture = through.p;
  auto got = run_fetches<float>(static_cast<int>(ms.size()), [=](int i) {
    const gradient_level_measurement& m = measured[i];
    return tex2DGrad<float>(texture[i], 0.5f, 0.5f, make_float2(m.dx[0], m.dx[1]), make_float2(m.dy[0], m.dy[1]));
  });
  for (cudaTextureObject_t t : objects) CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  return got;
}

}  // namespace

TEST_CASE("an H100's log2 of a footprint's length has an integer level at powers of two, 8 fractional bits else") {
  CHECK(textures::fixed_level_log2(1.0) == 0);
  CHECK(textures::fixed_level_log2(8.0) == 3 * 256);
  CHECK(textures::fixed_level_log2(0.25) == -2 * 256);
  // log2(1.5) = 0.58496: 149.75 256ths; the H100 takes 150 (its table's
  // entry for the mantissa 1.5 and the 1/256 above it).
  CHECK(textures::fixed_level_log2(1.5) == 150);
  CHECK(textures::fixed_level_log2(0.0) == textures::lowest_gradient_level);
}

TEST_CASE("tex2DGrad's level of detail along the axes: the H100's log2 of the longer gradient") {
  // Measured: gradients (0.0702 * 1024, 0) and (0, 0.0702 * 1024) gave level
  // 6.1875, and (0x1.bc225ap-3, 0), (0, -0x1.761d58p-3) level 7.796875.
  CHECK(gradient_level_in_256ths({1, {0x1.2330c8p-4f, 0}, {0, 0x1.2330c8p-4f}, 0}) == 6 * 256 + 48);
  CHECK(gradient_level_in_256ths({0, {0x1.bc225ap-3f, 0}, {0, -0x1.761d58p-3f}, 0}) == 7 * 256 + 204);
}

TEST_CASE("tex2DGrad's level of detail off the axes: the longest of four approximate lengths") {
  // The example of docs/textures.md: gradients (-4.0, 8.4) and (-8.9, 6.5)
  // texels. log2 of the longer is 3.461; the H100 took 3.73046875, the
  // length of dx - dy times 11/16.
  CHECK(gradient_level_in_256ths({0, {-0x1.022b7ap-8f, 0x1.0c5eaap-7f}, {-0x1.1c6ee6p-7f, 0x1.a01a34p-8f}, 0}) ==
        3 * 256 + 187);
  // One gradient the longest: 1.05078125.
  CHECK(gradient_level_in_256ths({1, {0x1.2f9d56p-10f, 0x1.abce8ep-10f}, {0x1.7eed18p-11f, 0x1.c08ap-15f}, 0}) ==
        256 + 13);
  // A diagonal the longest: 3.765625.
  CHECK(gradient_level_in_256ths({1, {-0x1.f8a2aep-8f, 0x1.30e396p-9f}, {0x1.0603c8p-7f, -0x1.0d9a04p-7f}, 0}) ==
        3 * 256 + 196);
}

TEST_CASE("tex2DGrad's approximate lengths round the shorter component's share as an H200 does") {
  // Measured on an H200 (h100_measurements/gradient_lengths.txt and
  // gradient_rules.txt). dx = (1, 1210/8192) texels: 11/32 of the shorter
  // component is 25.996/512, but its mantissa's (11 m + 4) >> 5 counts
  // 26/512, level 19/256 (18 by the exact share).
  CHECK(gradient_level_in_256ths({0, {0x1p-10f, 0x1.2e8p-13f}, {0, 0}, 0}) == 19);
  // dx = dy = (1, 2030/8192): the diagonal, 11/16 of (2, 0.4956), is the
  // major axis; its shorter share (121 m + 32) >> 9 gives 147/256, where
  // 11/32 of the scaled component, rounded, would give 148.
  CHECK(gradient_level_in_256ths({0, {0x1p-10f, 0x1.fb8p-13f}, {0x1p-10f, 0x1.fb8p-13f}, 0}) == 147);
  // A length just below 2 stays below level 1: the log table's last entry.
  CHECK(textures::fixed_level_log2(1.998046875) == 255);
}

TEST_CASE("a diagonal's shorter component adds its share in half units, as the longer one's scaled length has") {
  // Measured on an H100 (gradients.txt, maxAnisotropy 0): dx + dy =
  // (0.2661, 0.1318) texels, its shorter share (121 m + 32) >> 8 half units
  // brings the diagonal to level 298/256; in whole units it gave 296.
  const float dx[2] = {0x1.4870dcp-10f * 1024, 0x1.2c9298p-10f * 1024};
  const float dy[2] = {-0x1.d3e598p-11f * 1024, -0x1.5364f4p-10f * 1024};
  CHECK(textures::level_from_footprint(dx, dy, 0) == 298);
}

TEST_CASE("a diagonal adds its components with the smaller cut to the larger's 11th bit, toward zero") {
  // Measured on an H100 (gradients.txt, maxAnisotropy 0): dx + dy has
  // y = 0.2749 - 16.0 texels; 0.2749 cut to 1/64 (the 11th bit of 16) is
  // 0.265625, so the sum is -15.734375 where the exact one is -15.7251, and
  // the diagonal's level 1151/256 (1150 with the exact sum).
  const float dx[2] = {-0x1.1a35bp-6f * 1024, 0x1.19d822p-12f * 1024};
  const float dy[2] = {-0x1.3add1p-7f * 1024, -0x1.00162ep-6f * 1024};
  CHECK(textures::level_from_footprint(dx, dy, 0) == 1151);
  // tex3DGrad's diagonals too (gradients3d.txt, 256^3 texels): 761/256,
  // 760 with the exact sums.
  const float dx3[3] = {-0x1.19c66cp-6f * 256, -0x1.215bb4p-8f * 256, 0x1.4f3aeap-6f * 256};
  const float dy3[3] = {0x1.293f74p-9f * 256, -0x1.0cd90ap-6f * 256, 0x1.b3437p-7f * 256};
  CHECK(textures::level_from_footprint(dx3, dy3) == 0x1.7c8p+1 * 256);
}

TEST_CASE("tex3DGrad's shares: 11 m + 4 of the middle component kept to 10 bits before the smallest's 8 n") {
  // Measured on an H200 (gradient_rules2.txt, T): dx = (748, 748, 3) / 512
  // texels. 11 m + 4 = 8232 is past 2^13, so kept to 10 bits it is 8224;
  // with 8 n = 24 the share is 257/512, level 249/256 (258/512 and 250 if
  // the sum were taken whole).
  const float dx[3] = {748.0f / 512, 748.0f / 512, 3.0f / 512}, dy[3] = {0, 0, 0};
  CHECK(textures::level_from_footprint(dx, dy) == 249);
}

TEST_CASE("tex3DGrad's diagonals: a quarter of the smallest component scaled by 11/16 in its own grid") {
  // Measured on an H200 (gradient_rules3.txt, V): dx = dy = (513, 512, 3) /
  // 512 texels, so the diagonal 2 (513, 512, 3) / 512 is the major axis.
  // The smallest, 3/256, scaled by 11/16 in its own 10-bit grid and
  // quartered, adds 0.52 of a unit (1/256) of the middle's grid to the
  // middle's 121: 243 half units once floored, level 228/256 (227 with the
  // shares summed in whole units).
  const float g[3] = {513.0f / 512, 1, 3.0f / 512};
  CHECK(textures::level_from_footprint(g, g) == 228);
  // A measured fetch (gradients3d.txt, maxAnisotropy 0, 256^3 texels).
  const float dx[3] = {-0x1.00d736p-3f * 256, 0x1.d8f18cp-4f * 256, -0x1.536868p-3f * 256};
  const float dy[3] = {0x1.bfbefcp-3f * 256, 0x1.df6b2ep-4f * 256, 0x1.69042ap-3f * 256};
  CHECK(textures::level_from_footprint(dx, dy) == 0x1.96p+2 * 256);
}

TEST_CASE("with maxAnisotropy above 1, the level of the minor axis, at most log2(maxAnisotropy) below the major's") {
  // The example above (major axis 3.73046875, area 48.1 texels, so a minor
  // axis of 1.859375): with maxAnisotropy 2 the major axis over 2 (2.73,
  // measured 2.84765625 once the blend is sharpened); with 4 and 16 the
  // minor axis (measured 2.0 for both, the sharpened 1.859375).
  const float dx[2] = {-0x1.022b7ap-8f * 1024, 0x1.0c5eaap-7f * 1024};
  const float dy[2] = {-0x1.1c6ee6p-7f * 1024, 0x1.a01a34p-8f * 1024};
  CHECK(textures::level_from_footprint(dx, dy, 1) == 3 * 256 + 187);
  CHECK(textures::level_from_footprint(dx, dy, 2) == 2 * 256 + 187);
  CHECK(textures::level_from_footprint(dx, dy, 4) == 256 + 220);
  CHECK(textures::level_from_footprint(dx, dy, 16) == 256 + 220);
  CHECK(textures::sharpened_level_fraction(187, 2) == 217);
  CHECK(textures::sharpened_level_fraction(220, 4) == 256);
  // maxAnisotropy above 16 is 16.
  CHECK(textures::level_from_footprint(dx, dy, 64) == 256 + 220);
  // The sampler holds 1, 2, 4, 6, 8, 10, 12 or 16, the largest at or below
  // the value asked: 3 acts as 2, 5 as 4 (gradients_anisotropy.txt).
  CHECK(textures::level_from_footprint(dx, dy, 3) == 2 * 256 + 187);
  CHECK(textures::level_from_footprint(dx, dy, 5) == 256 + 220);
  CHECK(textures::held_max_anisotropy(3).value == 2);
  CHECK(textures::held_max_anisotropy(9).value == 8);
  CHECK(textures::held_max_anisotropy(15).value == 12);
  CHECK(textures::held_max_anisotropy(64).value == 16);
  CHECK(textures::held_max_anisotropy(0).value == 1);
  // Its log2 truncated to 4 fractional bits: for 6, 2 + 9/16 (the table's
  // 8-bit log2 would be 2 + 150/256).
  CHECK(textures::held_max_anisotropy(7).level_log2 == 2 * 256 + 144);
  CHECK(textures::held_max_anisotropy(13).level_log2 == 3 * 256 + 144);
}

TEST_CASE("maxAnisotropy between the held values: the cap and the blend of the one below") {
  // Measured on an H200 (gradients_anisotropy.txt): a footprint whose major
  // axis has level 2043/256 and whose minor axis lies far below, so that
  // the cap alone sets the level: log2 of 6, 10 and 12 truncated to 16ths
  // below the major axis's, and 7, 11 and 13 to 15 as the value below them.
  const float dx[2] = {-0x1.588ac4p-5f * 1024, 0x1.d3211p-4f * 1024};
  const float dy[2] = {0x1.84dea6p-4f * 1024, -0x1.956314p-3f * 1024};
  CHECK(textures::level_from_footprint(dx, dy, 6) == 2043 - 656);
  CHECK(textures::level_from_footprint(dx, dy, 7) == 2043 - 656);
  CHECK(textures::level_from_footprint(dx, dy, 10) == 2043 - 848);
  CHECK(textures::level_from_footprint(dx, dy, 11) == 2043 - 848);
  CHECK(textures::level_from_footprint(dx, dy, 12) == 2043 - 912);
  CHECK(textures::level_from_footprint(dx, dy, 14) == 2043 - 912);
  CHECK(textures::level_from_footprint(dx, dy, 15) == 2043 - 912);
  CHECK(textures::level_from_footprint(dx, dy, 3) == textures::level_from_footprint(dx, dy, 2));
  CHECK(textures::level_from_footprint(dx, dy, 5) == textures::level_from_footprint(dx, dy, 4));
  CHECK(textures::level_from_footprint(dx, dy, 9) == textures::level_from_footprint(dx, dy, 8));
  // The blend's slope: 3/2 for 3, 7/4 for 6 and 7, 2 from 8.
  CHECK(textures::sharpened_level_fraction(107, 3) == 97);
  CHECK(textures::sharpened_level_fraction(107, 7) == 92);
  CHECK(textures::sharpened_level_fraction(171, 10) == 214);
  CHECK(textures::sharpened_level_fraction(107, 15) == 86);
}

TEST_CASE("the footprint's area: each product from a truncated multiplier, rounded up to 2^9 of its mantissa") {
  // Measured on an H200 (minor_axis.txt: axis-aligned footprints, whose area
  // is the single product a b; maxAnisotropy 16, so the level is the minor
  // axis's). dx = (65, 0), dy = (0, 32.5625) texels: the mantissas 520 and
  // 521 multiply to 270920 units, 270912 through the truncated multiplier,
  // rounded up to 271360: level 1287/256 (1286 from the exact product).
  const float dx[2] = {65, 0}, dy[2] = {0, 32.5625f};
  CHECK(textures::level_from_footprint(dx, dy, 16) == 1287);
  // dx = (69.375, 0), dy = (0, 59.6875): mantissas 555 and 955, 530025
  // units exactly; the multiplier drops 169 of them, and rounded up 529856
  // becomes 529920, below the exact product: level 1510/256 (the exact
  // product rounded up, 530432, gives 1511).
  const float dx2[2] = {69.375f, 0}, dy2[2] = {0, 59.6875f};
  CHECK(textures::level_from_footprint(dx2, dy2, 16) == 1510);
  CHECK(textures::footprint_area(69.375, 0, 0, 59.6875) == 529920.0 / 128);
}

TEST_CASE("the footprint's area: the smaller product aligned to the larger's 10-bit grid, cut or rounded") {
  // Measured on an H200 (gradient_rules2.txt, F: maxAnisotropy 16). Products
  // of opposite signs add, the smaller cut toward zero to the larger's 10th
  // significant bit: level 652/256 (653 with the smaller rounded).
  const float dx[2] = {0x1.771b8p+1f, 0x1.a2b0dap+2f}, dy[2] = {0x1.8729d6p+2f, -0x1.6d7444p+0f};
  CHECK(textures::level_from_footprint(dx, dy, 16) == 652);
  // Products of one sign subtract, the smaller rounded to nearest on that
  // grid: level 110/256 (111 with it cut toward zero).
  const float dx2[2] = {-0x1.095e0ep+3f, -0x1.d9bb5p+1f}, dy2[2] = {0x1.cde424p+2f, 0x1.4b928ep+0f};
  CHECK(textures::level_from_footprint(dx2, dy2, 16) == 110);
  // The smaller product is first cut to its own 10 significant bits, which
  // matters where it lies in the larger's binade: 408 - 310.75 texels^2,
  // the smaller's mantissa 621.5 units of the larger's grid, is 408 - 310.5
  // = 97.5: level 364/256, fetched as 1.34375 (gradients.txt, maxAnisotropy
  // 16; rounded on the larger's grid, 311, it gave 362 and 1.328125). With
  // products of one exponent, 867 - 565.5 units: 604 texels^2, level 684/256
  // (602 and 682 rounded on the grid), fetched as 2.84375.
  const float dx3[2] = {-0x1.b85bd8p+3f, -0x1.1f28dap+4f}, dy3[2] = {-0x1.6c1d62p+4f, -0x1.69db4cp+4f};
  CHECK(textures::footprint_area(-13.75, -17.9375, -22.75, -22.59375) == 97.5);  // dx3, dy3 held to 10 bits
  CHECK(textures::level_from_footprint(dx3, dy3, 16) == 364);
  const float dx4[2] = {-0x1.bffe4cp+5f, 0x1.305fcp+6f}, dy4[2] = {0x1.dc05fp+3f, -0x1.f0779ep+4f};
  CHECK(textures::level_from_footprint(dx4, dy4, 16) == 684);
}

TEST_CASE("with maxAnisotropy above 1, an H100 blends two levels with a sharpened weight") {
  // Measured for 2: fractions below 43/256 take the lower level alone, from
  // 213/256 the upper; between, the weight rises 3/2 as fast.
  CHECK(textures::sharpened_level_fraction(42, 2) == 0);
  CHECK(textures::sharpened_level_fraction(43, 2) == 1);
  CHECK(textures::sharpened_level_fraction(44, 2) == 3);
  CHECK(textures::sharpened_level_fraction(129, 2) == 130);
  CHECK(textures::sharpened_level_fraction(213, 2) == 256);
  // 4: 7/4 as fast; 16: twice, from 64/256 to 192/256.
  CHECK(textures::sharpened_level_fraction(58, 4) == 7);
  CHECK(textures::sharpened_level_fraction(64, 4) == 17);
  CHECK(textures::sharpened_level_fraction(130, 4) == 133);
  CHECK(textures::sharpened_level_fraction(64, 16) == 0);
  CHECK(textures::sharpened_level_fraction(65, 16) == 2);
  CHECK(textures::sharpened_level_fraction(192, 16) == 256);
  // 3 as 2, 5 to 7 as 4, 8 to 15 as 16 (gradients3d_anisotropy.txt).
  CHECK(textures::sharpened_level_fraction(43, 3) == 1);
  CHECK(textures::sharpened_level_fraction(130, 7) == 133);
  CHECK(textures::sharpened_level_fraction(65, 8) == 2);
  CHECK(textures::sharpened_level_fraction(64, 15) == 0);
  // Without anisotropy the fraction is the blend's weight.
  CHECK(textures::sharpened_level_fraction(65, 1) == 65);
  CHECK(textures::sharpened_level_fraction(65, 0) == 65);
}

TEST_CASE("tex2DGrad returns the H100's measured levels, each maxAnisotropy") {
  const std::vector<gradient_level_measurement> measured = {
      {0, {0x1.cbbf1cp-5f, 0}, {0, 0x1.cbbf1cp-5f}, 0x1.76p+2f},
      {0, {-0x1.022b7ap-8f, 0x1.0c5eaap-7f}, {-0x1.1c6ee6p-7f, 0x1.a01a34p-8f}, 0x1.dd8p+1f},
      {1, {0x1.2f9d56p-10f, 0x1.abce8ep-10f}, {0x1.7eed18p-11f, 0x1.c08ap-15f}, 0x1.0dp+0f},
      {2, {0x1.ccb0eap-10f, -0x1.09b9f2p-10f}, {0x1.87769p-10f, 0x1.046286p-9f}, 0x1p+0f},
      {2, {0x1.201898p-3f, 0x1.285184p-4f}, {0x1.2895eep-3f, 0x1.e582bcp-4f}, 0x1.cp+2f},
      {2, {0x1.db71fcp-3f, 0}, {0, -0x1.64b3eap-3f}, 0x1.dd8p+2f},
      {4, {-0x1.04b13p-3f, 0x1.fe4b22p-4f}, {0x1.3fc5b6p-6f, 0x1.6eddecp-6f}, 0x1.5a4p+2f},
      {4, {0x1.2ac3c2p-7f, 0}, {0, 0x1.2ac3c2p-7f}, 0x1.828p+1f},
      {4, {-0x1.859abp-9f, -0x1.5015fep-6f}, {-0x1.81f2cep-7f, 0x1.c09e9p-7f}, 0x1.bf8p+1f},
      {16, {-0x1.7c6016p-2f, -0x1.18474ep-3f}, {0x1.3292d4p-1f, 0x1.2e4ff4p-2f}, 0x1.6f8p+2f},
      {16, {0x1.1d7f4ep-7f, 0}, {0, 0x1.1d7f4ep-7f}, 0x1.8p+1f},
      {16, {0x1.203eccp-9f, -0x1.960c32p-9f}, {0x1.a7f418p-8f, 0x1.cbfb06p-9f}, 0x1p+1f},
      {16, {-0x1.022b7ap-8f, 0x1.0c5eaap-7f}, {-0x1.1c6ee6p-7f, 0x1.a01a34p-8f}, 0x1p+1f},
      // Minor axes whose area the truncated multiplier and the alignment
      // decide (footprint_area.hpp).
      {2, {-0x1.ad7538p-10f, -0x1.a24a6ap-10f}, {0x1.3e5d9p-10f, -0x1.9b65ecp-11f}, 0x1.46p-1f},
      {4, {-0x1.06ca5ap-7f, -0x1.28a438p-9f}, {0x1.8505eap-9f, 0x1.091b0cp-8f}, 0x1.94p+0f},
      {16, {-0x1.06ca5ap-7f, -0x1.28a438p-9f}, {0x1.8505eap-9f, 0x1.091b0cp-8f}, 0x1.96p+0f},
      // Values between those the sampler holds (an H200, gradients_anisotropy.txt).
      {3, {0x1.febb08p-8f, -0x1.ac68c2p-6f}, {0x1.52488p-7f, -0x1.5badb8p-6f}, 0x1.06cp+2f},
      {6, {-0x1.588ac4p-5f, 0x1.d3211p-4f}, {0x1.84dea6p-4f, -0x1.956314p-3f}, 0x1.57p+2f},
      {7, {0x1.febb08p-8f, -0x1.ac68c2p-6f}, {0x1.52488p-7f, -0x1.5badb8p-6f}, 0x1.67p+1f},
      {10, {-0x1.588ac4p-5f, 0x1.d3211p-4f}, {0x1.84dea6p-4f, -0x1.956314p-3f}, 0x1.358p+2f},
      {12, {-0x1.588ac4p-5f, 0x1.d3211p-4f}, {0x1.84dea6p-4f, -0x1.956314p-3f}, 0x1.158p+2f},
      {15, {0x1.febb08p-8f, -0x1.ac68c2p-6f}, {0x1.52488p-7f, -0x1.5badb8p-6f}, 0x1.d8p+0f},
  };
  auto got = gradient_level_fetches(measured);
  for (std::size_t i = 0; i < measured.size(); ++i) {
    CAPTURE(i);
    CHECK(bits(got[i]) == bits(measured[i].level));
  }
}
