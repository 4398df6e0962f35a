// Named barriers: the 16 barriers of a block that PTX's bar.sync,
// barrier.sync and bar.arrive name by id, each waiting for a thread count
// of its own (docs/semantics.md, "Named barriers"). weft::ptx::bar_sync and
// bar_arrive (cuda/device/sync/ptx_barriers.hpp) are their entry points on
// fibers, weft::bar_sync and bar_arrive (weft/stackless_named_barriers.hpp)
// on coroutines; this is their state, whichever executor runs the block.
//
// They count as an H200 counts (tests/unit/cuda/device/named_barrier_test.cpp
// pins its results): by warp, not by thread. A lane that arrives waits for
// the lanes of its warp that have not exited; then the warp's arrival counts
// 32 threads, exited lanes and a partial warp's missing lanes included, and
// lanes of a counted warp that come later join that arrival. A barrier
// without a count waits for every warp that has a lane left. Where the block
// stalls with a warp's arrival open (its other lanes exited or wait
// elsewhere), the warp counts with the lanes it has (settle_stalled_block).
//
// A waiting thread parks on a token of its barrier and warp, as on a library
// object, so that a barrier that can never complete ends in the executor's
// deadlock report, which names the threads waiting, where, and the
// barrier's id and arrivals (describe). Barrier 0 without a count is
// __syncthreads, and takes its path, not this one.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/executor/block_reports.hpp"
#include "weft/detail/executor/stalled_block.hpp"
#include "weft/detail/executor/warp_arithmetic.hpp"

namespace weft::detail {

/// What a phase of a named barrier computes from its arrivals' predicates:
/// nothing (bar.sync, bar.arrive), or bar.red's popc, and, or.
enum class named_reduction : unsigned char { none, popc, all, any };

/// What named barriers need of the executor that runs the block.
struct named_barrier_host {
  /// Whether this executor runs the worker's block now: a worker's blocks
  /// alternate between the executors, and a block that stalls asks the
  /// barriers whose host last used them (settle_running).
  bool (*runs_block)();
  /// The number of the block running on this worker.
  std::uint64_t (*block_generation)();
  /// The lanes of a warp that have exited: asked by a running thread of the
  /// block (`by_thread`), or where the block stalls, when none runs.
  unsigned (*lanes_exited)(unsigned warp, bool by_thread);
  /// Makes the threads parked on a token ready.
  void (*wake_all)(const void* token);
};

struct named_barrier;

/// What a parked thread waits on: its barrier, for the deadlock report.
struct named_barrier_token {
  const named_barrier* barrier = nullptr;
};

/// A lane's arrival at a named barrier.
struct named_lane_arrival {
  unsigned thread;
  bool waits;  // bar.sync, bar.red; not bar.arrive
  bool predicate;
  std::uint32_t race_release_clock = 0;  // in a race-check build: what the arrival releases
};

/// One named barrier and its open phase: how many threads it waits for and
/// what it reduces (the phase's first arrival says), which warps count,
/// and the lanes that arrived (of counted warps, and of warps whose other
/// lanes may still come).
struct named_barrier {
  unsigned id = 0;
  unsigned expected = 0;  // threads; 0: every warp of the block with a lane not exited
  named_reduction reduction = named_reduction::none;
  unsigned block_threads = 0;
  std::uint32_t counted = 0;  // warps whose arrival counts in the open phase
  std::uint32_t open = 0;     // warps with lanes here that wait for the warp's other lanes
  std::vector<named_lane_arrival> arrivals;
  std::array<named_barrier_token, 32> sync_tokens{};    // per warp: its lanes waiting for the phase
  std::array<named_barrier_token, 32> arrive_tokens{};  // per warp: its bar.arrive lanes waiting for the warp
};

/// The running block's 16 named barriers.
class named_barriers {
 public:
  static constexpr unsigned count = 16;

