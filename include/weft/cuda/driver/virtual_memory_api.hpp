// Virtual memory management: cuMemCreate, cuMemAddressReserve, cuMemMap,
// cuMemSetAccess, cuMemUnmap, cuMemAddressFree, cuMemRelease, ...
//
// The host's own virtual memory does it: a physical allocation is an
// anonymous memory file (memfd), a reservation is an inaccessible range of
// address space, and mapping places the file there, so the same physical
// memory mapped twice, or unmapped and mapped again, holds the same bytes.
// A mapped range is device memory to the rest of weft (copies, sets,
// kernels, pointer attributes) until it is unmapped; cudaFree refuses it.
//
// Granularity is 2 MiB, an H100's. Generic compression is accepted and kept
// in the allocation's properties (memory holds the same values either way);
// shareable handles (requestedHandleTypes) are not supported. A mapping is
// readable and writable from cuMemMap on; cuMemSetAccess checks its
// arguments and sets the protection of the range (one protection for all
// devices, since they share the host's memory).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "weft/cuda/driver/context_api.hpp"
#include "weft/cuda/driver/driver_types.hpp"
#include "weft/cuda/driver/memory_api.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail {

class virtual_memory {
 public:
  /// CU_MEM_ALLOC_GRANULARITY_MINIMUM and _RECOMMENDED on an H100.
  static constexpr std::size_t granularity = std::size_t{2} << 20;

  static virtual_memory& get() {
    static virtual_memory memory;
    return memory;
  }

