// Pitched and 3D memory: allocation, 2D and 3D copies and sets in every
// direction with exact results, the *Async forms on the default streams,
// and the codes for bad pitches, ranges, directions and streams.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "error_checks.hpp"

#include <cstdint>
#include <vector>

namespace {

__global__ void add_row_index(float* rows, std::size_t pitch, int width) {
  float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(rows) + blockIdx.x * pitch);
  if (static_cast<int>(threadIdx.x) < width) row[threadIdx.x] += static_cast<float>(blockIdx.x);
}

}  // namespace

TEST_CASE("cudaMallocPitch rounds rows up to 512 bytes; cudaMemcpy2D round-trips through a kernel") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  const int width = 100, height = 7;
  float* d = nullptr;
  std::size_t pitch = 0;
  check_succeeded(cudaMallocPitch(&d, &pitch, width * sizeof(float), height));
  CHECK(pitch == 512);
  CHECK(reinterpret_cast<std::uintptr_t>(d) % 256 == 0);
  std::vector<float> host(width * height), back(width * height, -1);
  for (int i = 0; i < width * height; ++i) host[i] = static_cast<float>(i);
  check_succeeded(cudaMemcpy2D(d, pitch, host.data(), width * sizeof(float), width * sizeof(float), height,
                               cudaMemcpyHostToDevice));
  REQUIRE(weft::launch(height, 128, add_row_index, d, pitch, width) == cudaSuccess);
  check_succeeded(cudaMemcpy2D(back.data(), width * sizeof(float), d, pitch, width * sizeof(float), height,
                               cudaMemcpyDeviceToHost));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) CHECK(back[y * width + x] == host[y * width + x] + y);
  check_succeeded(cudaFree(d));

  std::size_t p2 = 0;
  void* v = nullptr;
  check_succeeded(cudaMallocPitch(&v, &p2, 513, 2));
  CHECK(p2 == 1024);
  check_succeeded(cudaFree(v));
  check_succeeded(cudaMallocPitch(&v, &p2, 100, 0));  // nothing allocated, pitch 0 (as on an H100)
  CHECK(v == nullptr);
  CHECK(p2 == 0);
  check_failed_with(cudaMallocPitch(static_cast<void**>(nullptr), &p2, 16, 16), cudaErrorInvalidValue);
  check_failed_with(cudaMallocPitch(&v, nullptr, 16, 16), cudaErrorInvalidValue);
  check_failed_with(cudaMallocPitch(&v, &p2, std::size_t{1} << 40, std::size_t{1} << 30), cudaErrorMemoryAllocation);
}

