// Page-locked host memory, managed and stream-ordered allocation, and
// cudaPointerGetAttributes for every kind of memory: exact results, and the
// codes for bad flags, unknown pointers, double registrations and streams.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "error_checks.hpp"

#include <cstdint>
#include <vector>

namespace {

__global__ void add_one_to_each(int* x) { x[threadIdx.x] += 1; }

cudaPointerAttributes attributes_of(const void* p) {
  cudaPointerAttributes a{};
  REQUIRE(cudaPointerGetAttributes(&a, p) == cudaSuccess);
  return a;
}

}  // namespace

TEST_CASE("cudaMallocHost and cudaHostAlloc: usable by host and kernels, freed by cudaFreeHost only") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  int* h = nullptr;
  check_succeeded(cudaMallocHost(&h, 32 * sizeof(int)));
  for (int i = 0; i < 32; ++i) h[i] = i;
  int* mapped = nullptr;
  check_succeeded(cudaHostAlloc(&mapped, 32 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  int* device_view = nullptr;
  check_succeeded(cudaHostGetDevicePointer(&device_view, mapped, 0));
  CHECK(device_view == mapped);
  for (int i = 0; i < 32; ++i) mapped[i] = 100;
  REQUIRE(weft::launch(1, 32, add_one_to_each, device_view) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(mapped[31] == 101);

  cudaPointerAttributes a = attributes_of(h + 3);
  CHECK(a.type == cudaMemoryTypeHost);
  CHECK(a.device == 0);
  CHECK(a.hostPointer == h + 3);
  CHECK(a.devicePointer == h + 3);

  void* p = nullptr;
  check_failed_with(cudaHostAlloc(&p, 16, 0x8), cudaErrorInvalidValue);
  check_failed_with(cudaHostAlloc(static_cast<void**>(nullptr), 16, 0), cudaErrorInvalidValue);
  check_failed_with(cudaMallocHost(static_cast<void**>(nullptr), 16), cudaErrorInvalidValue);
  check_failed_with(cudaHostGetDevicePointer(&p, mapped, 1), cudaErrorInvalidValue);
  int local = 0;
  check_failed_with(cudaHostGetDevicePointer(&p, &local, 0), cudaErrorInvalidValue);
  check_failed_with(cudaFree(h), cudaErrorInvalidValue);  // not device memory
  check_failed_with(cudaFreeHost(&local), cudaErrorInvalidValue);
  check_failed_with(cudaFreeHost(h + 1), cudaErrorInvalidValue);
  check_failed_with(cudaHostRegister(h, 16, 0), cudaErrorInvalidValue);  // already page-locked (as on an H100)
  check_succeeded(cudaFreeHost(h));
  check_failed_with(cudaFreeHost(h), cudaErrorInvalidValue);
  check_succeeded(cudaFreeHost(mapped));
  check_succeeded(cudaFreeHost(nullptr));
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 16) == cudaSuccess);
  check_failed_with(cudaFreeHost(d), cudaErrorInvalidValue);
  cudaFree(d);
}

TEST_CASE("cudaHostRegister and cudaHostUnregister") {
  std::vector<int> v(64, 1);
  check_succeeded(cudaHostRegister(v.data(), v.size() * sizeof(int), cudaHostRegisterDefault));
  CHECK(attributes_of(v.data() + 10).type == cudaMemoryTypeHost);
  check_failed_with(cudaHostRegister(v.data(), 16, 0), cudaErrorHostMemoryAlreadyRegistered);
  check_failed_with(cudaHostRegister(v.data() + 8, 16, 0), cudaErrorHostMemoryAlreadyRegistered);
  void* dv = nullptr;
  check_succeeded(cudaHostGetDevicePointer(&dv, v.data(), 0));
  CHECK(dv == v.data());
  REQUIRE(weft::launch(1, 64, add_one_to_each, static_cast<int*>(dv)) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(v[63] == 2);
  check_failed_with(cudaHostUnregister(v.data() + 1), cudaErrorHostMemoryNotRegistered);
  check_succeeded(cudaHostUnregister(v.data()));
  check_failed_with(cudaHostUnregister(v.data()), cudaErrorHostMemoryNotRegistered);
  CHECK(v[0] == 2);  // unregistering does not free the program's memory
  CHECK(attributes_of(v.data()).type == cudaMemoryTypeUnregistered);
  check_failed_with(cudaHostRegister(nullptr, 16, 0), cudaErrorInvalidValue);
  check_failed_with(cudaHostRegister(v.data(), 0, 0), cudaErrorInvalidValue);
  check_failed_with(cudaHostRegister(v.data(), 16, 0x10), cudaErrorInvalidValue);
  check_failed_with(cudaHostUnregister(nullptr), cudaErrorInvalidValue);
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 64) == cudaSuccess);
  check_failed_with(cudaHostRegister(d, 64, 0), cudaErrorInvalidValue);
  cudaFree(d);
}

