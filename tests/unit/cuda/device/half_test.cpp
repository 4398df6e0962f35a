// __half, __half2, __nv_bfloat16 and __nv_bfloat162: storage, conversions
// rounded bit for bit as on a GPU (ties to even, subnormals, overflow, NaN,
// -0), arithmetic rounded once per operation, comparisons with NaN, math
// functions, atomicAdd and shuffles inside kernels.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/math/bfloat16.hpp>

#include <bit>
#include <climits>
#include <cmath>
#include <limits>
#include <type_traits>

#include "device_buffer.hpp"
#include "stream_gates.hpp"

namespace {

unsigned bits(__half h) { return __half_as_ushort(h); }
unsigned bits(__nv_bfloat16 b) { return __bfloat16_as_ushort(b); }
__half half_of(unsigned short b) { return __ushort_as_half(b); }
__nv_bfloat16 bf_of(unsigned short b) { return __ushort_as_bfloat16(b); }

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();

}  // namespace

TEST_CASE("16-bit types are 2 bytes, pairs 4, all trivially copyable") {
  static_assert(sizeof(__half) == 2 && alignof(__half) == 2 && sizeof(__half2) == 4 && alignof(__half2) == 4);
  static_assert(sizeof(__nv_bfloat16) == 2 && sizeof(__nv_bfloat162) == 4 && alignof(__nv_bfloat162) == 4);
  static_assert(std::is_trivially_copyable_v<__half> && std::is_trivially_copyable_v<__half2>);
  static_assert(std::is_trivially_copyable_v<__nv_bfloat16> && std::is_trivially_copyable_v<__nv_bfloat162>);
  __half_raw r{0x3c00};
  __half h = r;
  CHECK(__half_raw(h).x == 0x3c00);
  __half2 p = __half2_raw{0x3c00, 0xc000};
  CHECK(__half2_raw(p).x == 0x3c00);
  CHECK(__half2_raw(p).y == 0xc000);
  CHECK(__high2float(p) == -2.0f);
}

TEST_CASE("float to half rounds to nearest even, with subnormals, overflow and NaN") {
  struct {
    float in;
    unsigned out;
  } cases[] = {
      {0.0f, 0x0000},
      {-0.0f, 0x8000},
      {1.0f, 0x3c00},
      {0.1f, 0x2e66},
      {65504.0f, 0x7bff},             // the largest half
      {65519.996f, 0x7bff},           // just below the midpoint to infinity
      {65520.0f, 0x7c00},             // the midpoint: ties to even, which is infinity
      {-65520.0f, 0xfc00},            //
      {1e10f, 0x7c00},                //
      {inf, 0x7c00},                  //
      {-inf, 0xfc00},                 //
      {nan_f, 0x7fff},                // every NaN becomes the canonical one
      {-nan_f, 0x7fff},               //
      {0x1p-24f, 0x0001},             // the smallest subnormal
      {0x1p-25f, 0x0000},             // half of it: a tie, to even zero
      {0x1.000002p-25f, 0x0001},      // just above the tie
      {-0x1p-25f, 0x8000},            // a negative tie keeps its sign
      {0x1.8p-24f, 0x0002},           // 1.5 ulp: a tie, to even 2
      {0x1p-14f, 0x0400},             // the smallest normal
      {0x1.ffcp-15f, 0x0400},         // midway between the largest subnormal and it
      {1.0f + 0x1p-11f, 0x3c00},      // tie, down to even
      {1.0f + 3 * 0x1p-11f, 0x3c02},  // tie, up to even
      {0x1.002002p0f, 0x3c01},        // just above a tie
      {0x1p-149f, 0x0000},            // float's smallest subnormal
  };
  for (auto c : cases) {
    CAPTURE(c.in);
    CHECK(bits(__float2half(c.in)) == c.out);
    CHECK(bits(__float2half_rn(c.in)) == c.out);
    CHECK(bits(__half(c.in)) == c.out);
  }
}

