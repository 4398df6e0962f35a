// What a failed warp collective's report says, shared by both executors: the
// fiber block executor (block_executor_warps.hpp, block_executor_faults.hpp)
// and the stackless one (coroutine_executor/), so that a kernel whose lanes
// disagree or wait for an exited lane fails with the same text whichever runs
// it. Cold free functions, out of the hot paths.
#pragma once

#include <bit>
#include <source_location>
#include <string>

#include "weft/detail/base/text_format.hpp"
#include "weft/detail/executor/block_reports.hpp"
#include "weft/detail/executor/warp_arithmetic.hpp"

namespace weft::detail {

/// A pending warp collective: the lanes its mask names, those that have
/// arrived (all waiting, none of them the last), and what they call.
struct warp_group {
  unsigned mask = 0;
  unsigned arrived = 0;
  warp_op op{};
  std::source_location where{};
};

/// Of a warp's `count` open groups at `groups`, the one with this mask.
inline warp_group* find_warp_group(warp_group* groups, unsigned count, unsigned mask) {
  for (unsigned i = 0; i < count; ++i)
    if (groups[i].mask == mask) return &groups[i];
  return nullptr;
}

/// Groups with overlapping masks may be open at once: lanes wait in a
/// larger group while others of its lanes first meet in a smaller one (a
/// tile inside a tile, say), which completes on a GPU too. A new group of
/// `mask` can never complete only if it needs a lane parked in an open
/// group that waits for the caller (`lane_bit`): returns that group.
inline const warp_group* blocking_warp_group(const warp_group* groups, unsigned count, unsigned mask,
                                             unsigned lane_bit) {
  for (unsigned i = 0; i < count; ++i)
    if ((groups[i].mask & lane_bit) && (groups[i].arrived & mask)) return &groups[i];
  return nullptr;
}

[[noreturn, gnu::cold, gnu::noinline]] inline void refuse_shuffle_width(int width) {
  throw kernel_fault{cudaErrorLaunchFailure,
                     "shuffle width " + std::to_string(width) + " is not a power of two from 1 to 32"};
}

/// A shuffle's width must be a power of two from 1 to 32, else the thread
/// fails. The test alone is inline, so that a constant width costs nothing:
/// with the report's text inline, GCC kept the whole check a call in the
/// benchmark's stackless kernel, made on every shuffle, and the kernel's
/// coroutine saved three registers on every resume for it.
inline void check_shuffle_width(int width) {
  if (width <= 0 || width > 32 || (width & (width - 1)) != 0) [[unlikely]]
    refuse_shuffle_width(width);
}

namespace reports {

[[gnu::cold]] inline const char* warp_op_name(warp_op op) {
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

// "__shfl_sync (a.cu:12:5)"
[[gnu::cold]] inline std::string describe_call(warp_op op, std::source_location where) {
  std::string text;
  append_format(text, "%s (%s)", warp_op_name(op), describe_site(where).c_str());
  return text;
}

// "0-3,7,9-10"
[[gnu::cold]] inline std::string describe_lanes(unsigned lanes) {
  std::string text;
  for (unsigned lane = 0; lane < 32;) {
    if (!(lanes >> lane & 1)) {
      ++lane;
      continue;
    }
    unsigned end = lane;
    while (end + 1 < 32 && (lanes >> (end + 1) & 1)) ++end;
    append_format(text, text.empty() ? "%u" : ",%u", lane);
    if (end > lane) append_format(text, "-%u", end);
    lane = end + 1;
  }
  return text;
}

// "lane 3", "lanes 0-3,7"
[[gnu::cold]] inline std::string lanes_phrase(unsigned lanes) {
  std::string text = std::has_single_bit(lanes) ? "lane " : "lanes ";
  text += describe_lanes(lanes);
  return text;
}

// Why the first lane of a group may not open it: its mask omits the lane
// itself, or names lanes (`exited`, of the mask) that have exited.
[[gnu::cold]] inline std::string refused_mask(unsigned warp, warp_op op, unsigned mask, unsigned lane, unsigned exited,
                                              std::source_location where) {
  std::string text = describe_call(op, where);
  append_format(text, " in warp %u with mask 0x%08x: the mask ", warp, mask);
  if (!(mask >> lane & 1)) {
    append_format(text, "omits the calling lane %u", lane);
  } else {
    text += "names " + lanes_phrase(exited);
    text += std::has_single_bit(exited) ? ", which has exited" : ", which have exited";
  }
  return text;
}

// A lane calls a collective that group `g`, waiting for it, cannot be.
[[gnu::cold]] inline std::string group_mismatch(unsigned warp, const warp_group& g, warp_op op, unsigned mask,
                                                unsigned lane, std::source_location where) {
  std::string text;
  append_format(text, "warp %u: lane %u calls %s with mask 0x%08x while ", warp, lane, describe_call(op, where).c_str(),
                mask);
  text += lanes_phrase(g.arrived);
  append_format(text, "%s at %s with mask 0x%08x", std::has_single_bit(g.arrived) ? " waits" : " wait",
                describe_call(g.op, g.where).c_str(), g.mask);
  text += g.op != op ? ": lanes of one group call different collectives"
                     : ": overlapping masks that differ can never complete";
  return text;
}

// Group `g` can never complete: lanes `gone` of its mask exited.
[[gnu::cold]] inline std::string group_waits_for_exited(unsigned warp, const warp_group& g, unsigned gone) {
  std::string text = describe_call(g.op, g.where);
  append_format(text, " in warp %u with mask 0x%08x: ", warp, g.mask);
  text += lanes_phrase(g.arrived);
  text += std::has_single_bit(g.arrived) ? " waits for " : " wait for ";
  text += lanes_phrase(gone);
  text += std::has_single_bit(gone) ? ", which has exited" : ", which have exited";
  return text;
}

// "; warp 1 lanes 0-3 (thread (32,0,0) first) wait at __shfl_sync (a.cu:12:5) with mask 0x0000000f"
[[gnu::cold]] inline void append_waiting_group(std::string& text, unsigned warp, const warp_group& g,
                                               uint3 first_thread) {
  append_format(text, "; warp %u lanes ", warp);
  text += describe_lanes(g.arrived);
  append_format(text, " (thread (%u,%u,%u) first) wait at %s with mask 0x%08x", first_thread.x, first_thread.y,
                first_thread.z, describe_call(g.op, g.where).c_str(), g.mask);
}

}  // namespace reports

}  // namespace weft::detail
