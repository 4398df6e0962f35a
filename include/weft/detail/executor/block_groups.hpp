// What blocks share beyond their own block: the grid of a cooperative launch
// (grid.sync()) and thread block clusters (cluster.sync(), distributed
// shared memory). See docs/cooperative-groups.md.
//
// Blocks that must run at the same time are claimed one at a time, a
// cluster's blocks one after another (cluster-major order), so a cluster is
// complete once as many workers as it has blocks are free; the SM pool adds
// helper threads for a cluster or a cooperative grid larger than the worker
// pool, so that all its blocks can be resident (sm_pool.hpp). A worker that finishes a cluster's block waits
// until the cluster's other blocks have finished before it takes another
// block: its shared memory must stay in place while they may still read it
// (the guide's "a thread block must not exit before ... distributed shared
// memory operations are completed", made safe here instead of undefined).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/spin_wait.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/executor/block_group_barrier.hpp"

namespace weft::detail {

/// A byte in every worker's thread-local storage: __shared__ variables are
/// thread-locals at the same offset from it in every worker, which is how an
/// address in one block's shared memory maps to another's.
inline thread_local std::byte shared_memory_anchor;

/// One cluster of a running grid.
class cluster_state {
 public:
  explicit cluster_state(unsigned blocks)
      : barrier(blocks, "cluster.sync()"), members_(new member[blocks]), blocks_(blocks) {}

  block_group_barrier barrier;

  /// Block `rank` is about to run on the calling worker.
  void started(unsigned rank, std::uint64_t block, std::byte* dynamic_shared, std::size_t dynamic_bytes) {
    member& m = members_[rank];
    m.block = block;
    m.anchor = &shared_memory_anchor;
    m.dynamic = dynamic_shared;
    m.dynamic_bytes = dynamic_bytes;
    m.started.store(true, std::memory_order_release);
    m.started.notify_all();
  }

  /// The address in block `to`'s shared memory that corresponds to `p` in
  /// block `from`'s. Waits for `to` to start, as a cluster's blocks are
  /// resident together on a GPU.
  void* map(const void* p, unsigned from, unsigned to) {
    member& target = members_[to];
    if (!spin_until([&] { return target.started.load(std::memory_order_acquire); })) target.started.wait(false);
    const member& source = members_[from];
    auto* at = static_cast<const std::byte*>(p);
    // The race check follows the calling block's accesses there.
    if constexpr (race_check_build)
      if (race_running && to != from)
        race_running->cluster_block_mapped(
            target.block,
            reinterpret_cast<std::uintptr_t>(target.anchor) - reinterpret_cast<std::uintptr_t>(source.anchor),
            reinterpret_cast<std::uintptr_t>(target.dynamic), target.dynamic_bytes);
    if (at >= source.dynamic && at < source.dynamic + source.dynamic_bytes)
      return target.dynamic + (at - source.dynamic);
    return target.anchor + (at - source.anchor);
  }

  /// Block `rank` has finished; returns when every block of the cluster has.
  void finished_and_wait(unsigned rank, std::string name) {
    barrier.finished(rank, std::move(name));
    std::unique_lock lock(mutex_);
    if (++finished_ == blocks_) {
      all_finished_.notify_all();
      return;
    }
    lock.unlock();
    if (spin_until([&] { return finished_count() == blocks_; })) return;
    lock.lock();
    all_finished_.wait(lock, [&] { return finished_ == blocks_; });
  }

  unsigned size() const { return blocks_; }

 private:
  struct member {
    std::atomic<bool> started{false};
    std::uint64_t block = 0;  // linear index in the grid
    std::byte* anchor = nullptr;
    std::byte* dynamic = nullptr;
    std::size_t dynamic_bytes = 0;
  };

  unsigned finished_count() {
    std::lock_guard lock(mutex_);
    return finished_;
  }

