// Integer bit intrinsics, against values worked out by hand and against
// straightforward loops over many inputs.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "device_buffer.hpp"

#include <cstdint>

namespace {

unsigned slow_brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= (x >> i & 1u) << (31 - i);
  return r;
}

}  // namespace

TEST_CASE("population count, leading zeros and first set bit") {
  CHECK(__popc(0u) == 0);
  CHECK(__popc(0xffffffffu) == 32);
  CHECK(__popc(0x80000001u) == 2);
  CHECK(__popcll(0xffffffffffffffffull) == 64);
  CHECK(__popcll(1ull << 63 | 5) == 3);
  CHECK(__clz(0) == 32);
  CHECK(__clz(1) == 31);
  CHECK(__clz(-1) == 0);
  CHECK(__clz(0x00010000) == 15);
  CHECK(__clzll(0) == 64);
  CHECK(__clzll(1) == 63);
  CHECK(__clzll(-1ll) == 0);
  CHECK(__ffs(0) == 0);
  CHECK(__ffs(1) == 1);
  CHECK(__ffs(0x80000000) == 32);
  CHECK(__ffs(12) == 3);
  CHECK(__ffs(-1) == 1);
  CHECK(__ffsll(0) == 0);
  CHECK(__ffsll(1ll << 40) == 41);
  CHECK(__ffsll(static_cast<long long>(1ull << 63)) == 64);
}

TEST_CASE("bit reversal") {
  CHECK(__brev(1u) == 0x80000000u);
  CHECK(__brev(0x12345678u) == 0x1e6a2c48u);
  CHECK(__brevll(1ull) == 1ull << 63);
  CHECK(__brevll(0x0123456789abcdefull) == 0xf7b3d591e6a2c480ull);
  unsigned x = 1;
  for (int i = 0; i < 1000; ++i, x = x * 2654435761u + 1) CHECK(__brev(x) == slow_brev(x));
}

TEST_CASE("__byte_perm selects bytes of y:x") {
  unsigned x = 0x33221100u, y = 0x77665544u;
  CHECK(__byte_perm(x, y, 0x3210) == x);
  CHECK(__byte_perm(x, y, 0x7654) == y);
  CHECK(__byte_perm(x, y, 0x0123) == 0x00112233u);  // byte swap
  CHECK(__byte_perm(x, y, 0x4051) == 0x44005511u);
  CHECK(__byte_perm(x, y, 0xfedc) == __byte_perm(x, y, 0x7654));  // only 3 bits of each selector
}

TEST_CASE("funnel shifts, wrapped and clamped") {
  unsigned lo = 0x89abcdefu, hi = 0x01234567u;
  CHECK(__funnelshift_l(lo, hi, 0) == hi);
  CHECK(__funnelshift_l(lo, hi, 8) == 0x23456789u);
  CHECK(__funnelshift_l(lo, hi, 40) == 0x23456789u);  // shift & 31
  CHECK(__funnelshift_lc(lo, hi, 40) == lo);          // min(shift, 32)
  CHECK(__funnelshift_lc(lo, hi, 8) == 0x23456789u);
  CHECK(__funnelshift_r(lo, hi, 0) == lo);
  CHECK(__funnelshift_r(lo, hi, 8) == 0x6789abcdu);
  CHECK(__funnelshift_r(lo, hi, 40) == 0x6789abcdu);
  CHECK(__funnelshift_rc(lo, hi, 40) == hi);
  CHECK(__funnelshift_rc(lo, hi, 32) == hi);
  // A rotate, the common use.
  CHECK(__funnelshift_l(lo, lo, 4) == 0x9abcdef8u);
}

TEST_CASE("bit intrinsics inside a kernel, with warp votes") {
  auto kernel = [](int* out) {
    unsigned lane = threadIdx.x;
    unsigned b = __ballot_sync(0xffffffff, lane % 4 == 1);
    out[lane] = __popc(b) * 100 + __ffs(static_cast<int>(b));
  };
  device_buffer<int> out(32);
  REQUIRE(weft::launch(1, 32, kernel, out.p) == cudaSuccess);
  for (int v : out.to_host()) CHECK(v == 8 * 100 + 2);
}
