// What CUDA arrays do where the documentation is silent, as an H100 (CUDA
// 13) answered: copies whose kind contradicts the array's side, offsets
// and widths that are not whole elements, cudaMemcpy3D naming both an array
// and a pointer on one side, the deprecated 1D forms running on into the
// next rows, freeing a mipmap level, cudaArrayColorAttachment, the level
// count of layered cubemap mipmaps, surface limits, and a 32 GiB array.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstddef>
#include <cstring>
#include <vector>

#include "error_checks.hpp"

namespace {

struct answers_float_array {
  cudaArray_t a = nullptr;
  answers_float_array(std::size_t w, std::size_t h) {
    auto desc = cudaCreateChannelDesc<float>();
    REQUIRE(cudaMallocArray(&a, &desc, w, h) == cudaSuccess);
  }
  answers_float_array(const answers_float_array&) = delete;
  answers_float_array& operator=(const answers_float_array&) = delete;
  ~answers_float_array() { cudaFreeArray(a); }
};

}  // namespace

TEST_CASE("array copies: the kind's array side must be the device; its pointer side is checked for DtoD") {
  answers_float_array arr(16, 16);  // rows of 64 bytes
  std::vector<float> host(256);
  float* device = nullptr;
  REQUIRE(cudaMalloc(&device, 4096) == cudaSuccess);
  const cudaMemcpyKind kinds[] = {cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                  cudaMemcpyDeviceToDevice, cudaMemcpyDefault};
  // The H100's codes, by kind in the order above, for a host and a device pointer.
  const cudaError_t direction = cudaErrorInvalidMemcpyDirection, ok = cudaSuccess, value = cudaErrorInvalidValue;
  const cudaError_t to_array_host[] = {direction, ok, direction, value, ok};
  const cudaError_t to_array_device[] = {direction, ok, direction, ok, ok};
  const cudaError_t from_array_host[] = {direction, direction, ok, value, ok};
  const cudaError_t from_array_device[] = {direction, direction, ok, ok, ok};
  for (int k = 0; k < 5; ++k) {
    CAPTURE(k);
    auto check = [](cudaError_t got, cudaError_t want) {
      if (want == cudaSuccess)
        check_succeeded(got);
      else
        check_failed_with(got, want);
    };
    check(cudaMemcpy2DToArray(arr.a, 0, 0, host.data(), 64, 64, 4, kinds[k]), to_array_host[k]);
    check(cudaMemcpy2DToArray(arr.a, 0, 0, device, 64, 64, 4, kinds[k]), to_array_device[k]);
    check(cudaMemcpy2DFromArray(host.data(), 64, arr.a, 0, 0, 64, 4, kinds[k]), from_array_host[k]);
    check(cudaMemcpy2DFromArray(device, 64, arr.a, 0, 0, 64, 4, kinds[k]), from_array_device[k]);
    check(cudaMemcpyToArray(arr.a, 0, 0, host.data(), 64, kinds[k]), to_array_host[k]);
  }
  check_failed_with(cudaMemcpy2DToArray(arr.a, 0, 0, host.data(), 64, 64, 4, static_cast<cudaMemcpyKind>(7)),
                    cudaErrorInvalidMemcpyDirection);
  cudaFree(device);
}

