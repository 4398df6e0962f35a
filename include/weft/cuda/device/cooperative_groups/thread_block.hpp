// cooperative_groups::thread_block: the caller's block, as a group.
#pragma once

#include <cstdint>
#include <source_location>

#include "weft/cuda/device/cooperative_groups/block_split_barrier.hpp"
#include "weft/cuda/device/cooperative_groups/thread_group.hpp"

namespace cooperative_groups {

/// The block of the calling thread (this_thread_block()). Everything is
/// read from the built-in variables, so every member is static, as in CUDA.
class thread_block : public thread_group {
 public:
  /// What barrier_arrive returns and barrier_wait takes: the phase arrived in.
  struct arrival_token {
    std::uint32_t phase = 0;
  };

  /// __syncthreads: a divergent block sync is reported with the callers' lines.
  static void sync(std::source_location where = std::source_location::current()) { __syncthreads(where); }
  /// The caller's arrival at the block's split barrier; it never waits, so
  /// the thread may work before barrier_wait. Every thread of the block
  /// arrives once a phase, as CUDA requires.
  static arrival_token barrier_arrive() {
    return {weft::detail::groups::block_split_barrier::of_running_block(num_threads()).arrive()};
  }
  /// Waits until every thread of the block has arrived in the token's phase.
  static void barrier_wait(arrival_token&& token, std::source_location where = std::source_location::current()) {
    weft::detail::groups::block_split_barrier::of_running_block(num_threads()).wait(token.phase, where);
  }
  static unsigned int thread_rank() { return weft::detail::groups::block_rank(); }
  static unsigned int size() { return num_threads(); }
  static unsigned int num_threads() { return weft::detail::groups::block_size(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 dim_threads() { return blockDim; }
  static dim3 group_dim() { return blockDim; }

 private:
  thread_block() : thread_group(kind::block) {}
  friend thread_block this_thread_block();
};

inline thread_block this_thread_block() { return thread_block(); }

}  // namespace cooperative_groups
