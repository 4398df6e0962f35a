// Devices: how many there are, which one a host thread uses, what they are
// (cudaDeviceProp, cudaDeviceGetAttribute), versions, memory information and
// peer access.
//
// WEFT_DEVICES sets the number of simulated devices (default 1). Each has its
// own memory registry, limits, kernel attributes, sticky fault and SM worker
// pool; all of them share the host's memory, so every device can reach every
// other's memory and a peer copy is a plain copy.
//
// What the properties say is detail/runtime/device_properties.hpp's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "weft/cuda/runtime/device_api.hpp"
#include "weft/cuda/runtime/driver_types.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/memory_api.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_device_properties.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/base/host_machine.hpp"
#include "weft/detail/graphs/captured_copies.hpp"
#include "weft/detail/memory/memory_copies.hpp"
#include "weft/detail/runtime/device_properties.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"

// cudaSetDeviceFlags' flags (CUDA's driver_types.h values).
inline constexpr unsigned cudaDeviceScheduleAuto = 0x00;
inline constexpr unsigned cudaDeviceScheduleSpin = 0x01;
inline constexpr unsigned cudaDeviceScheduleYield = 0x02;
inline constexpr unsigned cudaDeviceScheduleBlockingSync = 0x04;
inline constexpr unsigned cudaDeviceBlockingSync = 0x04;
inline constexpr unsigned cudaDeviceScheduleMask = 0x07;
inline constexpr unsigned cudaDeviceMapHost = 0x08;
inline constexpr unsigned cudaDeviceLmemResizeToMax = 0x10;
inline constexpr unsigned cudaDeviceSyncMemops = 0x80;
inline constexpr unsigned cudaDeviceMask = 0xff;
inline constexpr unsigned cudaInitDeviceFlagsAreValid = 0x01;

inline cudaError_t cudaGetDeviceCount(int* count) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  if (!count) return weft::detail::record(cudaErrorInvalidValue);
  *count = weft::detail::device_count();
  return cudaSuccess;
}

/// Sets the calling host thread's current device; later calls on this thread
/// use its memory, limits and sticky fault.
inline cudaError_t cudaSetDevice(int device) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  weft::detail::current_device = device;
  return cudaSuccess;
}

inline cudaError_t cudaGetDevice(int* device) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  if (!device) return weft::detail::record(cudaErrorInvalidValue);
  *device = weft::detail::current_device;
  return cudaSuccess;
}

/// Devices need no initialisation; the arguments are checked as CUDA does.
inline cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  if (flags & ~cudaInitDeviceFlagsAreValid) return weft::detail::record(cudaErrorInvalidValue);
  if ((flags & cudaInitDeviceFlagsAreValid) && (deviceFlags & ~cudaDeviceMask))
    return weft::detail::record(cudaErrorInvalidValue);
  if (flags & cudaInitDeviceFlagsAreValid) weft::detail::runtime::get(device).flags = deviceFlags;
  return cudaSuccess;
}

/// Kept and reported back; scheduling is weft's own (host threads block on a
/// condition variable), so the flags change nothing.
inline cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  unsigned schedule = flags & cudaDeviceScheduleMask;
  // At most one scheduling policy (Spin, Yield or BlockingSync) may be named.
  if ((flags & ~cudaDeviceMask) || (schedule & (schedule - 1))) return weft::detail::record(cudaErrorInvalidValue);
  weft::detail::runtime::get().flags = flags;
  return cudaSuccess;
}

/// Mapped host memory is always available, so cudaDeviceMapHost is always
/// reported, as CUDA does on a device with unified addressing.
inline cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  if (!flags) return weft::detail::record(cudaErrorInvalidValue);
  *flags = weft::detail::runtime::get().flags | cudaDeviceMapHost;
  return cudaSuccess;
}

inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  if (!prop) return weft::detail::record(cudaErrorInvalidValue);
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  *prop = weft::detail::device_properties(device);
  return cudaSuccess;
}

inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  if (!value) return weft::detail::record(cudaErrorInvalidValue);
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  if (!weft::detail::device_attribute(attr, device, *value)) return weft::detail::record(cudaErrorInvalidValue);
  return cudaSuccess;
}

