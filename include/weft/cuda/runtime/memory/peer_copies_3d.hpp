// cudaMemcpy3DPeer and cudaMemcpy3DPeerAsync: cudaMemcpy3D's box between
// two devices' memory, each side a pitched pointer or a CUDA array
// (cudaMemcpy3DPeerParms, CUDA 13's layout). As cudaMemcpyPeer does, the
// synchronous form waits for the work launched on both devices first; the
// asynchronous one is ordered in its stream only.
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/pitched_memory.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/cuda/runtime/textures/array_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/captured_copies.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/runtime/caller_checks.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"

struct cudaMemcpy3DPeerParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  int srcDevice;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  int dstDevice;
  cudaExtent extent;
};

namespace weft::surface {

/// The copy a cudaMemcpy3DPeerParms describes, device to device, or the
/// code it is refused with (nothing recorded).
inline cudaError_t peer_copy_of(const cudaMemcpy3DPeerParms* p, weft::detail::copy_work& work) {
  if (!p) return cudaErrorInvalidValue;
  if (!weft::detail::valid_device(p->srcDevice) || !weft::detail::valid_device(p->dstDevice))
    return cudaErrorInvalidDevice;
  cudaMemcpy3DParms same{p->srcArray, p->srcPos, p->srcPtr, p->dstArray,
                         p->dstPos,   p->dstPtr, p->extent, cudaMemcpyDeviceToDevice};
  return copy_of(&same, work);
}

}  // namespace weft::surface

inline cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms* p) {
  using namespace weft::detail;
  if (cudaError_t e = check_synchronous_placement(weft::surface::synchronously())) return e;
  if (cudaError_t e = check_device()) return e;
  copy_work work;
  if (cudaError_t e = weft::surface::peer_copy_of(p, work)) return record(e);
  if (cudaError_t e = check_caller(true)) return e;
  for (int d : {p->srcDevice, p->dstDevice}) {
    runtime::get(d).synchronize();
    if (cudaError_t e = record(fault(d).code())) return e;
  }
  return copy_or_capture(work, weft::surface::synchronously());
}

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

inline cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms* p, cudaStream_t stream = nullptr) {
  using namespace weft::detail;
  if (cudaError_t e = check_device()) return e;
  copy_work work;
  if (cudaError_t e = weft::surface::peer_copy_of(p, work)) return record(e);
  return copy_or_capture(work, weft::surface::asynchronously_on(stream));
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
