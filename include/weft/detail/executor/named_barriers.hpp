// Named barriers: the 16 barriers of a block that PTX's bar.sync,
// barrier.sync and bar.arrive name by id, each waiting for a thread count
// of its own (docs/semantics.md, "Named barriers"). weft::ptx::bar_sync and
// bar_arrive (cuda/device/sync/ptx_barriers.hpp) are their entry points.
//
// A waiting thread parks on its barrier as on a library object (wait_on),
// so that a barrier that can never complete ends in the block executor's
// deadlock report, which names the threads waiting, where, and the
// barrier's id and arrivals (describe). Barrier 0 without a count is
// __syncthreads, and takes its path, not this one.
#pragma once

#include <array>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

/// What a phase of a named barrier computes from its arrivals' predicates:
/// nothing (bar.sync, bar.arrive), or bar.red's popc, and, or.
enum class named_reduction : unsigned char { none, popc, all, any };

/// One named barrier and its current phase: how many threads it waits for
/// and what it reduces (the phase's first arrival says), and who arrived.
struct named_barrier {
  unsigned id = 0;
  unsigned expected = 0;
  named_reduction reduction = named_reduction::none;
  unsigned predicates_true = 0;
  std::uint64_t phase = 0;  // counts completions: a waiter is released once it moves
  std::vector<named_arrival> arrivals;
};

/// The running block's 16 named barriers.
class named_barriers {
 public:
  static constexpr unsigned count = 16;

  /// The barriers of the block `block` runs now, fresh for each block (a
  /// block abandoned halfway leaves nothing to the next).
  static named_barriers& of(const block_executor& block) {
    thread_local named_barriers barriers;
    if (barriers.block_generation_ != block.blocks_started()) barriers.start_block(block.blocks_started());
    return barriers;
  }

  /// The calling thread, `thread` of the block's `block_threads`, arrives
  /// at barrier `id`, which completes once `threads` threads have arrived
  /// (0: every thread of the block); if `waits`, it parks until then, and
  /// gets the phase's `reduction` of the arrivals' `predicate`s (bar.red;
  /// 0 for none). `instruction` names the call in reports. Misuse (an id
  /// past 15, a count that is no multiple of 32 or exceeds the block's
  /// warps, threads that disagree on the count or the reduction) throws
  /// kernel_fault: the launch fails.
  unsigned arrive(block_executor& block, unsigned thread, unsigned block_threads, unsigned id, unsigned threads,
                  bool waits, named_reduction reduction, bool predicate, const char* instruction,
                  std::source_location where) {
    if (id >= count)
      refuse(std::string(instruction) + " names barrier " + std::to_string(id) +
             ": a block has 16 named barriers, 0 to 15");
    unsigned warp_threads = (block_threads + 31) / 32 * 32;
    if (threads % 32 != 0 || threads > warp_threads)
      refuse(std::string(instruction) + " on barrier " + std::to_string(id) + " with a count of " +
             std::to_string(threads) + ": the count must be a multiple of the warp size (32), at most the " +
             std::to_string(warp_threads) + " threads of the block's warps");
    unsigned wanted = threads == 0 ? block_threads : threads;
    named_barrier& b = barriers_[id];
    if (b.arrivals.empty()) {
      b.expected = wanted;
      b.reduction = reduction;
      b.predicates_true = 0;
    } else if (b.expected != wanted) {
      refuse(std::string(instruction) + " on barrier " + std::to_string(id) + " expects " + std::to_string(wanted) +
             " threads, but the threads that arrived before it expect " + std::to_string(b.expected));
    } else if (b.reduction != reduction) {
      refuse(std::string(instruction) + " on barrier " + std::to_string(id) +
             " in a phase that threads entered with another of bar.sync or bar.arrive and bar.red's "
             "popc, and, or (PTX forbids mixing them on one barrier)");
    }
    if (results_.size() < block_threads) results_.resize(block_threads);
    b.arrivals.push_back({thread, waits});
    b.predicates_true += predicate;
    if (b.arrivals.size() == b.expected) {
      if constexpr (race_check_build)
        if (race_running) race_running->named_barrier_completed(b.arrivals);
      unsigned result = reduced(b);
      for (const named_arrival& a : b.arrivals) results_[a.thread] = result;
      b.arrivals.clear();
      ++b.phase;
      block.wake_all(&b);
      return result;
    }
    if (!waits) return 0;
    std::uint64_t phase = b.phase;
    do {
      block.wait_on(&b, instruction, &describe, where);
    } while (b.phase == phase);
    return results_[thread];
  }

 private:
  void start_block(std::uint64_t generation) {
    block_generation_ = generation;
    for (unsigned id = 0; id < count; ++id) {
      barriers_[id].id = id;
      barriers_[id].arrivals.clear();
    }
  }

  static unsigned reduced(const named_barrier& b) {
    switch (b.reduction) {
      case named_reduction::popc:
        return b.predicates_true;
      case named_reduction::all:
        return b.predicates_true == b.expected;
      case named_reduction::any:
        return b.predicates_true != 0;
      case named_reduction::none:
        break;
    }
    return 0;
  }

  [[noreturn, gnu::cold]] static void refuse(std::string text) {
    throw kernel_fault{cudaErrorLaunchFailure, std::move(text)};
  }

  // For the deadlock report, after the waiters' line.
  [[gnu::cold]] static std::string describe(const void* object) {
    const auto& b = *static_cast<const named_barrier*>(object);
    unsigned waiting = 0;
    for (const named_arrival& a : b.arrivals) waiting += a.waits;
    return "named barrier " + std::to_string(b.id) + ": " + std::to_string(b.arrivals.size()) + " of its " +
           std::to_string(b.expected) + " threads arrived (" + std::to_string(waiting) + " waiting, " +
           std::to_string(b.arrivals.size() - waiting) + " by bar.arrive)";
  }

  std::uint64_t block_generation_ = ~std::uint64_t{0};
  std::array<named_barrier, count> barriers_{};
  // Each waiter's result, written when its phase completes: a later phase
  // may complete before the waiter resumes.
  std::vector<unsigned> results_;
};

}  // namespace weft::detail
