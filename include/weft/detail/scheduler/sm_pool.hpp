// The SM workers: persistent OS threads standing in for the GPU's
// multiprocessors. Grids whose stream order allows them to start are
// "active"; a free worker claims the next chunk of blocks of the most urgent
// active grid (lowest priority number, then the earliest started), one block
// at a time per worker, so that a worker's thread-local statics are exactly
// one block's __shared__ memory. Workers go back to the front after every
// chunk, so the blocks of a grid in a higher-priority stream take the place
// of lower-priority ones as these finish (CUDA guide, "Stream Priorities"),
// and grids of different streams run at the same time.
//
// A worker runs its block until the block ends, as an SM does, so blocks that
// wait for other blocks (a flag handed between two streams' kernels, a grid
// barrier made of atomics) need those to run beside them, as they would on a
// GPU that holds them all at once. A watchdog therefore looks at the pool
// every stall_time: when blocks wait for a worker and no worker has started a
// block since the last look, it adds helper workers (as many again as there
// are, up to resident_blocks threads), which leave once no block waits.
//
// A cooperative grid or a thread block cluster does not wait for the
// watchdog: its blocks must all be resident at once (they meet at grid.sync()
// and cluster.sync(), and read each other's shared memory), so submit() adds
// helpers at once until the pool has a thread for every block of every such
// grid that is active. A launch that an H100 accepts thus runs on any number
// of workers (docs/grid-and-clusters.md); the helpers leave as the others do.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <list>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/forked_child.hpp"
#include "weft/detail/base/spin_wait.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/executor/fault_signals.hpp"
#include "weft/detail/scheduler/grid_job.hpp"
#include "weft/detail/scheduler/worker_affinity.hpp"
#include "weft/detail/scheduler/worker_tally.hpp"
#include "weft/detail/trace/trace.hpp"

namespace weft::detail {

/// The index of the SM worker the calling OS thread is, from 0 in the order
/// the pool started them: what a kernel reads as PTX's %smid. Helpers that
/// a cooperative or cluster grid adds share the indices of the workers
/// (%smid is below %nsmid, the worker count, as on a GPU).
inline thread_local unsigned running_sm = 0;

class sm_pool {
 public:
  explicit sm_pool(unsigned worker_count) {
    note_weft_threads_start();
    if (worker_stats_requested()) tally_ = std::make_unique<worker_tally>(worker_count);
    workers_.reserve(worker_count);
    for (unsigned i = 0; i < worker_count; ++i)
      workers_.emplace_back([this, i] {
        running_sm = i;
        pin_worker_to_core(i);
        work(nullptr);
      });
    watchdog_ = std::thread([this] { watch(); });
  }

  sm_pool(const sm_pool&) = delete;
  sm_pool& operator=(const sm_pool&) = delete;

  /// Finishes the active grids, and a grid that a host thread runs, then
  /// stops the workers.
  ~sm_pool() {
    {
      std::unique_lock lock(mutex_);
      draining_.store(true);
      callers_done_.wait(lock, [&] { return callers_.load() == 0; });
      stopping_ = true;
    }
    work_ready_.notify_all();
    // The watchdog keeps watching until the workers are done: the grids they
    // finish may need helpers.
    for (auto& w : workers_) w.join();
    {
      std::lock_guard lock(mutex_);
      watchdog_stopping_ = true;
    }
    watchdog_wake_.notify_all();
    watchdog_.join();
    for (auto& h : helpers_) h.thread.join();
    if (tally_) tally_->print();
  }

  /// How long blocks may wait for a worker, with no worker starting a block,
  /// before the watchdog adds helpers.
  static constexpr std::chrono::milliseconds stall_time{100};

  /// How long a helper waits for another grid before it leaves.
  static constexpr std::chrono::milliseconds helper_linger{100};

  unsigned size() const { return static_cast<unsigned>(workers_.size()); }

