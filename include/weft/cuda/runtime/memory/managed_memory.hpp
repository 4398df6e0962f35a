// Managed and stream-ordered allocation: cudaMallocManaged,
// cudaMemPrefetchAsync, cudaMemAdvise, cudaMallocAsync, cudaFreeAsync.
//
// Managed memory is host memory that host and kernels share, as all memory
// is in weft: prefetches and advice are checked and accepted, and change
// nothing. A stream-ordered allocation is made at once from a memory pool
// (memory_pools.hpp), so it is ready whenever the stream gets to it; a free
// happens once the stream's earlier work is done.
#pragma once

#include <cstddef>

#include <optional>

#include "weft/cuda/runtime/device_management.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/memory_api.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/captured_memory.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/memory/memory_lookup.hpp"
#include "weft/detail/memory/stream_ordered_free.hpp"
#include "weft/detail/runtime/memory_pools.hpp"
#include "weft/detail/runtime/pool_allocations.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/streams/host_task.hpp"
#include "weft/detail/streams/stream_registry.hpp"

inline constexpr unsigned cudaMemAttachGlobal = 0x01;
inline constexpr unsigned cudaMemAttachHost = 0x02;
inline constexpr unsigned cudaMemAttachSingle = 0x04;
inline constexpr int cudaCpuDeviceId = -1;
inline constexpr int cudaInvalidDeviceId = -2;

enum cudaMemoryAdvise : int {
  cudaMemAdviseSetReadMostly = 1,
  cudaMemAdviseUnsetReadMostly = 2,
  cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4,
  cudaMemAdviseSetAccessedBy = 5,
  cudaMemAdviseUnsetAccessedBy = 6,
};

enum cudaMemLocationType : int {
  cudaMemLocationTypeInvalid = 0,
  cudaMemLocationTypeNone = 0,
  cudaMemLocationTypeDevice = 1,
  cudaMemLocationTypeHost = 2,
  cudaMemLocationTypeHostNuma = 3,
  cudaMemLocationTypeHostNumaCurrent = 4,
};

struct cudaMemLocation {
  cudaMemLocationType type;
  int id;
};

/// cudaMemAttachGlobal or cudaMemAttachHost. Size 0 succeeds with a null
/// pointer, as cudaMalloc(0) (measured on an H100, although CUDA's
/// documentation says it is refused).
inline cudaError_t cudaMallocManaged(void** devPtr, std::size_t size, unsigned int flags = cudaMemAttachGlobal) {
  using namespace weft::detail;
  if (cudaError_t e = check_unsafe_call()) return e;
  if (cudaError_t e = check_device()) return e;
  if (!devPtr) return record(cudaErrorInvalidValue);
  *devPtr = nullptr;
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) return record(cudaErrorInvalidValue);
  if (size == 0) return cudaSuccess;
  *devPtr = runtime::get().memory().allocate(size, memory_kind::managed, flags);
  return *devPtr ? cudaSuccess : record(cudaErrorMemoryAllocation);
}

template <class T>
cudaError_t cudaMallocManaged(T** devPtr, std::size_t size, unsigned int flags = cudaMemAttachGlobal) {
  return cudaMallocManaged(static_cast<void**>(static_cast<void*>(devPtr)), size, flags);
}

