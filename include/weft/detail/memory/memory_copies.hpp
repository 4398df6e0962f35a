// Copies and sets of memory as stream commands (host_task.hpp): boxes of
// rows (cudaMemcpy, cudaMemcpy2D/3D, cudaMemset...), symbol copies and peer
// copies. Each checks its pointers against the allocation registries first,
// and a bad one gets the code CUDA 13 returns for it (measured on an H100:
// tests/differential/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/memory/memory_layout.hpp"
#include "weft/detail/memory/memory_lookup.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/streams/host_task.hpp"

namespace weft::detail {

/// Whether [p, p + bytes) is memory a copy may treat as the device's.
using device_range_check = bool (*)(const void* p, std::size_t bytes);

/// The code CUDA 13 refuses a copy with, or cudaSuccess; nothing is
/// recorded (a graph's memcpy node is checked when it is added, and runs
/// later; it also accepts graph memory, which is mapped only while the graph
/// runs: `on_device`).
inline cudaError_t check_copy(const row_box& b, cudaMemcpyKind kind, device_range_check on_device = is_device_range) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  // A row wider than a pitch is an invalid value, not an invalid pitch
  // (measured on an H100: tests/differential/runtime_api_probe.expected).
  if (b.width > b.dst_pitch || b.width > b.src_pitch) return cudaErrorInvalidValue;
  if (b.width == 0 || b.height == 0 || b.depth == 0) return cudaSuccess;
  if (!b.dst || !b.src) return cudaErrorInvalidValue;
  std::size_t dst_span = span_of(b.dst_pitch, b.dst_slice, b.width, b.height, b.depth);
  std::size_t src_span = span_of(b.src_pitch, b.src_slice, b.width, b.height, b.depth);
  if (dst_span == SIZE_MAX || src_span == SIZE_MAX) return cudaErrorInvalidValue;
  bool dst_on_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool src_on_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (dst_on_device ? !on_device(b.dst, dst_span) : !is_plausible_range(b.dst, dst_span)) return cudaErrorInvalidValue;
  if (src_on_device ? !on_device(b.src, src_span) : !is_plausible_range(b.src, src_span)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

inline void copy_rows(const row_box& b) {
  for (std::size_t z = 0; z < b.depth; ++z)
    for (std::size_t y = 0; y < b.height; ++y)
      std::memmove(static_cast<char*>(b.dst) + z * b.dst_slice + y * b.dst_pitch,
                   static_cast<const char*>(b.src) + z * b.src_slice + y * b.src_pitch, b.width);
}

/// The device whose stream `where` names, where a copy's fault goes: the
/// current device where the stream is not valid (the call refuses it then).
inline int device_of(placement where) {
  CUstream_st* stream = resolve_stream(where.stream);
  return stream ? stream->device : current_device;
}

/// A copy or set that was accepted because it named graph memory its stream
/// may map first, found unmapped when its turn came: a GPU's copy would
/// fault there, so the device's sticky fault is cudaErrorIllegalAddress.
inline void fault_unmapped_graph_memory(int device, const std::string& what) {
  fault(device).raise(cudaErrorIllegalAddress,
                      what + ": illegal address: graph memory that was not allocated when the " +
                          "stream reached it (its allocation node had not run, or it was freed)");
}

/// Box `b`'s rows added to the race check's trace of a copy or set
/// (race_stream_copy.hpp): written at the destination and, for a copy, read
/// at the source (a set's box has none). For race-check builds.
inline std::shared_ptr<race_stream_copy> race_trace_rows(std::shared_ptr<race_stream_copy> traced, const row_box& b) {
  for (std::size_t z = 0; z < b.depth; ++z)
    for (std::size_t y = 0; y < b.height; ++y) {
      if (b.src) traced->reads(static_cast<const char*>(b.src) + z * b.src_slice + y * b.src_pitch, b.width);
      traced->writes(static_cast<char*>(b.dst) + z * b.dst_slice + y * b.dst_pitch, b.width);
    }
  return traced;
}

/// The race check's trace of `call`, a copy or set of box `b` into
/// `where`'s stream; null, and nothing worked out, in other builds.
inline std::shared_ptr<race_stream_copy> race_trace_box(const row_box& b, placement where, const char* call) {
  if constexpr (!race_check_build)
    return nullptr;
  else
    return race_trace_rows(race_trace_copy(device_of(where), call, where.stream), b);
}

/// `reserved`: memory a copy may name before earlier work in stream order
/// maps it (graph memory allocated in the program's view,
/// is_device_or_allocated_graph_range).
inline cudaError_t copy_box(const row_box& b, cudaMemcpyKind kind, placement where,
                            device_range_check reserved = is_device_range) {
  if (cudaError_t e = check_device()) return e;
  // A copy may name graph memory that work before it in stream order maps
  // (a graph launched just before, whose allocation node has not run yet),
  // as on a GPU, where the address is reserved for the graph's life and
  // the launch allocates it in the program's view: checked again when its
  // turn comes, after that work.
  cudaError_t mapped = check_copy(b, kind);
  if (mapped != cudaSuccess)
    if (cudaError_t e = check_copy(b, kind, reserved)) return record(e);
  if (b.width == 0 || b.height == 0 || b.depth == 0) return cudaSuccess;
  std::string what = "copy of " + std::to_string(b.width * b.height * b.depth) + " bytes";
  if (where.asynchronous) {
    if (mapped == cudaSuccess)
      return perform(
          where, std::move(what), [b] { copy_rows(b); }, race_trace_box(b, where, "cudaMemcpyAsync"));
    return perform(
        where, what,
        [b, kind, what, device = device_of(where)] {
          if (check_copy(b, kind) == cudaSuccess)
            copy_rows(b);
          else
            fault_unmapped_graph_memory(device, what);
        },
        race_trace_box(b, where, "cudaMemcpyAsync"));
  }
  // The caller still waits: the copy is refused as at the call.
  auto refused = std::make_shared<cudaError_t>(cudaSuccess);
  cudaError_t e = perform(
      where, std::move(what),
      [b, kind, refused] {
        *refused = check_copy(b, kind);
        if (*refused == cudaSuccess) copy_rows(b);
      },
      race_trace_box(b, where, "cudaMemcpy"));
  return e == cudaSuccess && *refused != cudaSuccess ? record(*refused) : e;
}

/// `reserved` as for copy_box.
inline cudaError_t set_box(void* p, std::size_t pitch, std::size_t slice, int value, std::size_t width,
                           std::size_t height, std::size_t depth, placement where,
                           device_range_check reserved = is_device_range) {
  if (cudaError_t e = check_device()) return e;
  // A row wider than the pitch is not refused as such (measured on an H100):
  // only the range the rows cover must lie in one allocation.
  if (width == 0 || height == 0 || depth == 0) return cudaSuccess;
  std::size_t span = span_of(pitch, slice, width, height, depth);
  if (span == SIZE_MAX) return record(cudaErrorInvalidValue);
  bool mapped = is_device_range(p, span);
  if (!mapped && !reserved(p, span)) return record(cudaErrorInvalidValue);
  auto set_rows = [=] {
    for (std::size_t z = 0; z < depth; ++z)
      for (std::size_t y = 0; y < height; ++y) std::memset(static_cast<char*>(p) + z * slice + y * pitch, value, width);
  };
  std::string what = "set of " + std::to_string(width * height * depth) + " bytes";
  auto traced = [&] {
    return race_trace_box({p, pitch, slice, nullptr, 0, 0, width, height, depth}, where,
                          where.asynchronous ? "cudaMemsetAsync" : "cudaMemset");
  };
  if (mapped) return perform(where, std::move(what), set_rows, traced());
  // Graph memory not mapped yet, checked again when its turn comes (copy_box).
  if (where.asynchronous)
    return perform(
        where, what,
        [=, device = device_of(where)] {
          if (is_device_range(p, span))
            set_rows();
          else
            fault_unmapped_graph_memory(device, what);
        },
        traced());
  auto refused = std::make_shared<bool>(false);
  cudaError_t e = perform(
      where, std::move(what),
      [=] {
        *refused = !is_device_range(p, span);
        if (!*refused) set_rows();
      },
      traced());
  return e == cudaSuccess && *refused ? record(cudaErrorInvalidValue) : e;
}

/// `count` bytes at `offset` into a symbol of `size` bytes.
inline bool within_symbol(std::size_t size, std::size_t count, std::size_t offset) {
  return offset <= size && count <= size - offset;
}

/// A copy between `other` and the symbol at `symbol` (of `size` bytes)
/// checked, with its ends in `dst` and `src`, or the code CUDA refuses it
/// with (nothing recorded). The offset is applied only once it is known to
/// lie within the symbol. `on_device`: as for check_copy.
inline cudaError_t check_symbol_copy(void* symbol, void* other_dst, const void* other_src, std::size_t count,
                                     cudaMemcpyKind kind, bool to_symbol, std::size_t size, std::size_t offset,
                                     void*& dst, const void*& src, device_range_check on_device = is_device_range) {
  // The symbol is device memory, so the other side is the host or the device.
  bool allowed = kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault ||
                 kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  if (!allowed) return cudaErrorInvalidMemcpyDirection;
  if (!within_symbol(size, count, offset)) return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  const void* other = to_symbol ? other_src : other_dst;
  if (!other) return cudaErrorInvalidValue;
  bool other_on_device = kind == cudaMemcpyDeviceToDevice;
  if (other_on_device ? !on_device(other, count) : !is_plausible_range(other, count)) return cudaErrorInvalidValue;
  char* at = static_cast<char*>(symbol) + offset;
  dst = to_symbol ? at : other_dst;
  src = to_symbol ? other_src : at;
  return cudaSuccess;
}

inline cudaError_t copy_symbol(void* symbol, void* other_dst, const void* other_src, std::size_t count,
                               cudaMemcpyKind kind, bool to_symbol, std::size_t size, std::size_t offset,
                               placement where) {
  if (cudaError_t e = check_device()) return e;
  void* dst = nullptr;
  const void* src = nullptr;
  if (cudaError_t e = check_symbol_copy(symbol, other_dst, other_src, count, kind, to_symbol, size, offset, dst, src))
    return record(e);
  if (count == 0) return cudaSuccess;
  auto traced = [&]() -> std::shared_ptr<race_stream_copy> {
    if constexpr (!race_check_build) {
      return nullptr;
    } else {
      const char* call = to_symbol ? (where.asynchronous ? "cudaMemcpyToSymbolAsync" : "cudaMemcpyToSymbol")
                                   : (where.asynchronous ? "cudaMemcpyFromSymbolAsync" : "cudaMemcpyFromSymbol");
      auto t = race_trace_copy(device_of(where), call, where.stream);
      t->reads(src, count);
      t->writes(dst, count);
      return t;
    }
  };
  return perform(
      where, "symbol copy of " + std::to_string(count) + " bytes", [=] { std::memmove(dst, src, count); }, traced());
}

inline cudaError_t check_peer_copy(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count) {
  if (cudaError_t e = check_device()) return e;
  if (!valid_device(dstDevice) || !valid_device(srcDevice)) return record(cudaErrorInvalidDevice);
  if (count == 0) return cudaSuccess;
  auto on = [](const void* p, std::size_t n, int d) {
    auto a = locate(p, n);
    return a && a->device == d && (a->info.kind == memory_kind::device || a->info.kind == memory_kind::managed);
  };
  if (!dst || !src || !on(dst, count, dstDevice) || !on(src, count, srcDevice)) return record(cudaErrorInvalidValue);
  return cudaSuccess;
}

/// Copies between two devices' memory, after the work launched on both.
inline cudaError_t copy_peer(void* dst, int dst_device, const void* src, int src_device, std::size_t count) {
  if (cudaError_t e = check_peer_copy(dst, dst_device, src, src_device, count)) return e;
  if (count == 0) return cudaSuccess;
  if (cudaError_t e = check_caller(true)) return e;
  runtime::get(src_device).synchronize();
  runtime::get(dst_device).synchronize();
  if (cudaError_t e = record(fault(src_device).code())) return e;
  if (cudaError_t e = record(fault(dst_device).code())) return e;
  std::memmove(dst, src, count);
  return cudaSuccess;
}

/// Ordered in `stream` only: work launched on the other device meanwhile is
/// not waited for (use an event for that, as with CUDA).
inline cudaError_t copy_peer_async(void* dst, int dst_device, const void* src, int src_device, std::size_t count,
                                   cudaStream_t stream) {
  if (cudaError_t e = check_peer_copy(dst, dst_device, src, src_device, count)) return e;
  if (count == 0) return cudaSuccess;
  auto traced = [&]() -> std::shared_ptr<race_stream_copy> {
    if constexpr (!race_check_build) {
      return nullptr;
    } else {
      auto t = race_trace_copy(dst_device, "cudaMemcpyPeerAsync", stream);
      t->reads(src, count);
      t->writes(dst, count);
      return t;
    }
  };
  return perform(
      asynchronous_on(stream), "peer copy of " + std::to_string(count) + " bytes",
      [=] { std::memmove(dst, src, count); }, traced());
}

}  // namespace weft::detail
