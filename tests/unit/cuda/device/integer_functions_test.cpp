// Integer arithmetic intrinsics (__mul24, __umul24, __mulhi, __sad, ...)
// against values worked out by hand, and __grid_constant__ on a kernel
// parameter.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <climits>
#include <cstdint>

TEST_CASE("24-bit products use the low 24 bits of each operand") {
  CHECK(__umul24(3, 5) == 15u);
  CHECK(__umul24(0x1000003u, 0x2000005u) == 15u);        // bits above 23 are ignored
  CHECK(__umul24(0xffffffu, 0xffffffu) == 0xfe000001u);  // the low 32 bits of a 48-bit product
  CHECK(__mul24(-3, 5) == -15);
  CHECK(__mul24(0x800000, 1) == -0x800000);  // bit 23 is the sign
  CHECK(__mul24(0x7fffff, 2) == 0xfffffe);
  CHECK(__mul24(0x1000007, 3) == 21);
  // scalarProd's index arithmetic.
  CHECK(__mul24(128, 511) == 128 * 511);
}

TEST_CASE("high halves of products") {
  CHECK(__umulhi(0xffffffffu, 0xffffffffu) == 0xfffffffeu);
  CHECK(__umulhi(1u << 16, 1u << 16) == 1u);
  CHECK(__mulhi(-1, 1) == -1);
  CHECK(__mulhi(INT_MIN, INT_MIN) == 0x40000000);
  CHECK(__mulhi(1 << 20, 1 << 20) == 1 << 8);
  CHECK(__umul64hi(~0ull, ~0ull) == ~0ull - 1);
  CHECK(__mul64hi(-1ll, 1ll) == -1ll);
  CHECK(__mul64hi(LLONG_MIN, 2ll) == -1ll);
}

TEST_CASE("sums of absolute differences and halving additions") {
  CHECK(__sad(3, 10, 1) == 8u);
  CHECK(__sad(INT_MIN, INT_MAX, 0) == 0xffffffffu);
  CHECK(__usad(10u, 3u, 1u) == 8u);
  CHECK(__usad(0u, 0xffffffffu, 0u) == 0xffffffffu);
  CHECK(__rhadd(INT_MAX, INT_MAX) == INT_MAX);
  CHECK(__rhadd(-3, 0) == -1);  // (-3 + 1) >> 1
  CHECK(__uhadd(0xffffffffu, 0xffffffffu) == 0xffffffffu);
  CHECK(__uhadd(1u, 2u) == 1u);
  CHECK(__urhadd(1u, 2u) == 2u);
}

namespace {

struct big_parameters {
  int values[64];
};

__global__ void sum_of(const __grid_constant__ big_parameters p, int* out) {
  const big_parameters* address = &p;  // what __grid_constant__ permits
  int s = 0;
  for (int v : address->values) s += v;
  out[threadIdx.x] = s;
}

}  // namespace

TEST_CASE("a __grid_constant__ parameter can be read through its address") {
  big_parameters p{};
  for (int i = 0; i < 64; ++i) p.values[i] = i;
  int* out = nullptr;
  REQUIRE(cudaMallocManaged(&out, 4 * sizeof(int)) == cudaSuccess);
  REQUIRE(weft::launch<sum_of>(1, 4, p, out) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < 4; ++i) CHECK(out[i] == 63 * 64 / 2);
  cudaFree(out);
}
