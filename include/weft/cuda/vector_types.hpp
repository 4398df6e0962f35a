// CUDA's index and extent types: uint3 for threadIdx/blockIdx, dim3 for
// launch shapes and blockDim/gridDim. dim3's unspecified components are 1,
// as in CUDA, so dim3(256) is a 256x1x1 shape.
#pragma once

#include <cstdint>

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x = 1, y = 1, z = 1;

  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

namespace weft {

/// Number of elements in a shape (threads in a block, blocks in a grid).
constexpr std::uint64_t volume(dim3 d) { return std::uint64_t{d.x} * d.y * d.z; }

/// The 3D index of linear position `linear` in `shape`, x fastest (CUDA's order).
constexpr uint3 unflatten(std::uint64_t linear, dim3 shape) {
  auto plane = std::uint64_t{shape.x} * shape.y;
  return {static_cast<unsigned>(linear % shape.x), static_cast<unsigned>(linear / shape.x % shape.y),
          static_cast<unsigned>(linear / plane)};
}

}  // namespace weft
