// cuRAND's device API (XORWOW and Philox): the properties programs rely on.
// The exact sequences are compared with an H100's in
// tests/differential/curand_probe.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/curand_kernel.hpp>

#include "device_buffer.hpp"
#include "stream_gates.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

template <class State>
std::vector<unsigned> draws(State s, int n) {
  std::vector<unsigned> out(n);
  for (unsigned& x : out) x = curand(&s);
  return out;
}

template <class State = curandState>
State seeded(unsigned long long seed, unsigned long long subsequence, unsigned long long offset) {
  State s;
  curand_init(seed, subsequence, offset, &s);
  return s;
}

using philox = curandStatePhilox4_32_10_t;

__global__ void estimate_pi(unsigned long long seed, int samples, unsigned* hits) {
  int id = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  curandState state;
  curand_init(seed, static_cast<unsigned long long>(id), 0, &state);
  unsigned inside = 0;
  for (int k = 0; k < samples; ++k) {
    float x = curand_uniform(&state), y = curand_uniform(&state);
    if (x * x + y * y <= 1.0f) ++inside;
  }
  atomicAdd(hits, inside);
}

}  // namespace

TEST_CASE("curand: the H100's first draws for seed 0 and 1234") {
  CHECK(draws(seeded(0, 0, 0), 4) == std::vector<unsigned>{0xbd7f03b6, 0x703e556d, 0x845af0c5, 0x283067fd});
  CHECK(draws(seeded(1234, 1, 0), 2) == std::vector<unsigned>{0xd1f7605a, 0xed29ae49});
}

TEST_CASE("curand: an offset, or skipahead(n), is n draws") {
  for (unsigned long long n : {0ull, 1ull, 2ull, 31ull, 1000ull, (1ull << 20) + 3}) {
    INFO("n = " << n);
    curandState walked = seeded(77, 3, 0);
    for (unsigned long long k = 0; k < n; ++k) curand(&walked);
    curandState jumped = seeded(77, 3, 0);
    skipahead(n, &jumped);
    CHECK(draws(jumped, 8) == draws(walked, 8));
    CHECK(draws(seeded(77, 3, n), 8) == draws(walked, 8));
  }
}

TEST_CASE("curand: skipahead_sequence(n) moves to the subsequence n further on") {
  for (unsigned long long s : {0ull, 1ull, 5ull, 1ull << 30, ~0ull - 1}) {
    INFO("subsequence " << s);
    curandState next = seeded(5, s, 0);
    skipahead_sequence(1, &next);
    CHECK(draws(next, 8) == draws(seeded(5, s + 1, 0), 8));
  }
  // Subsequences are far apart: neighbouring ones share no early draw.
  auto a = draws(seeded(9, 0, 0), 1000), b = draws(seeded(9, 1, 0), 1000);
  int shared = 0;
  for (unsigned x : a)
    for (unsigned y : b) shared += x == y;
  CHECK(shared == 0);
}

TEST_CASE("curand_uniform is above 0 and at most 1: never 0, exactly 1 for the largest draw") {
  CHECK(weft::detail::uniform_of(0) > 0.0f);
  CHECK(weft::detail::uniform_of(0xffffffffu) == 1.0f);
  CHECK(weft::detail::uniform_double_of(0, 0) > 0.0);
  CHECK(weft::detail::uniform_double_of(0xffffffffu, 0xfffff800u) == 1.0);  // 53 one bits
  curandState s = seeded(3, 0, 0);
  double sum = 0;
  for (int k = 0; k < 100000; ++k) {
    float u = curand_uniform(&s);
    REQUIRE(u > 0.0f);
    REQUIRE(u <= 1.0f);
    sum += u;
  }
  CHECK(sum / 100000 == doctest::Approx(0.5).epsilon(0.01));
}

TEST_CASE("curand_normal: mean 0 and variance 1; the pair's second value comes next") {
  curandState s = seeded(11, 0, 0);
  double sum = 0, squares = 0;
  const int n = 200000;
  for (int k = 0; k < n; ++k) {
    double x = curand_normal(&s);
    sum += x;
    squares += x * x;
  }
  CHECK(std::abs(sum / n) < 0.01);
  CHECK(squares / n == doctest::Approx(1.0).epsilon(0.01));

  curandState a = seeded(12, 0, 0), b = seeded(12, 0, 0);
  float2 pair = curand_normal2(&a);
  CHECK(curand_normal(&b) == pair.x);
  CHECK(curand_normal(&b) == pair.y);  // from the state, no new draw
  CHECK(curand(&b) == curand(&a));     // both have made two draws
  double2 pair_double = curand_normal2_double(&a);
  CHECK(curand_normal_double(&b) == pair_double.x);
  CHECK(curand_normal_double(&b) == pair_double.y);
  CHECK(curand(&b) == curand(&a));  // four draws each
  CHECK(curand_log_normal(&b, 1.0f, 0.5f) > 0.0f);
}