  /// The barriers of the block that `host` runs, fresh for each block: a
  /// block abandoned halfway leaves nothing to the next.
  static named_barriers& of(const named_barrier_host& host) {
    named_barriers& barriers = this_worker();
    if (barriers.block_generation_ != host.block_generation()) barriers.start_block(host.block_generation());
    barriers.host_ = host;
    settle_stalled_block = &settle_running;
    return barriers;
  }

  /// The calling thread, `thread` of the block's `block_threads`, arrives
  /// at barrier `id`, which completes once `threads` threads have arrived
  /// (0: every warp of the block with a lane left), counted by warp; bar.red
  /// reduces the arrivals' `predicate`s. Returns the token to park on until
  /// released(thread), or null if the thread goes on at once: a waiting
  /// thread (`waits`) until the phase completes, a bar.arrive until its
  /// warp's arrival counts. `instruction` names the call in reports. Misuse
  /// (an id past 15, a count that is no multiple of 32 or exceeds the
  /// block's warps, threads that disagree on the count or the reduction)
  /// throws kernel_fault: the launch fails; lanes of one warp at two named
  /// barriers at once fail it as an H200 does (an illegal instruction).
  const void* arrive(unsigned thread, unsigned block_threads, unsigned id, unsigned threads, bool waits,
                     named_reduction reduction, bool predicate, const char* instruction) {
    if (id >= count)
      refuse(std::string(instruction) + " names barrier " + std::to_string(id) +
             ": a block has 16 named barriers, 0 to 15");
    unsigned warp_threads = (block_threads + 31) / 32 * 32;
    if (threads % 32 != 0 || threads > warp_threads)
      refuse(std::string(instruction) + " on barrier " + std::to_string(id) + " with a count of " +
             std::to_string(threads) + ": the count must be a multiple of the warp size (32), at most the " +
             std::to_string(warp_threads) + " threads of the block's warps");
    unsigned warp = thread / 32;
    if (open_at_[warp] >= 0 && static_cast<unsigned>(open_at_[warp]) != id)
      throw kernel_fault{cudaErrorIllegalInstruction,
                         std::string(instruction) + " on barrier " + std::to_string(id) + " by lane " +
                             std::to_string(thread % 32) + " of warp " + std::to_string(warp) +
                             " while other lanes of its warp wait at barrier " + std::to_string(open_at_[warp]) +
                             " (an illegal instruction on an H200)"};
    named_barrier& b = barriers_[id];
    if (b.arrivals.empty() && b.counted == 0) {
      b.expected = threads;
      b.reduction = reduction;
      b.block_threads = block_threads;
    } else if (b.expected != threads) {
      refuse(std::string(instruction) + " on barrier " + std::to_string(id) + " expects " + expected_text(threads) +
             ", but the threads that arrived before it expect " + expected_text(b.expected));
    } else if (b.reduction != reduction) {
      refuse(std::string(instruction) + " on barrier " + std::to_string(id) +
             " in a phase that threads entered with another of bar.sync or bar.arrive and bar.red's "
             "popc, and, or (PTX forbids mixing them on one barrier)");
    }
    if (released_.size() < block_threads) {
      released_.resize(block_threads);
      results_.resize(block_threads);
    }
    released_[thread] = false;
    spinning_[warp] &= ~(1u << (thread % 32));
    std::uint32_t race_release_clock = 0;
    if constexpr (race_check_build)
      if (race_running) race_release_clock = race_running->named_barrier_arrival(thread);
    b.arrivals.push_back({thread, waits, predicate, race_release_clock});
    std::uint32_t warp_bit = 1u << warp;
    if (b.counted & warp_bit) {  // a late lane of a counted warp joins its arrival
      if (!waits) released_[thread] = true;
    } else {
      open_at_[warp] = static_cast<int>(id);
      open_lanes_[warp] |= 1u << (thread % 32);
      b.open |= warp_bit;
      unsigned here = open_lanes_[warp] | host_.lanes_exited(warp, !settling_);
      if ((here & lanes_in_block(block_threads, warp)) == lanes_in_block(block_threads, warp)) count_warp(b, warp);
      complete_if_full(b);
    }
    if (released_[thread]) return nullptr;
    return waits ? &b.sync_tokens[warp] : &b.arrive_tokens[warp];
  }