TEST_CASE("cudaMemcpy2D: device to device, host to host, and its errors") {
  std::size_t pitch = 0;
  unsigned char* a = nullptr;
  unsigned char* b = nullptr;
  REQUIRE(cudaMallocPitch(&a, &pitch, 10, 4) == cudaSuccess);
  REQUIRE(cudaMallocPitch(&b, &pitch, 10, 4) == cudaSuccess);
  check_succeeded(cudaMemset2D(a, pitch, 0xab, 10, 4));
  check_succeeded(cudaMemset2D(b, pitch, 0, 10, 4));
  check_succeeded(cudaMemcpy2D(b, pitch, a, pitch, 6, 3, cudaMemcpyDeviceToDevice));
  std::vector<unsigned char> back(40);
  check_succeeded(cudaMemcpy2D(back.data(), 10, b, pitch, 10, 4, cudaMemcpyDefault));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 10; ++x) CHECK(back[y * 10 + x] == (y < 3 && x < 6 ? 0xab : 0));

  std::vector<int> h1{1, 2, 3, 4, 5, 6}, h2(6, 0);
  check_succeeded(
      cudaMemcpy2D(h2.data(), 3 * sizeof(int), h1.data(), 3 * sizeof(int), 2 * sizeof(int), 2, cudaMemcpyHostToHost));
  CHECK(h2 == std::vector<int>{1, 2, 0, 4, 5, 0});

  check_succeeded(cudaMemcpy2D(b, pitch, a, pitch, 0, 4, cudaMemcpyDeviceToDevice));  // nothing to copy
  check_failed_with(cudaMemcpy2D(b, pitch, a, pitch, 10, 4, static_cast<cudaMemcpyKind>(7)),
                    cudaErrorInvalidMemcpyDirection);
  // A row wider than a pitch: cudaErrorInvalidValue, as measured on an H100
  // (tests/differential/runtime_api_probe.expected).
  check_failed_with(cudaMemcpy2D(b, 8, a, pitch, 10, 4, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy2D(b, pitch, a, 8, 10, 4, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy2D(b, pitch, a, pitch, 10, 5, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy2D(back.data(), 10, a, pitch, 10, 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpy2D(nullptr, pitch, a, pitch, 10, 4, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue);
  check_succeeded(cudaMemset2D(a, pitch, 0, pitch + 1, 1));                           // in range: allowed on an H100
  check_failed_with(cudaMemset2D(a, pitch, 0, pitch + 1, 4), cudaErrorInvalidValue);  // past the end
  check_failed_with(cudaMemset2D(a, pitch, 0, 10, 5), cudaErrorInvalidValue);
  check_failed_with(cudaMemset2D(back.data(), 10, 0, 10, 4), cudaErrorInvalidValue);
  cudaFree(a);
  cudaFree(b);
}

TEST_CASE("cudaMalloc3D, cudaMemset3D and cudaMemcpy3D with positions") {
  cudaExtent extent = make_cudaExtent(8 * sizeof(int), 4, 3);
  cudaPitchedPtr d{};
  check_succeeded(cudaMalloc3D(&d, extent));
  CHECK(d.pitch == 512);
  CHECK(d.xsize == 8 * sizeof(int));
  CHECK(d.ysize == 4);
  check_succeeded(cudaMemset3D(d, 0, extent));

  std::vector<int> host(8 * 4 * 3);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int>(i);
  cudaMemcpy3DParms up{};
  up.srcPtr = make_cudaPitchedPtr(host.data(), 8 * sizeof(int), 8, 4);
  up.dstPtr = d;
  up.extent = extent;
  up.kind = cudaMemcpyHostToDevice;
  check_succeeded(cudaMemcpy3D(&up));

  // Copy back the box x in [2, 5), y in [1, 3), z in [1, 3).
  std::vector<int> box(3 * 2 * 2, -1);
  cudaMemcpy3DParms down{};
  down.srcPtr = d;
  down.srcPos = make_cudaPos(2 * sizeof(int), 1, 1);
  down.dstPtr = make_cudaPitchedPtr(box.data(), 3 * sizeof(int), 3, 2);
  down.extent = make_cudaExtent(3 * sizeof(int), 2, 2);
  down.kind = cudaMemcpyDeviceToHost;
  check_succeeded(cudaMemcpy3D(&down));
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) CHECK(box[(z * 2 + y) * 3 + x] == host[((z + 1) * 4 + (y + 1)) * 8 + (x + 2)]);

  check_failed_with(cudaMemcpy3D(nullptr), cudaErrorInvalidValue);
  cudaMemcpy3DParms bad = down;
  bad.kind = static_cast<cudaMemcpyKind>(9);
  check_failed_with(cudaMemcpy3D(&bad), cudaErrorInvalidMemcpyDirection);
  bad = down;
  bad.srcPos = make_cudaPos(d.pitch, 0, 0);
  check_failed_with(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
  bad = down;
  bad.srcPos = make_cudaPos(0, 0, 2);  // slices 2 and 3 of 3
  check_failed_with(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
  bad = down;
  bad.srcArray = reinterpret_cast<cudaArray_t>(std::uintptr_t{0x100});  // beside srcPtr
  check_failed_with(cudaMemcpy3D(&bad), cudaErrorInvalidValue);
  check_failed_with(cudaMemset3D(d, 0, make_cudaExtent(8 * sizeof(int), 4, 4)), cudaErrorInvalidValue);
  cudaPitchedPtr out{};
  check_failed_with(cudaMalloc3D(nullptr, extent), cudaErrorInvalidValue);
  check_succeeded(cudaMalloc3D(&out, make_cudaExtent(0, 4, 4)));
  CHECK(out.ptr == nullptr);
  check_succeeded(cudaFree(d.ptr));
}

TEST_CASE("*Async copies and sets run in order on the default streams and refuse other streams") {
  int* d = nullptr;
  REQUIRE(cudaMalloc(&d, 16 * sizeof(int)) == cudaSuccess);
  std::vector<int> host(16, 5), back(16, 0);
  check_succeeded(cudaMemsetAsync(d, 0, 16 * sizeof(int)));
  check_succeeded(cudaMemcpyAsync(d, host.data(), 8 * sizeof(int), cudaMemcpyHostToDevice, cudaStreamLegacy));
  check_succeeded(cudaMemcpyAsync(back.data(), d, 16 * sizeof(int), cudaMemcpyDeviceToHost, cudaStreamPerThread));
  for (int i = 0; i < 16; ++i) CHECK(back[i] == (i < 8 ? 5 : 0));
  check_succeeded(cudaMemset2DAsync(d, 8 * sizeof(int), 1, 4, 2, 0));
  check_succeeded(cudaMemcpy2DAsync(back.data(), 4, d, 8 * sizeof(int), 4, 2, cudaMemcpyDeviceToHost, 0));
  CHECK(back[0] == 0x01010101);
  CHECK(back[1] == 0x01010101);
  cudaPitchedPtr p = make_cudaPitchedPtr(d, 16 * sizeof(int), 16, 1);
  check_succeeded(cudaMemset3DAsync(p, 0, make_cudaExtent(16 * sizeof(int), 1, 1), cudaStreamLegacy));
  cudaMemcpy3DParms parms{};
  parms.srcPtr = p;
  parms.dstPtr = make_cudaPitchedPtr(back.data(), 16 * sizeof(int), 16, 1);
  parms.extent = make_cudaExtent(16 * sizeof(int), 1, 1);
  parms.kind = cudaMemcpyDeviceToHost;
  check_succeeded(cudaMemcpy3DAsync(&parms, 0));
  CHECK(back == std::vector<int>(16, 0));

  auto other = reinterpret_cast<cudaStream_t>(std::uintptr_t{0x1000});
  check_failed_with(cudaMemcpyAsync(d, host.data(), 4, cudaMemcpyHostToDevice, other), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaMemsetAsync(d, 0, 4, other), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaMemcpy2DAsync(d, 4, host.data(), 4, 4, 1, cudaMemcpyHostToDevice, other),
                    cudaErrorInvalidResourceHandle);
  check_failed_with(cudaMemset2DAsync(d, 4, 0, 4, 1, other), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaMemcpy3DAsync(&parms, other), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaMemset3DAsync(p, 0, parms.extent, other), cudaErrorInvalidResourceHandle);
  check_failed_with(cudaMemcpyAsync(d, host.data(), 4, static_cast<cudaMemcpyKind>(-1), 0),
                    cudaErrorInvalidMemcpyDirection);
  cudaFree(d);
}
