// cudaHostRegister: a host range recorded as registered memory of the current
// device, so that registering it twice, unregistering it and asking for its
// attributes get CUDA's answers. Registration changes nothing else: all
// memory is host memory in weft.
#pragma once

#include <cstddef>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/runtime/allocation_registry.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail {

/// cudaSuccess, or the code for a range that overlaps recorded memory.
inline cudaError_t register_host_range(void* ptr, std::size_t size, unsigned flags) {
  for (int d = 0; d < device_count(); ++d) {
    auto& memory = runtime::get(d).memory();
    if (!memory.overlaps(ptr, size)) continue;
    // Registering registered memory again is cudaErrorHostMemoryAlreadyRegistered;
    // memory from cudaMallocHost (measured on an H100) or device memory is
    // an invalid value.
    auto a = memory.find(ptr);
    bool registered = a && a->kind == memory_kind::registered;
    return registered ? cudaErrorHostMemoryAlreadyRegistered : cudaErrorInvalidValue;
  }
  if (!runtime::get().memory().add(ptr, size, memory_kind::registered, flags))
    return cudaErrorHostMemoryAlreadyRegistered;
  return cudaSuccess;
}

}  // namespace weft::detail
