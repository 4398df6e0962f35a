// cudaMalloc, cudaFree, cudaMemcpy and cudaMemset: copies in every direction,
// and the error codes for bad arguments, which must be those CUDA 13 returned
// on an H100 (tests/differential/error_codes_probe.expected). A failing call
// also sets the last error: cudaPeekAtLastError keeps it, cudaGetLastError
// returns it once and resets it.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "error_checks.hpp"
#include "stream_gates.hpp"

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

TEST_CASE("cudaMalloc: zero bytes, a null out-pointer, and too much") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  float* d = reinterpret_cast<float*>(std::uintptr_t{0x1000});
  check_succeeded(cudaMalloc(&d, 0));
  CHECK(d == nullptr);
  check_failed_with(cudaMalloc(static_cast<void**>(nullptr), 16), cudaErrorInvalidValue);
  check_failed_with(cudaMalloc(&d, std::size_t{1} << 60), cudaErrorMemoryAllocation);
}

TEST_CASE("cudaMalloc returns distinct, 256-byte aligned, usable allocations") {
  std::vector<unsigned char*> blocks(8);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    REQUIRE(cudaMalloc(&blocks[i], 1 + 100 * i) == cudaSuccess);
    CHECK(reinterpret_cast<std::uintptr_t>(blocks[i]) % 256 == 0);
    REQUIRE(cudaMemset(blocks[i], static_cast<int>(i), 1 + 100 * i) == cudaSuccess);
  }
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    std::vector<unsigned char> host(1 + 100 * i);
    REQUIRE(cudaMemcpy(host.data(), blocks[i], host.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
    for (unsigned char c : host) CHECK(c == i);  // no allocation overlapped another
    check_succeeded(cudaFree(blocks[i]));
  }
}

TEST_CASE("the typed allocators take a pointer to const elements, as CUDA's templates do") {
  // HSOpticalFlow (cuda-samples) keeps its read-only images as const float*
  // and allocates them with cudaMalloc(&image, ...).
  const float* device = nullptr;
  check_succeeded(cudaMalloc(&device, 64 * sizeof(float)));
  CHECK(device != nullptr);
  const float* pitched = nullptr;
  std::size_t pitch = 0;
  check_succeeded(cudaMallocPitch(&pitched, &pitch, 10 * sizeof(float), 3));
  CHECK(pitch >= 10 * sizeof(float));
  const int* managed = nullptr;
  check_succeeded(cudaMallocManaged(&managed, sizeof(int)));
  const double* host = nullptr;
  check_succeeded(cudaMallocHost(&host, sizeof(double)));
  const double* mapped = nullptr;
  check_succeeded(cudaHostGetDevicePointer(&mapped, const_cast<double*>(host), 0));
  CHECK(mapped == host);
  const char* allocated = nullptr;
  check_succeeded(cudaHostAlloc(&allocated, 8, cudaHostAllocDefault));
  const short* ordered = nullptr;
  check_succeeded(cudaMallocAsync(&ordered, 8, 0));
  check_succeeded(cudaFreeAsync(const_cast<short*>(ordered), 0));
  check_succeeded(cudaFreeHost(const_cast<char*>(allocated)));
  check_succeeded(cudaFreeHost(const_cast<double*>(host)));
  for (const void* p :
       {static_cast<const void*>(device), static_cast<const void*>(pitched), static_cast<const void*>(managed)})
    check_succeeded(cudaFree(const_cast<void*>(p)));
}

TEST_CASE("cudaFree: null is fine; a host pointer, an interior pointer or a second free are not") {
  int host_int = 0;
  check_succeeded(cudaFree(nullptr));
  check_failed_with(cudaFree(&host_int), cudaErrorInvalidValue);
  float* d = nullptr;
  REQUIRE(cudaMalloc(&d, 256) == cudaSuccess);
  check_failed_with(cudaFree(d + 1), cudaErrorInvalidValue);
  check_succeeded(cudaFree(d));
  check_failed_with(cudaFree(d), cudaErrorInvalidValue);
}

TEST_CASE("cudaMemset: past the end, a host pointer or freed memory are refused") {
  int host_int = 0;
  float* d = nullptr;
  REQUIRE(cudaMalloc(&d, 256) == cudaSuccess);
  check_failed_with(cudaMemset(d, 0, 512), cudaErrorInvalidValue);
  check_failed_with(cudaMemset(d + 32, 0, 200), cudaErrorInvalidValue);  // inside, but runs past the end
  check_failed_with(cudaMemset(&host_int, 0, 4), cudaErrorInvalidValue);
  CHECK(host_int == 0);
  check_succeeded(cudaMemset(d, 0, 256));
  check_succeeded(cudaMemset(d + 32, 0x17f, 128));  // exactly up to the end; only the low byte counts
  std::vector<unsigned char> host(256);
  REQUIRE(cudaMemcpy(host.data(), d, 256, cudaMemcpyDeviceToHost) == cudaSuccess);
  for (std::size_t i = 0; i < host.size(); ++i) CHECK(host[i] == (i >= 128 ? 0x7f : 0));
  REQUIRE(cudaFree(d) == cudaSuccess);
  check_failed_with(cudaMemset(d, 0, 4), cudaErrorInvalidValue);
}

