// The stackless block executor: runs every CUDA thread of a block as a
// C++20 coroutine (a stackless kernel's, weft/stackless_kernel.hpp) on the
// worker's own stack, where the fiber executor (executor/block_executor.hpp)
// gives each thread that waits a stack of its own.
//
// A block runs in rounds. The first starts the threads in order, each
// running until it co_awaits a barrier or returns; each later round resumes
// the threads that wait, in the same order, until the next barrier. A
// thread's state between rounds is its coroutine frame, which comes from
// the worker's frame arena (frame_arena.hpp), so a block's frames are
// contiguous and a block allocates nothing once the arena fits them. A
// barrier costs a resume (an indirect call) per thread and no context
// switch: the 2.3-4.1 ns per thread and barrier of the prototype in issue 17.
//
// The rules are the fiber executor's, with its reports
// (executor/block_reports.hpp): threads that exited count as arrived at a
// barrier (sm_70 and later); threads that reach different barrier calls
// fail the block with a barrier divergence report; an exception escaping a
// thread fails the block naming the thread, its other threads do not start
// and those that wait are destroyed where they wait, so that their
// destructors run. With block barriers alone a block cannot deadlock: every
// round ends with each thread at a barrier or exited.
//
// A thread that waits inside a stackless function it awaits
// (stackless_function.hpp) is listed by its own coroutine all the same,
// whose promise says which frame to resume (resume).
//
// Warp collectives (co_await weft::shfl_sync(...), ..., warp_awaiter.hpp)
// meet within a round, as on the fiber executor: a lane deposits its operand
// in its warp's exchange and joins the open group of its mask, checked as
// the fiber executor checks it; it suspends there unless it is the last to
// arrive, which computes every lane's result (warp_arithmetic.hpp), queues
// the others in lane order and carries on. The round runs the queued lanes
// after the thread that released them suspends, before the next thread.
// A round that ends with lanes still in a group is a stall (a lane the
// group needs exited or waits at the block barrier): the block fails with
// the fiber executor's report.
//
// __activemask (co_await weft::activemask(), activemask_awaiter.hpp) waits,
// as on fibers, until no other thread of the block can run: at the round's
// end, the threads there get the lanes of their warp waiting at the same
// call, and run on before the barrier completes.
#pragma once

#include <algorithm>
#include <bit>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/text_format.hpp"
#include "weft/detail/coroutine_executor/frame_arena.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/executor/block_reports.hpp"
#include "weft/detail/executor/builtin_variables.hpp"
#include "weft/detail/executor/shared_guard_poisoning.hpp"
#include "weft/detail/executor/warp_arithmetic.hpp"
#include "weft/detail/executor/warp_reports.hpp"

namespace weft::detail {

/// Where a stackless thread waits: kept in its coroutine frame (the
/// promise), which the barrier touches anyway, and read only by a report.
struct barrier_arrival {
  barrier_kind kind{};
  std::source_location where{};
};

class stackless_block_executor {
 public:
  stackless_block_executor() = default;
  stackless_block_executor(const stackless_block_executor&) = delete;
  stackless_block_executor& operator=(const stackless_block_executor&) = delete;

  /// Runs blocks [first, end) of a grid, one after another. `start()` calls
  /// the kernel for the thread threadIdx names and returns what the call
  /// returns (whose handle() is the thread's coroutine, valid while it
  /// waits). `host` is the worker's fiber executor: its dynamic shared
  /// memory is the blocks' (a cluster publishes it), and it counts the
  /// blocks for the SM pool's watchdog. On failure, returns the code and
  /// the report, and the remaining blocks are skipped.
  template <class StartThread>
  [[gnu::no_sanitize_address]] block_failure run(StartThread& start, const block_range& blocks, block_executor& host,
                                                 std::size_t dynamic_shared_bytes);

