// Kernels through the runtime API: cudaLaunchKernel and its cooperative and
// extensible forms, and the occupancy calculator (whose answers are
// detail/runtime/occupancy.hpp's). A kernel's attributes are
// function_attributes.hpp's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

#include "weft/cuda/runtime/driver_types.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/function_attributes.hpp"
#include "weft/cuda/runtime/launch_attributes.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/kernel_attributes.hpp"
#include "weft/detail/runtime/occupancy.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/scheduler/kernel_identity.hpp"
#include "weft/launch.hpp"
#include "weft/launch_by_address.hpp"

// Default member initialisers: `cudaLaunchConfig_t config = {0};`, the
// guide's spelling, then draws no missing-initialiser warning.
struct cudaLaunchConfig_t {
  dim3 gridDim{};
  dim3 blockDim{};
  std::size_t dynamicSmemBytes = 0;
  cudaStream_t stream = nullptr;
  cudaLaunchAttribute* attrs = nullptr;
  unsigned int numAttrs = 0;
};

namespace weft::surface {

/// cudaLaunchKernelEx's attributes as weft's launch options, each checked
/// as CUDA checks it (launch_attributes.hpp); a later attribute of the same
/// ID replaces an earlier one.
inline cudaError_t options_of(const cudaLaunchConfig_t* config, weft::detail::launch_options& options) {
  if (!config || (config->numAttrs > 0 && !config->attrs)) return cudaErrorInvalidValue;
  weft::detail::launch_dependence& d = options.dependence;
  bool preferred = false;
  dim3 preferred_cluster;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    if (cudaError_t e = check_attribute(a.id, a.val, attribute_place::launch)) return e;
    if (attribute_valid_in(a.id, attribute_place::kernel_node))
      std::memcpy(options.node_values[a.id].data(), &a.val, sizeof a.val);
    switch (a.id) {
      case cudaLaunchAttributeCooperative:
        options.cooperative = a.val.cooperative != 0;
        break;
      case cudaLaunchAttributeClusterDimension:
        options.cluster = dim3(a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z);
        break;
      case cudaLaunchAttributePreferredClusterDimension:
        preferred = true;
        preferred_cluster = dim3(a.val.preferredClusterDim.x, a.val.preferredClusterDim.y, a.val.preferredClusterDim.z);
        break;
      case cudaLaunchAttributeProgrammaticStreamSerialization:
        d.stream_serialization = a.val.programmaticStreamSerializationAllowed != 0;
        break;
      case cudaLaunchAttributeProgrammaticEvent:
        d.programmatic_event = a.val.programmaticEvent.event;
        d.trigger_at_block_start = a.val.programmaticEvent.triggerAtBlockStart != 0;
        break;
      case cudaLaunchAttributeLaunchCompletionEvent:
        d.launch_completion_event = a.val.launchCompletionEvent.event;
        break;
      case cudaLaunchAttributePriority:
        d.priority = clamped_priority(a.val.priority);
        break;
      default:
        break;  // checked; nothing on a CPU to apply it to
    }
  }
  // A preferred cluster groups whole regular clusters and divides the grid
  // (CUDA 13's driver_types.h); weft runs the regular clusters, as a GPU
  // may when the larger ones do not fit. An H100 answers a preferred
  // cluster without a regular one, or one that does not fit these rules,
  // with cudaErrorInvalidClusterSize (tests/differential/pdl_probe.expected).
  if (preferred) {
    const dim3 &p = preferred_cluster, &c = options.cluster, &g = config->gridDim;
    if (c.x == 0 || c.y == 0 || c.z == 0 || p.x % c.x || p.y % c.y || p.z != c.z || g.x % p.x || g.y % p.y || g.z % p.z)
      return cudaErrorInvalidClusterSize;
  }
  return cudaSuccess;
}

inline weft::launch_config config_of(const cudaLaunchConfig_t* c, cudaStream_t stream) {
  return weft::launch_config{c->gridDim, c->blockDim, c->dynamicSmemBytes, stream};
}

}  // namespace weft::surface

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

/// args[i] points to the i-th argument, of the kernel's i-th parameter type,
/// as in CUDA; the arguments are copied at the launch. A kernel given as
/// `(void*)kernel` must be one the porting step registered (every
/// non-template __global__ function of a ported .cu file).
template <class... Params>
cudaError_t cudaLaunchKernel(void (*func)(Params...), dim3 gridDim, dim3 blockDim, void** args,
                             std::size_t sharedMem = 0, cudaStream_t stream = nullptr) {
  return weft::detail::launch_by_pointer(func, {gridDim, blockDim, sharedMem, weft::surface::explicit_stream(stream)},
                                         {}, args);
}

inline cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                    std::size_t sharedMem = 0, cudaStream_t stream = nullptr) {
  return weft::detail::launch_by_pointer(func, {gridDim, blockDim, sharedMem, weft::surface::explicit_stream(stream)},
                                         {}, args);
}

