// Part of block_executor (block_executor.hpp): warp collectives (shuffles,
// votes, matches, reductions, __syncwarp) and __activemask.
//
// A warp collective is a rendezvous like the block barrier, but of the lanes
// its mask names, and with data. Each warp has up to 32 open groups; a lane
// deposits its operand in the warp's exchange, joins the open group of its
// mask (or opens one, checking the mask once for the whole group) and parks
// as at a barrier, unless it is the last to arrive: that lane computes every
// lane's result (warp_arithmetic.hpp), makes the others ready in lane order
// and carries on. Groups of disjoint masks are independent, which is what
// lets two halves of a warp in different branches shuffle among themselves.
#pragma once

#include <algorithm>
#include <bit>
#include <source_location>
#include <string>

#include "weft/detail/base/text_format.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

inline warp_result block_executor::warp_collective(warp_op op, unsigned mask, warp_operand operand,
                                                   std::source_location where) {
  unsigned self = linear_thread_id();
  thread_slot& me = slots_[self];
  if (me.parked_in != blocks_started() || abandoning_) [[unlikely]]
    first_arrival(me, self);
  unsigned warp = self / 32, lane = self % 32, lane_bit = 1u << lane;
  warp_exchange& exchange = exchange_[warp];
  exchange.stage(lane, operand);
  warp_group* group = &groups_[warp * 32];
  // A converged warp, the common case: every lane calls with the full mask
  // and finds the group a lane of it opened first, at the warp's first
  // place. Its mask says the warp is whole (in a partial warp, the group's
  // mask lacks the missing lanes), so the general search below would find
  // this very group: what it skips is the search and the block's bounds.
  if (!(mask == ~0u && group_count_[warp] != 0 && group->mask == ~0u)) [[unlikely]]
    group = find_or_open_group(warp, op, mask, lane_bit, where);
  else if (group->op != op) [[unlikely]]
    throw kernel_fault{cudaErrorLaunchFailure, mismatch(warp, *group, op, mask, lane_bit, where)};
  group->arrived |= lane_bit;
  if (group->arrived == group->mask) {
    complete_group(warp, *group, lane_bit);
  } else {
    ++warp_parked_;
    park(me);
  }
  std::uint64_t result = exchange.result[lane];
  return {result, result != 0};  // the predicate is match_all's: its result is 0 or the (non-empty) mask
}

// The group of `mask` that the caller joins: the open one of its mask, or
// a new one. Refuses a mask that can never complete.
inline warp_group* block_executor::find_or_open_group(unsigned warp, warp_op op, unsigned mask, unsigned lane_bit,
                                                      std::source_location where) {
  // Lanes past the block's end do not exist: a mask that names them (the
  // full mask in a partial last warp, or a 32-thread tile's collectives)
  // means the lanes that do, as on an H100, where they read as inactive
  // lanes (tests/differential/partial_warp_probe.expected).
  mask &= lanes_in_block(thread_count_, warp);
  warp_group* group = find_warp_group(&groups_[warp * 32], group_count_[warp], mask);
  if (!group) [[unlikely]] {
    if (const warp_group* blocked = blocking_warp_group(&groups_[warp * 32], group_count_[warp], mask, lane_bit))
      throw kernel_fault{cudaErrorLaunchFailure, mismatch(warp, *blocked, op, mask, lane_bit, where)};
    group = open_group(warp, op, mask, lane_bit, where);  // checks the mask
  } else if (group->op != op) [[unlikely]] {
    throw kernel_fault{cudaErrorLaunchFailure, mismatch(warp, *group, op, mask, lane_bit, where)};
  }
  return group;
}

// Run by the last lane to arrive: every lane's result into its slot, the
// others to the ready list (in lane order), the group closed.
inline void block_executor::complete_group(unsigned warp, warp_group& g, unsigned caller_bit) {
  warp_results(g.op, g.mask, exchange_[warp]);
  if constexpr (race_check_build)
    if (race_running) race_running->warp_synced(warp, g.mask);
  unsigned waiters = g.arrived & ~caller_bit;  // the caller is not parked: it carries on
  warp_parked_ -= make_ready(warp, waiters);
  g = groups_[warp * 32 + --group_count_[warp]];  // close: the last open group takes its place
}

// Makes the lanes of `warp` in `lanes` ready, in lane order; returns how many.
inline unsigned block_executor::make_ready(unsigned warp, unsigned lanes) {
  make_room(32);
  unsigned from = ready_.size();
  unsigned count = ready_.push_bits(warp * 32, lanes);
  if (permuted_) [[unlikely]]
    order_released(from);
  return count;
}

