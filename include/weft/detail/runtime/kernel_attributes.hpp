// What a device knows about a kernel besides its code: the attributes
// cudaFuncSetAttribute sets, and the cluster shape it was compiled with.
#pragma once

#include <cstddef>
#include <type_traits>

#include "weft/detail/base/address_registry.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"

namespace weft::detail {

// Per-kernel attributes set through cudaFuncSetAttribute, keyed by the
// kernel's identity (its address, or a per-type tag for lambdas).
struct kernel_attributes {
  std::size_t max_dynamic_shared_bytes = 48 * 1024;
  bool non_portable_cluster_size = false;  // clusters of up to 16 blocks instead of 8
};

/// The cluster shapes kernels were compiled with (__cluster_dims__, which
/// the porting step turns into a registration), for every device. An
/// unregistered kernel has none: (0, 0, 0).
inline address_registry<dim3>& compiled_cluster_dims() {
  static address_registry<dim3> registry;
  return registry;
}

/// A kernel given as a null function pointer (cudaErrorInvalidDeviceFunction
/// in CUDA); a lambda or functor is never null.
template <class Kernel>
bool is_null_kernel(const Kernel& k) {
  if constexpr (std::is_pointer_v<Kernel>)
    return k == nullptr;
  else
    return false;
}

/// The registration the porting step writes for __cluster_dims__(x, y, z),
/// of a void kernel or of one it made stackless.
template <class Result, class... Params>
bool register_cluster_dims(Result (*func)(Params...), unsigned x, unsigned y, unsigned z) {
  compiled_cluster_dims().add(reinterpret_cast<const void*>(func), dim3(x, y, z));
  return true;
}

}  // namespace weft::detail
