// Per-kernel attributes (cudaFuncSetAttribute). A kernel is a __global__
// function, as in CUDA, or, as a weft extension, a lambda or functor (known
// by its type).
#pragma once

#include <type_traits>

#include "../detail/error_state.hpp"
#include "../detail/kernel_identity.hpp"
#include "../detail/runtime.hpp"
#include "error_codes.hpp"

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

/// cudaFuncAttributeMaxDynamicSharedMemorySize raises a kernel's dynamic
/// shared memory limit from 48 KiB up to sm_90's 227 KiB; the carveout
/// preference (-1 to 100) is accepted and has no effect on a CPU.
template <class Kernel>
cudaError_t cudaFuncSetAttribute(Kernel&& kernel, cudaFuncAttribute attribute, int value) {
  using weft::detail::record;
  std::decay_t<Kernel> k = kernel;
  auto& rt = weft::detail::runtime::get();
  const void* id = weft::detail::kernel_identity(k);
  switch (attribute) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: {
      if (value < 0 || static_cast<std::size_t>(value) > rt.max_dynamic_shared_optin)
        return record(cudaErrorInvalidValue);
      auto a = rt.attributes(id);
      a.max_dynamic_shared_bytes = static_cast<std::size_t>(value);
      rt.set_attributes(id, a);
      return cudaSuccess;
    }
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      return value >= -1 && value <= 100 ? cudaSuccess : record(cudaErrorInvalidValue);
    default:
      return record(cudaErrorInvalidValue);
  }
}
