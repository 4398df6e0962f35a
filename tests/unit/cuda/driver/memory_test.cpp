// Memory through the driver API: allocations, typed copies, sets of 1, 2
// and 4 bytes, address ranges and pointer attributes, shared with the
// runtime's view of the same memory.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstdint>
#include <vector>

#include "primary_context.hpp"
#include "weft/cuda/driver/driver_api.hpp"

TEST_CASE("cuMemAlloc, cuMemcpyHtoD/DtoD/DtoH and cuMemFree round-trip data") {
  use_primary_context();
  const std::size_t n = 1000;
  std::vector<int> in(n), out(n, 0);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<int>(i * 7);
  CUdeviceptr a = 0, b = 0;
  REQUIRE(cuMemAlloc(&a, n * sizeof(int)) == CUDA_SUCCESS);
  REQUIRE(cuMemAlloc(&b, n * sizeof(int)) == CUDA_SUCCESS);
  CHECK(a % 256 == 0);
  REQUIRE(cuMemcpyHtoD(a, in.data(), n * sizeof(int)) == CUDA_SUCCESS);
  REQUIRE(cuMemcpyDtoD(b, a, n * sizeof(int)) == CUDA_SUCCESS);
  REQUIRE(cuMemcpyDtoH(out.data(), b, n * sizeof(int)) == CUDA_SUCCESS);
  CHECK(out == in);
  // The runtime sees the same memory.
  cudaPointerAttributes attributes{};
  REQUIRE(cudaPointerGetAttributes(&attributes, reinterpret_cast<void*>(a)) == cudaSuccess);
  CHECK(attributes.type == cudaMemoryTypeDevice);

  CHECK(cuMemcpyHtoD(a, in.data(), n * sizeof(int) + 1) == CUDA_ERROR_INVALID_VALUE);  // past the end
  CHECK(cuMemAlloc(&a, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemAlloc(nullptr, 4) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cudaGetLastError() == cudaSuccess);  // driver calls leave the runtime's last error alone
  REQUIRE(cuMemFree(b) == CUDA_SUCCESS);
  CHECK(cuMemFree(b) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemFree(0) == CUDA_SUCCESS);
  REQUIRE(cuMemFree(a) == CUDA_SUCCESS);
}

TEST_CASE("cuMemsetD8/D16/D32 and their async forms fill elements") {
  use_primary_context();
  const std::size_t n = 64;
  CUdeviceptr p = 0;
  REQUIRE(cuMemAlloc(&p, n * 4) == CUDA_SUCCESS);
  std::vector<std::uint32_t> words(n);
  REQUIRE(cuMemsetD32(p, 0xdeadbeefu, n) == CUDA_SUCCESS);
  REQUIRE(cuMemcpyDtoH(words.data(), p, n * 4) == CUDA_SUCCESS);
  for (auto w : words) CHECK(w == 0xdeadbeefu);
  REQUIRE(cuMemsetD16(p, 0x1234, 2 * n) == CUDA_SUCCESS);
  std::vector<std::uint16_t> halves(2 * n);
  REQUIRE(cuMemcpyDtoH(halves.data(), p, n * 4) == CUDA_SUCCESS);
  for (auto h : halves) CHECK(h == 0x1234);
  CUstream s = nullptr;
  REQUIRE(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  REQUIRE(cuMemsetD8Async(p, 0xab, n * 4, s) == CUDA_SUCCESS);
  REQUIRE(cuMemsetD32Async(p + 4, 7u, 1, s) == CUDA_SUCCESS);
  REQUIRE(cuStreamSynchronize(s) == CUDA_SUCCESS);
  REQUIRE(cuMemcpyDtoH(words.data(), p, n * 4) == CUDA_SUCCESS);
  CHECK(words[0] == 0xababababu);
  CHECK(words[1] == 7u);
  CHECK(cuMemsetD32(p + 2, 1u, 1) == CUDA_ERROR_INVALID_VALUE);  // misaligned
  CHECK(cuMemsetD32(p, 1u, n + 1) == CUDA_ERROR_INVALID_VALUE);  // past the end
  CHECK(cuStreamDestroy(s) == CUDA_SUCCESS);
  CHECK(cuMemFree(p) == CUDA_SUCCESS);
}

TEST_CASE("cuMemGetAddressRange and pointer attributes describe weft's allocations") {
  use_primary_context();
  CUdeviceptr p = 0, base = 0;
  std::size_t size = 0;
  REQUIRE(cuMemAlloc(&p, 1000) == CUDA_SUCCESS);
  REQUIRE(cuMemGetAddressRange(&base, &size, p + 10) == CUDA_SUCCESS);
  CHECK(base == p);
  CHECK(size == 1000);
  int on_stack = 0;
  CHECK(cuMemGetAddressRange(&base, &size, reinterpret_cast<CUdeviceptr>(&on_stack)) == CUDA_ERROR_NOT_FOUND);

  unsigned type = 0;
  REQUIRE(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) == CUDA_SUCCESS);
  CHECK(type == CU_MEMORYTYPE_DEVICE);
  int ordinal = -1;
  REQUIRE(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p) == CUDA_SUCCESS);
  CHECK(ordinal == 0);
  CUcontext ctx = nullptr, current = nullptr;
  REQUIRE(cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, p) == CUDA_SUCCESS);
  REQUIRE(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
  CHECK(ctx == current);
  CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(&on_stack)) ==
        CUDA_ERROR_INVALID_VALUE);

  CUdeviceptr managed = 0;
  REQUIRE(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL) == CUDA_SUCCESS);
  bool is_managed = false;
  REQUIRE(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, managed) == CUDA_SUCCESS);
  CHECK(is_managed);
  REQUIRE(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, managed) == CUDA_SUCCESS);
  CHECK(type == CU_MEMORYTYPE_DEVICE);  // as CUDA reports managed memory

  void* host = nullptr;
  REQUIRE(cuMemAllocHost(&host, 64) == CUDA_SUCCESS);
  REQUIRE(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(host)) ==
          CUDA_SUCCESS);
  CHECK(type == CU_MEMORYTYPE_HOST);

  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  std::size_t range = 0;
  void* data[] = {&type, &range};
  REQUIRE(cuPointerGetAttributes(2, which, data, p) == CUDA_SUCCESS);
  CHECK(type == CU_MEMORYTYPE_DEVICE);
  CHECK(range == 1000);
  REQUIRE(cuPointerGetAttributes(2, which, data, reinterpret_cast<CUdeviceptr>(&on_stack)) == CUDA_SUCCESS);
  CHECK(type == 0);

  std::size_t free_bytes = 0, total = 0;
  REQUIRE(cuMemGetInfo(&free_bytes, &total) == CUDA_SUCCESS);
  CHECK(total > 0);
  CHECK(free_bytes <= total);

  CHECK(cuMemFreeHost(host) == CUDA_SUCCESS);
  CHECK(cuMemFree(managed) == CUDA_SUCCESS);
  CHECK(cuMemFree(p) == CUDA_SUCCESS);
}
