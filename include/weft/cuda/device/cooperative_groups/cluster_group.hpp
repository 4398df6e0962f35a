// cooperative_groups::cluster_group (this_cluster()): the blocks of a thread
// block cluster (CUDA guide, "Thread Block Clusters", "Distributed Shared
// Memory"). A cluster's blocks run at the same time, each on its own SM
// worker; map_shared_rank turns an address in the caller's shared memory into
// the same variable's address in another block of the cluster, which may be
// read, written and used with atomics. A launch without clusters is a cluster
// of one block, as in CUDA.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>

#include "weft/cuda/device/builtins.hpp"
#include "weft/cuda/device/cooperative_groups/block_set_sync.hpp"
#include "weft/cuda/device/cooperative_groups/thread_group.hpp"
#include "weft/detail/executor/block_groups.hpp"

namespace cooperative_groups {

class cluster_group {
 public:
  /// What barrier_arrive returns and barrier_wait takes.
  struct arrival_token {
    std::uint64_t generation = 0;
  };

  bool is_valid() const { return true; }

  void sync(std::source_location where = std::source_location::current()) const {
    auto& me = weft::detail::groups::membership("this_cluster().sync()");
    if (!me.cluster) return __syncthreads(where);
    weft::detail::groups::sync_blocks(me.cluster->barrier, me.cluster_rank, where);
  }

  /// The block's threads arrive (after a block barrier; they may then do
  /// other work before barrier_wait).
  arrival_token barrier_arrive(std::source_location where = std::source_location::current()) const {
    auto& me = weft::detail::groups::membership("this_cluster().barrier_arrive()");
    if (!me.cluster) {
      __syncthreads(where);
      return {};
    }
    weft::detail::groups::with_block_leader(where, [&](weft::detail::group_membership& m) {
      m.cluster_token = m.cluster->barrier.arrive(m.cluster_rank, weft::detail::groups::running_block_name(), where);
    });
    return {me.cluster_token};
  }

  void barrier_wait(arrival_token&& token, std::source_location where = std::source_location::current()) const {
    auto& me = weft::detail::groups::membership("this_cluster().barrier_wait()");
    if (!me.cluster) return __syncthreads(where);
    weft::detail::groups::with_block_leader(where, [&](weft::detail::group_membership& m) {
      m.cluster->barrier.wait(token.generation);
      // Orders the block's accesses after those the cluster's blocks made
      // before arriving (race_check.hpp), as cluster.sync() does.
      if constexpr (weft::detail::race_check_build)
        if (weft::detail::race_running) weft::detail::race_running->group_synced();
    });
  }
  void barrier_wait(std::source_location where = std::source_location::current()) const {
    auto& me = weft::detail::groups::membership("this_cluster().barrier_wait()");
    barrier_wait(arrival_token{me.cluster_token}, where);
  }

  /// The address of `*address`'s counterpart in the shared memory of the
  /// cluster's block `rank`.
  template <class T>
  T* map_shared_rank(T* address, unsigned int rank) const {
    auto& me = weft::detail::groups::membership("this_cluster().map_shared_rank()");
    check_rank(rank);
    if (!me.cluster) return address;
    return static_cast<T*>(me.cluster->map(address, me.cluster_rank, rank));
  }
  template <class T>
  T& map_shared_rank(T& variable, unsigned int rank) const {
    return *map_shared_rank(&variable, rank);
  }

  unsigned int block_rank() const {
    auto* me = weft::detail::running_membership;
    return me ? me->cluster_rank : 0;
  }
  unsigned int num_blocks() const { return static_cast<unsigned>(weft::volume(dim_blocks())); }
  dim3 dim_blocks() const {
    auto* me = weft::detail::running_membership;
    return me ? me->cluster_dim : dim3(1, 1, 1);
  }
  dim3 block_index() const {
    dim3 d = dim_blocks();
    return dim3(blockIdx.x % d.x, blockIdx.y % d.y, blockIdx.z % d.z);
  }
  unsigned int thread_rank() const { return block_rank() * block_threads() + weft::detail::groups::block_rank(); }
  unsigned int num_threads() const { return num_blocks() * block_threads(); }
  unsigned int size() const { return num_threads(); }
  dim3 dim_threads() const {
    dim3 d = dim_blocks();
    return dim3(d.x * blockDim.x, d.y * blockDim.y, d.z * blockDim.z);
  }
  dim3 thread_index() const {
    dim3 b = block_index();
    return dim3(b.x * blockDim.x + threadIdx.x, b.y * blockDim.y + threadIdx.y, b.z * blockDim.z + threadIdx.z);
  }

 private:
  static unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

  void check_rank(unsigned rank) const {
    if (rank >= num_blocks())
      weft::detail::groups::refuse("this_cluster().map_shared_rank(): rank " + std::to_string(rank) +
                                   " is not a block of the cluster, which has " + std::to_string(num_blocks()));
  }
};

inline cluster_group this_cluster() { return cluster_group(); }

}  // namespace cooperative_groups