TEST_CASE("array copies count bytes: an offset or width that is not whole elements is accepted") {
  answers_float_array arr(16, 16);
  std::vector<unsigned char> bytes(64);
  for (int i = 0; i < 64; ++i) bytes[i] = static_cast<unsigned char>(i + 1);
  std::vector<unsigned char> zeros(1024, 0);
  check_succeeded(cudaMemcpy2DToArray(arr.a, 0, 0, zeros.data(), 64, 64, 16, cudaMemcpyHostToDevice));
  check_succeeded(cudaMemcpy2DToArray(arr.a, 2, 0, bytes.data(), 64, 6, 1, cudaMemcpyHostToDevice));
  check_succeeded(cudaMemcpyToArray(arr.a, 3, 1, bytes.data(), 5, cudaMemcpyHostToDevice));
  std::vector<unsigned char> back(128);
  check_succeeded(cudaMemcpy2DFromArray(back.data(), 64, arr.a, 0, 0, 64, 2, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) CHECK(back[i] == (i >= 2 && i < 8 ? i - 1 : 0));
  for (int i = 0; i < 64; ++i) CHECK(back[64 + i] == (i >= 3 && i < 8 ? i - 2 : 0));
  std::vector<unsigned char> odd(6);
  check_succeeded(cudaMemcpy2DFromArray(odd.data(), 6, arr.a, 3, 0, 6, 1, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 6; ++i) CHECK(odd[i] == (i < 5 ? i + 2 : 0));
}

TEST_CASE("cudaMemcpyToArray runs on into the next rows, and not past the array's end") {
  answers_float_array arr(16, 16);
  std::vector<float> zeros(256, 0.0f), values(256);
  for (int i = 0; i < 256; ++i) values[i] = static_cast<float>(i);
  check_succeeded(cudaMemcpy2DToArray(arr.a, 0, 0, zeros.data(), 64, 64, 16, cudaMemcpyHostToDevice));
  check_succeeded(cudaMemcpyToArray(arr.a, 0, 0, values.data(), 128, cudaMemcpyHostToDevice));
  check_succeeded(cudaMemcpyToArray(arr.a, 32, 2, values.data() + 100, 64, cudaMemcpyHostToDevice));
  std::vector<float> back(64);
  check_succeeded(cudaMemcpy2DFromArray(back.data(), 64, arr.a, 0, 0, 64, 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) CHECK(back[i] == static_cast<float>(i));
  for (int i = 32; i < 40; ++i) CHECK(back[i] == 0.0f);
  for (int i = 40; i < 56; ++i) CHECK(back[i] == static_cast<float>(100 + i - 40));
  for (int i = 56; i < 64; ++i) CHECK(back[i] == 0.0f);
  std::vector<float> crossing(16);
  check_succeeded(cudaMemcpyFromArray(crossing.data(), arr.a, 32, 2, 64, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; ++i) CHECK(crossing[i] == static_cast<float>(100 + i));
  check_failed_with(cudaMemcpyToArray(arr.a, 0, 15, values.data(), 128, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  check_succeeded(cudaMemcpyToArray(arr.a, 0, 0, zeros.data(), 1024, cudaMemcpyHostToDevice));
  std::vector<float> more(257, 0.0f);
  check_failed_with(cudaMemcpyToArray(arr.a, 0, 0, more.data(), 1028, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
}

TEST_CASE("cudaMemcpy3D refuses an array and a pointer on the same side; kinds for arrays") {
  answers_float_array a(16, 16), b(16, 16);
  std::vector<float> host(256);
  float* device = nullptr;
  REQUIRE(cudaMalloc(&device, 4096) == cudaSuccess);
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  p.srcArray = a.a;
  p.srcPtr = make_cudaPitchedPtr(host.data(), 64, 16, 16);
  p.dstArray = b.a;
  p.extent = make_cudaExtent(16, 16, 1);
  p.kind = cudaMemcpyDeviceToDevice;
  check_failed_with(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  p.kind = cudaMemcpyHostToDevice;
  check_failed_with(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  std::memset(&p, 0, sizeof p);
  p.srcArray = a.a;
  p.dstArray = b.a;
  p.dstPtr = make_cudaPitchedPtr(device, 64, 16, 16);
  p.extent = make_cudaExtent(16, 16, 1);
  p.kind = cudaMemcpyDeviceToDevice;
  check_failed_with(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  // A host source into an array: accepted as HostToHost (!), refused as DeviceToDevice.
  std::memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(host.data(), 64, 16, 16);
  p.dstArray = b.a;
  p.extent = make_cudaExtent(16, 16, 1);
  p.kind = cudaMemcpyHostToHost;
  check_succeeded(cudaMemcpy3D(&p));
  p.kind = cudaMemcpyDeviceToDevice;
  check_failed_with(cudaMemcpy3D(&p), cudaErrorInvalidValue);
  cudaFree(device);
}

TEST_CASE("cudaFreeArray of a mipmap level succeeds and frees nothing") {
  auto desc = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m = nullptr;
  REQUIRE(cudaMallocMipmappedArray(&m, &desc, make_cudaExtent(16, 16, 0), 3) == cudaSuccess);
  cudaArray_t level = nullptr;
  REQUIRE(cudaGetMipmappedArrayLevel(&level, m, 1) == cudaSuccess);
  check_succeeded(cudaFreeArray(level));
  std::vector<float> host(64, 1.0f);
  check_succeeded(cudaMemcpy2DToArray(level, 0, 0, host.data(), 32, 32, 8, cudaMemcpyHostToDevice));
  check_succeeded(cudaFreeMipmappedArray(m));
}

TEST_CASE("cudaArrayColorAttachment makes no array") {
  auto desc = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  check_failed_with(cudaMallocArray(&a, &desc, 16, 16, cudaArrayColorAttachment), cudaErrorInvalidValue);
  check_failed_with(cudaMalloc3DArray(&a, &desc, make_cudaExtent(16, 16, 0), cudaArrayColorAttachment),
                    cudaErrorInvalidValue);
  check_failed_with(cudaMallocArray(&a, &desc, 16, 16, cudaArrayColorAttachment | cudaArraySurfaceLoadStore),
                    cudaErrorInvalidValue);
}

TEST_CASE("layered and cubemap mipmaps: 0 levels asked is 1, more than fit is 1 + log2 of the largest side") {
  auto desc = cudaCreateChannelDesc<float>();
  struct shape {
    cudaExtent extent;
    unsigned flags;
  };
  const shape shapes[] = {{make_cudaExtent(16, 16, 12), cudaArrayCubemap | cudaArrayLayered},
                          {make_cudaExtent(16, 16, 6), cudaArrayCubemap},
                          {make_cudaExtent(16, 1, 7), cudaArrayLayered}};
  const unsigned asked[] = {0, 1, 3, 5, 6, 10};
  const unsigned got[] = {1, 1, 3, 5, 5, 5};
  for (const shape& s : shapes)
    for (int k = 0; k < 6; ++k) {
      CAPTURE(k);
      cudaMipmappedArray_t m = nullptr;
      REQUIRE(cudaMallocMipmappedArray(&m, &desc, s.extent, asked[k], s.flags) == cudaSuccess);
      unsigned levels = 0;
      cudaArray_t level = nullptr;
      while (cudaGetMipmappedArrayLevel(&level, m, levels) == cudaSuccess) {
        cudaExtent e{};
        REQUIRE(cudaArrayGetInfo(nullptr, &e, nullptr, level) == cudaSuccess);
        CHECK(e.depth == s.extent.depth);  // layers and faces do not shrink
        ++levels;
      }
      cudaGetLastError();
      CHECK(levels == got[k]);
      cudaFreeMipmappedArray(m);
    }
}

TEST_CASE("cudaArraySurfaceLoadStore arrays are limited by the surface limits") {
  auto desc = cudaCreateChannelDesc<float>();
  struct attempt {
    std::size_t w, h, d;
    unsigned flags;
    cudaError_t code;
  };
  const unsigned surface = cudaArraySurfaceLoadStore, layered = cudaArrayLayered, cube = cudaArrayCubemap;
  const attempt attempts[] = {
      {32768, 0, 0, surface, cudaSuccess},
      {32769, 0, 0, surface, cudaErrorInvalidValue},
      {131073, 1, 0, surface, cudaErrorInvalidValue},
      {1, 65537, 0, surface, cudaErrorInvalidValue},
      {16385, 1, 1, surface, cudaErrorInvalidValue},
      {1, 1, 16385, surface, cudaErrorInvalidValue},
      {32769, 0, 1, surface | layered, cudaErrorInvalidValue},
      {1, 0, 2049, surface | layered, cudaErrorInvalidValue},
      {32769, 1, 1, surface | layered, cudaErrorInvalidValue},
      {1, 32769, 1, surface | layered, cudaErrorInvalidValue},
      {1, 1, 2049, surface | layered, cudaErrorInvalidValue},
      {32769, 32769, 6, surface | cube, cudaErrorInvalidValue},
      {1, 1, 6 * 342, surface | cube | layered, cudaErrorInvalidValue},
      {1, 1, 6 * 341, surface | cube | layered, cudaSuccess},
      {32769, 32769, 6, surface | cube | layered, cudaErrorInvalidValue},
  };
  for (const attempt& t : attempts) {
    CAPTURE(t.w);
    CAPTURE(t.h);
    CAPTURE(t.d);
    cudaArray_t a = nullptr;
    cudaError_t e = cudaMalloc3DArray(&a, &desc, make_cudaExtent(t.w, t.h, t.d), t.flags);
    if (t.code == cudaSuccess) {
      check_succeeded(e);
      cudaFreeArray(a);
    } else {
      check_failed_with(e, t.code);
    }
  }
}

TEST_CASE("a 32 GiB array is reserved, not committed: two fit an H100's memory, a third does not") {
  auto desc = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr, b = nullptr, c = nullptr;
  check_succeeded(cudaMallocArray(&a, &desc, 131072, 65536));
  std::size_t free_bytes = 0, total = 0;
  check_succeeded(cudaMemGetInfo(&free_bytes, &total));
  CHECK(free_bytes <= total);
  // Its first and last rows are there to use.
  std::vector<float> row(131072, 2.5f), back(131072, 0.0f);
  check_succeeded(
      cudaMemcpy2DToArray(a, 0, 65535, row.data(), row.size() * 4, row.size() * 4, 1, cudaMemcpyHostToDevice));
  check_succeeded(
      cudaMemcpy2DFromArray(back.data(), back.size() * 4, a, 0, 65535, back.size() * 4, 1, cudaMemcpyDeviceToHost));
  CHECK(back[131071] == 2.5f);
  check_succeeded(cudaMallocArray(&b, &desc, 131072, 65536));
  cudaDeviceProp properties{};
  REQUIRE(cudaGetDeviceProperties(&properties, 0) == cudaSuccess);
  if (properties.totalGlobalMem < std::size_t{3} * 34359738368) {
    check_failed_with(cudaMallocArray(&c, &desc, 131072, 65536), cudaErrorMemoryAllocation);
  }
  check_succeeded(cudaFreeArray(a));
  check_succeeded(cudaFreeArray(b));
  if (c) cudaFreeArray(c);
  // Freed, their reservations are given back.
  check_succeeded(cudaMallocArray(&a, &desc, 131072, 65536));
  check_succeeded(cudaFreeArray(a));
}
