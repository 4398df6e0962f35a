// Part of block_executor (block_executor.hpp): how a block fails, and what
// the failure says.
//
// A block fails when an exception escapes a CUDA thread, a barrier or warp
// collective is misused, a thread overflows its stack, or no thread can make
// progress (found when control falls back to the worker). Failing records
// the first report and marks the block abandoned; the worker then resumes
// every parked fiber once, with block_abandoned thrown from where it waits,
// so that the kernel's destructors run and the stacks return to the pool.
// The reports name the block, the threads by threadIdx, the calls by file,
// line and column, and the lanes of a warp as ranges.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <source_location>
#include <string>
#include <vector>

#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

inline void block_executor::fail(const std::string& message, cudaError_t code) {
  if (abandoning_) return;
  abandoning_ = true;
  failure_ = {code, "block " + describe_index(blockIdx) + ", " + message};
}

inline bool block_executor::recover_from_stack_overflow(const void* address) {
  const fiber_stack* hit = stacks_.guard_hit(address);
  if (!hit) return false;
  fail(describe_thread(threadIdx) + ": stack overflow (each CUDA thread has " +
       std::to_string(stacks_.stack_size() / 1024) +
       " KiB of stack; raise it with cudaDeviceSetLimit(cudaLimitStackSize, bytes))");
  switch_note note{nullptr, *hit};
  jump_context(worker_, &note);
  std::abort();  // the overflowed fiber is never resumed
}

inline void block_executor::unwind_parked_threads() {
  std::vector<unsigned> parked(ready_.begin() + ready_head_, ready_.end());
  parked.insert(parked.end(), waiting_.begin(), waiting_.end());
  parked.insert(parked.end(), converging_.begin(), converging_.end());
  parked.insert(parked.end(), on_objects_.begin(), on_objects_.end());
  converging_.clear();
  on_objects_.clear();
  for (unsigned w = 0; w < group_count_.size(); ++w) {
    for (unsigned g = 0; g < group_count_[w]; ++g)
      for (unsigned lanes = groups_[w * 32 + g].arrived; lanes != 0; lanes &= lanes - 1)
        parked.push_back(w * 32 + static_cast<unsigned>(std::countr_zero(lanes)));
    group_count_[w] = 0;
  }
  warp_parked_ = 0;
  ready_.clear();
  ready_head_ = 0;
  waiting_.clear();
  for (unsigned t : parked) {
    switch_to(slots_[t].context, {&worker_, {}});
  }
}

// Why the block can make no progress. A warp group waiting for a lane that
// has exited is named as such; anything else is a deadlock, listing the
// threads at block barriers and in warp collectives.
inline std::string block_executor::stall_report() const {
  for (unsigned w = 0; w < group_count_.size() && w * 32 < thread_count_; ++w) {
    for (unsigned i = 0; i < group_count_[w]; ++i) {
      const warp_group& g = groups_[w * 32 + i];
      if (unsigned gone = g.mask & ~g.arrived & exited_lanes(w, thread_count_)) {
        std::string text = describe_call(g.op, g.where) + " in warp " + std::to_string(w) + " with mask " +
                           hex(g.mask) + ": " + lanes_phrase(g.arrived) +
                           (std::has_single_bit(g.arrived) ? " waits" : " wait") + " for " + lanes_phrase(gone) +
                           ", which " + (std::has_single_bit(gone) ? "has" : "have") + " exited";
        return report(text.c_str());
      }
    }
  }
  return report("deadlock: no thread of the block can make progress");
}

// "<headline>; thread (0,0,0) to thread (63,0,0) wait at __syncthreads
// (a.cu:12:5); thread (64,0,0) to ... (a.cu:15:5); 0 of 128 threads exited".
// Consecutive threads waiting at the same barrier are shown as one range.
inline std::string block_executor::report(const char* headline) const {
  std::vector<unsigned> waiters(waiting_.begin(), waiting_.end());
  std::sort(waiters.begin(), waiters.end());
  std::string text = headline;
  for (std::size_t i = 0; i < waiters.size();) {
    std::size_t j = i + 1;
    while (j < waiters.size() && waiters[j] == waiters[j - 1] + 1 &&
           same_barrier(slots_[waiters[j]], slots_[waiters[i]]))
      ++j;
    const thread_slot& s = slots_[waiters[i]];
    text += "; " + describe_thread(s.index);
    if (j - i > 1) text += " to " + describe_thread(slots_[waiters[j - 1]].index);
    text += std::string(" wait at ") + barrier_name(s.kind) + " (" + s.waiting_at.file_name() + ":" +
            std::to_string(s.waiting_at.line()) + ":" + std::to_string(s.waiting_at.column()) + ")";
    i = j;
  }
  std::vector<unsigned> on_objects(on_objects_.begin(), on_objects_.end());
  std::sort(on_objects.begin(), on_objects.end());
  for (std::size_t i = 0; i < on_objects.size();) {
    const thread_slot& s = slots_[on_objects[i]];
    std::size_t j = i + 1;
    while (j < on_objects.size() && on_objects[j] == on_objects[j - 1] + 1 &&
           slots_[on_objects[j]].waits_on == s.waits_on && slots_[on_objects[j]].wait_name == s.wait_name &&
           same_site(slots_[on_objects[j]].waiting_at, s.waiting_at))
      ++j;
    text += "; " + describe_thread(s.index);
    if (j - i > 1) text += " to " + describe_thread(slots_[on_objects[j - 1]].index);
    text += std::string(" wait at ") + s.wait_name + " (" + describe_site(s.waiting_at) + ")";
    if (s.describe_wait) text += ", " + s.describe_wait(s.waits_on);
    i = j;
  }
  for (unsigned w = 0; w < group_count_.size() && w * 32 < thread_count_; ++w) {
    for (unsigned i = 0; i < group_count_[w]; ++i) {
      const warp_group& g = groups_[w * 32 + i];
      text += "; warp " + std::to_string(w) + " lanes " + describe_lanes(g.arrived) + " (thread " +
              describe_index(slots_[w * 32 + static_cast<unsigned>(std::countr_zero(g.arrived))].index) +
              " first) wait at " + describe_call(g.op, g.where) + " with mask " + hex(g.mask);
    }
  }
  text += "; " + std::to_string(exited_count()) + " of " + std::to_string(thread_count_) + " threads exited";
  return text;
}

