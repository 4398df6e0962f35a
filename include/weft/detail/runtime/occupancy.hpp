// The occupancy calculator's answers for what weft runs: an SM worker runs
// one block at a time, so a valid block size gives one active block per
// multiprocessor, and the launch that keeps every worker busy is 1024-thread
// blocks (the most a block may have, which amortises the per-block cost
// best) on worker_count() blocks.
#pragma once

#include <algorithm>
#include <cstddef>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/runtime/kernel_attributes.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail {

/// The most threads a block may have (sm_90).
inline constexpr int max_block_threads = 1024;

/// Blocks of `block_threads` threads with `dynamic_shared` bytes that one
/// SM worker runs at once: 1 if the kernel can be launched so, else 0.
inline int active_blocks_per_worker(const void* kernel, int block_threads, std::size_t dynamic_shared) {
  auto limit = runtime::get().attributes(kernel).max_dynamic_shared_bytes;
  return block_threads <= max_block_threads && dynamic_shared <= limit ? 1 : 0;
}

/// The most blocks a cluster of `kernel` may have here: 8 (16 once the kernel
/// allows non-portable sizes, as on an H100), and no more than there are SM
/// workers to run them at once.
inline int max_cluster_size(const void* kernel) {
  auto& rt = runtime::get();
  int limit = rt.attributes(kernel).non_portable_cluster_size ? 16 : 8;
  return std::min(limit, static_cast<int>(rt.worker_count()));
}

/// Clusters of `kernel` that run at once, one block per SM worker. `cluster`
/// is the launch's shape, or (0, 0, 0) for the kernel's compiled one.
inline int active_clusters(const void* kernel, dim3 cluster) {
  if (cluster.x == 0) cluster = compiled_cluster_dims().find(kernel, dim3(0, 0, 0));
  if (cluster.x == 0) cluster = dim3(1, 1, 1);
  int size = static_cast<int>(cluster.x * cluster.y * cluster.z);
  return size <= max_cluster_size(kernel) ? static_cast<int>(runtime::get().worker_count()) / size : 0;
}

}  // namespace weft::detail
