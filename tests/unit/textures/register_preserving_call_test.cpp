// The call a texture fetch makes off its inlined path must hand over the
// routine's result and leave every other register as it was: the kernel
// around it keeps its values in registers the ABI lets a callee clobber.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>

#include "weft/detail/textures/sampling/register_preserving_call.hpp"
#include "weft/detail/textures/sampling/texture_sampler.hpp"

namespace {

using namespace weft::detail::textures;

// Uses many integer and vector registers, so that a trampoline that kept
// one too few would hand the caller a changed value.
[[gnu::noinline]] texel_words preserving_test_routine(const texture_sampler& s, float x, float y, float z, int layer) {
  volatile float seed = 1.0f;
  float a[16];
  for (int i = 0; i < 16; ++i) a[i] = seed * static_cast<float>(i + 3);
  for (int round = 0; round < 8; ++round)
    for (int i = 0; i < 16; ++i) a[i] = a[i] * 0.5f + a[(i + 5) % 16];
  volatile std::uint64_t mix = 0;
  for (int i = 0; i < 16; ++i) mix = mix * 31 + std::bit_cast<std::uint32_t>(a[i]);
  (void)mix;
  return {{std::bit_cast<std::uint32_t>(x), std::bit_cast<std::uint32_t>(y), std::bit_cast<std::uint32_t>(z),
           static_cast<std::uint32_t>(layer) ^ static_cast<std::uint32_t>(s.layers)}};
}

// The call does not tell the compiler that the routine reads the sampler
// (register_preserving_call.hpp says why): weft's samplers are made by
// cudaCreateTextureObject, out of sight of the kernel. One made here must
// reach memory before the call, as if made elsewhere.
void preserving_test_publish(const texture_sampler& s) { asm volatile("" : : "r"(&s) : "memory"); }

}  // namespace

TEST_CASE("a register-preserving fetch call returns the routine's four words") {
  texture_sampler s{};
  s.layers = 0x5a;
  preserving_test_publish(s);
  texel_words w = call_preserving_registers(&preserving_test_routine, s, 1.5f, -2.25f, 1e30f, 7);
  CHECK(w.word[0] == std::bit_cast<std::uint32_t>(1.5f));
  CHECK(w.word[1] == std::bit_cast<std::uint32_t>(-2.25f));
  CHECK(w.word[2] == std::bit_cast<std::uint32_t>(1e30f));
  CHECK(w.word[3] == (7u ^ 0x5au));
}

namespace {

// Sixteen integers and sixteen floats, each changed by every call's result,
// live across every call: more than the callee-saved registers hold, so
// GCC keeps some in registers a callee may clobber.
template <class Call>
void preserving_test_rounds(Call call, std::uint64_t (&integers)[16], float (&floats)[16]) {
  texture_sampler s{};
  s.layers = 1;
  preserving_test_publish(s);
  std::uint64_t i0 = 1, i1 = 2, i2 = 3, i3 = 4, i4 = 5, i5 = 6, i6 = 7, i7 = 8;
  std::uint64_t i8 = 9, i9 = 10, i10 = 11, i11 = 12, i12 = 13, i13 = 14, i14 = 15, i15 = 16;
  float f0 = 1, f1 = 2, f2 = 3, f3 = 4, f4 = 5, f5 = 6, f6 = 7, f7 = 8;
  float f8 = 9, f9 = 10, f10 = 11, f11 = 12, f12 = 13, f13 = 14, f14 = 15, f15 = 16;
  for (int round = 0; round < 100; ++round) {
    texel_words w = call(s, f0, f1, f2, round);
    std::uint64_t b = w.word[3] & 7;
    float c = static_cast<float>(w.word[3] & 3);
    i0 = i0 * 3 + b, i1 = i1 * 5 + b, i2 = i2 * 7 + b, i3 = i3 * 9 + b;
    i4 = i4 * 11 + b, i5 = i5 * 13 + b, i6 = i6 * 15 + b, i7 = i7 * 17 + b;
    i8 = i8 * 19 + b, i9 = i9 * 21 + b, i10 = i10 * 23 + b, i11 = i11 * 25 + b;
    i12 = i12 * 27 + b, i13 = i13 * 29 + b, i14 = i14 * 31 + b, i15 = i15 * 33 + b;
    f0 = f0 * 0.5f + c, f1 = f1 * 0.25f + c, f2 = f2 * 0.75f + c, f3 = f3 * 0.125f + c;
    f4 = f4 * 0.5f - c, f5 = f5 * 0.25f - c, f6 = f6 * 0.75f - c, f7 = f7 * 0.125f - c;
    f8 = f8 * 1.5f + c, f9 = f9 * 0.625f + c, f10 = f10 * 0.375f + c, f11 = f11 * 0.875f + c;
    f12 = f12 * 1.5f - c, f13 = f13 * 0.625f - c, f14 = f14 * 0.375f - c, f15 = f15 * 0.875f - c;
  }
  std::uint64_t i[16] = {i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15};
  float f[16] = {f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15};
  for (int k = 0; k < 16; ++k) {
    integers[k] = i[k];
    floats[k] = f[k];
  }
}

}  // namespace

TEST_CASE("values the caller holds in registers survive a register-preserving fetch call") {
  std::uint64_t integers[16], expected_integers[16];
  float floats[16], expected_floats[16];
  preserving_test_rounds(
      [](const texture_sampler& s, float x, float y, float z, int layer) {
        return call_preserving_registers(&preserving_test_routine, s, x, y, z, layer);
      },
      integers, floats);
  preserving_test_rounds(&preserving_test_routine, expected_integers, expected_floats);
  for (int k = 0; k < 16; ++k) {
    INFO("value " << k);
    CHECK(integers[k] == expected_integers[k]);
    CHECK(std::bit_cast<std::uint32_t>(floats[k]) == std::bit_cast<std::uint32_t>(expected_floats[k]));
  }
}