TEST_CASE("float to half in the directed rounding modes") {
  CHECK(bits(__float2half_rz(65520.0f)) == 0x7bff);
  CHECK(bits(__float2half_ru(65520.0f)) == 0x7c00);
  CHECK(bits(__float2half_rd(65520.0f)) == 0x7bff);
  CHECK(bits(__float2half_rz(1e10f)) == 0x7bff);
  CHECK(bits(__float2half_rd(-1e10f)) == 0xfc00);
  CHECK(bits(__float2half_ru(-1e10f)) == 0xfbff);
  CHECK(bits(__float2half_rz(inf)) == 0x7c00);
  CHECK(bits(__float2half_ru(0x1p-30f)) == 0x0001);
  CHECK(bits(__float2half_rd(0x1p-30f)) == 0x0000);
  CHECK(bits(__float2half_rd(-0x1p-30f)) == 0x8001);
  CHECK(bits(__float2half_ru(-0x1p-30f)) == 0x8000);
  CHECK(bits(__float2half_rz(1.0f + 0x1p-11f)) == 0x3c00);
  CHECK(bits(__float2half_ru(1.0f + 0x1p-11f)) == 0x3c01);
  CHECK(bits(__float2half_rd(-(1.0f + 0x1p-11f))) == 0xbc01);
  CHECK(bits(__float2half_ru(1.0f)) == 0x3c00);
  CHECK(bits(__float2half_rd(nan_f)) == 0x7fff);
}

TEST_CASE("half to float is exact") {
  CHECK(__half2float(half_of(0x0001)) == 0x1p-24f);
  CHECK(__half2float(half_of(0x03ff)) == 1023 * 0x1p-24f);
  CHECK(__half2float(half_of(0x0400)) == 0x1p-14f);
  CHECK(__half2float(half_of(0x7bff)) == 65504.0f);
  CHECK(__half2float(half_of(0xc100)) == -2.5f);
  CHECK(__half2float(half_of(0x7c00)) == inf);
  CHECK(__half2float(half_of(0xfc00)) == -inf);
  CHECK(std::signbit(__half2float(half_of(0x8000))));
  // Every NaN becomes float's canonical NaN, as on an H100.
  CHECK(std::bit_cast<unsigned>(__half2float(half_of(0x7e00))) == 0x7fffffffu);
  CHECK(std::bit_cast<unsigned>(__half2float(half_of(0xfc01))) == 0x7fffffffu);
  CHECK(std::bit_cast<unsigned>(static_cast<float>(half_of(0x7c01))) == 0x7fffffffu);
  for (unsigned b = 0; b < 0x7c00; ++b) {  // every finite half survives the round trip
    CHECK_MESSAGE(bits(__float2half(__half2float(half_of(b)))) == b, b);
    CHECK_MESSAGE(bits(__float2half(__half2float(half_of(b | 0x8000)))) == (b | 0x8000), b);
  }
}

TEST_CASE("double and integers round once to half") {
  // Through float, 1 + 2^-11 + 2^-40 would become the tie 1 + 2^-11 and round down.
  CHECK(bits(__double2half(1.0 + 0x1p-11 + 0x1p-40)) == 0x3c01);
  CHECK(bits(__half(1.0 + 0x1p-11 + 0x1p-40)) == 0x3c01);
  CHECK(bits(__double2half(65519.999)) == 0x7bff);
  CHECK(bits(__double2half(1e300)) == 0x7c00);
  CHECK(bits(__double2half(1e-300)) == 0x0000);
  CHECK(bits(__double2half(-1e-300)) == 0x8000);
  CHECK(bits(__double2half(std::numeric_limits<double>::quiet_NaN())) == 0x7e00);  // not 0x7fff, as on an H100

  CHECK(bits(__int2half_rn(2049)) == 0x6800);  // 2048: a tie, to even
  CHECK(bits(__int2half_rn(2051)) == 0x6802);  // 2052
  CHECK(bits(__int2half_ru(2049)) == 0x6801);
  CHECK(bits(__int2half_rz(-2049)) == 0xe800);
  CHECK(bits(__int2half_rd(-2049)) == 0xe801);
  CHECK(bits(__int2half_rn(65535)) == 0x7c00);
  CHECK(bits(__int2half_rz(65535)) == 0x7bff);
  CHECK(bits(__int2half_rn(INT_MIN)) == 0xfc00);
  CHECK(bits(__uint2half_rn(4294967295u)) == 0x7c00);
  CHECK(bits(__short2half_rn(-32768)) == 0xf800);
  CHECK(bits(__ushort2half_rn(65504)) == 0x7bff);
  CHECK(bits(__ll2half_rn(LLONG_MIN)) == 0xfc00);
  CHECK(bits(__ull2half_rz(ULLONG_MAX)) == 0x7bff);
  CHECK(bits(__int2half_rn(0)) == 0x0000);
  CHECK(bits(__half(2049)) == 0x6800);
  CHECK(bits(__half(3000000000u)) == 0x7c00);
}

