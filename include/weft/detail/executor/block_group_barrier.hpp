// A barrier between the blocks of a cooperative grid (grid.sync()) or of a
// cluster (cluster.sync()). Each block runs on its own SM worker, so blocks
// meet here as OS threads: one thread of each block arrives for the whole
// block (after a block barrier), and waits, first polling, then sleeping.
//
// A block that finishes without arriving at a generation others wait at can
// never arrive: the barrier breaks, and every waiter fails its block with a
// report naming the blocks that wait, where, and the blocks that finished,
// instead of hanging (CUDA leaves this undefined; a GPU hangs).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <source_location>
#include <string>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/spin_wait.hpp"
#include "weft/detail/base/text_format.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

class block_group_barrier {
 public:
  /// `what` names the barrier in reports ("grid.sync()"); `block_name(i)`
  /// describes member i ("block (3,0,0)").
  block_group_barrier(unsigned members, std::string what)
      : what_(std::move(what)),
        members_(members),
        arrived_in_(members),
        finished_(members),
        where_(members),
        names_(members) {}

  /// Member `m` (described as `name`) arrives at the current generation;
  /// returns the token that wait() takes.
  std::uint64_t arrive(unsigned m, std::string name, std::source_location where) {
    std::lock_guard lock(mutex_);
    std::uint64_t token = generation_;
    arrived_in_[m] = generation_ + 1;
    where_[m] = where;
    names_[m] = std::move(name);
    if (++arrived_ == members_) {
      arrived_ = 0;
      published_generation_.store(++generation_, std::memory_order_release);
      changed_.notify_all();
    } else {
      check_broken();
    }
    return token;
  }

  /// Waits until generation `token` has completed; throws kernel_fault if it
  /// never can.
  void wait(std::uint64_t token) {
    race_let_go_before_waiting();
    auto passed = [&] { return published_generation_.load(std::memory_order_acquire) > token; };
    if (!spin_until([&] { return passed() || broken_flag_.load(std::memory_order_acquire); })) {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return generation_ > token || !broken_.empty(); });
    }
    if (passed()) return;
    std::lock_guard lock(mutex_);
    throw kernel_fault{cudaErrorLaunchFailure, broken_};
  }

  void arrive_and_wait(unsigned m, std::string name, std::source_location where) {
    wait(arrive(m, std::move(name), where));
  }

  /// Member `m` finished (its block ended, or was skipped after a failure).
  void finished(unsigned m, std::string name) {
    std::lock_guard lock(mutex_);
    finished_[m] = true;
    if (names_[m].empty()) names_[m] = std::move(name);
    check_broken();
  }

 private:
  // Called with mutex_ held: breaks the barrier if some member waits at the
  // current generation while another has finished without arriving at it.
  void check_broken() {
    if (!broken_.empty() || arrived_ == 0) return;
    for (unsigned m = 0; m < members_; ++m)
      if (finished_[m] && arrived_in_[m] != generation_ + 1) return break_barrier();
  }

  // Off the path of every arrival, which only checks whether to come here.
  [[gnu::cold]] void break_barrier() {
    std::string waiting, gone;
    for (unsigned m = 0; m < members_; ++m) {
      bool arrived = arrived_in_[m] == generation_ + 1;
      if (arrived) {
        if (!waiting.empty()) waiting += ", ";
        waiting += names_[m];
        append_format(waiting, " at %s:%u", where_[m].file_name(), static_cast<unsigned>(where_[m].line()));
      } else if (finished_[m]) {
        if (!gone.empty()) gone += ", ";
        gone += names_[m];
      }
    }
    broken_ = "deadlock: ";
    broken_ += what_;
    broken_ += " can never complete: ";
    broken_ += waiting;
    broken_ += " wait(s), but ";
    broken_ += gone;
    broken_ += " finished without arriving";
    broken_flag_.store(true, std::memory_order_release);
    changed_.notify_all();
  }

  std::string what_;
  unsigned members_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t generation_ = 0;
  std::atomic<std::uint64_t> published_generation_{0};  // generation_, for polling without the lock
  unsigned arrived_ = 0;
  std::vector<std::uint64_t> arrived_in_;  // generation + 1 of each member's last arrival
  std::vector<bool> finished_;
  std::vector<std::source_location> where_;
  std::vector<std::string> names_;
  std::string broken_;
  std::atomic<bool> broken_flag_{false};
};

}  // namespace weft::detail
