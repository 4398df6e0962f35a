// Calls and cudaDeviceProp fields that CUDA 13 removed but course code still
// uses: they are accepted, behave as CUDA 12's did, and are marked
// [[deprecated]] so that a program naming them is warned at compile time.
// This file names them on purpose, so it silences that warning.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstddef>
#include <type_traits>

#include "error_checks.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

TEST_CASE("the removed cudaThread* calls do what their cudaDevice* replacements do") {
  int* p = nullptr;
  REQUIRE(cudaMallocManaged(&p, sizeof(int)) == cudaSuccess);
  *p = 0;
  REQUIRE(weft::launch(
              1, 1, [](int* q) { *q = 7; }, p) == cudaSuccess);
  check_succeeded(cudaThreadSynchronize());
  CHECK(*p == 7);
  REQUIRE(cudaFree(p) == cudaSuccess);

  std::size_t before = 0, value = 0;
  REQUIRE(cudaDeviceGetLimit(&before, cudaLimitMallocHeapSize) == cudaSuccess);
  check_succeeded(cudaThreadSetLimit(cudaLimitMallocHeapSize, 16 << 20));
  check_succeeded(cudaThreadGetLimit(&value, cudaLimitMallocHeapSize));
  CHECK(value == std::size_t{16} << 20);
  REQUIRE(cudaDeviceGetLimit(&value, cudaLimitMallocHeapSize) == cudaSuccess);
  CHECK(value == std::size_t{16} << 20);
  check_failed_with(cudaThreadSetLimit(static_cast<cudaLimit>(99), 1), cudaErrorInvalidValue);
  REQUIRE(cudaDeviceSetLimit(cudaLimitMallocHeapSize, before) == cudaSuccess);

  check_succeeded(cudaThreadSetCacheConfig(cudaFuncCachePreferShared));
  cudaFuncCache config = cudaFuncCachePreferNone;
  check_succeeded(cudaThreadGetCacheConfig(&config));
  cudaFuncCache device_config = cudaFuncCachePreferNone;
  REQUIRE(cudaDeviceGetCacheConfig(&device_config) == cudaSuccess);
  CHECK(config == device_config);
  REQUIRE(cudaDeviceSetCacheConfig(cudaFuncCachePreferNone) == cudaSuccess);
}

TEST_CASE("cudaThreadExit resets the device, as cudaDeviceReset does") {
  void* p = nullptr;
  REQUIRE(cudaMalloc(&p, 64) == cudaSuccess);
  check_succeeded(cudaThreadExit());
  // The reset freed every allocation of the device.
  check_failed_with(cudaFree(p), cudaErrorInvalidValue);
}

TEST_CASE("the removed cudaDeviceProp fields keep CUDA 12's values and agree with the attributes") {
  cudaDeviceProp p{};
  REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  int v = -1;
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0) == cudaSuccess);
  CHECK(p.clockRate == v);
  CHECK(p.clockRate == 1980000);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, 0) == cudaSuccess);
  CHECK(p.memoryClockRate == v);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrGpuOverlap, 0) == cudaSuccess);
  CHECK(p.deviceOverlap == v);
  CHECK(p.deviceOverlap == 1);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrKernelExecTimeout, 0) == cudaSuccess);
  CHECK(p.kernelExecTimeoutEnabled == v);
  CHECK(p.kernelExecTimeoutEnabled == 0);
  REQUIRE(cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, 0) == cudaSuccess);
  CHECK(p.computeMode == v);
  CHECK(p.computeMode == cudaComputeModeDefault);
  // deviceQuery-style code compares the field with the enum.
  CHECK(p.computeMode != cudaComputeModeProhibited);
}

#pragma GCC diagnostic pop
