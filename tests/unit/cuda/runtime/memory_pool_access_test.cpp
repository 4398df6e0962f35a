// cudaMemPoolSetAccess and cudaMemPoolGetAccess: a pool's own device always
// reads and writes its memory; another device does once granted, as with
// peer access. The multi_device tests run with WEFT_DEVICES=3.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <vector>

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

namespace {

__global__ void pool_access_double(const int* from, int* to, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) to[i] = 2 * from[i];
}

}  // namespace

TEST_CASE("multi_device: a kernel of one device reads another's pool memory once granted, and frees it in its stream" *
          doctest::test_suite("multi_device")) {
  if (pool_access_devices() < 2) return;  // run by the WEFT_DEVICES=3 ctest test
  constexpr int n = 4096;
  std::vector<int> input(n), output(n);
  for (int i = 0; i < n; ++i) input[static_cast<std::size_t>(i)] = i - 7;
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  cudaStream_t on0 = nullptr, on1 = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&on0, cudaStreamNonBlocking) == cudaSuccess);
  cudaMemPool_t pool0 = nullptr;
  REQUIRE(cudaDeviceGetDefaultMemPool(&pool0, 0) == cudaSuccess);
  int* source = nullptr;
  REQUIRE(cudaMallocAsync(&source, n * sizeof(int), on0) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(source, input.data(), n * sizeof(int), cudaMemcpyHostToDevice, on0) == cudaSuccess);
  cudaEvent_t copied = nullptr;
  REQUIRE(cudaEventCreate(&copied) == cudaSuccess);
  REQUIRE(cudaEventRecord(copied, on0) == cudaSuccess);
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&on1, cudaStreamNonBlocking) == cudaSuccess);
  int* target = nullptr;
  REQUIRE(cudaMallocAsync(&target, n * sizeof(int), on1) == cudaSuccess);
  cudaMemAccessDesc grant{{cudaMemLocationTypeDevice, 1}, cudaMemAccessFlagsProtReadWrite};
  check_succeeded(cudaMemPoolSetAccess(pool0, &grant, 1));
  CHECK(pool_access_from(pool0, 1) == cudaMemAccessFlagsProtReadWrite);
  REQUIRE(cudaStreamWaitEvent(on1, copied, 0) == cudaSuccess);
  weft::launch(weft::launch_config{n / 256, 256, 0, on1}, pool_access_double, source, target, n);
  REQUIRE(cudaMemcpyAsync(output.data(), target, n * sizeof(int), cudaMemcpyDeviceToHost, on1) == cudaSuccess);
  check_succeeded(cudaFreeAsync(source, on1));  // device 0's memory, freed in device 1's stream
  check_succeeded(cudaFreeAsync(target, on1));
  check_succeeded(cudaStreamSynchronize(on1));
  std::vector<int> expected(n);
  for (int i = 0; i < n; ++i) expected[static_cast<std::size_t>(i)] = 2 * (i - 7);
  CHECK(output == expected);
  cudaMemAccessDesc revoke{{cudaMemLocationTypeDevice, 1}, cudaMemAccessFlagsProtNone};
  REQUIRE(cudaMemPoolSetAccess(pool0, &revoke, 1) == cudaSuccess);
  REQUIRE(cudaEventDestroy(copied) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(on1) == cudaSuccess);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(on0) == cudaSuccess);
}
