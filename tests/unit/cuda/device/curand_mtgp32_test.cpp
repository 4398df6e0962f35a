// cuRAND's MTGP32 device API: one state per block, every thread of the block
// calling curand. A block's words are those of the host generator
// (curand.h, CURAND_RNG_PSEUDO_MTGP32): its first 256 results are state 0's
// first step, the next 256 state 1's, with the H100's values
// (tests/differential/curand_host_probe.expected, seed 1234).
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/curand/host_api.hpp>
#include <weft/cuda/device/curand/mtgp32_params.hpp>
#include <weft/cuda/device/curand_kernel.hpp>

#include <vector>

#include "device_buffer.hpp"

namespace {

__global__ void mtgp_words(curandStateMtgp32_t* states, unsigned* out, int steps) {
  for (int step = 0; step < steps; ++step)
    out[(blockIdx.x * steps + step) * blockDim.x + threadIdx.x] = curand(&states[blockIdx.x]);
}

}  // namespace

TEST_CASE("curand MTGP32: block states give the host generator's words") {
  device_buffer<mtgp32_kernel_params_t> params(1);
  device_buffer<curandStateMtgp32_t> states(2);
  REQUIRE(curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, params.p) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandMakeMTGP32KernelState(states.p, mtgp32dc_params_fast_11213, params.p, 2, 1234) ==
          CURAND_STATUS_SUCCESS);
  CHECK(curandMakeMTGP32KernelState(states.p, mtgp32dc_params_fast_11213, params.p, 201, 1234) ==
        CURAND_STATUS_OUT_OF_RANGE);
  device_buffer<unsigned> words(2 * 3 * 256);
  REQUIRE(weft::launch(2, 256, mtgp_words, states.p, words.p, 3) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<unsigned> w = words.to_host();
  CHECK(w[0] == 0x95130d0du);
  CHECK(w[1] == 0x76af12e1u);
  CHECK(w[2] == 0x9d99d21cu);
  CHECK(w[255] == 0x297968c5u);
  CHECK(w[3 * 256] == 0xb3ec7da8u);  // block 1 is state 1: the host's result 256

  curandGenerator_t g = nullptr;
  REQUIRE(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_MTGP32) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandSetPseudoRandomGeneratorSeed(g, 1234) == CURAND_STATUS_SUCCESS);
  std::vector<unsigned> host(512);
  REQUIRE(curandGenerate(g, host.data(), host.size()) == CURAND_STATUS_SUCCESS);
  for (int t = 0; t < 256; ++t) {
    REQUIRE(host[t] == w[t]);
    REQUIRE(host[256 + t] == w[3 * 256 + t]);
  }
  CHECK(curandSetGeneratorOffset(g, 10) == CURAND_STATUS_TYPE_ERROR);  // MTGP32 cannot skip
  REQUIRE(curandDestroyGenerator(g) == CURAND_STATUS_SUCCESS);
}

TEST_CASE("curand MTGP32: a block narrower than 256 threads takes that many words a call") {
  device_buffer<mtgp32_kernel_params_t> params(1);
  device_buffer<curandStateMtgp32_t> states(1);
  REQUIRE(curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, params.p) == CURAND_STATUS_SUCCESS);
  REQUIRE(curandMakeMTGP32KernelState(states.p, mtgp32dc_params_fast_11213, params.p, 1, 1234) ==
          CURAND_STATUS_SUCCESS);
  device_buffer<unsigned> words(4 * 64);
  REQUIRE(weft::launch(1, 64, mtgp_words, states.p, words.p, 4) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<unsigned> w = words.to_host();
  CHECK(w[0] == 0x95130d0du);
  CHECK(w[255] == 0x297968c5u);  // four calls of 64 make the first 256 words
}
