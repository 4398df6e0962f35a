// The SM workers: persistent OS threads standing in for the GPU's
// multiprocessors. Grids wait in launch order (the legacy default stream is
// in-order); the front grid's blocks are claimed dynamically by whichever
// worker is free, one block at a time per worker, so that a worker's
// thread-local statics are exactly one block's __shared__ memory.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "grid_job.hpp"
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

  /// Finishes every queued grid, then stops the workers.
  ~sm_pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (auto& w : workers_) w.join();
  }

  unsigned size() const { return static_cast<unsigned>(workers_.size()); }

  void submit(std::shared_ptr<grid_job> job) {
    {
      std::lock_guard lock(mutex_);
      job->set_chunk_for(size());
      queue_.push_back(std::move(job));
    }
    work_ready_.notify_all();
  }

  /// Blocks the calling host thread until every submitted grid has finished.
  void wait_idle() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return queue_.empty(); });
  }

 private:
  void work() {
    signal_stack overflow_reports;
    block_executor executor;
    std::unique_lock lock(mutex_);
    for (;;) {
      work_ready_.wait(lock, [&] {
        return (stopping_ && queue_.empty()) || (!queue_.empty() && queue_.front()->has_unclaimed_blocks());
      });
      if (queue_.empty()) return;
      std::shared_ptr<grid_job> job = queue_.front();
      lock.unlock();
      install_stack_overflow_handler();
      for (auto [first, end] = job->claim(); first < end; std::tie(first, end) = job->claim()) {
        job->run_blocks(executor, first, end);
        if (job->finish_blocks(end - first)) retire_front();
      }
      lock.lock();
    }
  }

  // The grid at the front finished: the next one in launch order may start.
  void retire_front() {
    {
      std::lock_guard lock(mutex_);
      queue_.pop_front();
    }
    idle_.notify_all();
    work_ready_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable idle_;
  std::deque<std::shared_ptr<grid_job>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace weft::detail
