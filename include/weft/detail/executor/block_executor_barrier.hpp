// Part of block_executor (block_executor.hpp): the barrier over the whole
// block, __syncthreads and its counting, and and or flavours. (The barriers
// between the blocks of a cooperative grid or a cluster are
// block_group_barrier.hpp's.)
//
// Threads arrive one at a time and park; the last to arrive completes the
// barrier, makes the others ready in arrival order and carries on without
// switching. Threads that exited count as arrived (sm_70 and later), so the
// runner loop completes a barrier too when the last thread of the block
// exits. Each arrival names its call site and flavour: if the threads that
// complete a barrier arrived at different ones, the block fails with a
// barrier divergence report instead of hanging.
#pragma once

#include <bit>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

inline int block_executor::arrive_and_wait(barrier_kind kind, int predicate, std::source_location where) {
  unsigned self = linear_thread_id();
  thread_slot& me = slots_[self];
  if (me.parked_in != blocks_started() || abandoning_) [[unlikely]]
    first_arrival(me, self);
  me.kind = kind;
  me.waiting_at = where;
  // Divergence is noticed on arrival, against the first waiter, so that
  // completing the barrier need not look at every waiter again.
  if (waiting_.empty())
    barrier_ = &me;
  else if (!same_barrier(me, *barrier_)) [[unlikely]]
    diverged_ = true;
  waiting_.push_back(self);
  predicate_count_ += predicate != 0;
  // A ready thread both says the barrier is not complete and is the next to
  // run: the common arrival tests the ready list once.
  if (ready_head_ < ready_.size()) [[likely]] {
    park_to(me, slots_[ready_[ready_head_++]].context);
  } else if (all_arrived()) [[unlikely]] {
    if (!complete_barrier(true)) throw block_abandoned{};
  } else {
    park(me);
  }
  return barrier_result(kind, last_count_, last_arrivals_);
}

/// Every thread that has not exited waits at the barrier. A thread parked
/// in a warp group has not arrived: the barrier waits for it (and if its
/// group can never complete, the block ends in a reported deadlock).
inline bool block_executor::all_arrived() const {
  // The ready list first: in a barrier's round it is what says no to every
  // arrival but the last few (the others have started since the first round).
  return ready_count() == 0 && next_unstarted_ == thread_count_ && warp_parked_ == 0 && on_objects_.empty();
}

// Every thread that has not exited waits at the barrier. Releases them,
// unless they wait at different barriers, which fails the block.
inline bool block_executor::complete_barrier(bool caller_waits) {
  bool one_barrier = !diverged_;
  if (!one_barrier)
    fail(report("barrier divergence: threads wait at different barriers, which can never all complete"));
  last_count_ = predicate_count_;
  last_arrivals_ = static_cast<unsigned>(waiting_.size());
  predicate_count_ = 0;
  if (caller_waits) waiting_.pop_back();  // the last to arrive runs on
  if (!one_barrier) return false;
  if constexpr (race_check_build)
    if (race_running) race_running->block_synced();
  // No thread can still be ready: all that have not exited were waiting.
  ready_.swap(waiting_);
  ready_head_ = 0;
  waiting_.clear();
  if (permuted_) [[unlikely]]
    order_released(0);
  return true;
}

inline bool block_executor::same_barrier(const thread_slot& a, const thread_slot& b) {
  // Equal bytes mean the same site; otherwise compare what it says.
  return a.kind == b.kind && (same_call_site(a.waiting_at, b.waiting_at));
}

}  // namespace weft::detail
