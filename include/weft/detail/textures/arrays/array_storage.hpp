// The memory of a CUDA array, and of a mipmapped array's levels: what a
// cudaArray_t or cudaMipmappedArray_t points at. The surface's handles are
// these structs by another name (cuda/runtime/textures/array_types.hpp:
// weft::surface::storage_of turns a handle into its storage).
//
// For texture and surface fetches: an array level is plain device memory
// with a stable address, laid out as a pitched 3D box, so a fetch reads a
// texel with no lookup:
//
//   element (x, y, z) starts at  base + z * slice_pitch + y * row_pitch + x * element_bytes
//
// where y is 0 for a 1D array, and z is
//   - the depth index of a 3D array,
//   - the layer of a layered 1D or 2D array (cudaArrayLayered: CUDA's depth
//     is the layer count),
//   - face + 6 * layer of a cubemap (cudaArrayCubemap: depth 6) or layered
//     cubemap (both flags: depth 6 * layers).
// Rows are packed (row_pitch = width * element_bytes) and slices too
// (slice_pitch = rows() * row_pitch); texels are packed channels x, y, z, w
// of the format's bits, as in the cudaChannelFormatDesc (a float4 texel is
// 16 bytes, a uchar2 texel 2).
//
// width, height and depth are CUDA's (what cudaArrayGetInfo reports): a 1D
// array has height 0 and depth 0, a 2D array depth 0, a layered 1D array
// height 0. rows() and slices() count at least one.
#pragma once

#include <cstddef>
#include <vector>

#include "weft/detail/textures/arrays/texel_format.hpp"

namespace weft::detail {

/// cudaArray* flags, by weft's names (the surface asserts CUDA's values).
namespace array_flags {
inline constexpr unsigned layered = 0x01;
inline constexpr unsigned surface_load_store = 0x02;
inline constexpr unsigned cubemap = 0x04;
inline constexpr unsigned texture_gather = 0x08;
inline constexpr unsigned color_attachment = 0x20;
inline constexpr unsigned sparse = 0x40;
inline constexpr unsigned deferred_mapping = 0x80;
}  // namespace array_flags

/// Faces of a cubemap, in CUDA's order +x, -x, +y, -y, +z, -z.
inline constexpr std::size_t cubemap_faces = 6;

struct mipmapped_array;

/// One allocated CUDA array, or one level of a mipmapped array.
struct array_level {
  texel_format format;
  std::size_t width = 0, height = 0, depth = 0;  // as CUDA counts them (see above)
  unsigned flags = 0;                            // array_flags
  std::byte* base = nullptr;                     // device memory, in the allocation registry
  std::size_t element_bytes = 0;                 // format.bytes_per_element()
  std::size_t row_pitch = 0;                     // bytes from one row to the next
  std::size_t slice_pitch = 0;                   // bytes from one slice (layer, face) to the next
  int device = 0;                                // the device it was allocated on
  mipmapped_array* owner = nullptr;              // the mipmapped array it is a level of, or null
  unsigned level = 0;                            // its level in `owner`

  std::size_t rows() const { return height ? height : 1; }
  std::size_t slices() const { return depth ? depth : 1; }
  std::size_t bytes() const { return slice_pitch * slices(); }
  bool layered() const { return flags & array_flags::layered; }
  bool cubemap() const { return flags & array_flags::cubemap; }
  /// Layers of a layered array (a layered cubemap's count of 6-face cubes); 0 if not layered.
  std::size_t layers() const { return layered() ? (cubemap() ? depth / cubemap_faces : depth) : 0; }

  /// The first byte of element (x, y, z); no bounds are checked.
  std::byte* element(std::size_t x, std::size_t y = 0, std::size_t z = 0) const {
    return base + z * slice_pitch + y * row_pitch + x * element_bytes;
  }
};

/// A mipmapped array: its levels, level 0 the full extent, each next level
/// half the one before (rounded down, at least 1) in width, height and, for
/// a 3D array, depth; layers and cubemap faces do not shrink. The levels
/// never move once allocated (fetches hold their addresses).
struct mipmapped_array {
  texel_format format;
  std::size_t width = 0, height = 0, depth = 0;  // level 0's, as CUDA counts them
  unsigned flags = 0;
  int device = 0;
  std::vector<array_level> levels;
};

/// The extent of level `level` of an array of level 0's extent (w, h, d):
/// halved per level, at least 1, except that an absent dimension (0) stays
/// absent and the depth of a layered array (layers) or cubemap (faces)
/// stays as it is.
struct level_extent {
  std::size_t width, height, depth;
};

inline level_extent extent_of_level(std::size_t w, std::size_t h, std::size_t d, unsigned flags, unsigned level) {
  auto shrink = [level](std::size_t n) {
    if (n == 0) return n;
    n = level >= sizeof(std::size_t) * 8 ? 0 : n >> level;
    return n ? n : std::size_t{1};
  };
  bool depth_is_layers = flags & (array_flags::layered | array_flags::cubemap);
  return {shrink(w), shrink(h), depth_is_layers ? d : shrink(d)};
}

}  // namespace weft::detail