TEST_CASE("half to integers saturates, NaN gives 0 (the top bit for 64-bit integers)") {
  CHECK(__half2int_rz(__float2half(-1.5f)) == -1);
  CHECK(__half2int_rn(__float2half(2.5f)) == 2);
  CHECK(__half2int_rn(__float2half(-2.5f)) == -2);
  CHECK(__half2int_rn(__float2half(3.5f)) == 4);
  CHECK(__half2int_rd(__float2half(-1.5f)) == -2);
  CHECK(__half2int_ru(__float2half(1.25f)) == 2);
  CHECK(__half2int_rz(half_of(0x7c00)) == INT_MAX);
  CHECK(__half2int_rz(half_of(0xfc00)) == INT_MIN);
  CHECK(__half2int_rz(half_of(0x7fff)) == 0);
  CHECK(__half2short_rz(half_of(0x7fff)) == 0);
  CHECK(__half2short_rz(half_of(0x7bff)) == SHRT_MAX);
  CHECK(__half2short_rz(half_of(0xfbff)) == SHRT_MIN);
  CHECK(__half2ushort_rz(__float2half(-1.0f)) == 0);
  CHECK(__half2ushort_rz(half_of(0x7c00)) == USHRT_MAX);
  CHECK(__half2uint_rz(half_of(0xfc00)) == 0u);
  CHECK(__half2ll_rz(half_of(0x7e00)) == LLONG_MIN);
  CHECK(__half2ull_rz(half_of(0x7e00)) == 0x8000000000000000ull);
  CHECK(__half2ll_rz(half_of(0x7bff)) == 65504);
  CHECK(__half2uchar_rz(__float2half(300.0f)) == 255);
  CHECK(__half2char_rz(__float2half(-300.0f)) == -128);
  // The conversion operators are toward zero, as CUDA's.
  int i = __half(-2.75f);
  unsigned short us = __half(65504.0f);
  CHECK(i == -2);
  CHECK(us == 65504);
  CHECK_FALSE(static_cast<bool>(__half(-0.0f)));
  CHECK(static_cast<bool>(half_of(0x7fff)));
  float f = __half(0.5f);
  CHECK(f == 0.5f);
}

