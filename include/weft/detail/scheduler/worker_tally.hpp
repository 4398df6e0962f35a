// WEFT_WORKER_STATS=1: how the SM workers shared the grids, printed on
// stderr as the pool stops. For each worker, the blocks it ran and the time
// it spent in them; for the pool, the grids and the time from each grid's
// submission to its completion. A worker busy for much less than that time
// waited: for the grid's last blocks, held by other workers, or to be woken.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "weft/detail/base/environment.hpp"

namespace weft::detail {

inline bool worker_stats_requested() {
  static const bool requested = bounded_integer_variable("WEFT_WORKER_STATS", 0, 1).value_or(0) == 1;
  return requested;
}

inline std::int64_t tally_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class worker_tally {
 public:
  explicit worker_tally(unsigned workers) : workers_(workers) {}

  /// Worker `sm` ran `blocks` blocks from `began` to now.
  void ran(unsigned sm, std::uint64_t blocks, std::int64_t began) {
    // One cache line per worker: the workers add to their own at every chunk.
    per_worker& w = workers_[sm];
    w.blocks += blocks;
    w.busy_ns += tally_clock_ns() - began;
  }

  /// A grid submitted at `submitted` has completed.
  void grid_completed(std::int64_t submitted) {
    grids_.fetch_add(1, std::memory_order_relaxed);
    span_ns_.fetch_add(tally_clock_ns() - submitted, std::memory_order_relaxed);
  }

  void print() const {
    double span_ms = double(span_ns_.load()) / 1e6;
    std::fprintf(stderr, "weft: %u workers, %llu grids, %.1f ms from submission to completion\n",
                 unsigned(workers_.size()), static_cast<unsigned long long>(grids_.load()), span_ms);
    for (std::size_t i = 0; i < workers_.size(); ++i) {
      double busy_ms = double(workers_[i].busy_ns) / 1e6;
      std::fprintf(stderr, "weft: worker %zu: %llu blocks, %.1f ms in blocks (%.1f%%)\n", i,
                   static_cast<unsigned long long>(workers_[i].blocks), busy_ms,
                   span_ms > 0 ? 100 * busy_ms / span_ms : 0.0);
    }
  }

 private:
  struct alignas(64) per_worker {
    std::uint64_t blocks = 0;
    std::int64_t busy_ns = 0;
  };
  std::vector<per_worker> workers_;
  std::atomic<std::uint64_t> grids_{0};
  std::atomic<std::int64_t> span_ns_{0};
};

}  // namespace weft::detail
