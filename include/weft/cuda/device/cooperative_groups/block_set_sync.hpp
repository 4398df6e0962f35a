// How a set of blocks (a cooperative grid, a cluster) synchronises: every
// thread of the block waits at the block barrier, then the first of them to
// run on arrives for the whole block at the barrier between blocks
// (detail/executor/block_group_barrier.hpp) and waits there, and a second block
// barrier lets the block go on together. The other threads wait parked, so
// only one OS-level wait per block is needed.
#pragma once

#include <cstdint>
#include <source_location>
#include <stdexcept>
#include <string>

#include "weft/cuda/device/builtins.hpp"
#include "weft/cuda/device/sync/synchronization.hpp"
#include "weft/detail/executor/block_group_barrier.hpp"
#include "weft/detail/executor/block_groups.hpp"
#include "weft/detail/runtime/caller_checks.hpp"

namespace weft::detail::groups {

inline std::string running_block_name() {
  std::string name = "block (";
  for (unsigned v : {blockIdx.x, blockIdx.y, blockIdx.z}) (name += std::to_string(v)) += ',';
  name.back() = ')';
  return name;
}

// A launch that is neither cooperative nor clustered: one block, alone.
inline thread_local group_membership lone_block_membership;
// weft's state, not the kernel's shared memory (race_check.hpp).
inline const bool lone_block_membership_untraced =
    !race_check_build ||
    race_untraced([]() -> const void* { return &lone_block_membership; }, sizeof lone_block_membership);

inline group_membership& membership(const char* what) {
  if (running_membership) return *running_membership;
  require_kernel(what);
  return lone_block_membership;
}

// Runs `leader_part` on one thread of the block, between two block barriers.
template <class LeaderPart>
void with_block_leader(std::source_location where, LeaderPart&& leader_part) {
  group_membership& me = membership("a grid or cluster barrier");
  __syncthreads(where);
  if (!me.leader_taken) {
    me.leader_taken = true;
    leader_part(me);
  }
  __syncthreads(where);
  // Every thread clears it before any can reach the next barrier's first half.
  me.leader_taken = false;
}

inline void sync_blocks(block_group_barrier& barrier, unsigned member, std::source_location where) {
  with_block_leader(where, [&](group_membership&) {
    barrier.arrive_and_wait(member, running_block_name(), where);
    // Orders the block's accesses after those the other blocks made
    // before the sync (race_check.hpp).
    if constexpr (race_check_build)
      if (race_running) race_running->group_synced();
  });
}

}  // namespace weft::detail::groups
