// The parts of a CUDA array a copy reads or writes, as one side of a box of
// rows (memory_layout.hpp's row_box): where the box starts and the array's
// pitches, once the box is known to lie within the array. With this, a copy
// to or from an array is a copy of rows like any other, and runs, queues,
// is captured and becomes a graph node as those do.
#pragma once

#include <cstddef>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/textures/arrays/array_storage.hpp"

namespace weft::detail {

/// One side of a box of rows inside an array.
struct array_region {
  std::byte* start = nullptr;
  std::size_t pitch = 0;  // bytes from row to row
  std::size_t slice = 0;  // bytes from slice to slice
};

namespace array_region_detail {

/// Whether `count` items from `offset` on lie within `size`.
inline bool fits(std::size_t offset, std::size_t count, std::size_t size) {
  return offset <= size && count <= size - offset;
}

}  // namespace array_region_detail

/// The box of `width` bytes by `height` rows by `depth` slices whose first
/// byte is byte `x` of row `y` of slice `z` (a layer or cubemap face for
/// such arrays), or cudaErrorInvalidValue if it does not lie within `a`.
inline cudaError_t array_box(const array_level& a, std::size_t x, std::size_t y, std::size_t z, std::size_t width,
                             std::size_t height, std::size_t depth, array_region& region) {
  using array_region_detail::fits;
  if (!fits(x, width, a.row_pitch) || !fits(y, height, a.rows()) || !fits(z, depth, a.slices()))
    return cudaErrorInvalidValue;
  region = {a.element(0, y, z) + x, a.row_pitch, a.slice_pitch};
  return cudaSuccess;
}

/// The `count` bytes that cudaMemcpyToArray and cudaMemcpyFromArray copy:
/// from byte `x` of row `y` on, running on into the rows after it as the
/// array's elements follow one another; cudaErrorInvalidValue if the offset
/// or the bytes fall outside the array.
inline cudaError_t array_run(const array_level& a, std::size_t x, std::size_t y, std::size_t count,
                             array_region& region) {
  using array_region_detail::fits;
  if (x >= a.row_pitch || y >= a.rows() * a.slices()) return cudaErrorInvalidValue;
  std::size_t offset = y * a.row_pitch + x;
  if (!fits(offset, count, a.bytes())) return cudaErrorInvalidValue;
  region = {a.base + offset, count, count};
  return cudaSuccess;
}

}  // namespace weft::detail
