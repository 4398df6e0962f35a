// Texture fetches in kernels, over linear and pitched 2D memory: point and
// linear filtering, each address mode, normalized and unnormalized
// coordinates, the read modes, sRGB and the border colour. Every expected
// value is worked out by hand from the rules of the CUDA guide (6.2.14.1 and
// the appendix "Texture Fetching"), not from weft's code.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include "device_buffer.hpp"
#include "texture_fetching.hpp"

namespace {

// A 4x2 float texture in pitched memory:  0  1  2  3
//                                         10 11 12 13
struct pitched_floats {
  float* memory = nullptr;
  std::size_t pitch = 0;
  pitched_floats() {
    REQUIRE(cudaMallocPitch(reinterpret_cast<void**>(&memory), &pitch, 4 * sizeof(float), 2) == cudaSuccess);
    float rows[2][4] = {{0, 1, 2, 3}, {10, 11, 12, 13}};
    REQUIRE(cudaMemcpy2D(memory, pitch, rows, sizeof rows[0], sizeof rows[0], 2, cudaMemcpyHostToDevice) ==
            cudaSuccess);
  }
  ~pitched_floats() { cudaFree(memory); }

  cudaTextureObject_t texture(cudaTextureFilterMode filter, cudaTextureAddressMode address, bool normalized,
                              float border = 0.0f) const {
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypePitch2D;
    resource.res.pitch2D.devPtr = memory;
    resource.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    resource.res.pitch2D.width = 4;
    resource.res.pitch2D.height = 2;
    resource.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc desc{};
    desc.addressMode[0] = desc.addressMode[1] = address;
    desc.filterMode = filter;
    desc.readMode = cudaReadModeElementType;
    desc.normalizedCoords = normalized;
    for (float& c : desc.borderColor) c = border;
    cudaTextureObject_t object = 0;
    REQUIRE(cudaCreateTextureObject(&object, &resource, &desc, nullptr) == cudaSuccess);
    return object;
  }
};

struct coordinate {
  float x, y;
};

std::vector<float> fetch_2d(cudaTextureObject_t texture, const std::vector<coordinate>& at) {
  device_buffer<coordinate> points(at);
  const coordinate* p = points.p;
  auto results =
      run_fetches<float>(static_cast<int>(at.size()), [=](int i) { return tex2D<float>(texture, p[i].x, p[i].y); });
  CHECK(cudaDestroyTextureObject(texture) == cudaSuccess);
  return results;
}

// A linear-memory texture of `count` texels of T, read as `read`.
template <class T>
struct linear_texels {
  T* memory = nullptr;
  cudaTextureObject_t object = 0;
  linear_texels(const std::vector<T>& texels, cudaTextureReadMode read, int srgb = 0) {
    REQUIRE(cudaMalloc(&memory, texels.size() * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemcpy(memory, texels.data(), texels.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = memory;
    resource.res.linear.desc = cudaCreateChannelDesc<T>();
    resource.res.linear.sizeInBytes = texels.size() * sizeof(T);
    cudaTextureDesc desc{};
    desc.readMode = read;
    desc.sRGB = srgb;
    REQUIRE(cudaCreateTextureObject(&object, &resource, &desc, nullptr) == cudaSuccess);
  }
  ~linear_texels() {
    cudaDestroyTextureObject(object);
    cudaFree(memory);
  }
  template <class R>
  std::vector<R> fetch_all(int count) const {
    cudaTextureObject_t texture = object;
    return run_fetches<R>(count, [=](int i) { return tex1Dfetch<R>(texture, i); });
  }
};

bool same(float4 a, float4 b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }

}  // namespace

TEST_CASE("a fetch through texture handle 0 returns zeros, in every form, and does not fault") {
  cudaTextureObject_t none = 0;
  auto floats = run_fetches<float>(4, [=](int i) {
    float x = static_cast<float>(i) * 7.5f - 3.0f;
    return tex1Dfetch<float>(none, i * 1000) + tex1D<float>(none, x) + tex2D<float>(none, x, -x) +
           tex3D<float>(none, x, x, x) + tex2DLod<float>(none, x, x, 2.0f);
  });
  for (float f : floats) CHECK(bits(f) == 0u);
  auto vectors = run_fetches<float4>(4, [=](int i) { return tex2D<float4>(none, static_cast<float>(i), 0.5f); });
  for (float4 v : vectors) CHECK(same(v, float4{0, 0, 0, 0}));
  auto integers = run_fetches<int>(4, [=](int i) { return tex1Dfetch<int>(none, i) | tex2D<int>(none, 1.5f, 2.5f); });
  for (int v : integers) CHECK(v == 0);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("point filtering takes texel floor(x), clamped to the edge") {
  pitched_floats t;
  auto got = fetch_2d(
      t.texture(cudaFilterModePoint, cudaAddressModeClamp, false),
      {{0.5f, 0.5f}, {1.5f, 0.5f}, {3.9f, 1.2f}, {2.0f, 1.0f}, {-5.0f, 0.0f}, {100.0f, 100.0f}, {0.99f, 1.99f}});
  CHECK(got == std::vector<float>{0, 1, 13, 12, 0, 13, 10});
}

TEST_CASE("border addressing returns the border colour outside the texture") {
  pitched_floats t;
  auto got = fetch_2d(t.texture(cudaFilterModePoint, cudaAddressModeBorder, false, 7.0f),
                      {{-0.5f, 0.5f}, {4.0f, 0.5f}, {3.5f, 1.5f}, {0.5f, 2.0f}, {0.5f, -0.01f}});
  CHECK(got == std::vector<float>{7, 7, 13, 7, 7});
}

TEST_CASE("normalized coordinates scale by the size; wrap repeats and mirror reflects") {
  pitched_floats t;
  // x * 4 and y * 2 texels: 0.125 -> 0.5, 1.125 -> 4.5 (texel 4), -0.125 -> -0.5 (texel -1).
  std::vector<coordinate> at = {{0.125f, 0.25f}, {1.125f, 0.25f}, {-0.125f, 0.25f}, {1.375f, 0.75f}, {1.875f, 0.25f}};
  // Wrap: texel 4 is texel 0, -1 is 3, 5 is 1, 7 is 3.
  CHECK(fetch_2d(t.texture(cudaFilterModePoint, cudaAddressModeWrap, true), at) == std::vector<float>{0, 0, 3, 11, 3});
  // Mirror: texel 4 is texel 3, -1 is 0, 5 is 2, 7 is 0.
  CHECK(fetch_2d(t.texture(cudaFilterModePoint, cudaAddressModeMirror, true), at) ==
        std::vector<float>{0, 3, 0, 12, 0});
  // Clamp, normalized: [0, 1) covers the texture.
  CHECK(fetch_2d(t.texture(cudaFilterModePoint, cudaAddressModeClamp, true), at) == std::vector<float>{0, 3, 0, 13, 3});
}

TEST_CASE("linear filtering blends the texels around x - 0.5") {
  pitched_floats t;
  auto got = fetch_2d(t.texture(cudaFilterModeLinear, cudaAddressModeClamp, false),
                      {{1.0f, 0.5f},                  // halfway between 0 and 1
                       {1.25f, 1.0f},                 // 0.75 along the rows, halfway down: (0.75 + 10.75) / 2
                       {0.0f, 0.5f},                  // left of texel 0: both neighbours clamp to it
                       {4.0f, 0.5f},                  // right of texel 3: the same
                       {2.5f, 1.5f},                  // a texel centre: the texel
                       {1.5f + 1.0f / 1024, 0.5f}});  // 1/1024 past a centre: below the weights' 1/256 step
  CHECK(got == std::vector<float>{0.5f, 5.75f, 0.0f, 3.0f, 12.0f, 1.0f});
}

TEST_CASE("linear filtering with border addressing blends in the border colour") {
  pitched_floats t;
  auto got = fetch_2d(t.texture(cudaFilterModeLinear, cudaAddressModeBorder, false, 100.0f),
                      {{0.0f, 0.5f}, {4.0f, 0.5f}, {0.5f, 0.5f}});
  CHECK(got == std::vector<float>{50.0f, 51.5f, 0.0f});
}

TEST_CASE("linear filtering with normalized coordinates and wrap blends across the edge") {
  pitched_floats t;
  // x = 0 is texel-space 0: halfway between texel -1 (texel 3) and texel 0.
  auto got = fetch_2d(t.texture(cudaFilterModeLinear, cudaAddressModeWrap, true), {{0.0f, 0.25f}, {1.0f, 0.25f}});
  CHECK(got == std::vector<float>{1.5f, 1.5f});
}

TEST_CASE("normalized-float reads map 8- and 16-bit integers to [0, 1] and [-1, 1]") {
  linear_texels<uchar4> u8({{0, 255, 128, 51}}, cudaReadModeNormalizedFloat);
  CHECK(same(u8.fetch_all<float4>(1)[0], float4{0.0f, 1.0f, 128.0f / 255.0f, 51.0f / 255.0f}));
  linear_texels<char4> s8({{-128, -127, 127, 64}}, cudaReadModeNormalizedFloat);
  CHECK(same(s8.fetch_all<float4>(1)[0], float4{-1.0f, -1.0f, 1.0f, 64.0f / 127.0f}));
  linear_texels<ushort2> u16({{65535, 1000}}, cudaReadModeNormalizedFloat);
  auto u16_read = u16.fetch_all<float2>(1)[0];
  CHECK(u16_read.x == 1.0f);
  CHECK(u16_read.y == 1000.0f / 65535.0f);
  linear_texels<short> s16({-32768, -32767, 32767}, cudaReadModeNormalizedFloat);
  CHECK(s16.fetch_all<float>(3) == std::vector<float>{-1.0f, -1.0f, 1.0f});
}

TEST_CASE("element-type reads return integers unchanged, in any integer type of the caller's") {
  linear_texels<char4> s8({{-1, 2, -3, 127}}, cudaReadModeElementType);
  auto as_char4 = s8.fetch_all<char4>(1)[0];
  CHECK((as_char4.x == -1 && as_char4.y == 2 && as_char4.z == -3 && as_char4.w == 127));
  auto widened = s8.fetch_all<int4>(1)[0];  // sign-extended, as the texture unit's 32-bit words
  CHECK((widened.x == -1 && widened.y == 2 && widened.z == -3 && widened.w == 127));
  linear_texels<unsigned short> u16({65535, 7}, cudaReadModeElementType);
  CHECK(u16.fetch_all<unsigned int>(2) == std::vector<unsigned int>{65535u, 7u});
  linear_texels<float> f({1.5f, -2.25f}, cudaReadModeElementType);
  CHECK(f.fetch_all<float>(2) == std::vector<float>{1.5f, -2.25f});
}

TEST_CASE("sRGB texels read as linear colour, alpha as it is") {
  // The curve's linear part, as an H100 has it: 20/65536 per step.
  linear_texels<uchar4> dark({{1, 2, 5, 0}}, cudaReadModeNormalizedFloat, 1);
  float4 low = dark.fetch_all<float4>(1)[0];
  CHECK(same(low, float4{20.0f / 65536, 40.0f / 65536, 100.0f / 65536, 0.0f}));
  linear_texels<uchar4> texels({{255, 0, 188, 128}}, cudaReadModeNormalizedFloat, 1);
  float4 got = texels.fetch_all<float4>(1)[0];
  auto to_linear = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
  CHECK(got.x == 1.0f);
  CHECK(got.y == 0.0f);
  // An H100 decodes sRGB with its own approximation of the curve, within
  // 0.002 of it (detail/textures/sampling/srgb_decoding.hpp).
  CHECK(got.z == doctest::Approx(to_linear(188 / 255.0)).epsilon(0.002));
  CHECK(got.w == 128.0f / 255.0f);
}

TEST_CASE("out-parameter and sparse forms return what the value forms do") {
  pitched_floats t;
  cudaTextureObject_t texture = t.texture(cudaFilterModePoint, cudaAddressModeClamp, false);
  auto got = run_fetches<float>(2, [=](int i) {
    float value = 0;
    bool resident = false;
    if (i == 0) {
      tex2D(&value, texture, 1.5f, 1.5f);
    } else {
      value = tex2D<float>(texture, 2.5f, 0.5f, &resident);
      if (!resident) value = -1;
    }
    return value;
  });
  CHECK(got == std::vector<float>{11, 2});
  CHECK(cudaDestroyTextureObject(texture) == cudaSuccess);
}

// What an H100 does where the guide leaves it open (texture_probe.cu).

TEST_CASE("channels a format lacks read as 0, alpha too") {
  linear_texels<float> f({2.5f}, cudaReadModeElementType);
  CHECK(same(f.fetch_all<float4>(1)[0], float4{2.5f, 0.0f, 0.0f, 0.0f}));
  linear_texels<unsigned char> u8({200}, cudaReadModeElementType);
  auto words = u8.fetch_all<uint4>(1)[0];
  CHECK((words.x == 200 && words.y == 0 && words.z == 0 && words.w == 0));
}

namespace {

// A one-row pitched texture of the texels given.
template <class T>
cudaTextureObject_t row_texture(const std::vector<T>& texels, void** memory, cudaTextureFilterMode filter,
                                cudaTextureReadMode read, bool normalized) {
  std::size_t pitch = 0;
  REQUIRE(cudaMallocPitch(memory, &pitch, texels.size() * sizeof(T), 1) == cudaSuccess);
  REQUIRE(cudaMemcpy(*memory, texels.data(), texels.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypePitch2D;
  resource.res.pitch2D.devPtr = *memory;
  resource.res.pitch2D.desc = cudaCreateChannelDesc<T>();
  resource.res.pitch2D.width = texels.size();
  resource.res.pitch2D.height = 1;
  resource.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc desc{};
  desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
  desc.filterMode = filter;
  desc.readMode = read;
  desc.normalizedCoords = normalized;
  cudaTextureObject_t object = 0;
  REQUIRE(cudaCreateTextureObject(&object, &resource, &desc, nullptr) == cudaSuccess);
  return object;
}

}  // namespace

TEST_CASE("a normalized coordinate is truncated to 22 bits before it is scaled: x = 0.2 of 5 texels is texel 0") {
  void* memory = nullptr;
  cudaTextureObject_t t =
      row_texture<float>({1, 2, 4, 8, 16}, &memory, cudaFilterModePoint, cudaReadModeElementType, true);
  // 0.2f is 0.2000000030: times 5 in float it is 1.0, but truncated to 22
  // bits first it is 0.19999981, and times 5 below 1.
  auto got = run_fetches<float>(3, [=](int i) {
    const float xs[] = {0.2f, 0.203125f, 0.19f};
    return tex2D<float>(t, xs[i], 0.5f);
  });
  CHECK(got == std::vector<float>{1, 2, 1});
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  cudaFree(memory);
}

TEST_CASE("8-bit normalized texels blend as integers widened to 16 bits") {
  void* memory = nullptr;
  cudaTextureObject_t t =
      row_texture<unsigned char>({127, 128}, &memory, cudaFilterModeLinear, cudaReadModeNormalizedFloat, false);
  // Halfway: (127 + 128) / 2 = 127.5, times 257 = 32767.5, rounded up to
  // 32768, over 65535; not 0.5.
  auto got = run_fetches<float>(1, [=](int) { return tex2D<float>(t, 1.0f, 0.5f); });
  CHECK(got[0] == 32768.0f / 65535.0f);
  CHECK(cudaDestroyTextureObject(t) == cudaSuccess);
  cudaFree(memory);
}

TEST_CASE("bilinear weights: the corner (1, 1) gets a * b rounded to 1/256, the others the rest of their row") {
  pitched_floats t;
  // (1.75, 1.2): a = 64/256, b = round(0.7 * 256) = 179/256; a * b = 44.75
  // -> 45/256, so the weights are 58, 19, 134, 45 (/256) of texels
  // 1, 2, 11, 12: (58 + 38 + 1474 + 540) / 256.
  auto got = fetch_2d(t.texture(cudaFilterModeLinear, cudaAddressModeClamp, false), {{1.75f, 1.2f}});
  CHECK(got[0] == (58.0f * 1 + 19.0f * 2 + 134.0f * 11 + 45.0f * 12) / 256.0f);
}

namespace {

// A 3x2 pitched texture of `Channels` floats per texel, point filtered and
// clamped (the inlined point path): channel c of texel (i, j) holds
// 100 c + 10 j + i, but channel 0 of texel (1, 1) holds a signalling NaN.
template <int Channels>
struct pitched_channels {
  float* memory = nullptr;
  std::size_t pitch = 0;
  cudaTextureObject_t object = 0;
  static constexpr std::uint32_t signalling_nan = 0x7fa00001u;
  static float expected(int i, int j, int c) {
    if (i == 1 && j == 1 && c == 0) return std::bit_cast<float>(signalling_nan);
    return static_cast<float>(100 * c + 10 * j + i);
  }
  pitched_channels() {
    REQUIRE(cudaMallocPitch(reinterpret_cast<void**>(&memory), &pitch, 3 * Channels * sizeof(float), 2) == cudaSuccess);
    float rows[2][3 * Channels];
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 3; ++i)
        for (int c = 0; c < Channels; ++c) rows[j][i * Channels + c] = expected(i, j, c);
    REQUIRE(cudaMemcpy2D(memory, pitch, rows, sizeof rows[0], sizeof rows[0], 2, cudaMemcpyHostToDevice) ==
            cudaSuccess);
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypePitch2D;
    resource.res.pitch2D.devPtr = memory;
    resource.res.pitch2D.desc = cudaCreateChannelDesc(32, Channels > 1 ? 32 : 0, Channels > 2 ? 32 : 0,
                                                      Channels > 2 ? 32 : 0, cudaChannelFormatKindFloat);
    resource.res.pitch2D.width = 3;
    resource.res.pitch2D.height = 2;
    resource.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc desc{};
    desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
    desc.filterMode = cudaFilterModePoint;
    desc.readMode = cudaReadModeElementType;
    REQUIRE(cudaCreateTextureObject(&object, &resource, &desc, nullptr) == cudaSuccess);
  }
  ~pitched_channels() {
    cudaDestroyTextureObject(object);
    cudaFree(memory);
  }
};

// Coordinates inside every texel and past every edge, with the texel a
// clamping point fetch reads there.
struct clamped_point {
  float x, y;
  int i, j;
};
const clamped_point clamped_points[] = {
    {0.5f, 0.5f, 0, 0},  {1.5f, 0.5f, 1, 0},  {2.99f, 0.5f, 2, 0}, {0.0f, 1.5f, 0, 1},  {1.5f, 1.5f, 1, 1},
    {2.5f, 1.99f, 2, 1}, {-0.5f, 0.5f, 0, 0}, {-7.0f, 1.5f, 0, 1}, {3.0f, 0.5f, 2, 0},  {1e9f, 1.5f, 2, 1},
    {1.5f, -3.0f, 1, 0}, {1.5f, 2.0f, 1, 1},  {-1e9f, 9.0f, 0, 1}, {5.0f, -5.0f, 2, 0},
};

bool fetched_bits_equal(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

template <int Channels, class T>
void check_point_reads_as() {
  pitched_channels<Channels> texels;
  const cudaTextureObject_t texture = texels.object;
  std::vector<clamped_point> points(std::begin(clamped_points), std::end(clamped_points));
  device_buffer<clamped_point> at(points);
  const clamped_point* p = at.p;
  auto got = run_fetches<T>(static_cast<int>(points.size()), [=](int k) { return tex2D<T>(texture, p[k].x, p[k].y); });
  for (std::size_t k = 0; k < points.size(); ++k) {
    CAPTURE(Channels);
    CAPTURE(k);
    const auto& q = points[k];
    const float* components = reinterpret_cast<const float*>(&got[k]);
    constexpr int count = sizeof(T) / sizeof(float);
    for (int c = 0; c < count; ++c) {
      CAPTURE(c);
      // Channels the texture lacks read as 0.
      float want = c < Channels ? pitched_channels<Channels>::expected(q.i, q.j, c) : 0.0f;
      CHECK(fetched_bits_equal(components[c], want));
    }
  }
}

}  // namespace

TEST_CASE("a point fetch of floats reads its texel's channels bit for bit, whatever the caller's float type") {
  // Each pairing of a texture of 1, 2 or 4 float channels with tex2D<float>,
  // <float2> and <float4>: the same channel count takes the typed load,
  // the others the copy of words; a signalling NaN keeps its bits.
  check_point_reads_as<1, float>();
  check_point_reads_as<1, float1>();
  check_point_reads_as<1, float2>();
  check_point_reads_as<1, float4>();
  check_point_reads_as<2, float>();
  check_point_reads_as<2, float2>();
  check_point_reads_as<2, float4>();
  check_point_reads_as<4, float>();
  check_point_reads_as<4, float2>();
  check_point_reads_as<4, float4>();
}
