// Pitched and 3D memory: cudaMallocPitch, cudaMalloc3D, cudaMemcpy2D,
// cudaMemcpy3D, cudaMemset2D, cudaMemset3D, and the *Async forms of the
// copies and sets.
//
// A pitched allocation's rows start 512 bytes apart at least
// (detail/memory/memory_layout.hpp says why).
//
// The *Async forms are ordered in the stream they are given and return at
// once (detail/streams/host_task.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "weft/cuda/runtime/device_api.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/memory_api.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/cuda/runtime/textures/array_handles.hpp"
#include "weft/cuda/runtime/textures/array_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/captured_copies.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/memory/memory_copies.hpp"
#include "weft/detail/memory/memory_layout.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/streams/host_task.hpp"
#include "weft/detail/textures/arrays/array_regions.hpp"

struct cudaExtent {
  std::size_t width;  // bytes, for linear memory
  std::size_t height;
  std::size_t depth;
};

struct cudaPos {
  std::size_t x;  // bytes, for linear memory
  std::size_t y;
  std::size_t z;
};

struct cudaPitchedPtr {
  void* ptr;
  std::size_t pitch;
  std::size_t xsize;
  std::size_t ysize;
};

/// A copy between linear memory (srcPtr, dstPtr) and CUDA arrays
/// (srcArray, dstArray): one of each pair names each side. With an array
/// on either side, extent.width and an array's position x count that
/// array's elements (a pointer's x counts bytes); otherwise they count bytes.
struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;
  cudaMemcpyKind kind;
};

inline cudaExtent make_cudaExtent(std::size_t w, std::size_t h, std::size_t d) { return {w, h, d}; }
inline cudaPos make_cudaPos(std::size_t x, std::size_t y, std::size_t z) { return {x, y, z}; }
inline cudaPitchedPtr make_cudaPitchedPtr(void* d, std::size_t p, std::size_t xsz, std::size_t ysz) {
  return {d, p, xsz, ysz};
}

namespace weft::surface {

/// One side of a cudaMemcpy3DParms copy, `width` bytes by extent.height
/// rows by extent.depth slices, as a memcpy node's operand; the code
/// cudaMemcpy3D refuses it with if it names a freed array, or a box that
/// does not lie within the array, or within the rows and slices its pitched
/// pointer describes (measured on an H100).
inline cudaError_t operand_of(cudaArray_const_t array, const cudaPitchedPtr& ptr, const cudaPos& pos,
                              std::size_t element_bytes, std::size_t width, const cudaExtent& extent,
                              weft::detail::copy_operand& operand) {
  if (array) {
    cudaError_t code = cudaSuccess;
    weft::detail::array_level* a = live_array(array, code);
    if (!a) return code;
    std::size_t x = weft::detail::saturating_product(pos.x, element_bytes);
    weft::detail::array_region region;
    if (cudaError_t e = weft::detail::array_box(*a, x, pos.y, pos.z, width, extent.height, extent.depth, region))
      return e;
    operand = {a->base, a->row_pitch, a->row_pitch, a->rows(), x, pos.y, pos.z, a};
    return cudaSuccess;
  }
  if (pos.x + width > ptr.pitch) return cudaErrorInvalidValue;
  if (extent.depth > 1 && pos.y + extent.height > ptr.ysize) return cudaErrorInvalidValue;
  operand = {ptr.ptr, ptr.pitch, ptr.xsize, ptr.ysize, pos.x, pos.y, pos.z, nullptr};
  return cudaSuccess;
}

/// The copy cudaMemcpy3DParms describes, in weft's terms (a memcpy node's
/// work), or the code cudaMemcpy3D refuses it with (nothing recorded).
/// Two arrays must have elements of one size (cudaErrorInvalidValue).
inline cudaError_t copy_of(const cudaMemcpy3DParms* p, weft::detail::copy_work& work) {
  if (!p) return cudaErrorInvalidValue;
  // Each side is an array or a pointer, not both.
  if ((p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr)) return cudaErrorInvalidValue;
  std::size_t element_bytes = 1;
  for (cudaArray_const_t array : {p->srcArray, p->dstArray}) {
    if (!array) continue;
    cudaError_t code = cudaSuccess;
    weft::detail::array_level* a = live_array(array, code);
    if (!a) return code;
    if (element_bytes != 1 && a->element_bytes != element_bytes) return cudaErrorInvalidValue;
    element_bytes = a->element_bytes;
  }
  std::size_t width = weft::detail::saturating_product(p->extent.width, element_bytes);
  if (width == SIZE_MAX) return cudaErrorInvalidValue;
  if (cudaError_t e = operand_of(p->srcArray, p->srcPtr, p->srcPos, element_bytes, width, p->extent, work.src))
    return e;
  if (cudaError_t e = operand_of(p->dstArray, p->dstPtr, p->dstPos, element_bytes, width, p->extent, work.dst))
    return e;
  work.width = width;
  work.height = p->extent.height;
  work.depth = p->extent.depth;
  work.kind = p->kind;
  return cudaSuccess;
}

/// The box of rows cudaMemcpy3DParms describes, or the code it is refused with.
inline cudaError_t box_of(const cudaMemcpy3DParms* p, weft::detail::row_box& box) {
  weft::detail::copy_work work;
  if (cudaError_t e = copy_of(p, work)) return e;
  box = work.box();
  return cudaSuccess;
}

inline cudaError_t copy_3d(const cudaMemcpy3DParms* p, weft::detail::placement where) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  weft::detail::copy_work work;
  if (cudaError_t e = copy_of(p, work)) return weft::detail::record(e);
  return weft::detail::copy_or_capture(work, where);
}

}  // namespace weft::surface

