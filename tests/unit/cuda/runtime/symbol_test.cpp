// cudaMemcpyToSymbol / FromSymbol (+Async), cudaGetSymbolAddress and
// cudaGetSymbolSize on __device__ and __constant__ variables, read and
// written by kernels; sizes, offsets, directions and streams that are refused.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "error_checks.hpp"

#include <cstdint>

namespace {

__constant__ float coefficients[8];
__device__ int counters[4];

__global__ void scale_into_counters() { counters[threadIdx.x] = static_cast<int>(coefficients[threadIdx.x] * 10); }

}  // namespace

TEST_CASE("symbols: a kernel reads what cudaMemcpyToSymbol wrote; cudaMemcpyFromSymbol reads back") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  float c[8] = {0.5f, 1, 2, 3, 4, 5, 6, 7};
  check_succeeded(cudaMemcpyToSymbol(coefficients, c, sizeof c));
  // Offsets: overwrite coefficients[2..3].
  float two[2] = {9, 8};
  check_succeeded(cudaMemcpyToSymbol(coefficients, two, sizeof two, 2 * sizeof(float)));
  REQUIRE(weft::launch(1, 4, scale_into_counters) == cudaSuccess);
  int back[4] = {};
  check_succeeded(cudaMemcpyFromSymbol(back, counters, sizeof back));
  CHECK(back[0] == 5);
  CHECK(back[1] == 10);
  CHECK(back[2] == 90);
  CHECK(back[3] == 80);
  int last = 0;
  check_succeeded(cudaMemcpyFromSymbol(&last, counters, sizeof last, 3 * sizeof(int)));
  CHECK(last == 80);

  // Device to device through a cudaMalloc buffer, and the Async forms.
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, sizeof back) == cudaSuccess);
  check_succeeded(cudaMemcpyFromSymbolAsync(d, counters, sizeof back, 0, cudaMemcpyDeviceToDevice, cudaStreamLegacy));
  int zeros[4] = {};
  check_succeeded(cudaMemcpyToSymbolAsync(counters, zeros, sizeof zeros, 0, cudaMemcpyHostToDevice, 0));
  check_succeeded(cudaMemcpyToSymbol(counters, d, sizeof back, 0, cudaMemcpyDeviceToDevice));
  int again[4] = {};
  check_succeeded(cudaMemcpyFromSymbol(again, counters, sizeof again, 0, cudaMemcpyDefault));
  CHECK(again[2] == 90);
  cudaFree(d);
}

TEST_CASE("cudaGetSymbolAddress and cudaGetSymbolSize") {
  void* address = nullptr;
  check_succeeded(cudaGetSymbolAddress(&address, counters));
  CHECK(address == static_cast<void*>(counters));
  std::size_t size = 0;
  check_succeeded(cudaGetSymbolSize(&size, coefficients));
  CHECK(size == 8 * sizeof(float));
  check_failed_with(cudaGetSymbolAddress(nullptr, counters), cudaErrorInvalidValue);
  check_failed_with(cudaGetSymbolSize(nullptr, counters), cudaErrorInvalidValue);
}

TEST_CASE("symbol copies: past the symbol's end, bad directions, bad pointers, other streams") {
  int four[5] = {};
  check_failed_with(cudaMemcpyToSymbol(counters, four, sizeof four), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpyToSymbol(counters, four, sizeof(int), 4 * sizeof(int)), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpyFromSymbol(four, counters, 2 * sizeof(int), 3 * sizeof(int)), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpyFromSymbol(four, counters, 4, std::size_t{1} << 62), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpyToSymbol(counters, four, 4, 0, cudaMemcpyDeviceToHost), cudaErrorInvalidMemcpyDirection);
  check_failed_with(cudaMemcpyFromSymbol(four, counters, 4, 0, cudaMemcpyHostToDevice),
                    cudaErrorInvalidMemcpyDirection);
  check_failed_with(cudaMemcpyToSymbol(counters, four, 4, 0, static_cast<cudaMemcpyKind>(12)),
                    cudaErrorInvalidMemcpyDirection);
  check_failed_with(cudaMemcpyToSymbol(counters, nullptr, 4), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpyToSymbol(counters, four, 4, 0, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  auto other = reinterpret_cast<cudaStream_t>(std::uintptr_t{0x1000});
  check_failed_with(cudaMemcpyToSymbolAsync(counters, four, 4, 0, cudaMemcpyHostToDevice, other),
                    cudaErrorInvalidResourceHandle);
  check_failed_with(cudaMemcpyFromSymbolAsync(four, counters, 4, 0, cudaMemcpyDeviceToHost, other),
                    cudaErrorInvalidResourceHandle);
  check_succeeded(cudaMemcpyToSymbol(counters, four, 0, 4 * sizeof(int)));  // empty, at the end
}
