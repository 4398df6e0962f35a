// The SM workers: persistent OS threads standing in for the GPU's
// multiprocessors. Grids whose stream order allows them to start are
// "active"; a free worker claims the next chunk of blocks of the most urgent
// active grid (lowest priority number, then the earliest started), one block
// at a time per worker, so that a worker's thread-local statics are exactly
// one block's __shared__ memory. Workers go back to the front after every
// chunk, so the blocks of a grid in a higher-priority stream take the place
// of lower-priority ones as these finish (CUDA guide, "Stream Priorities"),
// and grids of different streams run at the same time.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "command_graph.hpp"
#include "grid_job.hpp"
#include "spin_wait.hpp"
#include "stack_overflow.hpp"

namespace weft::detail {

class sm_pool {
 public:
  explicit sm_pool(unsigned worker_count) {
    workers_.reserve(worker_count);
    for (unsigned i = 0; i < worker_count; ++i) workers_.emplace_back([this] { work(); });
  }

  sm_pool(const sm_pool&) = delete;
  sm_pool& operator=(const sm_pool&) = delete;

  /// Finishes the active grids, then stops the workers.
  ~sm_pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto& w : workers_) w.join();
  }

  unsigned size() const { return static_cast<unsigned>(workers_.size()); }

  /// Makes a grid's blocks available to the workers.
  void submit(std::shared_ptr<grid_job> job) {
    {
      std::lock_guard lock(mutex_);
      job->set_chunk_for(size());
      // After every grid of the same or a more urgent priority.
      auto at = std::find_if(active_.begin(), active_.end(),
                             [&](const std::shared_ptr<grid_job>& g) { return g->priority > job->priority; });
      active_.insert(at, std::move(job));
      active_count_.store(active_.size(), std::memory_order_release);
    }
    // Waking a sleeping worker is a system call: a polling worker takes the
    // grid without one, and wakes the others itself if the grid has blocks
    // for them, so the launching thread does not wait for it.
    if (!spinning_.load()) work_ready_.notify_all();
  }

 private:
  void work() {
    signal_stack overflow_reports;
    block_executor executor;
    const grid_job* previous = nullptr;
    std::unique_lock lock(mutex_);
    for (;;) {
      if (active_.empty() && !stopping_) {
        // One worker that just ran out of work stays awake a moment: the next
        // launch often follows at once. Only one, so that idle workers do
        // not take the cores from the host thread that launches.
        bool expected = false;
        if (spinning_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
          lock.unlock();
          spin_until([&] { return active_count_.load(std::memory_order_acquire) != 0; });
          spinning_.store(false, std::memory_order_release);
          lock.lock();
        }
      }
      ++sleeping_;
      work_ready_.wait(lock, [&] { return stopping_ || !active_.empty(); });
      --sleeping_;
      if (active_.empty()) return;
      std::shared_ptr<grid_job> job = active_.front();
      // Work this worker cannot take alone (more blocks, or other grids that
      // may wait for this one) wakes the others.
      bool wake_others = sleeping_ > 0, other_grids = active_.size() > 1;
      lock.unlock();
      auto [first, end] = job->claim();
      if (wake_others && (other_grids || job->has_unclaimed_blocks())) work_ready_.notify_all();
      if (first < end) {
        // Once per grid: a program may have installed its own handler meanwhile.
        if (job.get() != previous) install_stack_overflow_handler();
        previous = job.get();
        auto began = trace::chunk_begins();
        job->run_blocks(executor, first, end);
        trace::chunk_ran(*job, first, end, began);
        if (job->finish_blocks(end - first)) job->graph()->complete(*job);
      }
      lock.lock();
      // Every block claimed: the grid leaves the active list (its last blocks
      // may still be running on other workers).
      if (first >= end || !job->has_unclaimed_blocks()) {
        std::erase(active_, job);
        active_count_.store(active_.size(), std::memory_order_release);
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::vector<std::shared_ptr<grid_job>> active_;
  std::atomic<std::size_t> active_count_{0};  // active_.size(), for polling without the lock
  std::atomic<bool> spinning_{false};         // a worker is polling for work
  unsigned sleeping_ = 0;                     // workers waiting on work_ready_
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace weft::detail