TEST_CASE("cudaMemcpy: the error codes of the probe") {
  int host_int = 0;
  float* d = nullptr;
  REQUIRE(cudaMalloc(&d, 256) == cudaSuccess);
  check_failed_with(cudaMemcpy(d, &host_int, 512, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy(d, &host_int, 4, static_cast<cudaMemcpyKind>(7)), cudaErrorInvalidMemcpyDirection);
  check_failed_with(cudaMemcpy(&host_int, &host_int, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy(&host_int, &host_int, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy(nullptr, d, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  check_succeeded(cudaMemcpy(nullptr, nullptr, 0, cudaMemcpyDeviceToHost));
  host_int = 42;
  int other = 0;
  check_succeeded(cudaMemcpy(&other, &host_int, 4, cudaMemcpyDefault));
  CHECK(other == 42);
  REQUIRE(cudaFree(d) == cudaSuccess);
  check_failed_with(cudaMemcpy(&host_int, d, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);  // freed
}

TEST_CASE("cudaMemcpy copies correctly in every direction") {
  const std::size_t n = 1000, bytes = n * sizeof(int);
  std::vector<int> source(n), back(n, -1);
  std::iota(source.begin(), source.end(), -500);
  int *a = nullptr, *b = nullptr;
  REQUIRE(cudaMalloc(&a, bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&b, bytes) == cudaSuccess);

  SUBCASE("host to host") {
    check_succeeded(cudaMemcpy(back.data(), source.data(), bytes, cudaMemcpyHostToHost));
    CHECK(back == source);
  }
  SUBCASE("host to device, device to device, device to host") {
    check_succeeded(cudaMemcpy(a, source.data(), bytes, cudaMemcpyHostToDevice));
    check_succeeded(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    check_succeeded(cudaMemcpy(back.data(), b, bytes, cudaMemcpyDeviceToHost));
    CHECK(back == source);
  }
  SUBCASE("cudaMemcpyDefault in each direction") {
    check_succeeded(cudaMemcpy(a, source.data(), bytes, cudaMemcpyDefault));
    check_succeeded(cudaMemcpy(b, a, bytes, cudaMemcpyDefault));
    check_succeeded(cudaMemcpy(back.data(), b, bytes, cudaMemcpyDefault));
    CHECK(back == source);
    std::vector<int> copy(n);
    check_succeeded(cudaMemcpy(copy.data(), back.data(), bytes, cudaMemcpyDefault));
    CHECK(copy == source);
  }
  SUBCASE("part of an allocation, at an offset") {
    REQUIRE(cudaMemset(a, 0, bytes) == cudaSuccess);
    check_succeeded(cudaMemcpy(a + 100, source.data(), 50 * sizeof(int), cudaMemcpyHostToDevice));
    check_succeeded(cudaMemcpy(back.data(), a, bytes, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; ++i) CHECK(back[i] == (i >= 100 && i < 150 ? source[i - 100] : 0));
  }
  REQUIRE(cudaFree(a) == cudaSuccess);
  REQUIRE(cudaFree(b) == cudaSuccess);
}

TEST_CASE("cudaMemcpy and cudaMemset wait for the kernels launched before them") {
  // The legacy default stream orders them after earlier launches: no
  // explicit synchronisation is needed to see a kernel's results.
  exact_workers pool(4);
  const unsigned n = 64 * 256;
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess);
  auto fill = [](int* out, int value) { out[blockIdx.x * blockDim.x + threadIdx.x] = value; };
  REQUIRE(weft::launch(64, 256, fill, d, 3) == cudaSuccess);
  std::vector<int> host(n);
  REQUIRE(cudaMemcpy(host.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host == std::vector<int>(n, 3));
  REQUIRE(weft::launch(64, 256, fill, d, 5) == cudaSuccess);
  REQUIRE(cudaMemset(d, 0, n * sizeof(int) / 2) == cudaSuccess);  // after the kernel, so it wins
  REQUIRE(cudaMemcpy(host.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  for (unsigned i = 0; i < n; ++i) CHECK(host[i] == (i < n / 2 ? 0 : 5));
  REQUIRE(cudaFree(d) == cudaSuccess);
}

TEST_CASE("cudaDeviceReset frees all device memory") {
  float* d = nullptr;
  REQUIRE(cudaMalloc(&d, 256) == cudaSuccess);
  REQUIRE(cudaDeviceReset() == cudaSuccess);
  check_failed_with(cudaMemset(d, 0, 4), cudaErrorInvalidValue);
  check_failed_with(cudaFree(d), cudaErrorInvalidValue);
}