  /// A thread arrives at a block barrier and is about to suspend; the
  /// counting flavours' result is to be written to `*result`.
  void arrive(barrier_arrival& arrival, barrier_kind kind, int predicate, std::source_location where,
              int* result) noexcept {
    if (kind != barrier_kind::sync) barrier_result_into_[running_id_] = result;
    arrival.kind = kind;
    arrival.where = where;
    if (arrivals_ == 0) {
      phase_kind_ = kind;
      phase_where_ = where;
    } else if (kind != phase_kind_ || !same_source_bytes(where, phase_where_)) [[unlikely]] {
      note_other_call_site(kind, where);
    }
    ++arrivals_;
    predicate_count_ += predicate != 0;
  }

  /// A lane arrives at a warp collective (warp_awaiter.hpp): true if its
  /// arrival completes the group, whose results are then ready (the lane's
  /// in `result`), false if it is to suspend, parked in the group until
  /// that completes and writes its result to `result`. (Where it resumes is
  /// the thread's entry in threads_, written once as it starts.) Throws the
  /// fiber executor's report for a mask that cannot complete.
  bool warp_arrive(warp_op op, unsigned mask, warp_operand operand, std::source_location where, std::uint64_t& result);

  /// The running thread waits at __activemask (activemask_awaiter.hpp) and
  /// is about to suspend; its mask is to be written to `*mask` once no other
  /// thread of the block can run (converge).
  void park_at_activemask(std::coroutine_handle<> handle, std::source_location where, unsigned* mask) {
    converging_.push_back({{handle, threadIdx, running_id_}, where, mask});
    parked_now_ = true;
  }

  /// The running thread let an exception escape (its promise's
  /// unhandled_exception): the block fails as on the fiber executor.
  [[gnu::cold]] void fail_running_thread(std::exception_ptr error) noexcept;

  /// The memory check (scheduler/memory_check.hpp) found a bad access by the
  /// running thread: the block fails as on the fiber executor.
  [[gnu::cold]] void fail_bad_access(const std::string& report) {
    fail(reports::describe_thread(threadIdx) + ": illegal address: " + report, cudaErrorIllegalAddress);
  }

  /// The worker's fiber executor, whose dynamic shared memory the running
  /// blocks use (null between runs).
  const block_executor* host() const { return host_; }

  /// The bytes of coroutine frames the block has taken so far.
  std::size_t frame_bytes() const { return frames_.used(); }

 private:
  struct waiting_thread {
    std::coroutine_handle<> handle;
    uint3 index;
    unsigned id;  // linear
  };
  // Lanes of one warp that a completed warp group (or __activemask)
  // released, to run in lane order: one entry per group, not a copy of
  // each lane's waiting_thread.
  struct ready_lanes {
    unsigned warp;
    unsigned lanes;
  };

  // The loop that runs a block's threads, and what it calls per thread
  // and per barrier, touch only the executor's own memory: in a build with
  // AddressSanitizer they are not instrumented, since ASan's checks there,
  // and its calls for each copy of a thread's 12-byte index, were nearly
  // half of a barrier kernel's time (docs/debugging.md, "What each mode
  // costs"). The kernel's code is: it is not inlined into them (a function
  // is inlined only into one that is instrumented alike).
  template <class StartThread>
  [[gnu::no_sanitize_address]] void run_block(StartThread& start);
  // Resumes a waiting thread where it waits: in its own body, or in a
  // stackless function it awaits (defined in stackless_thread.hpp).
  [[gnu::no_sanitize_address]] static void resume(const waiting_thread& thread);
  void start_warps();
  warp_group* join_other_group(warp_op op, unsigned mask, unsigned warp, unsigned lane, std::source_location where);
  void complete_group(unsigned warp, warp_group& g, unsigned caller_bit);
  void converge();
  [[gnu::cold]] void destroy_parked();
  [[gnu::cold]] std::string stall_report(const waiting_thread* waiting, unsigned count) const;
  [[gnu::cold]] void append_barrier_waiters(std::string& text, const waiting_thread* waiting, unsigned count) const;
  [[gnu::no_sanitize_address]] bool complete_barrier(const waiting_thread* waiting, unsigned count);
  [[gnu::no_sanitize_address]] void advance(uint3& index) const;
  [[gnu::cold]] void fail(const std::string& message, cudaError_t code = cudaErrorLaunchFailure);
  [[gnu::cold]] void fail_from_signal(const signal_fault& fault);
  [[gnu::cold]] static void destroy(const waiting_thread* first, const waiting_thread* last);
  // A thread arrived at another barrier kind or another source_location
  // than the round's first: a divergence unless the two name one call site
  // (the same file, line and column in other bytes).
  [[gnu::cold, gnu::noinline]] void note_other_call_site(barrier_kind kind, std::source_location where) noexcept {
    if (kind != phase_kind_ || !same_call_site(where, phase_where_)) diverged_ = true;
  }
  [[gnu::cold]] std::string divergence_report(const waiting_thread* waiting, unsigned count) const;