// ---- Text ----

inline std::string block_executor::describe_index(uint3 i) {
  // Appended piece by piece: `"(" + std::to_string(...)` trips a false
  // -Wrestrict in GCC 12 (its bug 105329) in every program built with -Wall.
  std::string text("(");
  text.append(std::to_string(i.x)).append(",").append(std::to_string(i.y));
  text.append(",").append(std::to_string(i.z)).append(")");
  return text;
}

inline std::string block_executor::describe_thread(uint3 t) { return "thread " + describe_index(t); }

inline std::string block_executor::describe(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return std::string("uncaught exception: ") + e.what();
  } catch (...) {
    return "uncaught exception of a type not derived from std::exception";
  }
}

inline const char* block_executor::barrier_name(barrier_kind kind) {
  switch (kind) {
    case barrier_kind::count:
      return "__syncthreads_count";
    case barrier_kind::all:
      return "__syncthreads_and";
    case barrier_kind::any:
      return "__syncthreads_or";
    default:
      return "__syncthreads";
  }
}

inline const char* block_executor::warp_op_name(warp_op op) {
  switch (op) {
    case warp_op::sync:
      return "__syncwarp";
    case warp_op::shfl:
      return "__shfl_sync";
    case warp_op::shfl_up:
      return "__shfl_up_sync";
    case warp_op::shfl_down:
      return "__shfl_down_sync";
    case warp_op::shfl_xor:
      return "__shfl_xor_sync";
    case warp_op::ballot:
      return "__ballot_sync";
    case warp_op::any:
      return "__any_sync";
    case warp_op::all:
      return "__all_sync";
    case warp_op::match_any:
      return "__match_any_sync";
    case warp_op::match_all:
      return "__match_all_sync";
    case warp_op::reduce_add:
      return "__reduce_add_sync";
    case warp_op::reduce_min_signed:
    case warp_op::reduce_min_unsigned:
      return "__reduce_min_sync";
    case warp_op::reduce_max_signed:
    case warp_op::reduce_max_unsigned:
      return "__reduce_max_sync";
    case warp_op::reduce_and:
      return "__reduce_and_sync";
    case warp_op::reduce_or:
      return "__reduce_or_sync";
    default:
      return "__reduce_xor_sync";
  }
}

inline std::string block_executor::describe_site(std::source_location where) {
  return std::string(where.file_name()) + ":" + std::to_string(where.line()) + ":" + std::to_string(where.column());
}

inline std::string block_executor::describe_call(warp_op op, std::source_location where) {
  return std::string(warp_op_name(op)) + " (" + describe_site(where) + ")";
}

inline std::string block_executor::hex(unsigned mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

// "lane 3", "lanes 0-3,7"
inline std::string block_executor::lanes_phrase(unsigned lanes) {
  return (std::has_single_bit(lanes) ? "lane " : "lanes ") + describe_lanes(lanes);
}

// "0-3,7,9-10"
inline std::string block_executor::describe_lanes(unsigned lanes) {
  std::string text;
  for (unsigned lane = 0; lane < 32;) {
    if (!(lanes >> lane & 1)) {
      ++lane;
      continue;
    }
    unsigned end = lane;
    while (end + 1 < 32 && (lanes >> (end + 1) & 1)) ++end;
    if (!text.empty()) text += ",";
    text += std::to_string(lane);
    if (end > lane) text.append("-").append(std::to_string(end));  // not "-" + ...: GCC 12's false -Wrestrict
    lane = end + 1;
  }
  return text;
}

}  // namespace weft::detail