TEST_CASE("cudaPointerGetAttributes for device, managed and unregistered memory") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 64) == cudaSuccess);
  cudaPointerAttributes a = attributes_of(d + 2);
  CHECK(a.type == cudaMemoryTypeDevice);
  CHECK(a.device == 0);
  CHECK(a.devicePointer == d + 2);
  CHECK(a.hostPointer == nullptr);
  int* m = nullptr;
  REQUIRE(cudaMallocManaged(&m, 64) == cudaSuccess);
  a = attributes_of(m);
  CHECK(a.type == cudaMemoryTypeManaged);
  CHECK(a.devicePointer == m);
  CHECK(a.hostPointer == m);
  int local = 0;
  a = attributes_of(&local);  // as on an H100
  CHECK(a.type == cudaMemoryTypeUnregistered);
  CHECK(a.device == -2);
  CHECK(a.devicePointer == nullptr);
  CHECK(a.hostPointer == &local);
  CHECK(attributes_of(nullptr).type == cudaMemoryTypeUnregistered);
  check_failed_with(cudaPointerGetAttributes(nullptr, d), cudaErrorInvalidValue);
  cudaFree(d);
  cudaFree(m);
}

TEST_CASE("cudaMallocManaged: host and kernels share it; prefetch and advice are checked and accepted") {
  int* m = nullptr;
  check_succeeded(cudaMallocManaged(&m, 16 * sizeof(int)));
  for (int i = 0; i < 16; ++i) m[i] = i;
  check_succeeded(cudaMemPrefetchAsync(m, 16 * sizeof(int), 0));
  check_succeeded(cudaMemPrefetchAsync(m, 16 * sizeof(int), cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0));
  check_succeeded(cudaMemAdvise(m, 16 * sizeof(int), cudaMemAdviseSetReadMostly, 0));
  check_succeeded(cudaMemAdvise(m, 16 * sizeof(int), cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId));
  REQUIRE(weft::launch(1, 16, add_one_to_each, m) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < 16; ++i) CHECK(m[i] == i + 1);
  check_succeeded(cudaMemPrefetchAsync(m, 16 * sizeof(int), cudaCpuDeviceId, cudaStreamPerThread));

  int local_flag = 0;
  int* host_attached = nullptr;
  check_succeeded(cudaMallocManaged(&host_attached, 8, cudaMemAttachHost));
  void* p = nullptr;
  check_failed_with(cudaMallocManaged(&p, 8, cudaMemAttachSingle), cudaErrorInvalidValue);
  check_failed_with(cudaMallocManaged(&p, 8, 0), cudaErrorInvalidValue);
  p = &local_flag;
  check_succeeded(cudaMallocManaged(&p, 0));  // as cudaMalloc(0), measured on an H100
  CHECK(p == nullptr);
  check_failed_with(cudaMallocManaged(static_cast<void**>(nullptr), 8), cudaErrorInvalidValue);
  check_failed_with(cudaMemPrefetchAsync(m, 16 * sizeof(int), 5), cudaErrorInvalidDevice);
  check_failed_with(cudaMemPrefetchAsync(m, 17 * sizeof(int), 0), cudaErrorInvalidValue);
  int local = 0;
  check_failed_with(cudaMemPrefetchAsync(&local, 4, 0), cudaErrorInvalidValue);
  check_failed_with(cudaMemPrefetchAsync(m, 4, 0, reinterpret_cast<cudaStream_t>(std::uintptr_t{0x1000})),
                    cudaErrorInvalidResourceHandle);
  check_failed_with(cudaMemPrefetchAsync(m, 4, cudaMemLocation{cudaMemLocationTypeDevice, 0}, 1),
                    cudaErrorInvalidValue);
  check_failed_with(cudaMemAdvise(m, 4, static_cast<cudaMemoryAdvise>(0), 0), cudaErrorInvalidValue);
  check_failed_with(cudaMemAdvise(m, 4, cudaMemAdviseSetAccessedBy, 7), cudaErrorInvalidDevice);
  check_failed_with(cudaMemAdvise(nullptr, 4, cudaMemAdviseSetAccessedBy, 0), cudaErrorInvalidValue);
  check_succeeded(cudaFree(m));
  check_succeeded(cudaFree(host_attached));
}

TEST_CASE("cudaMallocAsync and cudaFreeAsync on the default streams") {
  int* d = nullptr;
  check_succeeded(cudaMallocAsync(&d, 32 * sizeof(int), 0));
  CHECK(attributes_of(d).type == cudaMemoryTypeDevice);
  check_succeeded(cudaMemsetAsync(d, 0, 32 * sizeof(int), 0));
  REQUIRE(weft::launch(1, 32, add_one_to_each, d) == cudaSuccess);
  int back[32] = {};
  check_succeeded(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
  CHECK(back[31] == 1);
  check_succeeded(cudaFreeAsync(d, cudaStreamPerThread));
  auto other = reinterpret_cast<cudaStream_t>(std::uintptr_t{0x1000});
  void* p = nullptr;
  check_failed_with(cudaMallocAsync(&p, 16, other), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaFreeAsync(d, other), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaFreeAsync(d, 0), cudaErrorInvalidValue);  // already freed
  check_failed_with(cudaMallocAsync(static_cast<void**>(nullptr), 16, 0), cudaErrorInvalidValue);
}
