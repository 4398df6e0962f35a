// cuRAND's host API (curand.h): each generator's results where they lie in
// an H100's output (tests/differential/curand_host_probe.expected, seed
// 1234), host and device generators alike, the stream order of a device
// generator's work, and the statuses of bad calls.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/curand/host_api.hpp>
#include <weft/cuda/device/curand_kernel.hpp>

#include <vector>

#include "device_buffer.hpp"
#include "stream_gates.hpp"

namespace {

curandGenerator_t make(curandRngType_t type, bool host) {
  curandGenerator_t g = nullptr;
  REQUIRE((host ? curandCreateGeneratorHost(&g, type) : curandCreateGenerator(&g, type)) == CURAND_STATUS_SUCCESS);
  return g;
}

}  // namespace

TEST_CASE("curand host API: XORWOW's result n is subsequence n mod 4096 at draw n / 4096") {
  curandGenerator_t g = make(CURAND_RNG_PSEUDO_DEFAULT, true);
  REQUIRE(curandSetPseudoRandomGeneratorSeed(g, 1234) == CURAND_STATUS_SUCCESS);
  std::vector<unsigned> r(8192);
  REQUIRE(curandGenerate(g, r.data(), r.size()) == CURAND_STATUS_SUCCESS);
  CHECK(r[0] == 0x253d5e15u);
  CHECK(r[1] == 0xd1f7605au);
  CHECK(r[4096] == 0x6f558604u);
  CHECK(r[8191] == 0xfcfb1ce9u);
  for (unsigned n : {0u, 17u, 4095u, 4097u, 8000u}) {
    curandState s;
    curand_init(1234, n % 4096, n / 4096, &s);
    CHECK(r[n] == curand(&s));
  }
  // The next call goes on where this one stopped.
  REQUIRE(curandGenerate(g, r.data(), r.size()) == CURAND_STATUS_SUCCESS);
  CHECK(r[0] == 0xdee6daf2u);
  // So does a generation after curandSetGeneratorOffset.
  REQUIRE(curandSetGeneratorOffset(g, 4099) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandGenerate(g, r.data(), r.size()) == CURAND_STATUS_SUCCESS);
  CHECK(r[0] == 0x4efd7f5au);
  CHECK(r[4095] == 0xc85b17c4u);
  REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
}

TEST_CASE("curand host API: Philox's result n is draw n mod 4 of subsequence n / 4") {
  curandGenerator_t g = make(CURAND_RNG_PSEUDO_PHILOX4_32_10, true);
  REQUIRE(curandSetPseudoRandomGeneratorSeed(g, 1234) == CURAND_STATUS_SUCCESS);
  std::vector<unsigned> r(8192);
  REQUIRE(curandGenerate(g, r.data(), r.size()) == CURAND_STATUS_SUCCESS);
  CHECK(r[0] == 0x2090b348u);
  CHECK(r[4097] == 0x3734acf6u);
  std::vector<float> u(8);
  REQUIRE(curandSetPseudoRandomGeneratorSeed(g, 1234) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandGenerateNormal(g, u.data(), u.size(), 0.0f, 1.0f) == CURAND_STATUS_SUCCESS);
  CHECK(u[0] == doctest::Approx(-1.6165).epsilon(1e-4));
  CHECK(u[1] == doctest::Approx(1.2292).epsilon(1e-4));
  REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
}

TEST_CASE("curand host API: device and host generators make the same results") {
  for (curandRngType_t type : {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MTGP32,
                               CURAND_RNG_PSEUDO_MT19937, CURAND_RNG_QUASI_SOBOL32}) {
    CAPTURE(type);
    curandGenerator_t d = make(type, false), h = make(type, true);
    if (type != CURAND_RNG_QUASI_SOBOL32) {
      REQUIRE(curandSetPseudoRandomGeneratorSeed(d, 77) == CURAND_STATUS_SUCCESS);
      REQUIRE(curandSetPseudoRandomGeneratorSeed(h, 77) == CURAND_STATUS_SUCCESS);
    }
    const std::size_t n = 6000;
    device_buffer<float> on_device(n);
    std::vector<float> on_host(n);
    REQUIRE(curandGenerateNormal(d, on_device.p, n, 1.0f, 2.0f) == CURAND_STATUS_SUCCESS);
    REQUIRE(curandGenerateNormal(h, on_host.data(), n, 1.0f, 2.0f) == CURAND_STATUS_SUCCESS);
    std::vector<float> back = on_device.to_host();
    CHECK(back == on_host);
    double mean = 0;
    for (float x : on_host) mean += x;
    CHECK(mean / n == doctest::Approx(1.0).epsilon(0.1));
    REQUIRE(curandDestroyGenerator(d) == CURAND_STATUS_SUCCESS);
    REQUIRE(curandDestroyGenerator(h) == CURAND_STATUS_SUCCESS);
  }
}

