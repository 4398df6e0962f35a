// Where a surface read or write lands: the byte-addressed x, the row y and
// the slice z of a surface object, checked against its extent under one of
// CUDA's boundary modes, as an H100 does it (tests/differential/
// texture_probe.cu and surface_trap_probe.cu):
//
// - x counts bytes and must be a multiple of the access's size (the size of
//   the type read or written, not the array's element): otherwise the launch
//   fails with cudaErrorMisalignedAddress, whatever the boundary mode, and
//   before the range is looked at.
// - In range: 0 <= x and x + size <= width in bytes, 0 <= y < rows, and the
//   slice below the count of slices. A layer or cubemap face is compared as
//   an unsigned number (layer -1 is past the last), the z of a 3D surface as
//   a signed one.
// - Out of range, cudaBoundaryModeTrap fails the launch with
//   cudaErrorIllegalAddress (sticky, as the GPU's fault); Zero reads zero
//   and drops a write; Clamp moves each coordinate to the nearest in range
//   (x to the last whole access of the row; layer -1 to the last layer).
//
// The guide (section 6.2.14.2) says only that out-of-range accesses are
// handled per the boundary mode; which limits apply to an access wider than
// the array's element that straddles the row's end is not probed (the
// H100's misalignment fault hides it for power-of-two widths), and weft
// counts it out of range.
#pragma once

#include <cstddef>
#include <source_location>
#include <string>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/text_format.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/textures/objects/surface_object.hpp"

namespace weft::detail::textures {

/// cudaSurfaceBoundaryMode by weft's names (the surface asserts CUDA's values).
enum class surface_boundary : int { zero = 0, clamp = 1, trap = 2 };

/// How a surface function names its slice coordinate.
enum class slice_kind { none, depth, layer };

/// The call being checked, for the report.
struct surface_call {
  const char* function;
  std::source_location where;
};

[[noreturn, gnu::cold]] inline void surface_fault(cudaError_t code, const char* what, const surface_call& call,
                                                  long long x, long long y, long long z, slice_kind slice,
                                                  std::size_t bytes, const surface_object& surface) {
  std::string text;
  append_format(text, "%s (%s:%u:%u): %s: x %lld bytes", call.function, call.where.file_name(),
                static_cast<unsigned>(call.where.line()), static_cast<unsigned>(call.where.column()), what, x);
  if (surface.rows > 1 || y != 0) append_format(text, ", y %lld", y);
  if (slice == slice_kind::depth) append_format(text, ", z %lld", z);
  if (slice == slice_kind::layer) append_format(text, ", layer %lld", z);
  append_format(text, ", a %zu-byte access; the surface has rows of %zu bytes, %zu rows, %zu slices", bytes,
                surface.row_bytes, surface.rows, surface.slices);
  throw kernel_fault{code, std::move(text)};
}

/// The first byte an access of `bytes` at (x, y, z) reads or writes, or
/// null when cudaBoundaryModeZero drops it. Faults as the H100 does.
inline std::byte* surface_address(const surface_object& surface, int x, int y, int z, slice_kind slice,
                                  std::size_t bytes, surface_boundary mode, const surface_call& call) {
  if (x % static_cast<long long>(bytes) != 0) [[unlikely]]
    surface_fault(cudaErrorMisalignedAddress, "misaligned address", call, x, y, z, slice, bytes, surface);
  const long long row_bytes = static_cast<long long>(surface.row_bytes);
  const long long access = static_cast<long long>(bytes);
  const long long rows = static_cast<long long>(surface.rows);
  const long long slices = static_cast<long long>(surface.slices);
  // A layer or face index is unsigned to the hardware.
  const long long slice_index = slice == slice_kind::layer ? static_cast<long long>(static_cast<unsigned>(z)) : z;
  long long bx = x, by = y, bz = slice_index;
  bool inside = bx >= 0 && bx + access <= row_bytes && by >= 0 && by < rows && bz >= 0 && bz < slices;
  if (!inside) [[unlikely]] {
    if (mode == surface_boundary::zero) return nullptr;
    if (mode != surface_boundary::clamp)
      surface_fault(cudaErrorIllegalAddress, "out of range with cudaBoundaryModeTrap", call, x, y, z, slice, bytes,
                    surface);
    if (access > row_bytes)
      surface_fault(cudaErrorIllegalAddress, "an access wider than the surface's rows", call, x, y, z, slice, bytes,
                    surface);
    long long last_x = (row_bytes - access) / access * access;
    bx = bx < 0 ? 0 : (bx > last_x ? last_x : bx);
    by = by < 0 ? 0 : (by >= rows ? rows - 1 : by);
    bz = bz < 0 ? 0 : (bz >= slices ? slices - 1 : bz);
  }
  return surface.base + static_cast<std::size_t>(bz) * surface.slice_pitch +
         static_cast<std::size_t>(by) * surface.row_pitch + static_cast<std::size_t>(bx);
}

}  // namespace weft::detail::textures
