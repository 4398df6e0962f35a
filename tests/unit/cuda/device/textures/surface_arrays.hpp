// Arrays and surface objects for the surface tests: test_array is an array
// from cudaMalloc3DArray whose whole storage (packed rows and slices,
// detail/textures/arrays/array_storage.hpp) the test fills and reads back in one
// copy; surface_handle is a surface object over one, destroyed with it.
#pragma once

#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstddef>
#include <vector>

class test_array {
 public:
  test_array(cudaChannelFormatDesc desc, std::size_t width, std::size_t height, std::size_t depth, unsigned flags) {
    REQUIRE(cudaMalloc3DArray(&array_, &desc, make_cudaExtent(width, height, depth), flags) == cudaSuccess);
  }
  test_array(const test_array&) = delete;
  test_array& operator=(const test_array&) = delete;
  ~test_array() { cudaFreeArray(array_); }

  cudaArray_t handle() { return array_; }

  /// Copies the whole array in from the host.
  void fill(const void* host) {
    const weft::detail::array_level& level = *weft::surface::storage_of(array_);
    REQUIRE(cudaMemcpy(level.base, host, level.bytes(), cudaMemcpyHostToDevice) == cudaSuccess);
  }

  /// The whole array, as elements of T.
  template <class T>
  std::vector<T> contents() const {
    const weft::detail::array_level& level = *weft::surface::storage_of(array_);
    std::vector<T> host(level.bytes() / sizeof(T));
    REQUIRE(cudaMemcpy(host.data(), level.base, level.bytes(), cudaMemcpyDeviceToHost) == cudaSuccess);
    return host;
  }

 private:
  cudaArray_t array_ = nullptr;
};

class surface_handle {
 public:
  explicit surface_handle(cudaArray_t array) {
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    REQUIRE(cudaCreateSurfaceObject(&handle_, &resource) == cudaSuccess);
  }
  surface_handle(const surface_handle&) = delete;
  surface_handle& operator=(const surface_handle&) = delete;
  ~surface_handle() { cudaDestroySurfaceObject(handle_); }

  cudaSurfaceObject_t get() const { return handle_; }

 private:
  cudaSurfaceObject_t handle_ = 0;
};
