// Copies to, from and between CUDA arrays: cudaMemcpy2DToArray,
// cudaMemcpy2DFromArray, cudaMemcpy2DArrayToArray, the deprecated
// cudaMemcpyToArray, cudaMemcpyFromArray and cudaMemcpyArrayToArray, and the
// *Async forms CUDA has of them. cudaMemcpy3D and cudaMemcpy3DPeer take
// arrays too (memory/pitched_memory.hpp, memory/peer_copies_3d.hpp).
//
// In the 2D forms, wOffset and width count bytes, hOffset and height rows;
// the deprecated forms copy `count` bytes from byte wOffset of row hOffset
// on, into the rows that follow. A copy must lie within the array
// (cudaErrorInvalidValue). `kind` says where the pointer's side is (an
// array is device memory whatever it says); a bad kind is
// cudaErrorInvalidMemcpyDirection.
//
// Each copy is a box of rows like cudaMemcpy2D's, so it runs, is ordered in
// a stream, is captured into a graph (as a memcpy node naming the array)
// and is checked just as cudaMemcpy2D's copies are.
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/pitched_memory.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/cuda/runtime/textures/array_handles.hpp"
#include "weft/cuda/runtime/textures/array_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/captured_copies.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/textures/arrays/array_regions.hpp"

namespace weft::surface {

/// A box of `width` bytes by `height` rows at byte `x` of row `y` of an
/// array, as a memcpy node's operand; the code if the handle names no live
/// array or the box does not lie within it.
inline cudaError_t array_operand(cudaArray_const_t array, std::size_t x, std::size_t y, std::size_t width,
                                 std::size_t height, weft::detail::copy_operand& operand) {
  cudaError_t code = cudaSuccess;
  weft::detail::array_level* a = live_array(array, code);
  if (!a) return code;
  weft::detail::array_region region;
  if (cudaError_t e = weft::detail::array_box(*a, x, y, 0, width, height, 1, region)) return e;
  operand = {a->base, a->row_pitch, a->row_pitch, a->rows(), x, y, 0, a};
  return cudaSuccess;
}

/// Linear memory as a memcpy node's operand: rows `pitch` bytes apart.
inline weft::detail::copy_operand pointer_operand(const void* p, std::size_t pitch, std::size_t height) {
  return {const_cast<void*>(p), pitch, pitch, height, 0, 0, 0, nullptr};
}

/// An array is device memory: a kind that puts an array's side of the copy
/// on the host is refused with cudaErrorInvalidMemcpyDirection, as an H100
/// refuses it (HostToHost or DeviceToHost to an array, HostToHost or
/// HostToDevice from one). The pointer's side is checked as the kind says
/// (HostToDevice from device memory is accepted; DeviceToDevice from host
/// memory is cudaErrorInvalidValue). cudaMemcpy3D does not check this (an
/// H100 copies a host buffer into an array as HostToHost).
inline cudaError_t check_array_kind(cudaMemcpyKind kind, bool array_dst, bool array_src) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  bool dst_on_host = kind == cudaMemcpyHostToHost || kind == cudaMemcpyDeviceToHost;
  bool src_on_host = kind == cudaMemcpyHostToHost || kind == cudaMemcpyHostToDevice;
  if ((array_dst && dst_on_host) || (array_src && src_on_host)) return cudaErrorInvalidMemcpyDirection;
  return cudaSuccess;
}

/// A 2D copy with an array on one side or both, once its operands are made.
inline cudaError_t copy_2d(cudaError_t made, weft::detail::copy_operand dst, weft::detail::copy_operand src,
                           std::size_t width, std::size_t height, cudaMemcpyKind kind, weft::detail::placement where) {
  using namespace weft::detail;
  if (cudaError_t e = check_device()) return e;
  if (made) return record(made);
  if (cudaError_t e = check_array_kind(kind, dst.array != nullptr, src.array != nullptr)) return record(e);
  copy_work work;
  work.dst = dst;
  work.src = src;
  work.width = width;
  work.height = height;
  work.depth = 1;
  work.kind = kind;
  return copy_or_capture(work, where);
}

inline cudaError_t copy_2d_to_array(cudaArray_t dst, std::size_t wOffset, std::size_t hOffset, const void* src,
                                    std::size_t spitch, std::size_t width, std::size_t height, cudaMemcpyKind kind,
                                    weft::detail::placement where) {
  weft::detail::copy_operand d;
  cudaError_t made = array_operand(dst, wOffset, hOffset, width, height, d);
  return copy_2d(made, d, pointer_operand(src, spitch, height), width, height, kind, where);
}

inline cudaError_t copy_2d_from_array(void* dst, std::size_t dpitch, cudaArray_const_t src, std::size_t wOffset,
                                      std::size_t hOffset, std::size_t width, std::size_t height, cudaMemcpyKind kind,
                                      weft::detail::placement where) {
  weft::detail::copy_operand s;
  cudaError_t made = array_operand(src, wOffset, hOffset, width, height, s);
  return copy_2d(made, pointer_operand(dst, dpitch, height), s, width, height, kind, where);
}

/// The deprecated forms' run of `count` bytes in an array, as a pointer,
/// or null with `code` set.
inline void* array_run_start(cudaArray_const_t array, std::size_t wOffset, std::size_t hOffset, std::size_t count,
                             cudaError_t& code) {
  weft::detail::array_level* a = live_array(array, code);
  if (!a) return nullptr;
  weft::detail::array_region region;
  code = weft::detail::array_run(*a, wOffset, hOffset, count, region);
  return code ? nullptr : region.start;
}

