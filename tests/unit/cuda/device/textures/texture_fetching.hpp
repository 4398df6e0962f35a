// Helpers for the texture and surface tests: fetches run in a kernel, a
// float's bits for exact comparisons, and an array as a texture resource.
#pragma once

#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstring>
#include <vector>

#include "device_buffer.hpp"

// Runs fetch(i) for i in [0, n) in a kernel, one thread each, and returns the results.
template <class T, class Fetch>
std::vector<T> run_fetches(int n, Fetch fetch) {
  device_buffer<T> out(static_cast<std::size_t>(n));
  REQUIRE(weft::launch(
              1, n, [=](T* results) { results[threadIdx.x] = fetch(static_cast<int>(threadIdx.x)); }, out.p) ==
          cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  return out.to_host();
}

inline unsigned bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline cudaResourceDesc array_resource(cudaArray_t array) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = array;
  return r;
}