TEST_CASE("float, double and integers to bfloat16") {
  struct {
    float in;
    unsigned out;
  } cases[] = {
      {1.0f, 0x3f80},
      {-0.0f, 0x8000},
      {std::bit_cast<float>(0x3f808000u), 0x3f80},  // tie, down to even
      {std::bit_cast<float>(0x3f818000u), 0x3f82},  // tie, up to even
      {std::bit_cast<float>(0x3f808001u), 0x3f81},  // just above a tie
      {std::bit_cast<float>(0x7f7fffffu), 0x7f80},  // float's largest rounds to infinity
      {std::bit_cast<float>(0x7f7f7fffu), 0x7f7f},  //
      {std::bit_cast<float>(0x00008000u), 0x0000},  // tie at the smallest subnormal, to even zero
      {std::bit_cast<float>(0x00018000u), 0x0002},  // tie, up to even
      {std::bit_cast<float>(0x00008001u), 0x0001},  //
      {std::bit_cast<float>(0x80000001u), 0x8000},  //
      {inf, 0x7f80},
      {-inf, 0xff80},
      {nan_f, 0x7fff},
      {std::bit_cast<float>(0xffc00001u), 0x7fff},
  };
  for (auto c : cases) {
    CAPTURE(c.in);
    CHECK(bits(__float2bfloat16(c.in)) == c.out);
    CHECK(bits(__nv_bfloat16(c.in)) == c.out);
  }
  CHECK(bits(__float2bfloat16_rz(std::bit_cast<float>(0x7f7fffffu))) == 0x7f7f);
  CHECK(bits(__float2bfloat16_ru(std::bit_cast<float>(0x3f800001u))) == 0x3f81);
  CHECK(bits(__float2bfloat16_rd(std::bit_cast<float>(0xbf800001u))) == 0xbf81);
  CHECK(bits(__float2bfloat16_rd(std::bit_cast<float>(0x3f80ffffu))) == 0x3f80);
  // Once from double: through float, 1 + 2^-8 + 2^-30 would be the tie 1 + 2^-8.
  CHECK(bits(__double2bfloat16(1.0 + 0x1p-8 + 0x1p-30)) == 0x3f81);
  // Once from a 64-bit integer: through double, 2^60 + 2^52 + 1 would be a tie.
  CHECK(bits(__ll2bfloat16_rn((1ll << 60) + (1ll << 52) + 1)) == 0x5d81);
  CHECK(bits(__ll2bfloat16_rn(LLONG_MIN)) == 0xdf00);
  CHECK(bits(__ull2bfloat16_rn(ULLONG_MAX)) == 0x5f80);  // 2^64
  CHECK(bits(__ull2bfloat16_rz(ULLONG_MAX)) == 0x5f7f);
  CHECK(bits(__double2bfloat16(-std::numeric_limits<double>::quiet_NaN())) == 0x7fc0);
  CHECK(bits(__int2bfloat16_rn(257)) == 0x4380);
  CHECK(bits(__int2bfloat16_ru(257)) == 0x4381);
  CHECK(__bfloat162float(bf_of(0x0001)) == 0x1p-133f);
  CHECK(__bfloat162float(bf_of(0xc2f7)) == -123.5f);
  CHECK(std::bit_cast<unsigned>(__bfloat162float(bf_of(0xff81))) == 0xff810000u);  // a NaN keeps its bits
  CHECK(__bfloat162int_rz(bf_of(0x7fc0)) == 0);
  CHECK(__bfloat162ll_rz(bf_of(0x7fc0)) == LLONG_MIN);
  CHECK(__bfloat162int_rn(bf_of(0x4020)) == 2);  // 2.5, to even
  CHECK(__bfloat162short_rz(bf_of(0x7f80)) == SHRT_MAX);
  // Between the two 16-bit formats, rounded once.
  CHECK(bits(__nv_bfloat16(__half(65504.0f))) == 0x4780);  // 65536
  CHECK(bits(__half(__float2bfloat16(65536.0f))) == 0x7c00);
  CHECK(bits(__half(__float2bfloat16(0x1p-24f))) == 0x0001);
}