/// A copy of `count` bytes in a row, once its ends are found (or not);
/// array_dst and array_src say which ends are in an array.
inline cudaError_t copy_run(cudaError_t made, void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                            bool array_dst, bool array_src, weft::detail::placement where) {
  using namespace weft::detail;
  if (cudaError_t e = check_device()) return e;
  if (made) return record(made);
  if (cudaError_t e = check_array_kind(kind, array_dst, array_src)) return record(e);
  return copy_or_capture(copy_work::linear(dst, src, count, kind), where);
}

inline cudaError_t copy_to_array(cudaArray_t dst, std::size_t wOffset, std::size_t hOffset, const void* src,
                                 std::size_t count, cudaMemcpyKind kind, weft::detail::placement where) {
  cudaError_t made = cudaSuccess;
  void* start = array_run_start(dst, wOffset, hOffset, count, made);
  return copy_run(made, start, src, count, kind, true, false, where);
}

inline cudaError_t copy_from_array(void* dst, cudaArray_const_t src, std::size_t wOffset, std::size_t hOffset,
                                   std::size_t count, cudaMemcpyKind kind, weft::detail::placement where) {
  cudaError_t made = cudaSuccess;
  void* start = array_run_start(src, wOffset, hOffset, count, made);
  return copy_run(made, dst, start, count, kind, false, true, where);
}

}  // namespace weft::surface

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

inline cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, std::size_t wOffset, std::size_t hOffset, const void* src,
                                       std::size_t spitch, std::size_t width, std::size_t height, cudaMemcpyKind kind) {
  return weft::surface::copy_2d_to_array(dst, wOffset, hOffset, src, spitch, width, height, kind,
                                         weft::surface::synchronously());
}

inline cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, std::size_t wOffset, std::size_t hOffset, const void* src,
                                            std::size_t spitch, std::size_t width, std::size_t height,
                                            cudaMemcpyKind kind, cudaStream_t stream = nullptr) {
  return weft::surface::copy_2d_to_array(dst, wOffset, hOffset, src, spitch, width, height, kind,
                                         weft::surface::asynchronously_on(stream));
}

inline cudaError_t cudaMemcpy2DFromArray(void* dst, std::size_t dpitch, cudaArray_const_t src, std::size_t wOffset,
                                         std::size_t hOffset, std::size_t width, std::size_t height,
                                         cudaMemcpyKind kind) {
  return weft::surface::copy_2d_from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind,
                                           weft::surface::synchronously());
}

inline cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, std::size_t dpitch, cudaArray_const_t src, std::size_t wOffset,
                                              std::size_t hOffset, std::size_t width, std::size_t height,
                                              cudaMemcpyKind kind, cudaStream_t stream = nullptr) {
  return weft::surface::copy_2d_from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind,
                                           weft::surface::asynchronously_on(stream));
}

inline cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, std::size_t wOffsetDst, std::size_t hOffsetDst,
                                            cudaArray_const_t src, std::size_t wOffsetSrc, std::size_t hOffsetSrc,
                                            std::size_t width, std::size_t height,
                                            cudaMemcpyKind kind = cudaMemcpyDeviceToDevice) {
  weft::detail::copy_operand d, s;
  cudaError_t made = weft::surface::array_operand(dst, wOffsetDst, hOffsetDst, width, height, d);
  if (!made) made = weft::surface::array_operand(src, wOffsetSrc, hOffsetSrc, width, height, s);
  return weft::surface::copy_2d(made, d, s, width, height, kind, weft::surface::synchronously());
}

/// Deprecated in CUDA (cuda-samples still call it): `count` bytes from byte
/// wOffset of row hOffset on.
inline cudaError_t cudaMemcpyToArray(cudaArray_t dst, std::size_t wOffset, std::size_t hOffset, const void* src,
                                     std::size_t count, cudaMemcpyKind kind) {
  return weft::surface::copy_to_array(dst, wOffset, hOffset, src, count, kind, weft::surface::synchronously());
}

inline cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, std::size_t wOffset, std::size_t hOffset, const void* src,
                                          std::size_t count, cudaMemcpyKind kind, cudaStream_t stream = nullptr) {
  return weft::surface::copy_to_array(dst, wOffset, hOffset, src, count, kind,
                                      weft::surface::asynchronously_on(stream));
}

inline cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, std::size_t wOffset, std::size_t hOffset,
                                       std::size_t count, cudaMemcpyKind kind) {
  return weft::surface::copy_from_array(dst, src, wOffset, hOffset, count, kind, weft::surface::synchronously());
}

inline cudaError_t cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, std::size_t wOffset, std::size_t hOffset,
                                            std::size_t count, cudaMemcpyKind kind, cudaStream_t stream = nullptr) {
  return weft::surface::copy_from_array(dst, src, wOffset, hOffset, count, kind,
                                        weft::surface::asynchronously_on(stream));
}

inline cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, std::size_t wOffsetDst, std::size_t hOffsetDst,
                                          cudaArray_const_t src, std::size_t wOffsetSrc, std::size_t hOffsetSrc,
                                          std::size_t count, cudaMemcpyKind kind = cudaMemcpyDeviceToDevice) {
  cudaError_t made = cudaSuccess;
  void* d = weft::surface::array_run_start(dst, wOffsetDst, hOffsetDst, count, made);
  void* s = made ? nullptr : weft::surface::array_run_start(src, wOffsetSrc, hOffsetSrc, count, made);
  return weft::surface::copy_run(made, d, s, count, kind, true, true, weft::surface::synchronously());
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
