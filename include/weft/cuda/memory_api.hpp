// Linear device memory: cudaMalloc, cudaFree, cudaMemcpy, cudaMemset.
//
// Device memory is host memory registered in the allocation registry. Every
// pointer argument is checked against it, and a bad one gets the code CUDA 13
// returns for it (measured on an H100: tests/differential/).
// cudaMemcpy, cudaMemset and cudaFree wait for launched kernels first, as
// the legacy default stream orders them after earlier work.
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>

#include "../detail/error_state.hpp"
#include "../detail/runtime.hpp"
#include "device_api.hpp"
#include "error_codes.hpp"

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

inline bool valid_copy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  bool dst_on_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool src_on_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (dst_on_device ? !is_device_range(dst, count) : !is_plausible_range(dst, count)) return false;
  if (src_on_device ? !is_device_range(src, count) : !is_plausible_range(src, count)) return false;
  return true;
}

}  // namespace weft::detail

inline cudaError_t cudaMalloc(void** pointer, std::size_t bytes) {
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
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return weft::detail::record(cudaErrorInvalidMemcpyDirection);
  if (count == 0) return cudaSuccess;
  if (!dst || !src || !weft::detail::valid_copy(dst, src, count, kind))
    return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = weft::detail::wait_for_device()) return e;
  std::memmove(dst, src, count);
  return cudaSuccess;
}

inline cudaError_t cudaMemset(void* pointer, int value, std::size_t count) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (count == 0) return cudaSuccess;
  if (!weft::detail::is_device_range(pointer, count)) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = weft::detail::wait_for_device()) return e;
  std::memset(pointer, value, count);
  return cudaSuccess;
}