  /// Makes a grid's blocks available to the workers.
  void submit(std::shared_ptr<grid_job> job) {
    {
      std::lock_guard lock(mutex_);
      job->set_chunk_for(size());
      if (tally_) job->submitted_ns = tally_clock_ns();
      bool gang = job->gang_size() > 1;
      // After every grid of the same or a more urgent priority.
      auto at = std::find_if(active_.begin(), active_.end(),
                             [&](const std::shared_ptr<grid_job>& g) { return g->priority > job->priority; });
      active_.insert(at, std::move(job));
      active_count_.store(active_.size(), std::memory_order_release);
      if (gang) make_room_for_gangs();
    }
    // Waking a sleeping worker is a system call: a polling worker takes the
    // grid without one, and wakes the others itself if the grid has blocks
    // for them, so the launching thread does not wait for it. So does the
    // worker whose grid's completion made this one ready (the next kernel
    // of a stream or graph): it looks for work next.
    if (!spinning_.load() && completing_on_worker != this) work_ready_.notify_all();
  }

  /// For a host thread about to wait: the grid it may run itself instead,
  /// claimed, or null. Only a grid of one block, alone in the pool while no
  /// worker or other host thread runs a block, so that the program sees
  /// what a worker running it would show (no more blocks side by side, and
  /// no grid of many blocks spread over one more thread than the worker
  /// count); the caller would only have waited meanwhile, and handing the
  /// block to a worker and its completion back costs two wake-ups when the
  /// machine's cores are busy. With `awaited` (a stream's or an event's
  /// synchronisation, a synchronous copy), only a grid that is `awaited` or
  /// that `awaited` directly follows: the caller must not take on work its
  /// wait does not need, which might wait for the caller itself (a kernel
  /// of another stream that spins until the host writes a flag). Not while
  /// the timeline records, whose rows are the workers. The caller runs it
  /// with run_on_caller, then calls caller_done; the pool outlives the run.
  std::shared_ptr<grid_job> take_lone_grid(const command* awaited = nullptr) {
    if (active_count_.load(std::memory_order_acquire) != 1 || trace::enabled) return nullptr;
    std::lock_guard lock(mutex_);
    if (active_.size() != 1 || running_ != 0 || callers_.load(std::memory_order_relaxed) != 0 || stopping_)
      return nullptr;
    const std::shared_ptr<grid_job>& job = active_.front();
    if (job->block_count() != 1 || job->gang_size() != 1) return nullptr;
    if (awaited && !command_graph::directly_after(*job, *awaited)) return nullptr;
    if (job->claim().first != 0) return nullptr;  // a worker has it
    std::shared_ptr<grid_job> taken = std::move(active_.front());
    active_.clear();
    active_count_.store(0, std::memory_order_release);
    callers_.fetch_add(1, std::memory_order_relaxed);
    return taken;
  }

  /// The host thread that took a grid with take_lone_grid has run it. No
  /// lock unless the pool is being destroyed and may wait for this call:
  /// both sides use sequentially consistent accesses, so that either the
  /// destructor sees the count at zero or this call sees it waiting.
  void caller_done() {
    if (callers_.fetch_sub(1) == 1 && draining_.load()) {
      std::lock_guard lock(mutex_);
      callers_done_.notify_all();
    }
  }

  /// Runs on the calling host thread a grid that take_lone_grid gave it,
  /// and completes it, as a worker would (work()). The caller's %smid is
  /// worker 0's, its current device the grid's while the block runs.
  static void run_on_caller(grid_job& job) {
    // On the heap, not in static thread-local storage, where __shared__
    // variables live: the race check would take the executor's own members
    // for the block's __shared__ memory.
    thread_local std::unique_ptr<block_executor> caller_executor = std::make_unique<block_executor>();
    block_executor& executor = *caller_executor;
    ensure_signal_stack();
    keep_fault_handlers();
    int device = current_device;
    unsigned sm = std::exchange(running_sm, 0);
    job.run_blocks(executor, 0, 1);
    running_sm = sm;
    current_device = device;
    if (job.finish_blocks(1)) job.graph()->complete(job);
  }