  bool released(unsigned thread) const { return released_[thread]; }
  /// A waiter's bar.red result, written when its phase completed.
  unsigned result(unsigned thread) const { return results_[thread]; }

  /// For the deadlock report, after the waiters' line: `token` is what
  /// they park on.
  [[gnu::cold]] static std::string describe(const void* token) {
    const named_barrier& b = *static_cast<const named_barrier_token*>(token)->barrier;
    unsigned waiting = 0;
    for (const named_lane_arrival& a : b.arrivals) waiting += a.waits;
    std::string text = "named barrier " + std::to_string(b.id) + ": ";
    unsigned counted = static_cast<unsigned>(std::popcount(b.counted));
    if (b.expected != 0)
      text += std::to_string(counted * 32) + " of its " + std::to_string(b.expected) + " threads arrived";
    else
      text += std::to_string(counted) + " of the block's warps arrived";
    text += " (counted by warp; " + std::to_string(waiting) + " threads waiting, " +
            std::to_string(b.arrivals.size() - waiting) + " by bar.arrive)";
    if (b.open)
      text += "; warps " + warp_list(b.open) + " have lanes there that wait for the other lanes of their warp";
    return text;
  }

 private:
  static named_barriers& this_worker() {
    thread_local named_barriers barriers;
    return barriers;
  }

  void start_block(std::uint64_t generation) {
    block_generation_ = generation;
    for (unsigned id = 0; id < count; ++id) {
      named_barrier& b = barriers_[id];
      b.id = id;
      b.arrivals.clear();
      b.counted = 0;
      b.open = 0;
      for (unsigned w = 0; w < 32; ++w) b.sync_tokens[w].barrier = b.arrive_tokens[w].barrier = &b;
    }
    open_at_.fill(-1);
    open_lanes_.fill(0);
    spinning_.fill(0);
  }

  // The warp's arrival counts, with the lanes it has: its bar.arrive lanes go on.
  void count_warp(named_barrier& b, unsigned warp) {
    std::uint32_t warp_bit = 1u << warp;
    b.counted |= warp_bit;
    b.open &= ~warp_bit;
    open_at_[warp] = -1;
    open_lanes_[warp] = 0;
    spinning_[warp] = 0;
    bool parked = false;
    for (const named_lane_arrival& a : b.arrivals)
      if (a.thread / 32 == warp && !a.waits && !released_[a.thread]) {
        released_[a.thread] = true;
        parked = true;
      }
    if (parked) wake(&b.arrive_tokens[warp]);
  }

  void complete_if_full(named_barrier& b) {
    if (b.counted == 0) return;
    if (b.expected != 0) {
      if (static_cast<unsigned>(std::popcount(b.counted)) * 32 != b.expected) return;
    } else {
      std::uint32_t left = 0;
      unsigned warps = (b.block_threads + 31) / 32;
      for (unsigned w = 0; w < warps; ++w)
        if ((host_.lanes_exited(w, !settling_) & lanes_in_block(b.block_threads, w)) !=
            lanes_in_block(b.block_threads, w))
          left |= 1u << w;
      if (left & ~b.counted) return;
    }
    // The counted warps' lanes complete the phase; lanes of warps still
    // open stay, for the next.
    std::vector<named_lane_arrival> done, staying;
    for (const named_lane_arrival& a : b.arrivals) (b.counted >> (a.thread / 32) & 1 ? done : staying).push_back(a);
    unsigned result = reduced(b.reduction, done);
    if constexpr (race_check_build)
      if (race_running) {
        std::vector<named_arrival> ordered;
        for (const named_lane_arrival& a : done) ordered.push_back({a.thread, a.waits, a.race_release_clock});
        race_running->named_barrier_completed(ordered);
      }
    for (const named_lane_arrival& a : done) {
      results_[a.thread] = result;
      released_[a.thread] = true;
    }
    std::uint32_t completed = b.counted;
    b.counted = 0;
    b.arrivals = std::move(staying);
    for (std::uint32_t m = completed; m != 0; m &= m - 1) wake(&b.sync_tokens[std::countr_zero(m)]);
  }