/// weft implements CUDA 13.0's runtime API, and is its own driver.
inline constexpr int weft_cuda_version = 13000;

inline cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return weft::detail::record(cudaErrorInvalidValue);
  *version = weft_cuda_version;
  return cudaSuccess;
}

inline cudaError_t cudaRuntimeGetVersion(int* version) {
  if (!version) return weft::detail::record(cudaErrorInvalidValue);
  *version = weft_cuda_version;
  return cudaSuccess;
}

/// The host's available and physical memory: device memory is host memory.
inline cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (!free || !total) return weft::detail::record(cudaErrorInvalidValue);
  *total = weft::detail::this_host().physical_memory;
  *free = std::min(*total, weft::detail::available_memory_bytes());
  return cudaSuccess;
}

/// Every device reaches every other's memory (it is all host memory), but
/// not itself as a peer, as in CUDA.
inline cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  if (!canAccessPeer) return weft::detail::record(cudaErrorInvalidValue);
  if (!weft::detail::valid_device(device) || !weft::detail::valid_device(peerDevice))
    return weft::detail::record(cudaErrorInvalidDevice);
  *canAccessPeer = device != peerDevice ? 1 : 0;
  return cudaSuccess;
}

/// Every device reaches every other's memory with the host's atomics, so
/// access and native atomics (all of them, not only some) are supported
/// between two different devices; there are no CUDA arrays, and every pair
/// ranks the same (0). A device
/// asked about itself is refused, as CUDA refuses it.
inline cudaError_t cudaDeviceGetP2PAttribute(int* value, cudaDeviceP2PAttr attr, int srcDevice, int dstDevice) {
  if (!value) return weft::detail::record(cudaErrorInvalidValue);
  if (!weft::detail::valid_device(srcDevice) || !weft::detail::valid_device(dstDevice) || srcDevice == dstDevice)
    return weft::detail::record(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevP2PAttrPerformanceRank:
    case cudaDevP2PAttrCudaArrayAccessSupported:
    case cudaDevP2PAttrOnlyPartialNativeAtomicSupported:  // all atomics are native
      *value = 0;
      return cudaSuccess;
    case cudaDevP2PAttrAccessSupported:
    case cudaDevP2PAttrNativeAtomicSupported:
      *value = 1;
      return cudaSuccess;
  }
  return weft::detail::record(cudaErrorInvalidValue);
}

/// Recorded so that enabling twice or disabling what is not enabled gets
/// CUDA's codes; access itself needs nothing.
inline cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  using weft::detail::record;
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (!weft::detail::valid_device(peerDevice)) return record(cudaErrorInvalidDevice);
  // A device is not its own peer (cudaErrorPeerAccessUnsupported, measured
  // on an H100).
  if (peerDevice == weft::detail::current_device) return record(cudaErrorPeerAccessUnsupported);
  if (flags != 0) return record(cudaErrorInvalidValue);
  std::uint64_t bit = std::uint64_t{1} << peerDevice;
  if (weft::detail::runtime::get().peers.fetch_or(bit) & bit) return record(cudaErrorPeerAccessAlreadyEnabled);
  return cudaSuccess;
}

inline cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  using weft::detail::record;
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (!weft::detail::valid_device(peerDevice)) return record(cudaErrorInvalidDevice);
  std::uint64_t bit = std::uint64_t{1} << peerDevice;
  // Never enabled for the device itself (cudaErrorPeerAccessNotEnabled,
  // measured on an H100).
  if (!(weft::detail::runtime::get().peers.fetch_and(~bit) & bit)) return record(cudaErrorPeerAccessNotEnabled);
  return cudaSuccess;
}

/// Copies between two devices' memory, after the work launched on both.
inline cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count) {
  if (cudaError_t e = weft::detail::check_synchronous_placement(weft::surface::synchronously())) return e;
  return weft::detail::copy_peer(dst, dstDevice, src, srcDevice, count);
}

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

/// Ordered in `stream` only: work launched on the other device meanwhile is
/// not waited for (use an event for that, as with CUDA).
inline cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count,
                                       cudaStream_t stream = nullptr) {
  return weft::detail::copy_peer_or_capture(dst, dstDevice, src, srcDevice, count,
                                            weft::surface::explicit_stream(stream));
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