 private:
  struct helper {
    std::thread thread;
    bool done = false;  // its work() has returned; guarded by mutex_
  };

  // A worker's life; `me` is null for the pool's own workers, which stay
  // until the pool stops, and names a helper, which leaves when no block
  // waits for a worker.
  void work(helper* me) {
    signal_stack fault_reports;
    block_executor executor;
    std::uint64_t previous = 0;  // the serial of the last grid this worker ran
    std::unique_lock lock(mutex_);
    executors_.push_back(&executor);
    for (;;) {
      if (me && active_.empty()) {
        // A helper stays a moment for the next grid: a program that launches
        // a cooperative kernel in a loop reuses its threads, and their
        // fiber stacks, instead of starting them anew for every launch.
        ++sleeping_;
        work_ready_.wait_for(lock, helper_linger, [&] { return stopping_ || !active_.empty(); });
        --sleeping_;
      }
      if (me && active_.empty()) {
        forget(executor);
        me->done = true;
        return;
      }
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
      if (active_.empty()) {
        forget(executor);
        return;
      }
      std::shared_ptr<grid_job> job = active_.front();
      // Work this worker cannot take alone (more blocks, or other grids that
      // may wait for this one) wakes the others.
      bool wake_others = sleeping_ > 0, other_grids = active_.size() > 1;
      ++running_;
      lock.unlock();
      auto [first, end] = job->claim();
      if (wake_others && (other_grids || job->has_unclaimed_blocks())) work_ready_.notify_all();
      if (first < end) {
        // Once per grid: a program may have installed its own handler meanwhile
        // (doctest does, for every test case).
        if (job->serial != previous) keep_fault_handlers();
        previous = job->serial;
        auto began = trace::chunk_begins();
        std::int64_t tally_began = tally_ ? tally_clock_ns() : 0;
        job->run_blocks(executor, first, end);
        trace::chunk_ran(static_cast<const command*>(job.get()), first, end, began);
        if (tally_ && !me) tally_->ran(running_sm, end - first, tally_began);
        if (job->finish_blocks(end - first)) {
          if (tally_) tally_->grid_completed(job->submitted_ns);
          completing_on_worker = this;
          job->graph()->complete(*job);
          completing_on_worker = nullptr;
        }
      }
      lock.lock();
      --running_;
      // Every block claimed: the grid leaves the active list (its last blocks
      // may still be running on other workers).
      if (first >= end || !job->has_unclaimed_blocks()) {
        std::erase(active_, job);
        active_count_.store(active_.size(), std::memory_order_release);
      }
    }
  }

  // The watchdog (see the top of this file).
  void watch() {
    std::unique_lock lock(mutex_);
    std::uint64_t started_before = 0;
    bool waited_before = false;
    // Blocks that the helpers added at the last look may have started since
    // without that counting as progress: one each.
    std::uint64_t helpers_first_blocks = 0;
    auto looked = std::chrono::steady_clock::now();
    while (!watchdog_wake_.wait_for(lock, stall_time, [&] { return watchdog_stopping_; })) {
      std::uint64_t started = blocks_started_by_gone_;
      for (const block_executor* e : executors_) started += e->blocks_started();
      std::uint64_t waiting = 0;  // blocks that wait for a worker
      for (const auto& job : active_) waiting += job->unclaimed_blocks();
      // A look that comes late follows a pause of the whole process (a
      // debugger at a breakpoint, say), in which no worker could start a
      // block: it only starts the count again, so that stepping through a
      // kernel with one worker does not bring helpers in.
      auto now = std::chrono::steady_clock::now();
      bool on_time = now - looked < 2 * stall_time;
      looked = now;
      bool stalled = on_time && waiting != 0 && waited_before && started <= started_before + helpers_first_blocks;
      helpers_first_blocks = stalled ? add_helpers(waiting) : 0;
      started_before = started;
      waited_before = waiting != 0;
    }
  }