TEST_CASE("curand host API: a device generator writes in its stream's order") {
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  curandGenerator_t g = make(CURAND_RNG_PSEUDO_DEFAULT, false);
  REQUIRE(curandSetStream(g, stream) == CURAND_STATUS_SUCCESS);
  device_buffer<unsigned> out(1024);
  {
    gate held;
    held.hold(stream);
    REQUIRE(curandGenerate(g, out.p, 1024) == CURAND_STATUS_SUCCESS);  // returns at once
    CHECK(cudaStreamQuery(stream) == cudaErrorNotReady);
    CHECK(out.p[0] == 0u);  // nothing written while the stream's earlier work waits
    held.open();
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  }
  curandState s;
  curand_init(0, 0, 0, &s);
  CHECK(out.p[0] == curand(&s));  // the default seed is 0
  REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("curand host API: Sobol fills dimension after dimension") {
  curandGenerator_t g = make(CURAND_RNG_QUASI_SOBOL32, true);
  REQUIRE(curandSetQuasiRandomGeneratorDimensions(g, 2) == CURAND_STATUS_SUCCESS);
  std::vector<unsigned> r(8192);
  REQUIRE(curandGenerate(g, r.data(), r.size()) == CURAND_STATUS_SUCCESS);
  CHECK(r[0] == 0u);
  CHECK(r[1] == 0x80000000u);
  CHECK(r[2] == 0xc0000000u);
  CHECK(r[4096] == 0u);  // dimension 1's first point
  CHECK(r[4098] == 0x40000000u);
  CHECK(r[8191] == 0xf0f00000u);
  std::vector<unsigned long long> wide(4);
  CHECK(curandGenerateLongLong(g, wide.data(), 4) == CURAND_STATUS_TYPE_ERROR);
  REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);

  curandGenerator_t g64 = make(CURAND_RNG_QUASI_SOBOL64, true);
  REQUIRE(curandSetQuasiRandomGeneratorDimensions(g64, 2) == CURAND_STATUS_SUCCESS);
  std::vector<double> d(8192);
  REQUIRE(curandGenerateUniformDouble(g64, d.data(), d.size()) == CURAND_STATUS_SUCCESS);
  CHECK(d[0] == 0x1p-54);
  CHECK(d[1] == 0.5);
  REQUIRE(curandDestroyGenerator(g64) == CURAND_STATUS_SUCCESS);
}

TEST_CASE("curand host API: statuses of bad calls, as an H100's cuRAND answers") {
  curandGenerator_t g = make(CURAND_RNG_PSEUDO_DEFAULT, false);
  device_buffer<float> d(64);
  CHECK(curandGenerateNormal(g, d.p, 7, 0.0f, 1.0f) == CURAND_STATUS_LENGTH_NOT_MULTIPLE);
  CHECK(curandSetQuasiRandomGeneratorDimensions(g, 2) == CURAND_STATUS_TYPE_ERROR);
  CHECK(curandSetGeneratorOrdering(g, CURAND_ORDERING_QUASI_DEFAULT) == CURAND_STATUS_OUT_OF_RANGE);
  CHECK(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY) == CURAND_STATUS_SUCCESS);
  CHECK(curandGenerateLongLong(g, reinterpret_cast<unsigned long long*>(d.p), 4) == CURAND_STATUS_TYPE_ERROR);
  curandGenerator_t bad;
  CHECK(curandCreateGenerator(&bad, static_cast<curandRngType_t>(999)) == CURAND_STATUS_TYPE_ERROR);
  curandGenerator_t q = make(CURAND_RNG_QUASI_SOBOL32, false);
  CHECK(curandSetQuasiRandomGeneratorDimensions(q, 0) == CURAND_STATUS_OUT_OF_RANGE);
  CHECK(curandSetQuasiRandomGeneratorDimensions(q, 20001) == CURAND_STATUS_OUT_OF_RANGE);
  CHECK(curandSetQuasiRandomGeneratorDimensions(q, 20000) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandSetQuasiRandomGeneratorDimensions(q, 3) == CURAND_STATUS_SUCCESS);
  CHECK(curandGenerateUniform(q, d.p, 7) == CURAND_STATUS_LENGTH_NOT_MULTIPLE);
  CHECK(curandSetPseudoRandomGeneratorSeed(q, 5) == CURAND_STATUS_TYPE_ERROR);
  CHECK(curandSetGeneratorOrdering(q, CURAND_ORDERING_PSEUDO_DEFAULT) == CURAND_STATUS_OUT_OF_RANGE);
  CHECK(curandGenerateUniform(nullptr, d.p, 8) == CURAND_STATUS_NOT_INITIALIZED);
  int version = 0;
  CHECK(curandGetVersion(&version) == CURAND_STATUS_SUCCESS);
  CHECK(version == 10400);
  int major = 0;
  CHECK(curandGetProperty(MAJOR_VERSION, &major) == CURAND_STATUS_SUCCESS);
  CHECK(major == 10);
  REQUIRE(curandDestroyGenerator(q) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
}

