// A device allocation for tests: allocated and zeroed on construction,
// freed on destruction, copied back with to_host(). Every runtime call in it
// is checked.
#pragma once

#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstddef>
#include <vector>

template <class T>
struct device_buffer {
  explicit device_buffer(std::size_t count) : n(count) {
    REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemset(p, 0, n * sizeof(T)) == cudaSuccess);
  }
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) {
    REQUIRE(cudaMemcpy(p, host.data(), n * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { cudaFree(p); }

  std::vector<T> to_host() const {
    std::vector<T> host(n);
    REQUIRE(cudaMemcpy(host.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return host;
  }

  T* p = nullptr;
  std::size_t n;
};