TEST_CASE("arithmetic rounds each result once") {
  auto h = [](float f) { return __float2half(f); };
  CHECK(bits(__hadd(h(65504), h(16))) == 0x7c00);  // 65520: the tie to infinity
  CHECK(bits(__hadd(h(65504), h(8))) == 0x7bff);
  CHECK(bits(__hadd(h(2048), h(1))) == 0x6800);
  CHECK(bits(__hadd(h(2048), h(3))) == 0x6802);
  CHECK(bits(__hsub(h(1), h(1))) == 0x0000);
  CHECK(bits(__hsub(h(-0.0f), h(0))) == 0x8000);
  CHECK(bits(__hmul(h(0x1p-12f), h(0x1p-12f))) == 0x0001);
  CHECK(bits(__hmul(h(0x1p-13f), h(0x1p-12f))) == 0x0000);    // 2^-25: tie to zero
  CHECK(bits(__hmul(h(0x1.8p-12f), h(0x1p-12f))) == 0x0002);  // 1.5 ulp: tie to even
  CHECK(bits(__hmul(h(-1), h(0))) == 0x8000);
  CHECK(bits(__hdiv(h(1), h(3))) == 0x3555);
  CHECK(bits(__hdiv(h(1), h(0))) == 0x7c00);
  CHECK(bits(__hdiv(h(0), h(0))) == 0x7fff);
  CHECK(bits(__hmul(h(inf), h(0))) == 0x7fff);
  CHECK(bits(__hadd(half_of(0x7e01), h(1))) == 0x7fff);
  // fma rounds once: 1.5 * (683/1024) = 1 + 2^-11 exactly, and + 2^-24 tips
  // it over the tie. In float (fmaf too) the 2^-24 is lost first.
  CHECK(bits(__hfma(h(1.5f), h(683.0f / 1024), h(0x1p-24f))) == 0x3c01);
  CHECK(bits(__hfma(h(1.5f), h(683.0f / 1024), h(-0x1p-24f))) == 0x3c00);
  CHECK(bits(__hfma(h(1.5f), h(683.0f / 1024), h(0))) == 0x3c00);
  CHECK(bits(__hfma(h(-1), h(0), h(-0.0f))) == 0x8000);
  CHECK(bits(__hfma(h(256), h(256), h(-1))) == 0x7c00);  // 65535
  CHECK(bits(__hfma(h(inf), h(0), h(1))) == 0x7fff);     // a NaN result is canonical, as on an H100
  CHECK(bits(__hfma(bf_of(0x7fc0), bf_of(0x3f80), bf_of(0x3f80))) == 0x7fff);
  CHECK(bits(__hneg(h(0))) == 0x8000);
  CHECK(bits(__habs(h(-2))) == 0x4000);
  CHECK(bits(__hneg(half_of(0x7e00))) == 0x7fff);  // a NaN becomes the canonical NaN
  CHECK(bits(__habs(half_of(0xfe00))) == 0x7fff);
  CHECK(bits(-bf_of(0x7fc0)) == 0x7fff);
  CHECK(bits(__hadd_sat(h(0.75f), h(0.5f))) == 0x3c00);
  CHECK(bits(__hsub_sat(h(0.25f), h(0.5f))) == 0x0000);
  CHECK(bits(__hmul_sat(half_of(0x7fff), h(1))) == 0x0000);
  CHECK(bits(__hfma_sat(h(2), h(0.25f), h(0.25f))) == 0x3a00);

  __nv_bfloat16 b = __float2bfloat16(256.0f);
  CHECK(bits(__hadd(b, __float2bfloat16(1.0f))) == 0x4380);  // 257: tie to even 256
  CHECK(bits(__hadd(b, __float2bfloat16(3.0f))) == 0x4382);  // 259: tie to even 260
  CHECK(bits(__hmul(bf_of(0x7f7f), bf_of(0x4000))) == 0x7f80);
  // 1.75 * 37/64 = 1 + 3 * 2^-8, a tie; - 2^-30 puts it below.
  CHECK(bits(__hfma(__float2bfloat16(1.75f), __float2bfloat16(37.0f / 64), __float2bfloat16(-0x1p-30f))) == 0x3f81);
  CHECK(bits(__hfma(__float2bfloat16(1.75f), __float2bfloat16(37.0f / 64), __float2bfloat16(0.0f))) == 0x3f82);
}

TEST_CASE("operators round like the intrinsics, != is unordered") {
  __half a = 1.5f, b = 2.25f;
  CHECK(bits(a + b) == bits(__float2half(3.75f)));
  CHECK(bits(a - b) == bits(__float2half(-0.75f)));
  CHECK(bits(a * b) == bits(__float2half(3.375f)));
  CHECK(bits(b / a) == bits(__float2half(1.5f)));
  CHECK(bits(-a) == 0xbe00);
  __half c = 2048.0f;
  c += __float2half(1.0f);
  CHECK(bits(c) == 0x6800);
  __half d = 0.5f;
  CHECK(bits(d++) == 0x3800);
  CHECK(bits(d) == 0x3e00);
  CHECK(bits(--d) == 0x3800);
  __half nan = half_of(0x7e00);
  CHECK_FALSE(nan == nan);
  CHECK(nan != nan);
  CHECK_FALSE(nan < a);
  CHECK_FALSE(nan >= a);
  CHECK(a < b);
  CHECK(__half(0.0f) == __half(-0.0f));

  __nv_bfloat16 x = 3.0f, y = 0.5f;
  CHECK(bits(x * y) == 0x3fc0);
  CHECK(bits(x + y) == 0x4060);
  x -= y;
  CHECK(bits(x) == 0x4020);
  CHECK(x > y);
  CHECK(bf_of(0x7fc0) != bf_of(0x7fc0));

  __half2 p = __floats2half2_rn(1.0f, 2.0f), q = __floats2half2_rn(1.0f, 3.0f);
  CHECK(__low2float(p + q) == 2.0f);
  CHECK(__high2float(p * q) == 6.0f);
  CHECK_FALSE(p == q);
  CHECK_FALSE(p != q);  // != only when both halves differ (unordered)
  CHECK(p <= q);
  CHECK(-p == __floats2half2_rn(-1.0f, -2.0f));
  __nv_bfloat162 r = __floats2bfloat162_rn(1.0f, 2.0f);
  r += r;
  CHECK(__high2float(r) == 4.0f);
}

