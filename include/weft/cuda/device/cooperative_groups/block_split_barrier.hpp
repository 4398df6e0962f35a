// The barrier behind thread_block::barrier_arrive and barrier_wait (CUDA's
// split arrive and wait for the block): one phase-counting barrier per
// running block, expecting every thread of the block once per phase.
//
// It is kept by the worker that runs the block, as a multi-warp tile's
// barriers are (multi_warp_tile.hpp), and made anew for each block. Only the
// block's own threads arrive, so a waiter parks in the block executor and
// the thread whose arrival completes the phase wakes it; a thread that
// never arrives is the block's deadlock report, naming the barrier_wait.
#pragma once

#include <cstdint>
#include <cstdio>
#include <source_location>
#include <string>

#include "weft/cuda/device/async/barrier.hpp"
#include "weft/detail/coroutine_executor/stackless_block_executor.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail::groups {

class block_split_barrier {
 public:
  static constexpr const char* arrive_call = "this_thread_block().barrier_arrive()";
  static constexpr const char* wait_call = "this_thread_block().barrier_wait()";

  /// The running block's barrier, initialised for the block's threads when
  /// a new block first asks.
  static block_split_barrier& of_running_block(unsigned block_threads);

  /// The caller's arrival; returns the phase it belongs to.
  std::uint32_t arrive() { return state_.arrive_and_complete(1, false, arrive_call); }

  /// Returns once phase `phase` has completed (on fibers; a stackless thread
  /// awaits state() instead, weft/stackless_groups.hpp).
  void wait(std::uint32_t phase, std::source_location where) const {
    state_.wait(phase, true, wait_call, describe, where);
  }

  const barrier_state& state() const { return state_; }

  // "the block's split barrier (barrier_arrive) in phase 1: 3 of 64 threads have not arrived"
  static std::string describe(const void* object) {
    std::uint64_t w = static_cast<const barrier_state*>(object)->load();
    char text[160];
    std::snprintf(text, sizeof text,
                  "the block's split barrier (barrier_arrive) in phase %u: %u of %u threads have not arrived",
                  barrier_state::phase_of(w), barrier_state::pending_of(w), barrier_state::expected_of(w));
    return text;
  }

 private:
  barrier_state state_;  // first: describe() is given the state's address, the object's
  const void* executor_ = nullptr;
  std::uint64_t block_ = ~0ull;
  unsigned threads_ = 0;
};

inline thread_local block_split_barrier worker_block_split_barrier;
// weft's state, not the kernel's shared memory (race_check.hpp).
inline const bool worker_block_split_barrier_untraced =
    !race_check_build ||
    race_untraced([]() -> const void* { return &worker_block_split_barrier; }, sizeof worker_block_split_barrier);

inline block_split_barrier& block_split_barrier::of_running_block(unsigned block_threads) {
  block_split_barrier& bar = worker_block_split_barrier;
  // The fiber executor's block, or the stackless executor's.
  const void* executor = running_block ? static_cast<const void*>(running_block) : running_stackless_block;
  std::uint64_t block = running_block             ? running_block->blocks_started()
                        : running_stackless_block ? running_stackless_block->blocks_started()
                                                  : 0;
  if (bar.executor_ != executor || bar.block_ != block || bar.threads_ != block_threads) {
    bar.executor_ = executor;
    bar.block_ = block;
    bar.threads_ = block_threads;
    bar.state_.init(static_cast<std::ptrdiff_t>(block_threads));
  }
  return bar;
}

}  // namespace weft::detail::groups
