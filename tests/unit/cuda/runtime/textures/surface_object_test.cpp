// Surface objects: cudaCreateSurfaceObject, cudaDestroySurfaceObject and
// cudaGetSurfaceObjectResourceDesc, with the codes CUDA 13 returned on an
// H100 (tests/differential/texture_probe.cu, "== surface errors", and
// surface_trap_probe.cu, its "api:" lines).
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstring>

#include "cuda/device/textures/surface_arrays.hpp"
#include "error_checks.hpp"

TEST_CASE("cudaCreateSurfaceObject over an array; its resource descriptor names the array") {
  test_array array(cudaCreateChannelDesc<float>(), 16, 16, 0, cudaArraySurfaceLoadStore);
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array.handle();
  cudaSurfaceObject_t s = 0;
  check_succeeded(cudaCreateSurfaceObject(&s, &resource));
  CHECK(s != 0);

  cudaResourceDesc back;
  std::memset(&back, 0xcc, sizeof back);
  check_succeeded(cudaGetSurfaceObjectResourceDesc(&back, s));
  CHECK(back.resType == cudaResourceTypeArray);
  CHECK(back.res.array.array == array.handle());
  // The H100 answers a null descriptor with cudaErrorInvalidDevice.
  check_failed_with(cudaGetSurfaceObjectResourceDesc(nullptr, s), cudaErrorInvalidDevice);

  check_succeeded(cudaDestroySurfaceObject(s));
  check_failed_with(cudaGetSurfaceObjectResourceDesc(&back, s), cudaErrorInvalidValue);
  check_failed_with(cudaGetSurfaceObjectResourceDesc(&back, 0), cudaErrorInvalidValue);
}

TEST_CASE("destroying any surface handle succeeds: 0, one destroyed, one never made") {
  test_array array(cudaCreateChannelDesc<int>(), 8, 0, 0, cudaArraySurfaceLoadStore);
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array.handle();
  cudaSurfaceObject_t s = 0;
  REQUIRE(cudaCreateSurfaceObject(&s, &resource) == cudaSuccess);
  check_succeeded(cudaDestroySurfaceObject(s));
  check_succeeded(cudaDestroySurfaceObject(s));
  check_succeeded(cudaDestroySurfaceObject(0));
  check_succeeded(cudaDestroySurfaceObject(0x123456789ull));
}

TEST_CASE("cudaCreateSurfaceObject takes arrays alone; an array without cudaArraySurfaceLoadStore is accepted") {
  test_array plain(cudaCreateChannelDesc<float>(), 16, 16, 0, cudaArrayDefault);
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = plain.handle();
  cudaSurfaceObject_t s = 0;
  // As on the H100, which checks no flag (the guide says a surface needs
  // the flag; nothing enforces it).
  check_succeeded(cudaCreateSurfaceObject(&s, &resource));
  CHECK(cudaDestroySurfaceObject(s) == cudaSuccess);
  // The descriptor's flags are not looked at either.
  resource.flags = 1;
  check_succeeded(cudaCreateSurfaceObject(&s, &resource));
  CHECK(cudaDestroySurfaceObject(s) == cudaSuccess);
  resource.flags = 0;

  check_failed_with(cudaCreateSurfaceObject(nullptr, &resource), cudaErrorInvalidValue);
  check_failed_with(cudaCreateSurfaceObject(&s, nullptr), cudaErrorInvalidValue);
  resource.res.array.array = nullptr;
  check_failed_with(cudaCreateSurfaceObject(&s, &resource), cudaErrorInvalidResourceHandle);

  float* memory = nullptr;
  REQUIRE(cudaMalloc(&memory, 4096) == cudaSuccess);
  std::memset(&resource, 0, sizeof resource);
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = memory;
  resource.res.linear.desc = cudaCreateChannelDesc<float>();
  resource.res.linear.sizeInBytes = 4096;
  check_failed_with(cudaCreateSurfaceObject(&s, &resource), cudaErrorInvalidValue);
  std::memset(&resource, 0, sizeof resource);
  resource.resType = cudaResourceTypePitch2D;
  resource.res.pitch2D.devPtr = memory;
  resource.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  resource.res.pitch2D.width = 16;
  resource.res.pitch2D.height = 16;
  resource.res.pitch2D.pitchInBytes = 128;
  check_failed_with(cudaCreateSurfaceObject(&s, &resource), cudaErrorInvalidValue);
  std::memset(&resource, 0, sizeof resource);
  resource.resType = cudaResourceTypeMipmappedArray;
  check_failed_with(cudaCreateSurfaceObject(&s, &resource), cudaErrorInvalidValue);
  CHECK(cudaFree(memory) == cudaSuccess);
}

TEST_CASE("a surface over a mipmap level is accepted; over a freed array it is cudaErrorInvalidResourceHandle") {
  cudaMipmappedArray_t mipmapped = nullptr;
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  REQUIRE(cudaMallocMipmappedArray(&mipmapped, &f, make_cudaExtent(8, 8, 0), 3, cudaArraySurfaceLoadStore) ==
          cudaSuccess);
  cudaArray_t level = nullptr;
  REQUIRE(cudaGetMipmappedArrayLevel(&level, mipmapped, 1) == cudaSuccess);
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = level;
  cudaSurfaceObject_t s = 0;
  check_succeeded(cudaCreateSurfaceObject(&s, &resource));
  CHECK(cudaDestroySurfaceObject(s) == cudaSuccess);
  CHECK(cudaFreeMipmappedArray(mipmapped) == cudaSuccess);

  // CUDA 13's runtime crashes here; weft gives a null array's code.
  cudaArray_t array = nullptr;
  REQUIRE(cudaMallocArray(&array, &f, 16, 0, cudaArraySurfaceLoadStore) == cudaSuccess);
  REQUIRE(cudaFreeArray(array) == cudaSuccess);
  resource.res.array.array = array;
  check_failed_with(cudaCreateSurfaceObject(&s, &resource), cudaErrorInvalidResourceHandle);
}
