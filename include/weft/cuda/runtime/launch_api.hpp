// Per-kernel attributes (cudaFuncSetAttribute). A kernel is a __global__
// function, as in CUDA, or, as a weft extension, a lambda or functor (known
// by its type).
#pragma once

#include <type_traits>

#include "weft/detail/base/error_state.hpp"
#include "weft/detail/scheduler/kernel_identity.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/cuda/runtime/error_codes.hpp"

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
};

/// cudaFuncAttributeMaxDynamicSharedMemorySize raises a kernel's dynamic
/// shared memory limit from 48 KiB up to sm_90's 227 KiB;
/// cudaFuncAttributeNonPortableClusterSizeAllowed allows clusters of up to
/// 16 blocks instead of 8. The carveout and cluster scheduling preferences
/// are accepted and have no effect on a CPU; the required cluster shape is
/// the kernel's __cluster_dims__ and cannot be set.
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
    case cudaFuncAttributeNonPortableClusterSizeAllowed: {
      if (value != 0 && value != 1) return record(cudaErrorInvalidValue);
      auto a = rt.attributes(id);
      a.non_portable_cluster_size = value == 1;
      rt.set_attributes(id, a);
      return cudaSuccess;
    }
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
      return cudaSuccess;  // spreading or not: one block per worker either way
    default:
      return record(cudaErrorInvalidValue);
  }
}