TEST_CASE("comparisons, NaN tests, min and max") {
  __half nan = half_of(0x7e00), one = __float2half(1.0f), two = __float2half(2.0f);
  __half pinf = half_of(0x7c00), ninf = half_of(0xfc00);
  CHECK(__hisnan(nan));
  CHECK_FALSE(__hisnan(pinf));
  CHECK(__hisinf(pinf) == 1);
  CHECK(__hisinf(ninf) == -1);
  CHECK(__hisinf(one) == 0);
  CHECK_FALSE(__heq(nan, nan));
  CHECK(__hequ(nan, nan));
  CHECK_FALSE(__hne(nan, one));
  CHECK(__hneu(nan, one));
  CHECK(__hne(one, two));
  CHECK_FALSE(__hlt(nan, one));
  CHECK(__hltu(nan, one));
  CHECK(__hle(one, one));
  CHECK(__hgt(two, one));
  CHECK(__hge(two, two));
  CHECK_FALSE(__hgeu(one, two));
  CHECK(bits(__hmax(nan, one)) == 0x3c00);
  CHECK(bits(__hmin(two, nan)) == 0x4000);
  CHECK(bits(__hmax(nan, nan)) == 0x7fff);
  CHECK(bits(__hmax_nan(nan, one)) == 0x7fff);
  CHECK(bits(__hmin_nan(one, nan)) == 0x7fff);
  CHECK(bits(__hmax(one, two)) == 0x4000);
  CHECK(bits(__hmin(one, two)) == 0x3c00);
  CHECK(__hisnan(bf_of(0x7fc0)));
  CHECK(__hisinf(bf_of(0xff80)) == -1);
  CHECK(bits(__hmax(bf_of(0x7fc0), bf_of(0x3f80))) == 0x3f80);

  __half2 p = __halves2half2(one, nan), q = __halves2half2(one, one);
  CHECK(__half2_raw(__heq2(p, q)).x == 0x3c00);
  CHECK(__half2_raw(__heq2(p, q)).y == 0x0000);
  CHECK(__half2_raw(__hisnan2(p)).y == 0x3c00);
  CHECK_FALSE(__hbeq2(p, q));
  CHECK(__hbeq2(q, q));
  CHECK(__half2_raw(__lowhigh2highlow(p)).x == 0x7e00);
  float2 f = __half22float2(__floats2half2_rn(0.5f, -4.0f));
  CHECK(f.x == 0.5f);
  CHECK(f.y == -4.0f);
  CHECK(__half2_raw(__hmax2(p, __halves2half2(two, two))).y == 0x4000);
  CHECK(__nv_bfloat162_raw(__heq2(__floats2bfloat162_rn(1, 2), __floats2bfloat162_rn(1, 3))).x == 0x3f80);
}

TEST_CASE("math functions") {
  auto h = [](float f) { return __float2half(f); };
  CHECK(bits(hsqrt(h(4))) == 0x4000);
  CHECK(bits(hsqrt(h(2))) == 0x3da8);
  CHECK(bits(hsqrt(h(-1))) == 0x7fff);
  CHECK(bits(hrsqrt(h(4))) == 0x3800);
  CHECK(bits(hrcp(h(4))) == 0x3400);
  CHECK(bits(hexp(h(0))) == 0x3c00);
  CHECK(bits(hexp2(h(3))) == 0x4800);
  CHECK(bits(hexp10(h(2))) == 0x5640);
  CHECK(bits(hlog(h(1))) == 0x0000);
  CHECK(bits(hlog2(h(8))) == 0x4200);
  CHECK(bits(hlog10(h(100))) == 0x4000);
  CHECK(bits(hlog(h(0))) == 0xfc00);
  CHECK(bits(hsin(h(0))) == 0x0000);
  CHECK(bits(hcos(h(0))) == 0x3c00);
  CHECK(bits(hfloor(h(-1.5f))) == 0xc000);
  CHECK(bits(hceil(h(-0.5f))) == 0x8000);
  CHECK(bits(htrunc(h(2.75f))) == 0x4000);
  CHECK(bits(hrint(h(2.5f))) == 0x4000);
  CHECK(bits(hrint(h(3.5f))) == 0x4400);
  CHECK(bits(hsqrt(__float2bfloat16(4.0f))) == 0x4000);
  CHECK(__half2_raw(h2sqrt(__floats2half2_rn(9, 16))).y == 0x4400);
}