/// All blocks run at the same time, so that they may wait for each other
/// (this_grid().sync()), with as many host threads as that takes. A grid
/// larger than an H100 holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor
/// times 132 SMs) is refused with cudaErrorCooperativeLaunchTooLarge.
template <class... Params>
cudaError_t cudaLaunchCooperativeKernel(void (*func)(Params...), dim3 gridDim, dim3 blockDim, void** args,
                                        std::size_t sharedMem = 0, cudaStream_t stream = nullptr) {
  return weft::detail::launch_by_pointer(func, {gridDim, blockDim, sharedMem, weft::surface::explicit_stream(stream)},
                                         {true}, args);
}

inline cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                               std::size_t sharedMem = 0, cudaStream_t stream = nullptr) {
  return weft::detail::launch_by_pointer(func, {gridDim, blockDim, sharedMem, weft::surface::explicit_stream(stream)},
                                         {true}, args);
}

/// The extensible launch. Every attribute is checked as CUDA checks it
/// (launch_attributes.hpp); the cluster dimension, cooperative launch,
/// priority and programmatic dependent launch ones take effect, the others
/// are hints with nothing on a CPU to apply them to.
template <class... Params, class... Args>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(Params...), Args&&... args) {
  weft::detail::launch_options options;
  if (cudaError_t e = weft::surface::options_of(config, options)) return weft::detail::record(e);
  if (!kernel) return weft::detail::record(cudaErrorInvalidDeviceFunction);
  return weft::detail::launch_with(weft::surface::config_of(config, weft::surface::explicit_stream(config->stream)),
                                   options, kernel, std::forward<Args>(args)...);
}

inline cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  weft::detail::launch_options options;
  if (cudaError_t e = weft::surface::options_of(config, options)) return weft::detail::record(e);
  return weft::detail::launch_by_pointer(
      func, weft::surface::config_of(config, weft::surface::explicit_stream(config->stream)), options, args);
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream

/// Blocks of that size an H100 SM holds at once (detail/runtime/occupancy.hpp:
/// by threads, blocks per SM and shared memory); 0 for a block the kernel
/// cannot be launched with (too many threads or too much dynamic shared
/// memory), as CUDA's calculator reports for a block that does not fit. A
/// block size of 0 or less is refused with cudaErrorInvalidValue.
template <class Kernel>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, Kernel&& func, int blockSize,
                                                          std::size_t dynamicSMemSize) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  std::decay_t<Kernel> k = func;
  if (!numBlocks || blockSize <= 0) return weft::detail::record(cudaErrorInvalidValue);
  if (weft::detail::is_null_kernel(k)) return weft::detail::record(cudaErrorInvalidDeviceFunction);
  *numBlocks =
      weft::detail::active_blocks_per_multiprocessor(weft::detail::kernel_identity(k), blockSize, dynamicSMemSize);
  return cudaSuccess;
}

/// The block size (at most blockSizeLimit, when that is not 0) whose blocks
/// fill an H100 SM with the most threads, the largest of equals (1024 for a
/// kernel without dynamic shared memory, as an H100 answers), and the grid
/// that fills every SM (multiProcessorCount, the worker count) with it.
template <class Kernel>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, Kernel func,
                                               std::size_t dynamicSMemSize = 0, int blockSizeLimit = 0) {
  using namespace weft::detail;
  if (!minGridSize || !blockSize || blockSizeLimit < 0) return record(cudaErrorInvalidValue);
  if (is_null_kernel(func)) return record(cudaErrorInvalidDeviceFunction);
  const void* id = kernel_identity(func);
  int largest = blockSizeLimit > 0 && blockSizeLimit < max_block_threads ? blockSizeLimit : max_block_threads;
  int best = 0, best_blocks = 0;
  // The limit itself, then every whole number of warps below it.
  for (int size = largest; size > 0; size = size % 32 ? size / 32 * 32 : size - 32) {
    int blocks = active_blocks_per_multiprocessor(id, size, dynamicSMemSize);
    if (blocks * size > best_blocks * best) best = size, best_blocks = blocks;
  }
  *blockSize = best;
  *minGridSize = best_blocks * static_cast<int>(runtime::get().worker_count());
  return cudaSuccess;
}

template <class Kernel>
cudaError_t cudaOccupancyMaxPotentialClusterSize(int* clusterSize, Kernel func, const cudaLaunchConfig_t* config) {
  if (!clusterSize || !config) return weft::detail::record(cudaErrorInvalidValue);
  if (weft::detail::is_null_kernel(func)) return weft::detail::record(cudaErrorInvalidDeviceFunction);
  *clusterSize = weft::detail::max_cluster_size(weft::detail::kernel_identity(func));
  return cudaSuccess;
}

/// How many clusters of the configured shape an H100 holds at once (see
/// detail/runtime/occupancy.hpp's active_clusters).
template <class Kernel>
cudaError_t cudaOccupancyMaxActiveClusters(int* numClusters, Kernel func, const cudaLaunchConfig_t* config) {
  using namespace weft::detail;
  if (!numClusters) return record(cudaErrorInvalidValue);
  launch_options options;
  if (cudaError_t e = weft::surface::options_of(config, options)) return record(e);
  if (is_null_kernel(func)) return record(cudaErrorInvalidDeviceFunction);
  if (cudaError_t e =
          active_clusters(kernel_identity(func), options.cluster, static_cast<int>(weft::volume(config->blockDim)),
                          config->dynamicSmemBytes, *numClusters))
    return record(e);
  return cudaSuccess;
}
