// Memory pools of the stream-ordered allocator: each device's default pool,
// pools a program creates (cudaMemPoolCreate, cudaMemPoolDestroy), the
// pool cudaMallocAsync draws from (cudaDeviceSetMemPool), allocating from a
// pool (cudaMallocFromPoolAsync), releasing what a pool caches
// (cudaMemPoolTrimTo) and the devices that may reach a pool's memory
// (cudaMemPoolSetAccess). A pool's attributes and usage counters are
// memory_pool_attributes.hpp's.
//
// A pool's allocation is an ordinary device allocation of the pool's device,
// made at once; freeing it gives the memory back to the host at once too, and
// the pool keeps the freed bytes counted as reserved until a synchronisation
// or cudaMemPoolTrimTo releases them (detail/runtime/memory_pool_state.hpp).
// Pools share no memory between processes: a pool with a shareable handle
// type is cudaErrorNotSupported.
#pragma once

#include <cstddef>
#include <cstdint>

#include "weft/cuda/runtime/driver_types.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/managed_memory.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/memory_pools.hpp"
#include "weft/detail/streams/stream_registry.hpp"

struct cudaMemAccessDesc {
  cudaMemLocation location;
  cudaMemAccessFlags flags;
};

struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  cudaMemAllocationHandleType handleTypes;
  cudaMemLocation location;
  void* win32SecurityAttributes;
  std::size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};

namespace weft::surface {

inline bool names_device(const cudaMemLocation& where) {
  return where.type == cudaMemLocationTypeDevice && weft::detail::valid_device(where.id);
}

/// cudaMemPoolCreate's properties: pinned memory of a device that exists.
/// Shareable handles (IPC) are cudaErrorNotSupported, as where a platform
/// lacks them; a handle type CUDA does not have is cudaErrorInvalidValue.
inline cudaError_t check_pool_properties(const cudaMemPoolProps& props) {
  constexpr int handle_types = cudaMemHandleTypePosixFileDescriptor | cudaMemHandleTypeWin32 |
                               cudaMemHandleTypeWin32Kmt | cudaMemHandleTypeFabric;
  if (props.allocType != cudaMemAllocationTypePinned || !names_device(props.location)) return cudaErrorInvalidValue;
  if (props.handleTypes & ~handle_types) return cudaErrorInvalidValue;
  if (props.win32SecurityAttributes) return cudaErrorInvalidValue;  // only for Win32 handles
  return props.handleTypes == cudaMemHandleTypeNone ? cudaSuccess : cudaErrorNotSupported;
}

inline bool valid_access_flags(cudaMemAccessFlags flags) {
  return flags == cudaMemAccessFlagsProtNone || flags == cudaMemAccessFlagsProtRead ||
         flags == cudaMemAccessFlagsProtReadWrite;
}

/// A device's own pool is always read-write to it: an access descriptor may
/// only say so again.
inline bool valid_access(cudaMemPool_t pool, const cudaMemAccessDesc& d) {
  if (!names_device(d.location) || !valid_access_flags(d.flags)) return false;
  return d.location.id != pool->device || d.flags == cudaMemAccessFlagsProtReadWrite;
}

}  // namespace weft::surface

inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  if (!memPool) return weft::detail::record(cudaErrorInvalidValue);
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  *memPool = weft::detail::default_memory_pool(device);
  return cudaSuccess;
}

inline cudaError_t cudaMemPoolCreate(cudaMemPool_t* memPool, const cudaMemPoolProps* poolProps) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  if (!memPool || !poolProps) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = weft::surface::check_pool_properties(*poolProps)) return weft::detail::record(e);
  *memPool = weft::detail::memory_pools::instance().create(poolProps->location.id, poolProps->maxSize);
  return cudaSuccess;
}

/// Returns at once; a pool whose allocations are not all freed goes when the
/// last one is. A device whose current pool it was draws from its default
/// pool again. A default pool cannot be destroyed.
inline cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
  if (!weft::detail::known_memory_pool(memPool) || memPool->is_default)
    return weft::detail::record(cudaErrorInvalidValue);
  weft::detail::memory_pools::instance().destroy(memPool);
  return cudaSuccess;
}

/// The pool cudaMallocAsync uses on `device`.
inline cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device) {
  if (!memPool) return weft::detail::record(cudaErrorInvalidValue);
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  *memPool = weft::detail::memory_pools::instance().current_pool(device);
  return cudaSuccess;
}

/// Any pool of `device` (its default pool or one created on it).
inline cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  if (!weft::detail::known_memory_pool(memPool) || memPool->device != device)
    return weft::detail::record(cudaErrorInvalidValue);
  weft::detail::memory_pools::instance().set_current_pool(device, memPool->is_default ? nullptr : memPool);
  return cudaSuccess;
}

/// Releases what the pool caches until it holds at most `minBytesToKeep`
/// (memory live allocations hold is never released).
inline cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, std::size_t minBytesToKeep) {
  auto& pools = weft::detail::memory_pools::instance();
  std::lock_guard lock(pools.mutex());
  if (!pools.known_locked(memPool)) return weft::detail::record(cudaErrorInvalidValue);
  memPool->usage.trim_to(minBytesToKeep);
  return cudaSuccess;
}

/// Grants other devices access to the pool's memory, all descriptors or none.
inline cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const cudaMemAccessDesc* descList, std::size_t count) {
  if (!weft::detail::known_memory_pool(memPool) || (count > 0 && !descList))
    return weft::detail::record(cudaErrorInvalidValue);
  for (std::size_t i = 0; i < count; ++i)
    if (!weft::surface::valid_access(memPool, descList[i])) return weft::detail::record(cudaErrorInvalidValue);
  std::lock_guard lock(weft::detail::memory_pools::instance().mutex());
  for (std::size_t i = 0; i < count; ++i)
    memPool->peer_access[static_cast<std::size_t>(descList[i].location.id)] = descList[i].flags;
  return cudaSuccess;
}

/// Read-write from the pool's own device; for another device, what
/// cudaMemPoolSetAccess granted (none at first).
inline cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags* flags, cudaMemPool_t memPool, cudaMemLocation* location) {
  if (!flags || !location || !weft::detail::known_memory_pool(memPool) || !weft::surface::names_device(*location))
    return weft::detail::record(cudaErrorInvalidValue);
  std::lock_guard lock(weft::detail::memory_pools::instance().mutex());
  *flags = location->id == memPool->device
               ? cudaMemAccessFlagsProtReadWrite
               : static_cast<cudaMemAccessFlags>(memPool->peer_access[static_cast<std::size_t>(location->id)]);
  return cudaSuccess;
}

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

/// Allocated at once from `memPool`, which may be another device's than the
/// stream's; cudaErrorMemoryAllocation past the pool's maxSize.
inline cudaError_t cudaMallocFromPoolAsync(void** ptr, std::size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  CUstream_st* s = weft::detail::resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return weft::detail::record(cudaErrorInvalidResourceHandle);
  if (!ptr || !weft::detail::known_memory_pool(memPool)) return weft::detail::record(cudaErrorInvalidValue);
  return weft::surface::allocate_in_stream_order(ptr, size, *s, memPool);
}

template <class T>
cudaError_t cudaMallocFromPoolAsync(T** ptr, std::size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return cudaMallocFromPoolAsync(static_cast<void**>(static_cast<void*>(ptr)), size, memPool, stream);
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
