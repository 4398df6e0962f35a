// cudaMemPoolSetAccess and cudaMemPoolGetAccess: a pool's own device always
// reads and writes its memory; another device does once granted, as with
// peer access. The multi_device tests run with WEFT_DEVICES=3.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "error_checks.hpp"

namespace {

cudaMemPool_t pool_access_make_pool(int device) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = {cudaMemLocationTypeDevice, device};
  cudaMemPool_t pool = nullptr;
  REQUIRE(cudaMemPoolCreate(&pool, &props) == cudaSuccess);
  return pool;
}

cudaMemAccessFlags pool_access_from(cudaMemPool_t pool, int device) {
  cudaMemLocation where{cudaMemLocationTypeDevice, device};
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  REQUIRE(cudaMemPoolGetAccess(&flags, pool, &where) == cudaSuccess);
  return flags;
}

int pool_access_devices() {
  int n = 0;
  REQUIRE(cudaGetDeviceCount(&n) == cudaSuccess);
  return n;
}

}  // namespace

TEST_CASE("a pool's own device reads and writes it, and cannot be refused") {
  cudaMemPool_t pool = pool_access_make_pool(0);
  CHECK(pool_access_from(pool, 0) == cudaMemAccessFlagsProtReadWrite);
  cudaMemAccessDesc again{{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtReadWrite};
  check_succeeded(cudaMemPoolSetAccess(pool, &again, 1));
  cudaMemAccessDesc none{{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtNone};
  check_failed_with(cudaMemPoolSetAccess(pool, &none, 1), cudaErrorInvalidValue);
  CHECK(pool_access_from(pool, 0) == cudaMemAccessFlagsProtReadWrite);
  cudaMemPool_t default_pool = nullptr;
  REQUIRE(cudaDeviceGetDefaultMemPool(&default_pool, 0) == cudaSuccess);
  CHECK(pool_access_from(default_pool, 0) == cudaMemAccessFlagsProtReadWrite);
  check_succeeded(cudaMemPoolDestroy(pool));
}

TEST_CASE("cudaMemPoolSetAccess and cudaMemPoolGetAccess refuse bad arguments") {
  cudaMemPool_t pool = pool_access_make_pool(0);
  cudaMemAccessDesc good{{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtReadWrite};
  check_failed_with(cudaMemPoolSetAccess(nullptr, &good, 1), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolSetAccess(pool, nullptr, 1), cudaErrorInvalidValue);
  check_succeeded(cudaMemPoolSetAccess(pool, nullptr, 0));
  cudaMemAccessDesc no_device{{cudaMemLocationTypeDevice, 99}, cudaMemAccessFlagsProtReadWrite};
  check_failed_with(cudaMemPoolSetAccess(pool, &no_device, 1), cudaErrorInvalidValue);
  cudaMemAccessDesc host{{cudaMemLocationTypeHost, 0}, cudaMemAccessFlagsProtReadWrite};
  check_failed_with(cudaMemPoolSetAccess(pool, &host, 1), cudaErrorInvalidValue);
  cudaMemAccessDesc bad_flags{{cudaMemLocationTypeDevice, 0}, static_cast<cudaMemAccessFlags>(2)};
  check_failed_with(cudaMemPoolSetAccess(pool, &bad_flags, 1), cudaErrorInvalidValue);
  cudaMemLocation where{cudaMemLocationTypeDevice, 0};
  cudaMemAccessFlags flags{};
  check_failed_with(cudaMemPoolGetAccess(nullptr, pool, &where), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolGetAccess(&flags, pool, nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaMemPoolGetAccess(&flags, nullptr, &where), cudaErrorInvalidValue);
  cudaMemLocation nowhere{cudaMemLocationTypeDevice, -1};
  check_failed_with(cudaMemPoolGetAccess(&flags, pool, &nowhere), cudaErrorInvalidValue);
  REQUIRE(cudaMemPoolDestroy(pool) == cudaSuccess);
  check_failed_with(cudaMemPoolGetAccess(&flags, pool, &where), cudaErrorInvalidValue);  // destroyed
  check_failed_with(cudaMemPoolSetAccess(pool, &good, 1), cudaErrorInvalidValue);
}

TEST_CASE("multi_device: another device reaches a pool once granted" * doctest::test_suite("multi_device")) {
  if (pool_access_devices() < 3) return;  // run by the WEFT_DEVICES=3 ctest test
  cudaMemPool_t pool = pool_access_make_pool(1);
  CHECK(pool_access_from(pool, 0) == cudaMemAccessFlagsProtNone);
  CHECK(pool_access_from(pool, 1) == cudaMemAccessFlagsProtReadWrite);
  cudaMemAccessDesc grants[] = {{{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtReadWrite},
                                {{cudaMemLocationTypeDevice, 2}, cudaMemAccessFlagsProtRead}};
  check_succeeded(cudaMemPoolSetAccess(pool, grants, 2));
  CHECK(pool_access_from(pool, 0) == cudaMemAccessFlagsProtReadWrite);
  CHECK(pool_access_from(pool, 2) == cudaMemAccessFlagsProtRead);
  // All descriptors or none: a bad one leaves the others unapplied.
  cudaMemAccessDesc mixed[] = {{{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtNone},
                               {{cudaMemLocationTypeDevice, 1}, cudaMemAccessFlagsProtNone}};
  check_failed_with(cudaMemPoolSetAccess(pool, mixed, 2), cudaErrorInvalidValue);
  CHECK(pool_access_from(pool, 0) == cudaMemAccessFlagsProtReadWrite);
  cudaMemAccessDesc revoke{{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtNone};
  check_succeeded(cudaMemPoolSetAccess(pool, &revoke, 1));
  CHECK(pool_access_from(pool, 0) == cudaMemAccessFlagsProtNone);
  check_succeeded(cudaMemPoolDestroy(pool));
}
