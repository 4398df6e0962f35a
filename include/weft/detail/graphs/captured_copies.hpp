// Copies and sets where a stream may capture: the runtime's copy and set
// entry points (cudaMemcpy..., cudaMemset..., their 2D, 3D and symbol forms)
// come here instead of to memory_copies.hpp directly. An asynchronous one
// into a capturing stream becomes a memcpy or memset node once its arguments
// pass the checks it would pass uncaptured; a synchronous one is refused
// while a capture forbids it (stream_capture.hpp); the rest go on to
// memory_copies.hpp as ever.
#pragma once

#include <cstddef>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/memory/memory_copies.hpp"
#include "weft/detail/memory/memory_layout.hpp"
#include "weft/detail/runtime/caller_checks.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/streams/host_task.hpp"
#include "weft/detail/streams/stream_registry.hpp"

namespace weft::detail {

/// A copy's box as a memcpy node's operands (positions folded into the pointers).
inline copy_work copy_work_of(const row_box& b, cudaMemcpyKind kind) {
  auto rows_of = [&](std::size_t pitch, std::size_t slice) { return pitch && slice ? slice / pitch : b.height; };
  copy_work c;
  c.src = {const_cast<void*>(b.src), b.src_pitch, b.width, rows_of(b.src_pitch, b.src_slice)};
  c.dst = {b.dst, b.dst_pitch, b.width, rows_of(b.dst_pitch, b.dst_slice)};
  c.width = b.width;
  c.height = b.height;
  c.depth = b.depth;
  c.kind = kind;
  return c;
}

/// Refuses a synchronous call while a capture forbids it, else cudaSuccess.
inline cudaError_t check_synchronous_placement(placement where) {
  if (where.asynchronous || !any_capture()) return cudaSuccess;
  CUstream_st* s = resolve_stream(where.stream);
  return s ? check_synchronous_call(*s) : cudaSuccess;
}

/// An asynchronous copy or set for `where`, already checked: the result of
/// capturing `make_work()`'s node, or nullopt when the stream does not capture.
template <class MakeWork>
std::optional<cudaError_t> captured(placement where, MakeWork&& make_work) {
  if (!where.asynchronous || !any_capture()) return std::nullopt;
  if (cudaError_t e = check_caller(false)) return e;
  CUstream_st* s = resolve_stream(where.stream);
  if (!s) return record(cudaErrorInvalidResourceHandle);
  return capture_into(*s, std::forward<MakeWork>(make_work));
}

inline cudaError_t copy_or_capture(const row_box& b, cudaMemcpyKind kind, placement where) {
  if (cudaError_t e = check_synchronous_placement(where)) return e;
  if (any_capture() && where.asynchronous) {
    if (cudaError_t e = check_device()) return e;
    if (cudaError_t e = check_copy(b, kind, is_device_or_graph_range)) return record(e);
    if (b.width == 0 || b.height == 0 || b.depth == 0) return cudaSuccess;
    if (auto result = captured(where, [&] { return copy_work_of(b, kind); })) return *result;
  }
  return copy_box(b, kind, where, is_device_or_allocated_graph_range);
}

/// A copy already in a memcpy node's terms (cudaMemcpy3D's, and copies
/// to and from CUDA arrays, whose node keeps the arrays it names).
inline cudaError_t copy_or_capture(const copy_work& work, placement where) {
  row_box b = work.box();
  if (cudaError_t e = check_synchronous_placement(where)) return e;
  if (any_capture() && where.asynchronous) {
    if (cudaError_t e = check_device()) return e;
    if (cudaError_t e = check_copy(b, work.kind, is_device_or_graph_range)) return record(e);
    if (b.width == 0 || b.height == 0 || b.depth == 0) return cudaSuccess;
    if (auto result = captured(where, [&] { return work; })) return *result;
  }
  return copy_box(b, work.kind, where, is_device_or_allocated_graph_range);
}

/// A memset node has rows but no slices: slices that follow each other
/// without a gap are more rows; others become one node per slice, in a chain.
inline cudaError_t set_or_capture(void* p, std::size_t pitch, std::size_t slice, int value, std::size_t width,
                                  std::size_t height, std::size_t depth, placement where) {
  if (cudaError_t e = check_synchronous_placement(where)) return e;
  if (any_capture() && where.asynchronous && width && height && depth) {
    if (cudaError_t e = check_device()) return e;
    std::size_t span = span_of(pitch, slice, width, height, depth);
    if (span == SIZE_MAX || !is_device_or_graph_range(p, span)) return record(cudaErrorInvalidValue);
    bool rows_only = depth == 1 || slice == pitch * height;
    auto byte = static_cast<unsigned>(value) & 0xffu;
    std::size_t nodes = rows_only ? 1 : depth;
    for (std::size_t z = 0; z < nodes; ++z) {
      auto result = captured(where, [&] {
        return set_work{static_cast<char*>(p) + z * slice, pitch, byte, 1, width, rows_only ? height * depth : height};
      });
      if (!result) break;
      if (*result != cudaSuccess || z + 1 == nodes) return *result;
    }
  }
  return set_box(p, pitch, slice, value, width, height, depth, where, is_device_or_allocated_graph_range);
}

inline cudaError_t copy_symbol_or_capture(void* symbol, void* other_dst, const void* other_src, std::size_t count,
                                          cudaMemcpyKind kind, bool to_symbol, std::size_t size, std::size_t offset,
                                          placement where) {
  if (cudaError_t e = check_synchronous_placement(where)) return e;
  if (any_capture() && where.asynchronous) {
    if (cudaError_t e = check_device()) return e;
    void* dst = nullptr;
    const void* src = nullptr;
    if (cudaError_t e = check_symbol_copy(symbol, other_dst, other_src, count, kind, to_symbol, size, offset, dst, src,
                                          is_device_or_graph_range))
      return record(e);
    if (count == 0) return cudaSuccess;
    if (auto result = captured(where, [&] { return copy_work::linear(dst, src, count, kind); })) return *result;
  }
  return copy_symbol(symbol, other_dst, other_src, count, kind, to_symbol, size, offset, where);
}

/// cudaMemcpyPeerAsync: into a capturing stream, a memcpy node.
inline cudaError_t copy_peer_or_capture(void* dst, int dst_device, const void* src, int src_device, std::size_t count,
                                        cudaStream_t stream) {
  if (any_capture()) {
    if (cudaError_t e = check_peer_copy(dst, dst_device, src, src_device, count)) return e;
    if (count == 0) return cudaSuccess;
    auto work = [&] { return copy_work::linear(dst, src, count, cudaMemcpyDeviceToDevice); };
    if (auto result = captured(asynchronous_on(stream), work)) return *result;
  }
  return copy_peer_async(dst, dst_device, src, src_device, count, stream);
}

}  // namespace weft::detail