  std::unique_ptr<member[]> members_;
  unsigned blocks_;
  std::mutex mutex_;
  std::condition_variable all_finished_;
  unsigned finished_ = 0;
};

/// Where the running block stands in its groups: read by this_grid() and
/// this_cluster() in device code.
struct group_membership {
  block_group_barrier* grid_barrier = nullptr;  // null unless the launch is cooperative
  cluster_state* cluster = nullptr;             // null unless the launch has clusters
  dim3 cluster_dim{1, 1, 1};
  unsigned cluster_rank = 0;
  std::uint64_t cluster_token = 0;  // the block's last cluster barrier_arrive()
  std::uint64_t block_rank = 0;
  // Which of the block's threads arrives for the whole block at a grid or
  // cluster barrier: the first to run after the block barrier before it.
  bool leader_taken = false;
};
inline thread_local group_membership* running_membership = nullptr;

class block_groups {
 public:
  block_groups(dim3 grid, dim3 cluster, bool cooperative) : grid_(grid), cluster_(cluster) {
    if (cooperative) grid_barrier_ = std::make_unique<block_group_barrier>(volume(grid), "grid.sync()");
  }

  bool clustered() const { return volume(cluster_) > 1; }

  /// The linear index of the block that claim number `k` runs: clusters one
  /// after another, each cluster's blocks in rank order.
  std::uint64_t block_of(std::uint64_t k) const {
    std::uint64_t size = volume(cluster_), c = k / size, r = k % size;
    std::uint64_t clusters_x = grid_.x / cluster_.x, clusters_y = grid_.y / cluster_.y;
    std::uint64_t cx = c % clusters_x, cy = c / clusters_x % clusters_y, cz = c / clusters_x / clusters_y;
    std::uint64_t x = cx * cluster_.x + r % cluster_.x, y = cy * cluster_.y + r / cluster_.x % cluster_.y,
                  z = cz * cluster_.z + r / cluster_.x / cluster_.y;
    return x + grid_.x * (y + std::uint64_t{grid_.y} * z);
  }

  /// Runs `run()` as claim number `k` (block `block`, described as `name`),
  /// with the running block's membership published to device code.
  template <class Run>
  void run_member(std::uint64_t k, std::uint64_t block, const std::string& name, block_executor& executor,
                  std::size_t dynamic_bytes, Run&& run) {
    group_membership me;
    me.grid_barrier = grid_barrier_.get();
    me.cluster_dim = cluster_;
    me.block_rank = block;
    std::shared_ptr<cluster_state> cluster;
    if (clustered()) {
      std::uint64_t size = volume(cluster_);
      cluster = cluster_for(k / size);
      me.cluster = cluster.get();
      me.cluster_rank = static_cast<unsigned>(k % size);
      executor.reserve_dynamic_shared(dynamic_bytes);
      cluster->started(me.cluster_rank, block, executor.dynamic_shared(), dynamic_bytes);
    }
    running_membership = &me;
    run();
    running_membership = nullptr;
    if (grid_barrier_) grid_barrier_->finished(static_cast<unsigned>(block), name);
    if (cluster) {
      cluster->finished_and_wait(me.cluster_rank, name);
      release_cluster(k / volume(cluster_));
    }
  }

 private:
  // Cluster states exist while some block of theirs runs, so a grid of many
  // clusters keeps only the running ones.
  std::shared_ptr<cluster_state> cluster_for(std::uint64_t c) {
    std::lock_guard lock(mutex_);
    auto& entry = clusters_[c];
    if (!entry.state) entry.state = std::make_shared<cluster_state>(static_cast<unsigned>(volume(cluster_)));
    ++entry.users;
    return entry.state;
  }

  void release_cluster(std::uint64_t c) {
    std::lock_guard lock(mutex_);
    auto it = clusters_.find(c);
    if (--it->second.users == 0) clusters_.erase(it);
  }

  struct cluster_entry {
    std::shared_ptr<cluster_state> state;
    unsigned users = 0;
  };

  dim3 grid_, cluster_;
  std::unique_ptr<block_group_barrier> grid_barrier_;
  std::mutex mutex_;
  std::map<std::uint64_t, cluster_entry> clusters_;
};

}  // namespace weft::detail