  frame_arena frames_;
  const block_executor* host_ = nullptr;
  unsigned thread_count_ = 0;
  // The threads that wait at the barrier, in the order they run next, and
  // the list the running round fills for the next: each has room for the
  // block and list_front_room more in front (see run_block).
  static constexpr unsigned list_front_room = 32;
  std::vector<waiting_thread> lists_[2];
  // The barrier the running round's threads arrive at: the first
  // arrival's, against which the others are checked.
  unsigned arrivals_ = 0;
  unsigned predicate_count_ = 0;
  barrier_kind phase_kind_{};
  std::source_location phase_where_{};
  bool diverged_ = false;
  // Per thread (linear id), where a counting barrier's result goes: into
  // the awaiter, not read from here as the thread resumes (warp_awaiter.hpp
  // says why).
  std::vector<int*> barrier_result_into_;
  block_failure failure_;
  // Warp collectives, laid out as the fiber executor's: per warp the
  // exchange, up to 32 open groups (groups_[warp * 32 + i] for i <
  // group_count_[warp]), the lanes that have exited and the lanes the
  // block has (all 32 but in a partial last warp); per thread (linear id)
  // its coroutine and index, written as it starts, and where a lane parked
  // in a group takes its result; the lanes released by completed groups, to
  // run next (ready_[ready_head_...]).
  std::vector<warp_exchange> exchange_;
  std::vector<warp_group> groups_;
  std::vector<unsigned> group_count_;
  std::vector<unsigned> exited_;
  std::vector<unsigned> block_lanes_;
  std::vector<waiting_thread> threads_;
  std::vector<std::uint64_t*> result_into_;
  std::vector<ready_lanes> ready_;
  std::size_t ready_head_ = 0;
  // The threads waiting at __activemask, in the order they arrived.
  struct converging_thread {
    waiting_thread thread;
    std::source_location where;
    unsigned* mask;
  };
  std::vector<converging_thread> converging_;
  unsigned warp_parked_ = 0;  // lanes parked in groups
  unsigned running_id_ = 0;   // the running thread's linear id
  bool parked_now_ = false;   // the thread that just suspended did so in a group or at __activemask
};

template <class StartThread>
block_failure stackless_block_executor::run(StartThread& start, const block_range& blocks, block_executor& host,
                                            std::size_t dynamic_shared_bytes) {
  host.reserve_dynamic_shared(dynamic_shared_bytes);
  gridDim = blocks.grid;
  blockDim = blocks.block;
  thread_count_ = static_cast<unsigned>(volume(blocks.block));
  for (auto& list : lists_)
    if (list.size() < thread_count_ + list_front_room) list.resize(thread_count_ + list_front_room);
  unsigned warps = (thread_count_ + 31) / 32;
  if (exchange_.size() < warps) {
    exchange_.resize(warps);
    groups_.resize(warps * 32);
    group_count_.resize(warps);
    exited_.resize(warps);
    block_lanes_.resize(warps);
  }
  for (unsigned w = 0; w < warps; ++w) block_lanes_[w] = lanes_in_block(thread_count_, w);
  if (threads_.size() < thread_count_) {
    threads_.resize(thread_count_);
    result_into_.resize(thread_count_);
    barrier_result_into_.resize(thread_count_);
  }
  ready_.reserve(thread_count_);
  converging_.reserve(thread_count_);
  failure_ = {};
  poison_shared_guards();
  running_stackless_block = this;
  host_ = &host;
  running_stackless_shared = host.dynamic_shared();
  running_frame_arena = &frames_;
  // A fault in kernel code (a wild pointer, a division by zero) lands here,
  // as the fiber executor's abandons the faulting fiber: the block fails.
  fault_landing landing;
  running_fault_landing = &landing;
  if (sigsetjmp(landing.jump, 0) == 0) {
    for (std::uint64_t claim = blocks.first; claim != blocks.end && !failure_; ++claim) {
      std::uint64_t block = blocks.claim_order.is_identity() ? claim : blocks.claim_order(claim);
      blockIdx = unflatten(block, blocks.grid);
      host.count_block_run_elsewhere();
      run_block(start);
    }
  } else {
    fail_from_signal(landing.fault);
  }
  running_fault_landing = nullptr;
  running_stackless_block = nullptr;
  host_ = nullptr;
  running_stackless_shared = nullptr;
  running_frame_arena = nullptr;
  return std::move(failure_);
}

// A thread that suspended at the barrier bumped arrivals_; one that
// suspended in a warp group set parked_now_; one that returned (or threw)
// did neither. Those compares per thread are all the loop asks of a thread.
//
// The order is the fiber executor's, so that a kernel whose result depends
// on it (a race, the first thread to fail) gives the same on both: threads
// start in order; the thread whose arrival completes a barrier runs on
// first, then the others in the order they arrived. (A barrier that the
// last thread's exit completes has no such thread.) Lanes that a warp
// collective releases run, in lane order, as soon as the thread that
// released them suspends. A round writes the threads that arrive from the
// second place of the other list on, so that the last, if it arrived last,
// moves to the front with one copy.
template <class StartThread>
void stackless_block_executor::run_block(StartThread& start) {
  frames_.start_block();
  start_warps();
  arrivals_ = 0;
  predicate_count_ = 0;
  diverged_ = false;
  waiting_thread* next = lists_[0].data() + list_front_room;
  unsigned waiting_list = 0;  // the list that holds the threads the round resumes
  unsigned kept = 0;
  bool last_arrived = false;
  // Where the thread that just ran went; false if it failed the block.
  // (A lambda does not take its function's attributes: it is given them.)
  auto file = [&](const waiting_thread& thread, unsigned arrivals_before) __attribute__((no_sanitize_address)) {
    last_arrived = arrivals_ != arrivals_before;
    if (last_arrived) {
      next[kept++] = thread;
    } else if (parked_now_) {
      parked_now_ = false;
    } else if (failure_) [[unlikely]] {
      return false;
    } else {
      exited_[thread.id / 32] |= 1u << (thread.id % 32);
    }
    return true;
  };
  // Runs the lanes that warp collectives released, and those they release.
  // Outside it the queue is empty, so a thread's run asks only !empty().
  // A group's lanes run from a copy of its entry's mask in a register: the
  // next lane never waits on a store the lane before made.
  auto run_ready = [&]() __attribute__((no_sanitize_address)) {
    while (ready_head_ != ready_.size()) {
      ready_lanes entry = ready_[ready_head_++];
      for (unsigned m = entry.lanes; m != 0; m &= m - 1) {
        const waiting_thread& thread = threads_[entry.warp * 32 + static_cast<unsigned>(std::countr_zero(m))];
        threadIdx = thread.index;
        running_id_ = thread.id;
        unsigned before = arrivals_;
        resume(thread);
        if (!file(thread, before)) [[unlikely]] {
          ready_[--ready_head_] = {entry.warp, m & (m - 1)};  // the lanes after it, for abandon
          return false;
        }
      }
    }
    ready_.clear();
    ready_head_ = 0;
    return true;
  };
  auto abandon = [&](const waiting_thread* rest, const waiting_thread* rest_end) {
    destroy(next, next + kept);
    destroy(rest, rest_end);
    for (std::size_t i = ready_head_; i < ready_.size(); ++i)
      for (unsigned m = ready_[i].lanes; m != 0; m &= m - 1)
        threads_[ready_[i].warp * 32 + static_cast<unsigned>(std::countr_zero(m))].handle.destroy();
    ready_.clear();
    ready_head_ = 0;
    destroy_parked();
  };
  uint3 index{0, 0, 0};
  for (unsigned t = 0; t < thread_count_; ++t) {
    threadIdx = index;
    running_id_ = t;
    unsigned before = arrivals_;
    std::coroutine_handle<> handle;
    try {
      handle = start().handle();
    } catch (...) {  // no room for its frame: the body has not run
      fail_running_thread(std::current_exception());
    }
    threads_[t] = {handle, index, t};
    if (!file(threads_[t], before) || (!ready_.empty() && !run_ready())) [[unlikely]] {
      abandon(nullptr, nullptr);
      return;
    }
    advance(index);
  }
  for (;;) {
    // No thread can run until those at __activemask get their masks.
    while (!converging_.empty()) {
      converge();
      if (!run_ready()) {
        abandon(nullptr, nullptr);
        return;
      }
    }
    if (warp_parked_ != 0) [[unlikely]] {
      fail(stall_report(next, kept));
      abandon(nullptr, nullptr);
      return;
    }
    if (kept == 0) return;
    waiting_thread* waiting = next - 1;
    if (last_arrived)
      waiting[0] = waiting[kept];
    else
      ++waiting;
    unsigned count = kept;
    if (!complete_barrier(waiting, count)) {
      destroy(waiting, waiting + count);
      return;
    }
    // While every thread arrives in the order it runs, with no lane or
    // exit between, the next round's list is this one with the last in
    // front: the round then writes no list (kept counts the threads of
    // waiting[] that arrived) and moves the last into the slot before the
    // first, while the list has room in front. The first thread out of
    // order writes those that arrived before it to the other list, as
    // every thread of a round without that room does.
    bool in_order = waiting != lists_[waiting_list].data();
    next = lists_[1 - waiting_list].data() + list_front_room;
    kept = 0;
    for (unsigned r = 0; r < count; ++r) {
      // A reference: read again after the resume rather than kept across
      // it (GCC spilled the copy to the stack and back).
      const waiting_thread& thread = waiting[r];
      threadIdx = thread.index;
      running_id_ = thread.id;
      unsigned before = arrivals_;
      resume(thread);
      if (in_order) {
        if (arrivals_ != before && ready_.empty()) [[likely]] {
          ++kept;
          continue;
        }
        std::copy(waiting, waiting + kept, next);
        in_order = false;
      }
      if (!file(thread, before) || (!ready_.empty() && !run_ready())) [[unlikely]] {
        abandon(waiting + r + 1, waiting + count);
        return;
      }
    }
    if (in_order) {  // every thread arrived, in order: the list stays where it is
      next = waiting;
      last_arrived = true;
    } else {
      waiting_list = 1 - waiting_list;
    }
  }
}

// ---- Warp collectives ----

inline void stackless_block_executor::start_warps() {
  unsigned warps = (thread_count_ + 31) / 32;
  std::fill(group_count_.begin(), group_count_.begin() + warps, 0u);
  std::fill(exited_.begin(), exited_.begin() + warps, 0u);
  warp_parked_ = 0;
  parked_now_ = false;
  converging_.clear();
}

// A mask that names lanes past the block's end means the lanes that do,
// as on the fiber executor (and on an H100). The lane's group is nearly
// always the warp's first open one (a whole-warp collective opens only
// one): that is tested inline, anything else is join_other_group's.
inline bool stackless_block_executor::warp_arrive(warp_op op, unsigned mask, warp_operand operand,
                                                  std::source_location where, std::uint64_t& result) {
  unsigned self = running_id_, warp = self / 32, lane = self % 32, lane_bit = 1u << lane;
  mask &= block_lanes_[warp];
  exchange_[warp].stage(lane, operand);
  warp_group* group = &groups_[warp * 32];
  if (group_count_[warp] == 0 || group->mask != mask || group->op != op) [[unlikely]]
    group = join_other_group(op, mask, warp, lane, where);
  group->arrived |= lane_bit;
  if (group->arrived != mask) {
    ++warp_parked_;
    result_into_[self] = &result;
    parked_now_ = true;
    return false;
  }
  complete_group(warp, *group, lane_bit);
  result = exchange_[warp].result[lane];
  return true;
}

// The open group of the lane's mask, or a new one; throws the fiber
// executor's report for a mask that cannot complete.
[[gnu::noinline]] inline warp_group* stackless_block_executor::join_other_group(warp_op op, unsigned mask,
                                                                                unsigned warp, unsigned lane,
                                                                                std::source_location where) {
  unsigned lane_bit = 1u << lane;
  warp_group* group = find_warp_group(&groups_[warp * 32], group_count_[warp], mask);
  if (!group) {
    if (const warp_group* blocked = blocking_warp_group(&groups_[warp * 32], group_count_[warp], mask, lane_bit))
      throw kernel_fault{cudaErrorLaunchFailure, reports::group_mismatch(warp, *blocked, op, mask, lane, where)};
    // The first lane checks the mask for the group, as on fibers; a lane
    // that exits later while the group waits is found at the round's end.
    if (!(mask & lane_bit) || (mask & exited_[warp])) [[unlikely]]
      throw kernel_fault{cudaErrorLaunchFailure,
                         reports::refused_mask(warp, op, mask, lane, mask & exited_[warp], where)};
    group = &groups_[warp * 32 + group_count_[warp]++];
    *group = {mask, 0, op, where};
  } else if (group->op != op) [[unlikely]] {
    throw kernel_fault{cudaErrorLaunchFailure, reports::group_mismatch(warp, *group, op, mask, lane, where)};
  }
  return group;
}

// Run by the last lane to arrive: every lane's result into the exchange and
// each waiting lane's awaiter, the others queued in lane order (one entry),
// the group closed.
[[gnu::noinline]] inline void stackless_block_executor::complete_group(unsigned warp, warp_group& g,
                                                                       unsigned caller_bit) {
  warp_exchange& exchange = exchange_[warp];
  warp_results(g.op, g.mask, exchange);
  unsigned waiters = g.arrived & ~caller_bit;
  warp_parked_ -= static_cast<unsigned>(std::popcount(waiters));
  for (unsigned m = waiters; m != 0; m &= m - 1) {
    unsigned lane = static_cast<unsigned>(std::countr_zero(m));
    *result_into_[warp * 32 + lane] = exchange.result[lane];
  }
  if (waiters != 0) ready_.push_back({warp, waiters});
  g = groups_[warp * 32 + --group_count_[warp]];  // close: the last open group takes its place
}

// No thread of the block can run (the round has ended): each thread at
// __activemask gets the lanes of its warp waiting at the same call, and
// they run in the fiber executor's order: the thread that ran last, if it
// waits here, first (on fibers it finds the others and runs on), then the
// others in the order they arrived.
inline void stackless_block_executor::converge() {
  for (converging_thread& t : converging_) {
    unsigned mask = 0;
    for (const converging_thread& o : converging_)
      if (o.thread.id / 32 == t.thread.id / 32 && same_call_site(o.where, t.where)) mask |= 1u << (o.thread.id % 32);
    *t.mask = mask;
  }
  auto queue = [&](const converging_thread& t) { ready_.push_back({t.thread.id / 32, 1u << (t.thread.id % 32)}); };
  bool last_runs_first = converging_.back().thread.id == running_id_;
  if (last_runs_first) queue(converging_.back());
  for (std::size_t i = 0; i + last_runs_first < converging_.size(); ++i) queue(converging_[i]);
  converging_.clear();
}

// The block failed: lanes parked in groups or at __activemask are destroyed
// where they wait.
inline void stackless_block_executor::destroy_parked() {
  for (const converging_thread& t : converging_) t.thread.handle.destroy();
  converging_.clear();
  unsigned warps = (thread_count_ + 31) / 32;
  for (unsigned w = 0; w < warps; ++w) {
    for (unsigned i = 0; i < group_count_[w]; ++i)
      for (unsigned m = groups_[w * 32 + i].arrived; m != 0; m &= m - 1)
        threads_[w * 32 + std::countr_zero(m)].handle.destroy();
    group_count_[w] = 0;
  }
  warp_parked_ = 0;
}

// Every thread that has not exited waits at the barrier: it completes,
// unless they wait at different ones.
inline bool stackless_block_executor::complete_barrier(const waiting_thread* waiting, unsigned count) {
  if (diverged_) [[unlikely]] {
    fail(divergence_report(waiting, count));
    return false;
  }
  if (phase_kind_ != barrier_kind::sync) {
    int result = barrier_result(phase_kind_, predicate_count_, arrivals_);
    for (unsigned r = 0; r < count; ++r) *barrier_result_into_[waiting[r].id] = result;
  }
  arrivals_ = 0;
  predicate_count_ = 0;
  return true;
}

inline void stackless_block_executor::advance(uint3& index) const {
  if (++index.x < blockDim.x) return;
  index.x = 0;
  if (++index.y < blockDim.y) return;
  index.y = 0;
  ++index.z;
}

inline void stackless_block_executor::fail(const std::string& message, cudaError_t code) {
  if (failure_) return;
  std::string text = "block " + reports::describe_index(blockIdx);
  text += ", ";
  text += message;
  failure_ = {code, std::move(text)};
}

// Back from the signal handler, which jumped out of the faulting thread:
// threadIdx still names it (the loop stores it before each resume). The
// block's frames are dropped without running their destructors, as the
// fiber executor drops a faulting fiber's stack (the arena's next block
// reuses their memory; a frame the arena could not hold stays allocated).
inline void stackless_block_executor::fail_from_signal(const signal_fault& fault) {
  ready_.clear();
  ready_head_ = 0;
  warp_parked_ = 0;
  parked_now_ = false;
  fail(reports::describe_thread(threadIdx) + ": " + describe_signal_fault(fault), launch_error(fault));
}

inline void stackless_block_executor::fail_running_thread(std::exception_ptr error) noexcept {
  try {
    try {
      std::rethrow_exception(error);
    } catch (const kernel_fault& fault) {
      fail(reports::describe_thread(threadIdx) + ": " + fault.what, fault.code);
    } catch (...) {
      fail(reports::describe_thread(threadIdx) + ": " + reports::describe_exception(error));
    }
  } catch (...) {  // no memory for the report: the block fails all the same
    failure_ = {cudaErrorLaunchFailure, {}};
  }
}

// The block failed: the threads that still wait are destroyed where they
// wait, which runs the destructors of what they hold, as the fiber
// executor's unwinding does.
inline void stackless_block_executor::destroy(const waiting_thread* first, const waiting_thread* last) {
  for (; first != last; ++first) first->handle.destroy();
}

}  // namespace weft::detail