  void wake(const void* token) {
    woke_ = true;
    host_.wake_all(token);
  }

  // No thread of the block can run (`spinning_thread` ~0u): each open warp
  // arrival counts with the lanes it has, and barriers without a count see
  // which warps are left. Or `spinning_thread` spins: its warp's arrival
  // counts once every lane of it has arrived, exited or spins (a lane still
  // on its way to the barrier is none of these).
  static bool settle_running(unsigned spinning_thread) {
    named_barriers& self = this_worker();
    if (!self.host_.runs_block() || self.block_generation_ != self.host_.block_generation()) return false;
    self.woke_ = false;
    if (spinning_thread != ~0u) {
      unsigned warp = spinning_thread / 32;
      self.spinning_[warp] |= 1u << (spinning_thread % 32);
      if (int id = self.open_at_[warp]; id >= 0) {
        named_barrier& b = self.barriers_[id];
        unsigned lanes = lanes_in_block(b.block_threads, warp);
        if (((self.open_lanes_[warp] | self.spinning_[warp] | self.host_.lanes_exited(warp, true)) & lanes) == lanes) {
          self.count_warp(b, warp);
          self.complete_if_full(b);
        }
      }
      return self.woke_;
    }
    self.settling_ = true;
    for (unsigned w = 0; w < 32; ++w)
      if (self.open_at_[w] >= 0) self.count_warp(self.barriers_[self.open_at_[w]], w);
    for (named_barrier& b : self.barriers_) self.complete_if_full(b);
    self.settling_ = false;
    return self.woke_;
  }

  static unsigned reduced(named_reduction reduction, const std::vector<named_lane_arrival>& arrivals) {
    unsigned passed = 0;
    for (const named_lane_arrival& a : arrivals) passed += a.predicate;
    switch (reduction) {
      case named_reduction::popc:
        return passed;
      case named_reduction::all:
        return passed == arrivals.size();
      case named_reduction::any:
        return passed != 0;
      case named_reduction::none:
        break;
    }
    return 0;
  }

  static std::string expected_text(unsigned threads) {
    return threads == 0 ? std::string("every thread of the block") : std::to_string(threads) + " threads";
  }

  static std::string warp_list(std::uint32_t warps) {
    std::string text;
    for (std::uint32_t m = warps; m != 0; m &= m - 1)
      text += (text.empty() ? "" : ", ") + std::to_string(std::countr_zero(m));
    return text;
  }

  [[noreturn, gnu::cold]] static void refuse(std::string text) {
    throw kernel_fault{cudaErrorLaunchFailure, std::move(text)};
  }

  std::uint64_t block_generation_ = ~std::uint64_t{0};
  named_barrier_host host_{};
  std::array<named_barrier, count> barriers_{};
  // Per warp: the barrier where it has an arrival open (-1: none), and the
  // lanes that arrived there.
  std::array<int, 32> open_at_{};
  std::array<std::uint32_t, 32> open_lanes_{};
  // Per warp, the lanes that yielded (spin) since its last arrival counted.
  std::array<std::uint32_t, 32> spinning_{};
  std::vector<char> released_;
  // Each waiter's result, written when its phase completes: a later phase
  // may complete before the waiter resumes.
  std::vector<unsigned> results_;
  bool woke_ = false;
  bool settling_ = false;
};

}  // namespace weft::detail