  // Called with mutex_ held; returns how many it added.
  std::uint64_t add_helpers(std::uint64_t waiting) {
    reap_helpers();
    auto threads = workers_.size() + helpers_.size();
    auto added = std::min<std::uint64_t>({threads, waiting, resident_blocks - std::min(threads, resident_blocks)});
    if (added == 0) {
      if (!warned_) {
        warned_ = true;
        std::fprintf(stderr,
                     "weft: %zu workers are all in blocks that have not ended for %lld ms, and %s waits for one; "
                     "if those blocks wait for its blocks, they wait forever (docs/streams.md)\n",
                     threads, static_cast<long long>(stall_time.count()), active_.front()->describe().c_str());
      }
      return 0;
    }
    // With no more threads to be had, the helpers started so far must do.
    return start_helpers(added);
  }

  // Called with mutex_ held: adds helpers until there is a thread for every
  // block of the active grids whose blocks must be resident together (other
  // grids' blocks that hold threads meanwhile are the watchdog's concern).
  void make_room_for_gangs() {
    std::uint64_t needed = 0;
    for (const auto& job : active_)
      if (auto gang = job->gang_size(); gang > 1) needed += gang;
    reap_helpers();
    std::uint64_t threads = workers_.size() + helpers_.size();
    if (needed > threads) start_helpers(needed - threads);
  }

  // Called with mutex_ held: forgets the helpers that have left.
  void reap_helpers() {
    std::erase_if(helpers_, [](helper& h) {
      if (h.done) h.thread.join();
      return h.done;
    });
  }

  // Called with mutex_ held; returns how many it started, fewer than asked
  // only when the system has no more threads to give.
  std::uint64_t start_helpers(std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) {
      helper& h = helpers_.emplace_back();
      try {
        h.thread = std::thread(
            [this, &h, sm = static_cast<unsigned>(helpers_started_++ % std::max<std::size_t>(workers_.size(), 1))] {
              running_sm = sm;
              work(&h);
            });
      } catch (const std::system_error&) {
        helpers_.pop_back();
        return i;
      }
    }
    return count;
  }

  // Called with mutex_ held, as a worker leaves.
  void forget(const block_executor& executor) {
    std::erase(executors_, &executor);
    blocks_started_by_gone_ += executor.blocks_started();
  }

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::vector<std::shared_ptr<grid_job>> active_;
  std::atomic<std::size_t> active_count_{0};  // active_.size(), for polling without the lock
  std::atomic<bool> spinning_{false};         // a worker is polling for work
  // The pool whose worker is completing a grid on this thread, between its
  // blocks (not while a kernel runs, which may launch grids it waits for).
  static inline thread_local const sm_pool* completing_on_worker = nullptr;
  unsigned sleeping_ = 0;              // workers waiting on work_ready_
  unsigned running_ = 0;               // workers between taking a grid and looking for the next
  std::atomic<unsigned> callers_{0};   // host threads running a grid of take_lone_grid's
  std::atomic<bool> draining_{false};  // the destructor waits for callers_ to reach zero
  std::condition_variable callers_done_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::vector<const block_executor*> executors_;  // every worker's and helper's, for the watchdog
  std::uint64_t blocks_started_by_gone_ = 0;      // by helpers that have left
  std::list<helper> helpers_;                     // a list: a running helper holds its element
  std::uint64_t helpers_started_ = 0;             // numbers the helpers' %smid
  std::condition_variable watchdog_wake_;
  bool watchdog_stopping_ = false;
  bool warned_ = false;  // the watchdog has said that it can add no more helpers
  std::thread watchdog_;
  std::unique_ptr<worker_tally> tally_;  // under WEFT_WORKER_STATS
};

}  // namespace weft::detail