  /// What cuMemCreate and cuMemGetAllocationGranularity accept: pinned
  /// memory on a device that exists.
  static CUresult check(const CUmemAllocationProp* prop) {
    if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
      return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(prop->location.id)) return CUDA_ERROR_INVALID_DEVICE;
    if (prop->allocFlags.compressionType > CU_MEM_ALLOCATION_COMP_GENERIC) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
  }

  CUresult create(CUmemGenericAllocationHandle* handle, std::size_t bytes, const CUmemAllocationProp& prop) {
    int fd = static_cast<int>(::memfd_create("weft-device-memory", MFD_CLOEXEC));
    if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
    if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      ::close(fd);
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    std::lock_guard lock(mutex_);
    *handle = next_handle_++;
    physical_[*handle] = {fd, bytes, prop};
    return CUDA_SUCCESS;
  }

  /// Mapped ranges keep their memory (the mapping holds the file).
  CUresult release(CUmemGenericAllocationHandle handle) {
    std::lock_guard lock(mutex_);
    auto it = physical_.find(handle);
    if (it == physical_.end()) return CUDA_ERROR_INVALID_VALUE;
    ::close(it->second.fd);
    physical_.erase(it);
    return CUDA_SUCCESS;
  }

  CUresult properties(CUmemAllocationProp* prop, CUmemGenericAllocationHandle handle) {
    std::lock_guard lock(mutex_);
    auto it = physical_.find(handle);
    if (it == physical_.end()) return CUDA_ERROR_INVALID_VALUE;
    *prop = it->second.prop;
    return CUDA_SUCCESS;
  }

  CUresult reserve(CUdeviceptr* ptr, std::size_t bytes, std::size_t alignment) {
    if (alignment == 0) alignment = granularity;
    if ((alignment & (alignment - 1)) != 0) return CUDA_ERROR_INVALID_VALUE;
    std::size_t span = bytes + alignment;
    void* p = ::mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    auto start = reinterpret_cast<std::uintptr_t>(p);
    auto aligned = (start + alignment - 1) / alignment * alignment;
    // Give back what alignment left over on either side.
    if (aligned > start) ::munmap(p, aligned - start);
    if (start + span > aligned + bytes)
      ::munmap(reinterpret_cast<void*>(aligned + bytes), start + span - aligned - bytes);
    std::lock_guard lock(mutex_);
    reservations_[aligned] = bytes;
    *ptr = aligned;
    return CUDA_SUCCESS;
  }

  /// The whole reservation, with nothing mapped in it.
  CUresult free(CUdeviceptr ptr, std::size_t bytes) {
    std::lock_guard lock(mutex_);
    auto it = reservations_.find(ptr);
    if (it == reservations_.end() || it->second != bytes || mapped_within(ptr, bytes)) return CUDA_ERROR_INVALID_VALUE;
    ::munmap(as_pointer(ptr), bytes);
    reservations_.erase(it);
    return CUDA_SUCCESS;
  }

  CUresult map(CUdeviceptr ptr, std::size_t bytes, std::size_t offset, CUmemGenericAllocationHandle handle) {
    std::lock_guard lock(mutex_);
    auto h = physical_.find(handle);
    if (h == physical_.end()) return CUDA_ERROR_INVALID_VALUE;
    if (offset % granularity != 0) return CUDA_ERROR_NOT_SUPPORTED;
    if (bytes == 0 || ptr % granularity != 0 || bytes % granularity != 0 || offset > h->second.bytes ||
        bytes > h->second.bytes - offset || !reserved(ptr, bytes) || mapped_within(ptr, bytes))
      return CUDA_ERROR_INVALID_VALUE;
    void* p = ::mmap(as_pointer(ptr), bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, h->second.fd,
                     static_cast<off_t>(offset));
    if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    int device = h->second.prop.location.id;
    runtime::get(device).memory().add(p, bytes, memory_kind::device, allocation_registry::externally_mapped);
    mappings_[ptr] = {bytes, device};
    return CUDA_SUCCESS;
  }

  /// Every mapping the range touches must lie wholly in it; a range with no
  /// mapping in it is no error (as CUDA 13 answered on an H100).
  CUresult unmap(CUdeviceptr ptr, std::size_t bytes) {
    std::lock_guard lock(mutex_);
    if (bytes == 0 || !reserved(ptr, bytes)) return CUDA_ERROR_INVALID_VALUE;
    for (auto& [start, m] : mappings_)
      if (start < ptr + bytes && ptr < start + m.bytes && (start < ptr || start + m.bytes > ptr + bytes))
        return CUDA_ERROR_INVALID_VALUE;
    for (auto it = mappings_.lower_bound(ptr); it != mappings_.end() && it->first < ptr + bytes;) {
      runtime::get(it->second.device).synchronize();  // no grid may still use it
      runtime::get(it->second.device).memory().forget(as_pointer(it->first));
      ::mmap(as_pointer(it->first), it->second.bytes, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
      it = mappings_.erase(it);
    }
    return CUDA_SUCCESS;
  }

  /// The range must be mapped throughout.
  CUresult set_access(CUdeviceptr ptr, std::size_t bytes, int protection) {
    std::lock_guard lock(mutex_);
    if (bytes == 0 || !covered(ptr, bytes)) return CUDA_ERROR_INVALID_VALUE;
    return ::mprotect(as_pointer(ptr), bytes, protection) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  }

 private:
  struct physical {
    int fd;
    std::size_t bytes;
    CUmemAllocationProp prop;
  };
  struct mapping {
    std::size_t bytes;
    int device;
  };

  bool reserved(CUdeviceptr ptr, std::size_t bytes) const {
    auto it = reservations_.upper_bound(ptr);
    if (it == reservations_.begin()) return false;
    --it;
    return ptr - it->first <= it->second && bytes <= it->second - (ptr - it->first);
  }

  bool mapped_within(CUdeviceptr ptr, std::size_t bytes) const {
    for (auto& [start, m] : mappings_)
      if (start < ptr + bytes && ptr < start + m.bytes) return true;
    return false;
  }

  bool covered(CUdeviceptr ptr, std::size_t bytes) const {
    CUdeviceptr next = ptr;
    while (next < ptr + bytes) {
      auto it = mappings_.upper_bound(next);
      if (it == mappings_.begin()) return false;
      --it;
      if (next >= it->first + it->second.bytes) return false;
      next = it->first + it->second.bytes;
    }
    return true;
  }

  std::mutex mutex_;
  CUmemGenericAllocationHandle next_handle_ = 1;
  std::map<CUmemGenericAllocationHandle, physical> physical_;
  std::map<CUdeviceptr, std::size_t> reservations_;
  std::map<CUdeviceptr, mapping> mappings_;
};

}  // namespace weft::detail

