// A pool's usage counters as CUDA defines them: UsedMem* is what its live
// allocations hold, ReservedMem* what the pool holds, freed bytes it caches
// included, until a synchronisation releases those above the release
// threshold or cudaMemPoolTrimTo does; the high-water marks reset to 0.
// weft counts in 512-byte granules.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstdint>

#include "error_checks.hpp"

namespace {

cudaMemPool_t pool_usage_make_pool() {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = {cudaMemLocationTypeDevice, 0};
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  return pool;
}

std::uint64_t pool_usage_read(cudaMemPool_t pool, cudaMemPoolAttr attr) {
  std::uint64_t value = 0;
  REQUIRE(cudaMemPoolGetAttribute(pool, attr, &value) == cudaSuccess);
  return value;
}

struct pool_usage_counters {
  std::uint64_t used, used_high, reserved, reserved_high;
};

pool_usage_counters pool_usage_of(cudaMemPool_t pool) {
  return {pool_usage_read(pool, cudaMemPoolAttrUsedMemCurrent), pool_usage_read(pool, cudaMemPoolAttrUsedMemHigh),
          pool_usage_read(pool, cudaMemPoolAttrReservedMemCurrent),
          pool_usage_read(pool, cudaMemPoolAttrReservedMemHigh)};
}

void pool_usage_set_threshold(cudaMemPool_t pool, std::uint64_t bytes) {
  REQUIRE(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &bytes) == cudaSuccess);
}

}  // namespace

TEST_CASE("a new pool's counters read 0; allocations count in 512-byte granules") {
  cudaMemPool_t pool = pool_usage_make_pool();
  auto c = pool_usage_of(pool);
  CHECK(c.used == 0);
  CHECK(c.used_high == 0);
  CHECK(c.reserved == 0);
  CHECK(c.reserved_high == 0);
  void* a = nullptr;
  void* b = nullptr;
  REQUIRE(cudaMallocFromPoolAsync(&a, 1, pool, 0) == cudaSuccess);
  REQUIRE(cudaMallocFromPoolAsync(&b, 1025, pool, 0) == cudaSuccess);
  c = pool_usage_of(pool);
  CHECK(c.used == 512 + 1536);
  CHECK(c.reserved == c.used);
  CHECK(c.used_high == c.used);
  CHECK(c.reserved_high == c.reserved);
  REQUIRE(cudaFreeAsync(a, 0) == cudaSuccess);
  REQUIRE(cudaFreeAsync(b, 0) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
  c = pool_usage_of(pool);
  CHECK(c.used == 0);
  CHECK(c.reserved == 0);  // threshold 0: released at the synchronisation
  CHECK(c.used_high == 2048);
  CHECK(c.reserved_high == 2048);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("freed memory stays reserved until a synchronisation, then down to the release threshold") {
  cudaMemPool_t pool = pool_usage_make_pool();
  pool_usage_set_threshold(pool, 1024);
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreate(&s) == cudaSuccess);
  void* d = nullptr;
  REQUIRE(cudaMallocFromPoolAsync(&d, 4096, pool, s) == cudaSuccess);
  REQUIRE(cudaFreeAsync(d, s) == cudaSuccess);
  // Freed or about to be: either way the pool holds the bytes.
  CHECK(pool_usage_of(pool).reserved == 4096);
  cudaEvent_t done = nullptr;
  REQUIRE(cudaEventCreate(&done) == cudaSuccess);
  REQUIRE(cudaEventRecord(done, s) == cudaSuccess);
  check_succeeded(cudaEventSynchronize(done));
  auto c = pool_usage_of(pool);
  CHECK(c.used == 0);
  CHECK(c.reserved == 1024);
  // The next allocation reuses the cached bytes instead of reserving more.
  REQUIRE(cudaMallocFromPoolAsync(&d, 512, pool, s) == cudaSuccess);
  c = pool_usage_of(pool);
  CHECK(c.used == 512);
  CHECK(c.reserved == 1024);
  REQUIRE(cudaFreeAsync(d, s) == cudaSuccess);
  // A device synchronisation releases too.
  pool_usage_set_threshold(pool, 0);
  check_succeeded(cudaDeviceSynchronize());
  CHECK(pool_usage_of(pool).reserved == 0);
  REQUIRE(cudaEventDestroy(done) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(s) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("cudaMemPoolTrimTo releases cached memory, never what allocations hold") {
  cudaMemPool_t pool = pool_usage_make_pool();
  pool_usage_set_threshold(pool, UINT64_MAX);  // keep everything
  void* kept = nullptr;
  void* freed = nullptr;
  REQUIRE(cudaMallocFromPoolAsync(&kept, 2048, pool, 0) == cudaSuccess);
  REQUIRE(cudaMallocFromPoolAsync(&freed, 8192, pool, 0) == cudaSuccess);
  REQUIRE(cudaFreeAsync(freed, 0) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
  CHECK(pool_usage_of(pool).reserved == 2048 + 8192);
  check_succeeded(cudaMemPoolTrimTo(pool, 6144));
  CHECK(pool_usage_of(pool).reserved == 6144);
  check_succeeded(cudaMemPoolTrimTo(pool, 0));
  auto c = pool_usage_of(pool);
  CHECK(c.reserved == 2048);
  CHECK(c.used == 2048);
  REQUIRE(cudaFreeAsync(kept, 0) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("the high-water marks reset to 0 only, and then read the current use") {
  cudaMemPool_t pool = pool_usage_make_pool();
  void* a = nullptr;
  void* b = nullptr;
  REQUIRE(cudaMallocFromPoolAsync(&a, 4096, pool, 0) == cudaSuccess);
  REQUIRE(cudaMallocFromPoolAsync(&b, 512, pool, 0) == cudaSuccess);
  REQUIRE(cudaFreeAsync(a, 0) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(0) == cudaSuccess);
  std::uint64_t zero = 0, one = 1;
  check_failed_with(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &one), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &zero), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &zero), cudaErrorInvalidValue);
  CHECK(pool_usage_of(pool).used_high == 4608);
  check_succeeded(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
  check_succeeded(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
  auto c = pool_usage_of(pool);
  CHECK(c.used_high == 512);
  CHECK(c.reserved_high == 512);
  REQUIRE(cudaFreeAsync(b, 0) == cudaSuccess);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("pool attributes refuse no value, an unknown attribute and an unknown pool") {
  cudaMemPool_t pool = pool_usage_make_pool();
  std::uint64_t value = 0;
  check_failed_with(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolGetAttribute(pool, static_cast<cudaMemPoolAttr>(99), &value), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolGetAttribute(nullptr, cudaMemPoolAttrUsedMemCurrent, &value), cudaErrorInvalidValue);
  int reuse = 0;
  check_succeeded(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse));
  reuse = 1;
  check_succeeded(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse));
  CHECK(reuse == 0);
  check_succeeded(cudaMemPoolDestroy(pool));
}
