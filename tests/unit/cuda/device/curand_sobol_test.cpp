// cuRAND's Sobol device states (curandStateSobol32/64 and the scrambled
// ones) with the direction vectors of curandGetDirectionVectors32/64. The
// known values are an H100's (tests/differential/curand_host_probe.expected).
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/curand/host_api.hpp>
#include <weft/cuda/device/curand_kernel.hpp>

#include <vector>

#include "device_buffer.hpp"

namespace {

curandDirectionVectors32_t* vectors32() {
  curandDirectionVectors32_t* v = nullptr;
  REQUIRE(curandGetDirectionVectors32(&v, CURAND_DIRECTION_VECTORS_32_JOEKUO6) == CURAND_STATUS_SUCCESS);
  return v;
}
curandDirectionVectors64_t* vectors64() {
  curandDirectionVectors64_t* v = nullptr;
  REQUIRE(curandGetDirectionVectors64(&v, CURAND_DIRECTION_VECTORS_64_JOEKUO6) == CURAND_STATUS_SUCCESS);
  return v;
}

__global__ void sobol_points(curandDirectionVectors32_t* vectors, unsigned* out, int per_thread) {
  unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStateSobol32_t state;
  curand_init(vectors[1], id * per_thread, &state);
  for (int k = 0; k < per_thread; ++k) out[id * per_thread + k] = curand(&state);
}

}  // namespace

TEST_CASE("curand Sobol: the direction vectors are Joe and Kuo's, as an H100's cuRAND has them") {
  curandDirectionVectors32_t* v = vectors32();
  CHECK(v[0][0] == 0x80000000u);
  CHECK(v[0][5] == 0x04000000u);
  CHECK(v[0][31] == 1u);
  CHECK(v[1][5] == 0xcc000000u);
  CHECK(v[1][31] == 0xffffffffu);
  CHECK(v[2][5] == 0x5c000000u);
  CHECK(v[2][31] == 0xc5005555u);
  CHECK(v[100][31] == 0x29427f87u);
  CHECK(v[19999][31] == 0x704675d3u);
  curandDirectionVectors64_t* w = vectors64();
  CHECK(w[1][40] == 0x8080000080800000ull);
  CHECK(w[2][63] == 0x9055000055555555ull);
  CHECK(w[100][63] == 0xefa706c39b2dc28full);
  CHECK(w[19999][40] == 0x3032ce28af800000ull);
  CHECK(w[19999][63] == 0x76bdb0bef0de7261ull);
  // The scrambled sets are cuRAND's own figures, which weft does not have.
  CHECK(curandGetDirectionVectors32(&v, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6) == CURAND_STATUS_OUT_OF_RANGE);
}

TEST_CASE("curand Sobol: points in Gray-code order, offsets and skipahead agree with drawing") {
  curandDirectionVectors32_t* v = vectors32();
  curandStateSobol32_t s;
  curand_init(v[0], 0u, &s);
  CHECK(curand(&s) == 0u);
  CHECK(curand(&s) == 0x80000000u);
  CHECK(curand(&s) == 0xc0000000u);
  CHECK(curand(&s) == 0x40000000u);
  curand_init(v[1], 0u, &s);
  std::vector<unsigned> drawn(300);
  for (unsigned& x : drawn) x = curand(&s);
  CHECK(drawn[1] == 0x80000000u);
  CHECK(drawn[2] == 0x40000000u);
  for (unsigned offset : {1u, 7u, 128u, 255u}) {
    curandStateSobol32_t at;
    curand_init(v[1], offset, &at);
    CHECK(curand(&at) == drawn[offset]);
    curandStateSobol32_t skipped;
    curand_init(v[1], 0u, &skipped);
    skipahead(offset, &skipped);
    CHECK(curand(&skipped) == drawn[offset]);
  }
  // The first 2^k points of one dimension hit each of 2^k equal cells once.
  std::vector<int> cells(256);
  for (int i = 0; i < 256; ++i) ++cells[drawn[i] >> 24];
  for (int c : cells) CHECK(c == 1);
}

TEST_CASE("curand Sobol: uniforms and normals as cuRAND makes them") {
  curandStateSobol32_t s;
  curand_init(vectors32()[0], 0u, &s);
  CHECK(curand_uniform(&s) == 0x1p-33f);  // point 0, half a step above 0
  CHECK(curand_uniform(&s) == 0.5f);
  curandStateSobol64_t w;
  curand_init(vectors64()[0], 0ull, &w);
  CHECK(curand_uniform_double(&w) == 0x1p-54);
  CHECK(curand_uniform_double(&w) == 0.5);
  CHECK(curand_normal_double(&w) == doctest::Approx(0.674490).epsilon(1e-6));  // the 0.75 quantile
  curandStateSobol32_t n;
  curand_init(vectors32()[0], 1u, &n);
  CHECK(curand_normal(&n) == 0.0f);  // the median
}

TEST_CASE("curand Sobol: a scrambled state XORs its constant into every point") {
  curandDirectionVectors32_t* v = vectors32();
  curandStateSobol32_t plain;
  curandStateScrambledSobol32_t scrambled;
  curand_init(v[3], 5u, &plain);
  curand_init(v[3], 0x12345678u, 5u, &scrambled);
  for (int i = 0; i < 20; ++i) CHECK(curand(&scrambled) == (curand(&plain) ^ 0x12345678u));
  curandStateSobol64_t plain64;
  curandStateScrambledSobol64_t scrambled64;
  curand_init(vectors64()[3], 9ull, &plain64);
  curand_init(vectors64()[3], 0xfedcba9876543210ull, 9ull, &scrambled64);
  for (int i = 0; i < 20; ++i) CHECK(curand(&scrambled64) == (curand(&plain64) ^ 0xfedcba9876543210ull));
}

TEST_CASE("curand Sobol: threads seeded at their offsets make the sequence between them") {
  device_buffer<curandDirectionVectors32_t> vectors(2);
  REQUIRE(cudaMemcpy(vectors.p, vectors32(), 2 * sizeof(curandDirectionVectors32_t), cudaMemcpyHostToDevice) ==
          cudaSuccess);
  const int threads = 64, per_thread = 16;
  device_buffer<unsigned> out(threads * per_thread);
  REQUIRE(weft::launch(2, threads / 2, sobol_points, vectors.p, out.p, per_thread) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  curandStateSobol32_t s;
  curand_init(vectors32()[1], 0u, &s);
  for (int i = 0; i < threads * per_thread; ++i) REQUIRE(out.p[i] == curand(&s));
}
