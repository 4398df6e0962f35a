// Linear device memory: cudaMalloc, cudaFree, cudaMemcpy, cudaMemset.
//
// Device memory is host memory registered in the allocation registry. Every
// pointer argument is checked against it, and a bad one gets the code CUDA 13
// returns for it (measured on an H100: tests/differential/).
// Copies and sets are stream commands (detail/streams/host_task.hpp): cudaMemcpy and
// cudaMemset go to the default stream and return when done; their *Async
// forms go to the stream given. cudaFree waits for the whole device first,
// as CUDA's does.
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/device_api.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/graphs/captured_copies.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/memory/memory_copies.hpp"
#include "weft/detail/memory/memory_lookup.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/scheduler/memory_check.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/streams/host_task.hpp"

namespace weft::surface {

/// cudaMalloc's allocation, which cudaMallocAsync shares.
inline cudaError_t allocate_device(void** pointer, std::size_t bytes) {
  if (pointer) *pointer = nullptr;  // on every path, so that compilers see it set
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (!pointer) return weft::detail::record(cudaErrorInvalidValue);
  *pointer = nullptr;
  if (bytes == 0) return cudaSuccess;
  *pointer = weft::detail::runtime::get().memory().allocate(bytes, weft::detail::memory_kind::device);
  return *pointer ? cudaSuccess : weft::detail::record(cudaErrorMemoryAllocation);
}

}  // namespace weft::surface

/// Potentially unsafe during a capture (a graph launch would not repeat it):
/// refused while a capture forbids it (cudaThreadExchangeStreamCaptureMode).
inline cudaError_t cudaMalloc(void** pointer, std::size_t bytes) {
  if (pointer) *pointer = nullptr;
  if (cudaError_t e = weft::detail::check_unsafe_call()) return e;
  return weft::surface::allocate_device(pointer, bytes);
}

// Through void*, as CUDA's template casts: T may be const (a `const float*`
// that kernels only read, allocated with cudaMalloc(&p, ...)), which a
// reinterpret_cast to void** would refuse. The other typed allocators do the same.
template <class T>
cudaError_t cudaMalloc(T** pointer, std::size_t bytes) {
  return cudaMalloc(static_cast<void**>(static_cast<void*>(pointer)), bytes);
}

inline cudaError_t cudaFree(void* pointer) {
  if (cudaError_t e = weft::detail::check_unsafe_call()) return e;
  // From a kernel (CUDA's device runtime) it frees at once: the caller's
  // own grid could never be waited for.
  if (!weft::detail::running_block)
    if (cudaError_t e = weft::detail::wait_for_device()) return e;
  if (!pointer) return cudaSuccess;
  // The memory of a graph's allocation node, which the graph left allocated.
  if (auto allocation = weft::detail::graph_allocation_at(pointer)) {
    if (cudaError_t e = weft::detail::free_outside_graphs(*allocation)) return weft::detail::record(e);
    weft::detail::graph_memory::of(allocation->device).unmap(*allocation);
    return cudaSuccess;
  }
  // Any device's memory may be freed, as with unified addressing on a GPU.
  if (weft::detail::release_on_any_device(pointer)) return cudaSuccess;
  weft::detail::memory_check::report_repeated_free(pointer, "cudaFree");
  return weft::detail::record(cudaErrorInvalidValue);
}

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

inline cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  return weft::detail::copy_or_capture({dst, count, 0, src, count, 0, count, 1, 1}, kind,
                                       weft::surface::synchronously());
}

inline cudaError_t cudaMemset(void* pointer, int value, std::size_t count) {
  return weft::detail::set_or_capture(pointer, count, 0, value, count, 1, 1, weft::surface::synchronously());
}

/// Ordered in `stream` after the work before it; returns at once.
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                                   cudaStream_t stream = nullptr) {
  return weft::detail::copy_or_capture({dst, count, 0, src, count, 0, count, 1, 1}, kind,
                                       weft::surface::asynchronously_on(stream));
}

inline cudaError_t cudaMemsetAsync(void* devPtr, int value, std::size_t count, cudaStream_t stream = nullptr) {
  return weft::detail::set_or_capture(devPtr, count, 0, value, count, 1, 1, weft::surface::asynchronously_on(stream));
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
