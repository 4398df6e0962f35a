// cudaFreeAsync: device memory freed once the stream's earlier work, which
// may still use it, is done.
#pragma once

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/memory/memory_lookup.hpp"
#include "weft/detail/runtime/pool_allocations.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/streams/host_task.hpp"
#include "weft/detail/streams/stream_registry.hpp"

namespace weft::detail {

/// `p` must be the start of device memory (any device's); null is nothing to free.
inline cudaError_t free_in_stream_order(void* p, cudaStream_t stream) {
  if (cudaError_t e = check_device()) return e;
  if (!resolve_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  if (!p) return cudaSuccess;
  auto a = locate(p);
  if (!a || a->info.base != p || a->info.kind != memory_kind::device) return record(cudaErrorInvalidValue);
  int device = a->device;
  return perform(asynchronous_on(stream), "free",
                 [=] { release_to_pool(p, [&] { return runtime::get(device).memory().release(p); }); });
}

}  // namespace weft::detail
