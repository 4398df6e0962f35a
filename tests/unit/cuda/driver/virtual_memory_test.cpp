// Virtual memory management through the driver API: reserve, create, map,
// set access, unmap and map again (the same bytes), with CUDA's codes for
// the misuses an H100 refused (tests/unit/cuda/driver: measured with CUDA
// 13 on an H100).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstring>
#include <vector>

#include "primary_context.hpp"
#include "weft/cuda/driver/driver_api.hpp"

namespace {

__global__ void add_one_to_mapped(int* data, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] += 1;
}

CUmemAllocationProp device_memory(bool compressed) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  if (compressed) prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
  return prop;
}

}  // namespace

TEST_CASE("cuMemMap round trip: the same physical memory keeps its bytes across unmapping and mapping elsewhere") {
  use_primary_context();
  CUmemAllocationProp prop = device_memory(true);
  std::size_t granularity = 0;
  REQUIRE(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) == CUDA_SUCCESS);
  CHECK(granularity == 2u << 20);
  const std::size_t size = 2 * granularity;

  CUmemGenericAllocationHandle handle = 0;
  REQUIRE(cuMemCreate(&handle, size, &prop, 0) == CUDA_SUCCESS);
  CUmemAllocationProp reported{};
  REQUIRE(cuMemGetAllocationPropertiesFromHandle(&reported, handle) == CUDA_SUCCESS);
  CHECK(reported.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_GENERIC);
  CHECK(reported.location.id == 0);

  CUdeviceptr first = 0, second = 0;
  REQUIRE(cuMemAddressReserve(&first, size, 0, 0, 0) == CUDA_SUCCESS);
  REQUIRE(cuMemAddressReserve(&second, size, 0, 0, 0) == CUDA_SUCCESS);
  CHECK(first % granularity == 0);
  CHECK(first != second);
  REQUIRE(cuMemMap(first, size, 0, handle, 0) == CUDA_SUCCESS);
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  REQUIRE(cuMemSetAccess(first, size, &access, 1) == CUDA_SUCCESS);

  // Mapped memory is device memory to copies and kernels.
  const int n = static_cast<int>(size / sizeof(int));
  std::vector<int> values(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = i;
  REQUIRE(cudaMemcpy(reinterpret_cast<void*>(first), values.data(), size, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(weft::launch(dim3((n + 255) / 256), dim3(256), add_one_to_mapped, reinterpret_cast<int*>(first), n) ==
          cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaFree(reinterpret_cast<void*>(first)) == cudaErrorInvalidValue);  // not cudaMalloc's
  (void)cudaGetLastError();

  REQUIRE(cuMemUnmap(first, size) == CUDA_SUCCESS);
  REQUIRE(cuMemMap(second, size, 0, handle, 0) == CUDA_SUCCESS);
  REQUIRE(cuMemSetAccess(second, size, &access, 1) == CUDA_SUCCESS);
  REQUIRE(cuMemRelease(handle) == CUDA_SUCCESS);  // the mapping keeps the memory
  std::vector<int> back(static_cast<std::size_t>(n));
  REQUIRE(cuMemcpyDtoH(back.data(), second, size) == CUDA_SUCCESS);
  for (int i = 0; i < n; i += 4099) CHECK(back[static_cast<std::size_t>(i)] == i + 1);
  CHECK(back[static_cast<std::size_t>(n - 1)] == n);

  CUdeviceptr base = 0;
  std::size_t range = 0;
  REQUIRE(cuMemGetAddressRange(&base, &range, second + 100) == CUDA_SUCCESS);
  CHECK(base == second);
  CHECK(range == size);

  REQUIRE(cuMemUnmap(second, size) == CUDA_SUCCESS);
  CHECK(cuMemcpyDtoH(back.data(), second, 4) == CUDA_ERROR_INVALID_VALUE);  // no longer device memory
  REQUIRE(cuMemAddressFree(first, size) == CUDA_SUCCESS);
  REQUIRE(cuMemAddressFree(second, size) == CUDA_SUCCESS);
}

TEST_CASE("virtual memory calls refuse what CUDA refuses") {
  use_primary_context();
  CUmemAllocationProp prop = device_memory(false);
  const std::size_t g = 2u << 20;
  CUmemGenericAllocationHandle handle = 0;
  CHECK(cuMemCreate(&handle, g + 4096, &prop, 0) == CUDA_ERROR_INVALID_VALUE);  // not a multiple of the granularity
  CUmemAllocationProp on_missing_device = prop;
  on_missing_device.location.id = 42;
  CHECK(cuMemCreate(&handle, g, &on_missing_device, 0) == CUDA_ERROR_INVALID_DEVICE);
  std::size_t granularity = 0;
  CHECK(cuMemGetAllocationGranularity(&granularity, nullptr, CU_MEM_ALLOC_GRANULARITY_MINIMUM) ==
        CUDA_ERROR_INVALID_VALUE);
  REQUIRE(cuMemCreate(&handle, g, &prop, 0) == CUDA_SUCCESS);
  CUdeviceptr va = 0;
  REQUIRE(cuMemAddressReserve(&va, g, 0, 0, 0) == CUDA_SUCCESS);
  CHECK(cuMemMap(va, g, 4096, handle, 0) == CUDA_ERROR_NOT_SUPPORTED);  // as an H100 answered
  REQUIRE(cuMemMap(va, g, 0, handle, 0) == CUDA_SUCCESS);
  CHECK(cuMemMap(va, g, 0, handle, 0) == CUDA_ERROR_INVALID_VALUE);  // already mapped
  REQUIRE(cuMemRelease(handle) == CUDA_SUCCESS);
  CHECK(cuMemRelease(handle) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemUnmap(va, g / 2) == CUDA_ERROR_INVALID_VALUE);    // part of a mapping
  CHECK(cuMemAddressFree(va, g) == CUDA_ERROR_INVALID_VALUE);  // still mapped
  CUmemAccessDesc bad{};
  bad.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  bad.location.id = 0;
  bad.flags = static_cast<CUmemAccess_flags>(2);
  CHECK(cuMemSetAccess(va, g, &bad, 1) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemSetAccess(va, g, nullptr, 1) == CUDA_ERROR_INVALID_VALUE);
  REQUIRE(cuMemUnmap(va, g) == CUDA_SUCCESS);
  CHECK(cuMemUnmap(va, g) == CUDA_SUCCESS);  // nothing mapped there: no error, as on an H100
  REQUIRE(cuMemAddressFree(va, g) == CUDA_SUCCESS);
  CHECK(cuMemAddressFree(va, g) == CUDA_ERROR_INVALID_VALUE);
}
