// The arithmetic of pitched and 3D memory: row pitches, the bytes a box of
// rows spans, with overflow saturating so that no allocation can hold it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace weft::detail {

/// A pitched allocation's rows start 512 bytes apart at least (an H100's
/// texture alignment, which is what cudaMallocPitch rounds a row up to), so
/// that code indexing rows by the returned pitch runs as on a GPU.
inline constexpr std::size_t pitch_alignment = 512;

/// The row pitch for rows of `width` bytes; 0 if it would overflow.
inline std::size_t pitch_for(std::size_t width) {
  if (width > SIZE_MAX - (pitch_alignment - 1)) return 0;
  return (width + pitch_alignment - 1) / pitch_alignment * pitch_alignment;
}

/// a * b, or SIZE_MAX if it overflows (then no allocation can hold it).
inline std::size_t saturating_product(std::size_t a, std::size_t b) {
  return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

/// Bytes from the first row's start to the last row's end.
inline std::size_t span_of(std::size_t pitch, std::size_t slice, std::size_t width, std::size_t height,
                           std::size_t depth) {
  std::size_t span = width;
  for (std::size_t add : {saturating_product(pitch, height - 1), saturating_product(slice, depth - 1)})
    span = add > SIZE_MAX - span ? SIZE_MAX : span + add;
  return span;
}

/// A 3D box of rows: `width` bytes each, `pitch` apart, `height` rows a
/// slice, slices `slice` bytes apart.
struct row_box {
  void* dst;
  std::size_t dst_pitch, dst_slice;
  const void* src;
  std::size_t src_pitch, src_slice;
  std::size_t width, height, depth;
};

}  // namespace weft::detail