// The first lane of a group to arrive checks the mask for all of them: it
// must name the caller and no lane that exited (lanes past the block's end
// are already out of it).
// (A lane that exits later, while the group waits for it, is found when
// the block can no longer make progress: see stall_report.)
warp_group* block_executor::open_group(unsigned warp, warp_op op, unsigned mask, unsigned lane_bit,
                                       std::source_location where) {
  unsigned self = warp * 32 + static_cast<unsigned>(std::countr_zero(lane_bit));
  if (!(mask & lane_bit) || (mask & exited_lanes(warp, self))) [[unlikely]]
    refuse_group(warp, op, mask, lane_bit, where);
  warp_group& g = groups_[warp * 32 + group_count_[warp]++];
  g = {mask, 0, op, where};
  return &g;
}

// Why open_group refuses the mask (the text is warp_reports.hpp's).
inline void block_executor::refuse_group(unsigned warp, warp_op op, unsigned mask, unsigned lane_bit,
                                         std::source_location where) const {
  unsigned self = warp * 32 + static_cast<unsigned>(std::countr_zero(lane_bit));
  throw kernel_fault{cudaErrorLaunchFailure,
                     reports::refused_mask(warp, op, mask, self % 32, mask & exited_lanes(warp, self), where)};
}

std::string block_executor::mismatch(unsigned warp, const warp_group& g, warp_op op, unsigned mask, unsigned lane_bit,
                                     std::source_location where) const {
  return reports::group_mismatch(warp, g, op, mask, static_cast<unsigned>(std::countr_zero(lane_bit)), where);
}

// Lanes of `warp` other than `self` that have exited. Needs the cursor
// exact (the caller went through first_arrival): a started thread that
// never parked in this block ran to its end, since threads run one after
// another until one parks; one that parked says so in its slot.
inline unsigned block_executor::exited_lanes(unsigned warp, unsigned self) const {
  unsigned first = warp * 32;
  unsigned started = next_unstarted_ > first ? std::min(next_unstarted_ - first, 32u) : 0;
  unsigned started_lanes = started == 32 ? ~0u : (1u << started) - 1;
  if (permuted_) started_lanes = started_lanes_permuted(warp);
  // A started lane that is not parked-and-alive has run to its end (lazily,
  // never parking, or after parking); the caller (if `self` is in this
  // warp) is running.
  unsigned caller = self / 32 == warp ? 1u << (self % 32) : 0;
  return started_lanes & ~live_parked_[warp] & ~caller;
}

// The lanes of `warp` that have started, under a schedule other than
// forward, where the started threads are no prefix of linear ids.
inline unsigned block_executor::started_lanes_permuted(unsigned warp) const {
  unsigned lanes = 0;
  for (unsigned lane = 0, first = warp * 32; lane < 32 && first + lane < start_position_.size(); ++lane)
    if (start_position_[first + lane] < next_unstarted_) lanes |= 1u << lane;
  return lanes;
}

// ---- __activemask ----

inline unsigned block_executor::active_mask(std::source_location where) {
  unsigned self = linear_thread_id();
  thread_slot& me = slots_[self];
  if (me.parked_in != blocks_started() || abandoning_) [[unlikely]]
    first_arrival(me, self);
  me.waiting_at = where;
  converging_.push_back(self);
  if (ready_count() == 0 && next_unstarted_ == thread_count_) {
    converge(self);  // nothing else can run: the caller is the last to come
    return static_cast<unsigned>(exchange_[self / 32].result[self % 32]);
  }
  ++warp_parked_;
  park(me);
  return static_cast<unsigned>(exchange_[self / 32].result[self % 32]);
}

// Nothing else can run: every thread waiting at __activemask gets the
// lanes of its warp waiting at the same call, and all but `caller` (which
// runs on) become ready. Returns whether any did.
inline bool block_executor::converge(unsigned caller) {
  for (unsigned t : converging_) {
    unsigned mask = 0;
    for (unsigned o : converging_)
      if (o / 32 == t / 32 && same_call_site(slots_[o].waiting_at, slots_[t].waiting_at)) mask |= 1u << (o % 32);
    exchange_[t / 32].result[t % 32] = mask;
  }
  unsigned moved = 0;
  for (unsigned t : converging_)
    if (t != caller) {
      make_ready(t);
      ++moved;
    }
  warp_parked_ -= moved;
  converging_.clear();
  if (permuted_ && moved > 1) [[unlikely]]
    order_released(ready_.size() - moved);  // make_ready moves only the unread front
  return moved != 0;
}

}  // namespace weft::detail