/// 2 MiB for either option, as on an H100.
inline CUresult cuMemGetAllocationGranularity(std::size_t* granularity, const CUmemAllocationProp* prop,
                                              CUmemAllocationGranularity_flags option) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!granularity) return CUDA_ERROR_INVALID_VALUE;
  if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = virtual_memory::check(prop)) return r;
  *granularity = virtual_memory::granularity;
  return CUDA_SUCCESS;
}

/// size a multiple of the granularity; flags 0.
inline CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, std::size_t size, const CUmemAllocationProp* prop,
                            unsigned long long flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  if (!handle || flags != 0 || size == 0 || size % virtual_memory::granularity != 0) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = virtual_memory::check(prop)) return r;
  if (prop->requestedHandleTypes != CU_MEM_HANDLE_TYPE_NONE) return CUDA_ERROR_NOT_SUPPORTED;
  return virtual_memory::get().create(handle, size, *prop);
}

inline CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  return virtual_memory::get().release(handle);
}

/// The properties given to cuMemCreate, compression included.
inline CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp* prop, CUmemGenericAllocationHandle handle) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!prop) return CUDA_ERROR_INVALID_VALUE;
  return virtual_memory::get().properties(prop, handle);
}

/// addr (a preferred address) is a hint weft does not follow; alignment 0
/// means the granularity.
inline CUresult cuMemAddressReserve(CUdeviceptr* ptr, std::size_t size, std::size_t alignment, CUdeviceptr addr,
                                    unsigned long long flags) {
  using namespace weft::detail;
  (void)addr;
  if (CUresult r = check_current_context()) return r;
  if (!ptr || flags != 0 || size == 0 || size % virtual_memory::granularity != 0) return CUDA_ERROR_INVALID_VALUE;
  return virtual_memory::get().reserve(ptr, size, alignment);
}

inline CUresult cuMemAddressFree(CUdeviceptr ptr, std::size_t size) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  return virtual_memory::get().free(ptr, size);
}

inline CUresult cuMemMap(CUdeviceptr ptr, std::size_t size, std::size_t offset, CUmemGenericAllocationHandle handle,
                         unsigned long long flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return virtual_memory::get().map(ptr, size, offset, handle);
}

inline CUresult cuMemUnmap(CUdeviceptr ptr, std::size_t size) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  return virtual_memory::get().unmap(ptr, size);
}

/// Each descriptor names a device that exists and a protection; the range
/// gets the widest protection asked for.
inline CUresult cuMemSetAccess(CUdeviceptr ptr, std::size_t size, const CUmemAccessDesc* desc, std::size_t count) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  if (!desc || count == 0) return CUDA_ERROR_INVALID_VALUE;
  int protection = PROT_NONE;
  for (std::size_t i = 0; i < count; ++i) {
    if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_device(desc[i].location.id)) return CUDA_ERROR_INVALID_DEVICE;
    switch (desc[i].flags) {
      case CU_MEM_ACCESS_FLAGS_PROT_NONE:
        break;
      case CU_MEM_ACCESS_FLAGS_PROT_READ:
        protection |= PROT_READ;
        break;
      case CU_MEM_ACCESS_FLAGS_PROT_READWRITE:
        protection |= PROT_READ | PROT_WRITE;
        break;
      default:
        return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return virtual_memory::get().set_access(ptr, size, protection);
}
