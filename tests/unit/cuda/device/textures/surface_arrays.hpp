// Arrays and surface objects for the surface tests. test_array lays out a
// CUDA array's storage itself, in device memory, as cudaMalloc3DArray does
// (detail/textures/array_storage.hpp), so that these tests need no more of
// the array API than the storage; surface_handle is a surface object over
// one, destroyed with it.
#pragma once

#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstddef>
#include <vector>

class test_array {
 public:
  test_array(cudaChannelFormatDesc desc, std::size_t width, std::size_t height, std::size_t depth, unsigned flags) {
    level_.format = {desc.x, desc.y, desc.z, desc.w, static_cast<weft::detail::channel_kind>(desc.f)};
    level_.width = width, level_.height = height, level_.depth = depth, level_.flags = flags;
    level_.element_bytes = level_.format.bytes_per_element();
    level_.row_pitch = width * level_.element_bytes;
    level_.slice_pitch = level_.rows() * level_.row_pitch;
    void* memory = nullptr;
    REQUIRE(cudaMalloc(&memory, level_.bytes()) == cudaSuccess);
    REQUIRE(cudaMemset(memory, 0, level_.bytes()) == cudaSuccess);
    level_.base = static_cast<std::byte*>(memory);
  }
  test_array(const test_array&) = delete;
  test_array& operator=(const test_array&) = delete;
  ~test_array() { cudaFree(level_.base); }

  cudaArray_t handle() { return weft::surface::handle_of(&level_); }

  /// Copies the whole array in from the host.
  void fill(const void* host) {
    REQUIRE(cudaMemcpy(level_.base, host, level_.bytes(), cudaMemcpyHostToDevice) == cudaSuccess);
  }

  /// The whole array, as elements of T.
  template <class T>
  std::vector<T> contents() const {
    std::vector<T> host(level_.bytes() / sizeof(T));
    REQUIRE(cudaMemcpy(host.data(), level_.base, level_.bytes(), cudaMemcpyDeviceToHost) == cudaSuccess);
    return host;
  }

 private:
  weft::detail::array_level level_;
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
