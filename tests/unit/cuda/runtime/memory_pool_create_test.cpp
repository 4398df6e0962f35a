// Pools of a program's own: cudaMemPoolCreate and its properties,
// cudaMemPoolDestroy (deferred while allocations live), and making a created
// pool the one cudaMallocAsync draws from (cudaDeviceSetMemPool).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstdint>

#include "error_checks.hpp"

namespace {

cudaMemPoolProps pool_create_props(int device = 0) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = {cudaMemLocationTypeDevice, device};
  return props;
}

std::uint64_t pool_create_used(cudaMemPool_t pool) {
  std::uint64_t used = 0;
  REQUIRE(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess);
  return used;
}

}  // namespace

TEST_CASE("cudaMemPoolCreate makes a pool of the device, distinct from its default pool") {
  cudaMemPoolProps props = pool_create_props();
  cudaMemPool_t pool = nullptr;
  check_succeeded(cudaMemPoolCreate(&pool, &props));
  REQUIRE(pool != nullptr);
  cudaMemPool_t default_pool = nullptr;
  check_succeeded(cudaDeviceGetDefaultMemPool(&default_pool, 0));
  CHECK(pool != default_pool);
  std::uint64_t threshold = 1;
  check_succeeded(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  CHECK(threshold == 0);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("cudaMemPoolCreate refuses what CUDA refuses") {
  cudaMemPool_t pool = nullptr;
  cudaMemPoolProps props = pool_create_props();
  check_failed_with(cudaMemPoolCreate(nullptr, &props), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolCreate(&pool, nullptr), cudaErrorInvalidValue);
  props.allocType = cudaMemAllocationTypeManaged;
  check_failed_with(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
  props = pool_create_props();
  props.location.type = cudaMemLocationTypeInvalid;
  check_failed_with(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
  props = pool_create_props(99);
  check_failed_with(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
  props = pool_create_props(-1);
  check_failed_with(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
  props = pool_create_props();
  props.handleTypes = static_cast<cudaMemAllocationHandleType>(0x40);
  check_failed_with(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
  // No memory is shared between processes.
  props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  check_failed_with(cudaMemPoolCreate(&pool, &props), cudaErrorNotSupported);
  CHECK(pool == nullptr);
}

TEST_CASE("cudaMemPoolDestroy refuses a default pool, a destroyed pool and no pool") {
  cudaMemPool_t default_pool = nullptr;
  REQUIRE(cudaDeviceGetDefaultMemPool(&default_pool, 0) == cudaSuccess);
  check_failed_with(cudaMemPoolDestroy(default_pool), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolDestroy(nullptr), cudaErrorInvalidValue);
  cudaMemPoolProps props = pool_create_props();
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));
  check_failed_with(cudaMemPoolDestroy(pool), cudaErrorInvalidValue);
  std::uint64_t value = 0;
  check_failed_with(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &value), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolTrimTo(pool, 0), cudaErrorInvalidValue);
  void* p = nullptr;
  check_failed_with(cudaMallocFromPoolAsync(&p, 64, pool, 0), cudaErrorInvalidValue);
}

TEST_CASE("a pool destroyed with live allocations goes once they are freed, which still works") {
  cudaMemPoolProps props = pool_create_props();
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  int* d = nullptr;
  REQUIRE(cudaMallocFromPoolAsync(&d, 64 * sizeof(int), pool, 0) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));  // returns at once
  check_failed_with(cudaMemPoolDestroy(pool), cudaErrorInvalidValue);
  // The memory is still the program's to use and to free.
  check_succeeded(cudaMemset(d, 0, 64 * sizeof(int)));
  check_succeeded(cudaFreeAsync(d, 0));
  check_succeeded(cudaStreamSynchronize(0));
  check_failed_with(cudaFreeAsync(d, 0), cudaErrorInvalidValue);  // freed already
}

TEST_CASE("cudaDeviceSetMemPool makes cudaMallocAsync allocate from a created pool") {
  cudaMemPoolProps props = pool_create_props();
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  cudaMemPool_t default_pool = nullptr;
  REQUIRE(cudaDeviceGetDefaultMemPool(&default_pool, 0) == cudaSuccess);
  check_succeeded(cudaDeviceSetMemPool(0, pool));
  cudaMemPool_t current = nullptr;
  check_succeeded(cudaDeviceGetMemPool(&current, 0));
  CHECK(current == pool);
  void* d = nullptr;
  check_succeeded(cudaMallocAsync(&d, 1000, 0));
  CHECK(pool_create_used(pool) == 1024);  // 512-byte granules
  check_succeeded(cudaFreeAsync(d, 0));
  check_succeeded(cudaStreamSynchronize(0));
  CHECK(pool_create_used(pool) == 0);
  check_succeeded(cudaDeviceSetMemPool(0, default_pool));
  check_succeeded(cudaDeviceGetMemPool(&current, 0));
  CHECK(current == default_pool);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("destroying a device's current pool makes its default pool current again") {
  cudaMemPoolProps props = pool_create_props();
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  REQUIRE(cudaDeviceSetMemPool(0, pool) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));
  cudaMemPool_t current = nullptr, default_pool = nullptr;
  check_succeeded(cudaDeviceGetMemPool(&current, 0));
  REQUIRE(cudaDeviceGetDefaultMemPool(&default_pool, 0) == cudaSuccess);
  CHECK(current == default_pool);
}

TEST_CASE("cudaDeviceSetMemPool and cudaDeviceGetMemPool refuse bad arguments") {
  cudaMemPoolProps props = pool_create_props();
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  check_failed_with(cudaDeviceSetMemPool(99, pool), cudaErrorInvalidDevice);
  check_failed_with(cudaDeviceSetMemPool(0, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaDeviceGetMemPool(nullptr, 0), cudaErrorInvalidValue);
  check_failed_with(cudaDeviceGetMemPool(&pool, -1), cudaErrorInvalidDevice);
  REQUIRE(cudaMemPoolDestroy(pool) == cudaSuccess);
  check_failed_with(cudaDeviceSetMemPool(0, pool), cudaErrorInvalidValue);  // destroyed
}

TEST_CASE("multi_device: a pool is current only on its own device" * doctest::test_suite("multi_device")) {
  int n = 0;
  REQUIRE(cudaGetDeviceCount(&n) == cudaSuccess);
  if (n < 2) return;  // run by the WEFT_DEVICES=3 ctest test
  cudaMemPoolProps props = pool_create_props(1);
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  check_failed_with(cudaDeviceSetMemPool(0, pool), cudaErrorInvalidValue);
  check_succeeded(cudaDeviceSetMemPool(1, pool));
  // cudaMallocAsync on a stream of device 1 draws from it.
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  void* d = nullptr;
  check_succeeded(cudaMallocAsync(&d, 512, s));
  CHECK(pool_create_used(pool) == 512);
  check_succeeded(cudaFreeAsync(d, s));
  check_succeeded(cudaStreamSynchronize(s));
  CHECK(pool_create_used(pool) == 0);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));  // device 1 draws from its default pool again
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
}

TEST_CASE("cudaDeviceReset destroys the device's created pools and renews its default pool") {
  cudaMemPoolProps props = pool_create_props();
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  REQUIRE(cudaDeviceSetMemPool(0, pool) == cudaSuccess);
  void* d = nullptr;
  REQUIRE(cudaMallocAsync(&d, 4096, 0) == cudaSuccess);
  cudaMemPool_t default_pool = nullptr;
  REQUIRE(cudaDeviceGetDefaultMemPool(&default_pool, 0) == cudaSuccess);
  std::uint64_t keep = 1 << 20;
  REQUIRE(cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  check_succeeded(cudaDeviceReset());
  check_failed_with(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &keep), cudaErrorInvalidValue);
  cudaMemPool_t current = nullptr;
  check_succeeded(cudaDeviceGetMemPool(&current, 0));
  CHECK(current == default_pool);
  check_succeeded(cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &keep));
  CHECK(keep == 0);
  CHECK(pool_create_used(default_pool) == 0);
}