TEST_CASE("curand host API: MRG32k3a's result n is subsequence n mod 16384 (4096 in legacy order)") {
  curandGenerator_t g = make(CURAND_RNG_PSEUDO_MRG32K3A, true);
  REQUIRE(curandSetPseudoRandomGeneratorSeed(g, 1234) == CURAND_STATUS_SUCCESS);
  std::vector<unsigned> r(20000);
  REQUIRE(curandGenerate(g, r.data(), r.size()) == CURAND_STATUS_SUCCESS);
  CHECK(r[0] == 0xc96891f0u);
  CHECK(r[1] == 0x26f0d612u);
  CHECK(r[4096] == 0x9dda211du);
  for (unsigned n : {0u, 5u, 16383u, 16384u, 19999u}) {
    curandStateMRG32k3a_t s;
    curand_init(1234, n % 16384, n / 16384, &s);
    CHECK(r[n] == curand(&s));
  }
  REQUIRE(curandSetPseudoRandomGeneratorSeed(g, 1234) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandGenerate(g, r.data(), r.size()) == CURAND_STATUS_SUCCESS);
  CHECK(r[4096] == 0x9650c684u);  // subsequence 0's second draw
  CHECK(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_SEEDED) == CURAND_STATUS_OUT_OF_RANGE);
  std::vector<float> u(4);
  REQUIRE(curandSetPseudoRandomGeneratorSeed(g, 1234) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_DEFAULT) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandGenerateNormal(g, u.data(), u.size(), 0.0f, 1.0f) == CURAND_STATUS_SUCCESS);
  CHECK(u[0] == doctest::Approx(-0.3607).epsilon(1e-3));
  CHECK(u[1] == doctest::Approx(-0.5913).epsilon(1e-3));
  REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
}

TEST_CASE("curand MRG32k3a device API: skipahead agrees with drawing, uniforms in (0, 1)") {
  curandStateMRG32k3a_t s;
  curand_init(99, 3, 0, &s);
  std::vector<unsigned> drawn(100);
  for (unsigned& x : drawn) x = curand(&s);
  for (unsigned n : {1u, 17u, 64u}) {
    curandStateMRG32k3a_t at;
    curand_init(99, 3, n, &at);
    CHECK(curand(&at) == drawn[n]);
    curandStateMRG32k3a_t skipped;
    curand_init(99, 0, 0, &skipped);
    skipahead_sequence(3, &skipped);
    skipahead(n, &skipped);
    CHECK(curand(&skipped) == drawn[n]);
  }
  curand_init(99, 0, 0, &s);
  for (int i = 0; i < 1000; ++i) {
    double u = curand_uniform_double(&s);
    REQUIRE(u > 0.0);
    REQUIRE(u < 1.0);
  }
}

TEST_CASE("curand host API: Poisson integers with the mean and variance lambda") {
  for (double lambda : {0.5, 4.0, 37.0, 2000.0}) {
    CAPTURE(lambda);
    curandGenerator_t g = make(CURAND_RNG_PSEUDO_PHILOX4_32_10, true);
    std::vector<unsigned> k(40000);
    REQUIRE(curandGeneratePoisson(g, k.data(), k.size(), lambda) == CURAND_STATUS_SUCCESS);
    double mean = 0, square = 0;
    for (unsigned x : k) mean += x;
    mean /= k.size();
    for (unsigned x : k) square += (x - mean) * (x - mean);
    CHECK(mean == doctest::Approx(lambda).epsilon(0.03));
    CHECK(square / k.size() == doctest::Approx(lambda).epsilon(0.06));
    REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
  }
  curandGenerator_t g = make(CURAND_RNG_PSEUDO_DEFAULT, true);
  unsigned one = 0;
  CHECK(curandGeneratePoisson(g, &one, 1, 0.0) == CURAND_STATUS_OUT_OF_RANGE);
  CHECK(curandGeneratePoisson(g, &one, 1, 3.0) == CURAND_STATUS_SUCCESS);  // no pairs: any count
  curandDiscreteDistribution_t d = nullptr;
  CHECK(curandCreatePoissonDistribution(-1.0, &d) == CURAND_STATUS_OUT_OF_RANGE);
  REQUIRE(curandCreatePoissonDistribution(3.0, &d) == CURAND_STATUS_SUCCESS);
  CHECK(curandDestroyDistribution(d) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
}