TEST_CASE("cache-hinted loads and stores of 16-bit values") {
  __half h = __float2half(3.0f), out;
  __stcs(&out, __ldg(&h));
  CHECK(bits(out) == 0x4200);
  __nv_bfloat162 p = __floats2bfloat162_rn(1, 2), q;
  __stwb(&q, __ldcg(&p));
  CHECK(__high2float(q) == 2.0f);
}

TEST_CASE("atomicAdd of 16-bit values rounds each addition") {
  // Past 2048 (256 for bfloat16) adding 1 is a tie that rounds back down, so
  // the sum stops there whatever the order: each addition is rounded.
  struct sums {
    __half h;
    __half2 h2;
    __nv_bfloat16 b;
    __nv_bfloat162 b2;
  };
  device_buffer<sums> s(1);
  exact_workers pool(4);
  auto kernel = [](sums* out) {
    atomicAdd(&out->h, __float2half(1.0f));
    atomicAdd(&out->h2, __floats2half2_rn(1.0f, 0.5f));
    atomicAdd_block(&out->b, __float2bfloat16(1.0f));
    atomicAdd(&out->b2, __floats2bfloat162_rn(0.25f, 1.0f));
  };
  REQUIRE(weft::launch(32, 128, kernel, s.p) == cudaSuccess);
  auto r = s.to_host()[0];
  CHECK(bits(r.h) == 0x6800);                   // 2048
  CHECK(__half2_raw(r.h2).x == 0x6800);         // 2048
  CHECK(__half2_raw(r.h2).y == 0x6400);         // 1024
  CHECK(bits(r.b) == 0x4380);                   // 256
  CHECK(__nv_bfloat162_raw(r.b2).x == 0x4280);  // 64
  CHECK(__nv_bfloat162_raw(r.b2).y == 0x4380);  // 256
}

TEST_CASE("shuffles of 16-bit values and pairs keep their bits") {
  struct out_t {
    __half sum;
    __half2 butterfly;
    __nv_bfloat16 broadcast;
    __half nan;
  };
  device_buffer<out_t> out(32);
  auto kernel = [](out_t* o) {
    unsigned lane = threadIdx.x;
    __half sum = __float2half(static_cast<float>(lane));
    for (int offset = 16; offset > 0; offset /= 2) sum = __hadd(sum, __shfl_down_sync(0xffffffff, sum, offset));
    __half2 pair = __floats2half2_rn(static_cast<float>(lane), -static_cast<float>(lane));
    for (int m = 16; m > 0; m /= 2) pair = __hadd2(pair, __shfl_xor_sync(0xffffffff, pair, m));
    o[lane].sum = sum;
    o[lane].butterfly = pair;
    o[lane].broadcast = __shfl_sync(0xffffffff, __float2bfloat16(lane * 0.5f), 5);
    o[lane].nan = __shfl_up_sync(0xffffffff, __ushort_as_half(static_cast<unsigned short>(0x7c01 + lane)), 1);
  };
  REQUIRE(weft::launch(1, 32, kernel, out.p) == cudaSuccess);
  auto r = out.to_host();
  CHECK(__half2float(r[0].sum) == 496.0f);
  for (unsigned lane = 0; lane < 32; ++lane) {
    CAPTURE(lane);
    CHECK(__low2float(r[lane].butterfly) == 496.0f);
    CHECK(__high2float(r[lane].butterfly) == -496.0f);
    CHECK(__bfloat162float(r[lane].broadcast) == 2.5f);
    CHECK(bits(r[lane].nan) == 0x7c01 + (lane == 0 ? 0 : lane - 1));  // a signalling NaN passes unchanged
  }
}
