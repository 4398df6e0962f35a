// cudaLaunchKernel, cudaFuncGetAttributes, cache preferences and the
// occupancy calculator, with the codes for bad arguments.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "error_checks.hpp"

#include <cstdint>

namespace {

__global__ void axpy(float a, const float* x, float* y, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] += a * x[i];
}

__global__ void no_parameters() {}

}  // namespace

TEST_CASE("cudaLaunchKernel unpacks args into the kernel's parameters") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const int n = 300;
  float *x = nullptr, *y = nullptr;
  REQUIRE(cudaMallocManaged(&x, n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&y, n * sizeof(float)) == cudaSuccess);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1;
  }
  float a = 2;
  int count = n;
  void* args[] = {&a, &x, &y, &count};
  check_succeeded(cudaLaunchKernel(axpy, dim3(3), dim3(128), args, 0, nullptr));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < n; ++i) CHECK(y[i] == 1 + 2.0f * i);
  check_succeeded(cudaLaunchKernel(no_parameters, dim3(1), dim3(1), nullptr));
  check_failed_with(cudaLaunchKernel(axpy, dim3(1), dim3(1), nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaLaunchKernel(axpy, dim3(1), dim3(2048), args), cudaErrorInvalidValue);
  check_failed_with(cudaLaunchKernel(axpy, dim3(1), dim3(1), args, 0, reinterpret_cast<cudaStream_t>(0x1000)),
                    cudaErrorInvalidResourceHandle);
  void (*null_kernel)(float, const float*, float*, int) = nullptr;
  check_failed_with(cudaLaunchKernel(null_kernel, dim3(1), dim3(1), args), cudaErrorInvalidDeviceFunction);
  cudaFree(x);
  cudaFree(y);
}

TEST_CASE("cudaFuncGetAttributes reports the dynamic shared memory limit") {
  cudaFuncAttributes attr{};
  check_succeeded(cudaFuncGetAttributes(&attr, axpy));
  CHECK(attr.maxThreadsPerBlock == 1024);
  CHECK(attr.sharedSizeBytes == 0);
  CHECK(attr.numRegs == 0);
  CHECK(attr.maxDynamicSharedSizeBytes == 48 * 1024);
  REQUIRE(cudaFuncSetAttribute(axpy, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024) == cudaSuccess);
  check_succeeded(cudaFuncGetAttributes(&attr, axpy));
  CHECK(attr.maxDynamicSharedSizeBytes == 100 * 1024);
  REQUIRE(cudaFuncSetAttribute(axpy, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024) == cudaSuccess);
  check_failed_with(cudaFuncGetAttributes(nullptr, axpy), cudaErrorInvalidValue);
  void (*null_kernel)() = nullptr;
  check_failed_with(cudaFuncGetAttributes(&attr, null_kernel), cudaErrorInvalidDeviceFunction);
}

TEST_CASE("cache preferences are accepted; bad ones are refused") {
  check_succeeded(cudaFuncSetCacheConfig(axpy, cudaFuncCachePreferShared));
  check_succeeded(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1));
  cudaFuncCache c = cudaFuncCachePreferEqual;
  check_succeeded(cudaDeviceGetCacheConfig(&c));
  CHECK(c == cudaFuncCachePreferNone);
  check_failed_with(cudaFuncSetCacheConfig(axpy, static_cast<cudaFuncCache>(4)), cudaErrorInvalidValue);
  check_failed_with(cudaDeviceSetCacheConfig(static_cast<cudaFuncCache>(-1)), cudaErrorInvalidValue);
  check_failed_with(cudaDeviceGetCacheConfig(nullptr), cudaErrorInvalidValue);
}

TEST_CASE("occupancy: an H100 SM's blocks; 1024 threads on two blocks per worker") {
  int blocks = -1;
  check_succeeded(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 256, 0));
  CHECK(blocks == 8);
  check_succeeded(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 1025, 0));
  CHECK(blocks == 0);
  check_succeeded(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 256, 64 * 1024));
  CHECK(blocks == 0);
  check_failed_with(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, axpy, 0, 0), cudaErrorInvalidValue);
  check_failed_with(cudaOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, axpy, 32, 0), cudaErrorInvalidValue);
  int grid = 0, block = 0;
  check_succeeded(cudaOccupancyMaxPotentialBlockSize(&grid, &block, axpy));
  CHECK(block == 1024);
  CHECK(grid == 2 * static_cast<int>(weft::worker_count()));
  // 128-thread blocks fill an SM (16 of them), which 200 (9 blocks) does
  // not: CUDA's search picks the size with the most threads per SM.
  check_succeeded(cudaOccupancyMaxPotentialBlockSize(&grid, &block, axpy, 0, 200));
  CHECK(block == 128);
  check_failed_with(cudaOccupancyMaxPotentialBlockSize(nullptr, &block, axpy), cudaErrorInvalidValue);
  check_failed_with(cudaOccupancyMaxPotentialBlockSize(&grid, nullptr, axpy), cudaErrorInvalidValue);
}
