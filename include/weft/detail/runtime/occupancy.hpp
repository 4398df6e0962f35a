// The occupancy calculator's answers and the limits of launches whose
// blocks must be resident together. Blocks per SM are an H100 SM's (so a
// grid sized from them is what an H100 would run per SM), and an H100's 132
// SMs bound cooperative grids and clusters: weft accepts what an H100
// accepts, whatever its worker count, and the SM pool adds host threads for
// a gang of blocks that must run at once (scheduler/sm_pool.hpp).
// multiProcessorCount stays the worker count, so that a grid sized as
// blocks-per-SM x multiProcessorCount costs a host what it can hold; see
// docs/grid-and-clusters.md for why, and for the one limit that is the
// host's: every CUDA thread of a resident block is a fiber with a stack of
// its own, and a process has only so many mappings (vm.max_map_count).
//
// The figures are an sm_90 SM's limits, checked against an H100 by
// tests/differential/residency_probe.cu: 32 blocks and 64 warps per SM, and
// 228 KiB of shared memory, of which a block takes its dynamic shared bytes
// plus 1 KiB that the hardware reserves per block. weft knows neither a
// kernel's registers nor its static __shared__ size, so they limit nothing
// here (on a GPU they may lower the answer).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/runtime/kernel_attributes.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail {

/// The most threads a block may have (sm_90).
inline constexpr int max_block_threads = 1024;

/// The SMs of an H100, which bound what may be resident at once.
inline constexpr int multiprocessors = 132;

/// An sm_90 SM's limits on the blocks it holds at once.
inline constexpr int max_blocks_per_multiprocessor = 32;
inline constexpr int max_warps_per_multiprocessor = 64;
inline constexpr std::size_t shared_bytes_per_multiprocessor = 228 * 1024;
inline constexpr std::size_t reserved_shared_bytes_per_block = 1024;

/// The SMs of each of the H100's 8 GPCs, the units a cluster must fit in:
/// 66 pairs of SMs, 9, 9, 9, 8, 8, 8, 8 and 7 to a GPC. These sizes give the
/// H100's cudaOccupancyMaxActiveClusters answers for 1024-thread blocks
/// exactly (residency_probe.expected).
inline constexpr int multiprocessors_per_gpc[] = {18, 18, 18, 16, 16, 16, 16, 14};
static_assert(multiprocessors_per_gpc[0] + multiprocessors_per_gpc[1] + multiprocessors_per_gpc[2] +
                  multiprocessors_per_gpc[3] + multiprocessors_per_gpc[4] + multiprocessors_per_gpc[5] +
                  multiprocessors_per_gpc[6] + multiprocessors_per_gpc[7] ==
              multiprocessors);

/// Blocks of `block_threads` threads with `dynamic_shared` bytes of dynamic
/// shared memory that an H100 SM holds at once; 0 for a block the kernel
/// cannot be launched with (too many threads, or more dynamic shared memory
/// than the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize).
inline int active_blocks_per_multiprocessor(const void* kernel, int block_threads, std::size_t dynamic_shared) {
  auto limit = runtime::get().attributes(kernel).max_dynamic_shared_bytes;
  if (block_threads <= 0 || block_threads > max_block_threads || dynamic_shared > limit) return 0;
  int warps = (block_threads + 31) / 32;
  auto by_shared = shared_bytes_per_multiprocessor / (dynamic_shared + reserved_shared_bytes_per_block);
  return static_cast<int>(std::min<std::size_t>(
      {std::size_t{max_blocks_per_multiprocessor}, std::size_t(max_warps_per_multiprocessor / warps), by_shared}));
}

/// The most blocks a cooperative launch of this shape may have on an H100:
/// all of them resident at once on the 132 SMs.
inline std::uint64_t max_cooperative_blocks(const void* kernel, int block_threads, std::size_t dynamic_shared) {
  return std::uint64_t(active_blocks_per_multiprocessor(kernel, block_threads, dynamic_shared)) * multiprocessors;
}

/// The memory mappings a process may have (Linux's vm.max_map_count; 65530
/// unless the system raised it).
inline std::uint64_t process_mapping_limit() {
  static const std::uint64_t limit = [] {
    std::uint64_t n = 0;
    std::ifstream("/proc/sys/vm/max_map_count") >> n;
    return n ? n : 65530;
  }();
  return limit;
}

/// Whether the host can hold `blocks` blocks of `block_threads` CUDA threads
/// at once, every thread waiting (at grid.sync(), say) on a fiber stack of
/// its own. A fiber stack is two mappings (its guard page and its stack)
/// and a host thread that runs a block about four (stack, guard, signal
/// stack); a quarter of the mappings stays for the rest of the program,
/// whose workers keep stacks of earlier blocks for reuse. At the default
/// limit that is about 24 500 CUDA threads; a grid beyond it would fail to
/// map its stacks while its other blocks wait, so the launch is refused
/// instead (cudaErrorCooperativeLaunchTooLarge, docs/grid-and-clusters.md).
inline bool host_holds_resident(std::uint64_t blocks, std::uint64_t block_threads) {
  std::uint64_t available = process_mapping_limit() / 4 * 3;
  return 2 * blocks * block_threads + 4 * blocks <= available;
}

/// The most blocks a cluster of `kernel` may have: 8, or 16 once the kernel
/// allows non-portable sizes, as on an H100.
inline int max_cluster_size(const void* kernel) {
  return runtime::get().attributes(kernel).non_portable_cluster_size ? 16 : 8;
}

/// Clusters of `cluster` blocks, each of `block_threads` threads and
/// `dynamic_shared` bytes, that an H100 holds at once; `cluster` is the
/// launch's shape, or (0, 0, 0) for the kernel's compiled one. A cluster's
/// blocks share one GPC and, as the H100's answers show, lie on as many
/// different SMs: each layer of blocks per SM holds floor(SMs / size)
/// clusters per GPC. The H100 also holds no more than 8 blocks per SM of a
/// cluster launch (1056 one-block clusters of 128 threads, not 2112). As on
/// the H100, more than 8 blocks without the non-portable attribute is
/// cudaErrorInvalidClusterSize, and more than 16 with it is 0 clusters.
inline cudaError_t active_clusters(const void* kernel, dim3 cluster, int block_threads, std::size_t dynamic_shared,
                                   int& clusters) {
  if (cluster.x == 0) cluster = compiled_cluster_dims().find(kernel, dim3(0, 0, 0));
  if (cluster.x == 0) cluster = dim3(1, 1, 1);
  int size = static_cast<int>(cluster.x * cluster.y * cluster.z);
  bool non_portable = runtime::get().attributes(kernel).non_portable_cluster_size;
  if (size > 8 && !non_portable) return cudaErrorInvalidClusterSize;
  clusters = 0;
  if (size > max_cluster_size(kernel)) return cudaSuccess;
  int layers = std::min(active_blocks_per_multiprocessor(kernel, block_threads, dynamic_shared), 8);
  int per_layer = 0;
  for (int sms : multiprocessors_per_gpc) per_layer += sms / size;
  clusters = layers * per_layer;
  return cudaSuccess;
}

}  // namespace weft::detail
