// Linear device memory: cudaMalloc, cudaFree, cudaMemcpy, cudaMemset.
//
// Device memory is host memory registered in the allocation registry. Every
// pointer argument is checked against it, and a bad one gets the code CUDA 13
// returns for it (measured on an H100: tests/differential/).
// Copies and sets are stream commands (detail/runtime/host_task.hpp): cudaMemcpy and
// cudaMemset go to the default stream and return when done; their *Async
// forms go to the stream given. cudaFree waits for the whole device first,
// as CUDA's does.
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>

#include <string>

#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/host_task.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/cuda/runtime/device_api.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

namespace weft::detail {

/// The allocation, on any device, that holds all of [p, p + bytes): with
/// unified addressing a pointer names its device, as on a GPU.
struct located_allocation {
  int device;
  allocation_info info;
};

// access(none): see allocation_registry::find.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
[[gnu::access(none, 1)]] inline std::optional<located_allocation> locate(const void* p, std::size_t bytes = 1) {
  for (int d = 0; d < device_count(); ++d)
    if (auto a = runtime::get(d).memory().find(p, bytes)) return located_allocation{d, *a};
  return std::nullopt;
}

/// Device or managed memory, which a kernel and cudaMemset may write.
[[gnu::access(none, 1)]] inline bool is_device_range(const void* p, std::size_t bytes) {
  auto a = locate(p, bytes);
  return a && (a->info.kind == memory_kind::device || a->info.kind == memory_kind::managed);
}

/// A host range must not run into registered memory it only partly covers.
[[gnu::access(none, 1)]] inline bool is_plausible_range(const void* p, std::size_t bytes) {
  for (int d = 0; d < device_count(); ++d) {
    auto& memory = runtime::get(d).memory();
    if (memory.overlaps(p, bytes) && !memory.find(p, bytes).has_value()) return false;
  }
  return true;
}
#pragma GCC diagnostic pop

inline bool valid_copy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  bool dst_on_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool src_on_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (dst_on_device ? !is_device_range(dst, count) : !is_plausible_range(dst, count)) return false;
  if (src_on_device ? !is_device_range(src, count) : !is_plausible_range(src, count)) return false;
  return true;
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

inline cudaError_t copy_box(const row_box& b, cudaMemcpyKind kind, placement where = synchronous) {
  if (cudaError_t e = check_device()) return e;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return record(cudaErrorInvalidMemcpyDirection);
  // A row wider than a pitch is an invalid value, not an invalid pitch
  // (measured on an H100: tests/differential/runtime_api_probe.expected).
  if (b.width > b.dst_pitch || b.width > b.src_pitch) return record(cudaErrorInvalidValue);
  if (b.width == 0 || b.height == 0 || b.depth == 0) return cudaSuccess;
  if (!b.dst || !b.src) return record(cudaErrorInvalidValue);
  std::size_t dst_span = span_of(b.dst_pitch, b.dst_slice, b.width, b.height, b.depth);
  std::size_t src_span = span_of(b.src_pitch, b.src_slice, b.width, b.height, b.depth);
  if (dst_span == SIZE_MAX || src_span == SIZE_MAX) return record(cudaErrorInvalidValue);
  bool dst_on_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool src_on_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (dst_on_device ? !is_device_range(b.dst, dst_span) : !is_plausible_range(b.dst, dst_span))
    return record(cudaErrorInvalidValue);
  if (src_on_device ? !is_device_range(b.src, src_span) : !is_plausible_range(b.src, src_span))
    return record(cudaErrorInvalidValue);
  return perform(where, "copy of " + std::to_string(b.width * b.height * b.depth) + " bytes", [b] {
    for (std::size_t z = 0; z < b.depth; ++z)
      for (std::size_t y = 0; y < b.height; ++y)
        std::memmove(static_cast<char*>(b.dst) + z * b.dst_slice + y * b.dst_pitch,
                     static_cast<const char*>(b.src) + z * b.src_slice + y * b.src_pitch, b.width);
  });
}

inline cudaError_t set_box(void* p, std::size_t pitch, std::size_t slice, int value, std::size_t width,
                           std::size_t height, std::size_t depth, placement where = synchronous) {
  if (cudaError_t e = check_device()) return e;
  // A row wider than the pitch is not refused as such (measured on an H100):
  // only the range the rows cover must lie in one allocation.
  if (width == 0 || height == 0 || depth == 0) return cudaSuccess;
  std::size_t span = span_of(pitch, slice, width, height, depth);
  if (span == SIZE_MAX || !is_device_range(p, span)) return record(cudaErrorInvalidValue);
  return perform(where, "set of " + std::to_string(width * height * depth) + " bytes", [=] {
    for (std::size_t z = 0; z < depth; ++z)
      for (std::size_t y = 0; y < height; ++y) std::memset(static_cast<char*>(p) + z * slice + y * pitch, value, width);
  });
}

}  // namespace weft::detail

inline cudaError_t cudaMalloc(void** pointer, std::size_t bytes) {
  if (pointer) *pointer = nullptr;  // on every path, so that compilers see it set
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (!pointer) return weft::detail::record(cudaErrorInvalidValue);
  *pointer = nullptr;
  if (bytes == 0) return cudaSuccess;
  *pointer = weft::detail::runtime::get().memory().allocate(bytes, weft::detail::memory_kind::device);
  return *pointer ? cudaSuccess : weft::detail::record(cudaErrorMemoryAllocation);
}

template <class T>
cudaError_t cudaMalloc(T** pointer, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(pointer), bytes);
}

inline cudaError_t cudaFree(void* pointer) {
  if (cudaError_t e = weft::detail::wait_for_device()) return e;
  if (!pointer) return cudaSuccess;
  // Any device's memory may be freed, as with unified addressing on a GPU.
  for (int d = 0; d < weft::detail::device_count(); ++d)
    if (weft::detail::runtime::get(d).memory().release(pointer)) return cudaSuccess;
  return weft::detail::record(cudaErrorInvalidValue);
}

inline cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  return weft::detail::copy_box({dst, count, 0, src, count, 0, count, 1, 1}, kind);
}

inline cudaError_t cudaMemset(void* pointer, int value, std::size_t count) {
  return weft::detail::set_box(pointer, count, 0, value, count, 1, 1);
}

/// Ordered in `stream` after the work before it; returns at once.
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                                   cudaStream_t stream = nullptr) {
  return weft::detail::copy_box({dst, count, 0, src, count, 0, count, 1, 1}, kind,
                                weft::detail::asynchronous_on(stream));
}

inline cudaError_t cudaMemsetAsync(void* devPtr, int value, std::size_t count, cudaStream_t stream = nullptr) {
  return weft::detail::set_box(devPtr, count, 0, value, count, 1, 1, weft::detail::asynchronous_on(stream));
}
