// The shortcuts a texture fetch takes must give the bits the general rules
// give: the point texel of an unnormalized coordinate without fixed point,
// the address modes' early return for a texel inside, and the copy of a
// float or 32-bit integer texel in place of its format's routines.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "weft/detail/textures/sampling/texture_addressing.hpp"
#include "weft/detail/textures/sampling/texture_sampling.hpp"

namespace {

using namespace weft::detail::textures;

// address_texel as the guide states each mode, with no shortcut.
int address_by_the_rules(int i, int size, address_mode mode) {
  switch (mode) {
    case address_mode::clamp:
      return i < 0 ? 0 : (i >= size ? size - 1 : i);
    case address_mode::border:
      return (i < 0 || i >= size) ? outside_texture : i;
    case address_mode::wrap:
      return ((i % size) + size) % size;
    case address_mode::mirror: {
      int m = ((i % (2 * size)) + 2 * size) % (2 * size);
      return m < size ? m : 2 * size - 1 - m;
    }
  }
  return outside_texture;
}

int fixed_point_texel(float x) { return point_texel(to_fixed_texel(x, false, 7)); }

}  // namespace

TEST_CASE("an unnormalized point texel is the fixed-point texel, for floats across their whole range") {
  const float specials[] = {0.0f,
                            -0.0f,
                            0.5f,
                            -0.5f,
                            0.99999994f,
                            -0.99999994f,
                            1.0f,
                            -1.0f,
                            1073741824.0f,
                            1073741760.0f,
                            1073741952.0f,
                            -1073741824.0f,
                            -1073741952.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::lowest(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN()};
  for (float x : specials) {
    INFO("x = " << x);
    CHECK(unnormalized_point_texel(x) == fixed_point_texel(x));
  }
  // Every 61st bit pattern (all exponents, signs and NaNs; a prime stride
  // so that the low mantissa bits vary), then every float of magnitude in
  // [1, 4), where texel boundaries lie closest to a float's last bit.
  int mismatches = 0;
  for (std::uint64_t bits = 0; bits <= 0xffffffffu; bits += 61) {
    float x = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    mismatches += unnormalized_point_texel(x) != fixed_point_texel(x);
  }
  for (float x = 1.0f; x < 4.0f; x = std::nextafter(x, 8.0f)) {
    mismatches += unnormalized_point_texel(x) != fixed_point_texel(x);
    mismatches += unnormalized_point_texel(-x) != fixed_point_texel(-x);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("every address mode gives the texel its rule gives, inside the texture and out") {
  for (auto mode : {address_mode::wrap, address_mode::clamp, address_mode::mirror, address_mode::border})
    for (int size = 1; size <= 9; ++size)
      for (int i = -40; i <= 40; ++i) {
        INFO("mode " << static_cast<int>(mode) << ", size " << size << ", texel " << i);
        CHECK(address_texel(i, size, mode) == address_by_the_rules(i, size, mode));
      }
}

TEST_CASE("a float or 32-bit integer texel is copied as the words its format's routines return") {
  const channel_encoding encodings[] = {channel_encoding::floating, channel_encoding::signed_integer,
                                        channel_encoding::unsigned_integer};
  // NaNs (quiet and signalling), infinities, subnormals, negative integers.
  const std::uint32_t patterns[] = {0x7fc00001u, 0x7f800001u, 0xff800000u, 0x00000001u,
                                    0x80000000u, 0xffffffffu, 0x3f800000u, 0x12345678u};
  for (channel_encoding encoding : encodings)
    for (int channels : {1, 2, 4}) {
      texture_sampler s{};
      texel_layout layout{encoding, channels, 32};
      s.routines = find_texel_routines(layout, false, false);
      choose_fetch_routines(s, layout, false, false);
      REQUIRE(s.routines != nullptr);
      CHECK(s.raw_word_channels == static_cast<std::size_t>(channels));
      for (std::size_t first = 0; first < std::size(patterns); ++first) {
        alignas(16) std::uint32_t texel[4];
        for (int c = 0; c < 4; ++c) texel[c] = patterns[(first + c) % std::size(patterns)];
        const auto* bytes = reinterpret_cast<const std::byte*>(texel);
        texel_words copied = read_texel(s, bytes), converted = s.routines->words(bytes);
        INFO("encoding " << static_cast<int>(encoding) << ", channels " << channels);
        CHECK(std::memcmp(&copied, &converted, sizeof copied) == 0);
      }
    }
  // Narrower and converted formats keep their routines.
  texture_sampler s{};
  s.layers = 1;
  choose_fetch_routines(s, {channel_encoding::unsigned_integer, 4, 8}, true, false);
  CHECK(s.raw_word_channels == 0u);
  choose_fetch_routines(s, {channel_encoding::floating, 1, 16}, false, false);
  CHECK(s.raw_word_channels == 0u);
}

TEST_CASE("a plain point fetch reads the texel the general rules read, inside, at the edges and outside") {
  constexpr int width = 5, height = 3;
  std::vector<float> texels(width * height);
  for (std::size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<float>(i) + 0.25f;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float xs[] = {-inf, -1e9f, -1.0f, -0.5f, -1e-30f, -0.0f, 0.0f, 1e-30f, 0.5f, 0.99999994f, 1.0f, 2.5f,
                      2.9999998f, 3.0f, 4.9999995f, 5.0f, 5.5f, 1e9f, inf, nan, 3e9f, -3e9f, 2147483648.0f,
                      -2147483904.0f,
                      // Past 32 bits: an index kept to 32 bits would read
                      // 2^32 as texel 0.
                      4294967296.0f, -4294967296.0f, 1e19f, -1e19f};
  for (auto mode : {address_mode::clamp, address_mode::border}) {
    texture_sampler s{};
    s.layers = 1;
    s.address[0] = s.address[1] = s.address[2] = mode;
    s.border_texel[0] = std::byte{0x42};
    texture_level level{};
    level.base = reinterpret_cast<const std::byte*>(texels.data());
    level.stride[0] = sizeof(float);
    level.stride[1] = width * sizeof(float);
    level.size[0] = width;
    level.size[1] = height;
    level.size[2] = 1;
    s.levels.push_back(level);
    texel_layout layout{channel_encoding::floating, 1, 32};
    s.routines = find_texel_routines(layout, false, false);
    choose_fetch_routines(s, layout, false, false);
    // Only clamping textures take the plain path; border ones the general
    // one. A fetch reads no flag to tell: the inlined paths find every
    // texel of a border texture outside.
    REQUIRE(s.plain_point == (mode == address_mode::clamp));
    if (!s.plain_point) {
      for (float x : xs)
        for (float y : xs) {
          INFO("border, at (" << x << ", " << y << ")");
          const std::byte* plain = nullptr;
          const float* dense = nullptr;
          CHECK_FALSE(plain_point_texel<2>(s, {{x, y}}, plain));
          CHECK_FALSE(plain_point_dense_texel<2, 1>(s, {{x, y}}, dense));
        }
      continue;
    }
    for (float x : xs)
      for (float y : xs) {
        texture_coordinates<2> at{{x, y}};
        texel_words plain = sample_plain_point<2>(s, at), general = sample<2>(s, at, 0);
        INFO("mode " << static_cast<int>(mode) << ", at (" << x << ", " << y << ")");
        CHECK(plain.word[0] == general.word[0]);
      }
  }
}

TEST_CASE("the dense point path reads the texel the plain one reads, and only texels packed with no gap take it") {
  constexpr int width = 5, height = 3;
  std::vector<float> texels(2 * width * height);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float xs[] = {-1e9f, -1.0f, -0.5f,         -0.0f,         0.0f,           0.5f,  0.99999994f,
                      1.0f,  2.5f,  4.9999995f,    5.0f,          5.5f,           1e9f,  nan,
                      3e9f,  -3e9f, 2147483648.0f, 4294967296.0f, -4294967296.0f, 1e19f, -1e19f};
  // Texels of 1 float with strides of 4 bytes (dense) and 8 (every other
  // float, as a view of one channel of float2 texels would be).
  for (std::size_t stride : {sizeof(float), 2 * sizeof(float)}) {
    texture_sampler s{};
    s.layers = 1;
    s.address[0] = s.address[1] = s.address[2] = address_mode::clamp;
    texture_level level{};
    level.base = reinterpret_cast<const std::byte*>(texels.data());
    level.stride[0] = stride;
    level.stride[1] = width * stride;
    level.size[0] = width;
    level.size[1] = height;
    level.size[2] = 1;
    s.levels.push_back(level);
    texel_layout layout{channel_encoding::floating, 1, 32};
    s.routines = find_texel_routines(layout, false, false);
    choose_fetch_routines(s, layout, false, false);
    REQUIRE(s.plain_point);
    bool packed = stride == sizeof(float);
    CHECK(s.plain_dense_words == (packed ? 1u : 0u));
    for (float x : xs)
      for (float y : xs) {
        INFO("stride " << stride << ", at (" << x << ", " << y << ")");
        texture_coordinates<2> at{{x, y}};
        const std::byte* plain = nullptr;
        const float* dense = nullptr;
        bool plain_inside = plain_point_texel<2>(s, at, plain);
        // Only texels packed with no gap, fetched as as many floats as they
        // have, take the dense path: the others find every texel outside.
        REQUIRE(plain_point_dense_texel<2, 1>(s, at, dense) == (packed && plain_inside));
        if (packed && plain_inside) CHECK(reinterpret_cast<const std::byte*>(dense) == plain);
        CHECK_FALSE(plain_point_dense_texel<2, 2>(s, at, dense));
        CHECK_FALSE(plain_point_dense_texel<2, 4>(s, at, dense));
      }
  }
}