TEST_CASE("curand in a kernel: per-thread subsequences estimate pi the same way on any worker count") {
  unsigned first = 0;
  for (unsigned workers : {1u, 3u, 8u}) {
    exact_workers pool(workers);
    device_buffer<unsigned> hits(1);
    REQUIRE(weft::launch(8, 64, estimate_pi, 2024ull, 1000, hits.p) == cudaSuccess);
    unsigned h = hits.to_host()[0];
    if (first == 0) first = h;
    CHECK(h == first);
    CHECK(4.0 * h / (8 * 64 * 1000) == doctest::Approx(3.14159).epsilon(0.005));
  }
  CHECK(first == 402104);  // the H100's count (tests/differential/curand_probe.expected)
}

TEST_CASE(
    "curand Philox: offsets and skipahead are draws, curand4 is the next four, subsequences are the counter's top") {
  CHECK(draws(seeded<philox>(0, 0, 0), 6) ==
        std::vector<unsigned>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8, 0xf8e4cca4, 0x5cb200db});
  for (unsigned long long n : {0ull, 1ull, 3ull, 4ull, 5ull, 1000ull, (1ull << 33) + 2}) {
    INFO("n = " << n);
    philox walked = seeded<philox>(8, 2, 0);
    if (n < 100000)
      for (unsigned long long k = 0; k < n; ++k) curand(&walked);
    else
      walked = seeded<philox>(8, 2, n);
    philox jumped = seeded<philox>(8, 2, 0);
    skipahead(n, &jumped);
    CHECK(draws(jumped, 9) == draws(walked, 9));
  }
  for (int before = 0; before < 5; ++before) {
    philox a = seeded<philox>(4, 0, 0), b = a;
    for (int k = 0; k < before; ++k) {
      curand(&a);
      curand(&b);
    }
    uint4 four = curand4(&a);
    CHECK(std::vector<unsigned>{four.x, four.y, four.z, four.w} == draws(b, 4));
    for (int k = 0; k < 4; ++k) curand(&b);
    CHECK(curand(&a) == curand(&b));
  }
  philox next = seeded<philox>(6, 41, 7);
  skipahead_sequence(1, &next);
  CHECK(draws(next, 8) == draws(seeded<philox>(6, 42, 7), 8));
  // The offset carries into the subsequence's words as a 128-bit counter
  // does: 2^66 draws are 2^64 counters, one subsequence.
  philox far = seeded<philox>(6, 0, 0);
  for (int k = 0; k < 4; ++k) skipahead(~0ull, &far);
  skipahead(4, &far);
  CHECK(draws(far, 8) == draws(seeded<philox>(6, 1, 0), 8));
}

TEST_CASE("curand Philox: uniforms above 0 and at most 1, normals of four draws at a time") {
  philox s = seeded<philox>(21, 0, 0);
  double sum = 0, squares = 0;
  const int n = 50000;
  for (int k = 0; k < n; ++k) {
    float4 u = curand_uniform4(&s);
    for (float x : {u.x, u.y, u.z, u.w}) {
      REQUIRE(x > 0.0f);
      REQUIRE(x <= 1.0f);
    }
    float4 z = curand_normal4(&s);
    for (float x : {z.x, z.y, z.z, z.w}) {
      sum += x;
      squares += x * x;
    }
  }
  CHECK(std::abs(sum / (4 * n)) < 0.01);
  CHECK(squares / (4 * n) == doctest::Approx(1.0).epsilon(0.01));
  philox a = seeded<philox>(22, 0, 0), b = a;
  float4 four = curand_normal4(&a);
  float2 first = curand_normal2(&b), second = curand_normal2(&b);
  CHECK(four.x == first.x);
  CHECK(four.y == first.y);
  CHECK(four.z == second.x);
  CHECK(four.w == second.y);
  CHECK(curand_uniform_double(&a) > 0.0);
}
