// Named barriers: the 16 barriers of a block that PTX's bar.sync,
// barrier.sync and bar.arrive name by id, each waiting for a thread count
// of its own (docs/semantics.md, "Named barriers"). weft::ptx::bar_sync and
// bar_arrive (cuda/device/ptx_barriers.hpp) are their entry points.
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

#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/executor/race_check.hpp"

namespace weft::detail {

/// One named barrier and its current phase: how many threads it waits for
/// (the phase's first arrival says), and who arrived.
struct named_barrier {
  unsigned id = 0;
  unsigned expected = 0;
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
  /// (0: every thread of the block); if `waits`, it parks until then.
  /// `instruction` names the call in reports. Misuse (an id past 15, a
  /// count that is no multiple of 32 or exceeds the block's warps, threads
  /// that disagree on the count) throws kernel_fault: the launch fails.
  void arrive(block_executor& block, unsigned thread, unsigned block_threads, unsigned id, unsigned threads, bool waits,
              const char* instruction, std::source_location where) {
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
    if (b.arrivals.empty())
      b.expected = wanted;
    else if (b.expected != wanted)
      refuse(std::string(instruction) + " on barrier " + std::to_string(id) + " expects " + std::to_string(wanted) +
             " threads, but the threads that arrived before it expect " + std::to_string(b.expected));
    b.arrivals.push_back({thread, waits});
    if (b.arrivals.size() == b.expected) {
      if constexpr (race_check_build)
        if (race_running) race_running->named_barrier_completed(b.arrivals);
      b.arrivals.clear();
      ++b.phase;
      block.wake_all(&b);
      return;
    }
    if (!waits) return;
    std::uint64_t phase = b.phase;
    do {
      block.wait_on(&b, instruction, &describe, where);
    } while (b.phase == phase);
  }

 private:
  void start_block(std::uint64_t generation) {
    block_generation_ = generation;
    for (unsigned id = 0; id < count; ++id) {
      barriers_[id].id = id;
      barriers_[id].arrivals.clear();
    }
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
};

}  // namespace weft::detail