namespace weft::surface {

/// A managed range, a location that exists, and a default stream.
inline cudaError_t check_managed_hint(const void* p, std::size_t count, cudaMemLocation where, cudaStream_t stream) {
  using namespace weft::detail;
  if (cudaError_t e = check_device()) return e;
  if (!resolve_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  auto a = p && count ? locate(p, count) : std::nullopt;
  if (!a || a->info.kind != memory_kind::managed) return record(cudaErrorInvalidValue);
  switch (where.type) {
    case cudaMemLocationTypeDevice:
      return valid_device(where.id) ? cudaSuccess : record(cudaErrorInvalidDevice);
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNuma:
    case cudaMemLocationTypeHostNumaCurrent:
      return cudaSuccess;
    default:
      return record(cudaErrorInvalidValue);
  }
}

inline cudaMemLocation location_of(int device) {
  return device == cudaCpuDeviceId ? cudaMemLocation{cudaMemLocationTypeHost, 0}
                                   : cudaMemLocation{cudaMemLocationTypeDevice, device};
}

/// cudaMallocAsync's and cudaMallocFromPoolAsync's allocation on stream `s`
/// from `pool` (a known pool; null: the current pool of the stream's device).
inline cudaError_t allocate_in_stream_order(void** devPtr, std::size_t size, CUstream_st& s, CUmemPoolHandle_st* pool) {
  using namespace weft::detail;
  // In a capture: an allocation node, whose address is returned now.
  if (CUgraph_st* g = devPtr && size > 0 ? capturing_graph(s) : nullptr)
    if (auto captured = capture_allocation(s, *g, size, devPtr)) return *captured;
  if (auto refused = refuse_capture(s)) return *refused;
  if (devPtr) *devPtr = nullptr;  // on every path, so that compilers see it set
  if (cudaError_t e = check_device()) return e;
  if (!devPtr) return record(cudaErrorInvalidValue);
  if (size == 0) return cudaSuccess;
  *devPtr = allocate_from_pool(pool ? pool : memory_pools::instance().current_pool(s.device), size);
  return *devPtr ? cudaSuccess : record(cudaErrorMemoryAllocation);
}

}  // namespace weft::surface

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

/// CUDA 13's form.
inline cudaError_t cudaMemPrefetchAsync(const void* devPtr, std::size_t count, cudaMemLocation location,
                                        unsigned int flags, cudaStream_t stream = nullptr) {
  if (flags != 0) return weft::detail::record(cudaErrorInvalidValue);
  return weft::surface::check_managed_hint(devPtr, count, location, weft::surface::explicit_stream(stream));
}

/// CUDA 12's form (a device ordinal, or cudaCpuDeviceId), which teaching
/// code still uses.
inline cudaError_t cudaMemPrefetchAsync(const void* devPtr, std::size_t count, int dstDevice,
                                        cudaStream_t stream = nullptr) {
  return weft::surface::check_managed_hint(devPtr, count, weft::surface::location_of(dstDevice),
                                           weft::surface::explicit_stream(stream));
}

/// CUDA 13's form.
inline cudaError_t cudaMemAdvise(const void* devPtr, std::size_t count, cudaMemoryAdvise advice,
                                 cudaMemLocation location) {
  if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
    return weft::detail::record(cudaErrorInvalidValue);
  // Read-mostly advice ignores the location.
  if (advice == cudaMemAdviseSetReadMostly || advice == cudaMemAdviseUnsetReadMostly)
    location = {cudaMemLocationTypeHost, 0};
  return weft::surface::check_managed_hint(devPtr, count, location, nullptr);
}

/// CUDA 12's form.
inline cudaError_t cudaMemAdvise(const void* devPtr, std::size_t count, cudaMemoryAdvise advice, int device) {
  return cudaMemAdvise(devPtr, count, advice, weft::surface::location_of(device));
}

/// Attaching managed memory to a stream limits which streams' kernels may
/// touch it while the host does; every kernel and the host may touch all
/// memory in weft, so it is checked and accepted, with no effect.
inline cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* devPtr, std::size_t length = 0,
                                            unsigned int flags = cudaMemAttachSingle) {
  CUstream_st* s = weft::detail::resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return weft::detail::record(cudaErrorInvalidResourceHandle);
  if (!devPtr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle))
    return weft::detail::record(cudaErrorInvalidValue);
  // CUDA's example of work a capture does not take (CUDA guide,
  // "Prohibited and Unhandled Operations").
  if (auto refused = weft::detail::refuse_capture(*s)) return *refused;
  (void)length;
  return cudaSuccess;
}

/// From the current pool of the stream's device (cudaDeviceSetMemPool), allocated
/// at once, so it is ready whenever the stream gets to it. In a capture it is an
/// allocation node of the graph.
inline cudaError_t cudaMallocAsync(void** devPtr, std::size_t size, cudaStream_t hStream) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  CUstream_st* s = weft::detail::resolve_stream(weft::surface::explicit_stream(hStream));
  if (!s) return weft::detail::record(cudaErrorInvalidResourceHandle);
  return weft::surface::allocate_in_stream_order(devPtr, size, *s, nullptr);
}

template <class T>
cudaError_t cudaMallocAsync(T** devPtr, std::size_t size, cudaStream_t hStream) {
  return cudaMallocAsync(static_cast<void**>(static_cast<void*>(devPtr)), size, hStream);
}

/// Freed once the stream's earlier work is done, which may still use it;
/// also the memory of a graph's allocation node that the graph left allocated.
inline cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  using namespace weft::detail;
  if (CUstream_st* s = resolve_stream(weft::surface::explicit_stream(hStream))) {
    // In a capture, a graph allocation's free is a free node.
    if (auto allocation = graph_allocation_at(devPtr))
      if (CUgraph_st* g = capturing_graph(*s))
        if (auto captured = capture_free(*s, *g, devPtr, allocation)) return *captured;
    if (auto refused = refuse_capture(*s)) return *refused;
  }
  if (auto allocation = graph_allocation_at(devPtr)) {
    if (cudaError_t e = check_device()) return e;
    cudaStream_t stream = weft::surface::explicit_stream(hStream);
    if (!resolve_stream(stream)) return record(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = free_outside_graphs(*allocation)) return record(e);
    return perform(asynchronous_on(stream), "graph memory free",
                   [allocation] { graph_memory::of(allocation->device).unmap(*allocation); });
  }
  return free_in_stream_order(devPtr, weft::surface::explicit_stream(hStream));
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