/// Rows of `width` bytes, `*pitch` (a multiple of 512) bytes apart.
inline cudaError_t cudaMallocPitch(void** devPtr, std::size_t* pitch, std::size_t width, std::size_t height) {
  using namespace weft::detail;
  if (cudaError_t e = check_unsafe_call()) return e;
  if (cudaError_t e = check_device()) return e;
  if (!devPtr || !pitch) return record(cudaErrorInvalidValue);
  *devPtr = nullptr;
  // As cudaMalloc(0): nothing to allocate, no error, and a pitch of 0
  // (measured on an H100).
  if (width == 0 || height == 0) {
    *pitch = 0;
    return cudaSuccess;
  }
  std::size_t p = pitch_for(width);
  std::size_t bytes = saturating_product(p, height);
  if (p == 0 || bytes == SIZE_MAX) return record(cudaErrorMemoryAllocation);
  *devPtr = runtime::get().memory().allocate(bytes, memory_kind::device);
  if (!*devPtr) return record(cudaErrorMemoryAllocation);
  *pitch = p;
  return cudaSuccess;
}

template <class T>
cudaError_t cudaMallocPitch(T** devPtr, std::size_t* pitch, std::size_t width, std::size_t height) {
  return cudaMallocPitch(static_cast<void**>(static_cast<void*>(devPtr)), pitch, width, height);
}

/// A pitched box of extent.depth slices of extent.height rows.
inline cudaError_t cudaMalloc3D(cudaPitchedPtr* pitchedDevPtr, cudaExtent extent) {
  using namespace weft::detail;
  if (cudaError_t e = check_unsafe_call()) return e;
  if (cudaError_t e = check_device()) return e;
  if (!pitchedDevPtr) return record(cudaErrorInvalidValue);
  *pitchedDevPtr = {nullptr, pitch_for(extent.width), extent.width, extent.height};
  if (extent.width == 0 || extent.height == 0 || extent.depth == 0) return cudaSuccess;
  std::size_t p = pitch_for(extent.width);
  std::size_t bytes = saturating_product(saturating_product(p, extent.height), extent.depth);
  if (p == 0 || bytes == SIZE_MAX) return record(cudaErrorMemoryAllocation);
  pitchedDevPtr->ptr = runtime::get().memory().allocate(bytes, memory_kind::device);
  return pitchedDevPtr->ptr ? cudaSuccess : record(cudaErrorMemoryAllocation);
}

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

inline cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                                std::size_t height, cudaMemcpyKind kind) {
  return weft::detail::copy_or_capture({dst, dpitch, 0, src, spitch, 0, width, height, 1}, kind,
                                       weft::surface::synchronously());
}

/// Between linear memory and CUDA arrays, in any combination.
inline cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  return weft::surface::copy_3d(p, weft::surface::synchronously());
}

inline cudaError_t cudaMemset2D(void* devPtr, std::size_t pitch, int value, std::size_t width, std::size_t height) {
  return weft::detail::set_or_capture(devPtr, pitch, 0, value, width, height, 1, weft::surface::synchronously());
}

inline cudaError_t cudaMemset3D(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent) {
  return weft::detail::set_or_capture(pitchedDevPtr.ptr, pitchedDevPtr.pitch, pitchedDevPtr.pitch * pitchedDevPtr.ysize,
                                      value, extent.width, extent.height, extent.depth, weft::surface::synchronously());
}

inline cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                                     std::size_t width, std::size_t height, cudaMemcpyKind kind,
                                     cudaStream_t stream = nullptr) {
  return weft::detail::copy_or_capture({dst, dpitch, 0, src, spitch, 0, width, height, 1}, kind,
                                       weft::surface::asynchronously_on(stream));
}

inline cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream = nullptr) {
  return weft::surface::copy_3d(p, weft::surface::asynchronously_on(stream));
}

inline cudaError_t cudaMemset2DAsync(void* devPtr, std::size_t pitch, int value, std::size_t width, std::size_t height,
                                     cudaStream_t stream = nullptr) {
  return weft::detail::set_or_capture(devPtr, pitch, 0, value, width, height, 1,
                                      weft::surface::asynchronously_on(stream));
}

inline cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent,
                                     cudaStream_t stream = nullptr) {
  return weft::detail::set_or_capture(pitchedDevPtr.ptr, pitchedDevPtr.pitch, pitchedDevPtr.pitch * pitchedDevPtr.ysize,
                                      value, extent.width, extent.height, extent.depth,
                                      weft::surface::asynchronously_on(stream));
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
