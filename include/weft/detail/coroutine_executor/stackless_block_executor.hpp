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
//
// A thread that waits on a block-scope cuda::barrier (or a block pipeline's
// stage) parks on it; the arrival that completes the phase makes it ready,
// as a warp group's completion does. A grid or cluster sync is a block
// barrier whose completion also has the worker wait for the other blocks
// (block_group_barrier.hpp), on its own thread: those launches give each
// block a worker of its own.
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

#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/text_format.hpp"
#include "weft/detail/checks/shared_guards.hpp"
#include "weft/detail/coroutine_executor/frame_arena.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/executor/block_group_barrier.hpp"
#include "weft/detail/executor/block_reports.hpp"
#include "weft/detail/executor/warp_arithmetic.hpp"
#include "weft/detail/executor/warp_reports.hpp"
#include "weft/detail/fibers/fiber_sanitizer.hpp"

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

  /// A thread arrives at a barrier between blocks (grid.sync(),
  /// cluster.sync(): block_set_awaiter.hpp) and is about to suspend. It is a
  /// block barrier first; once every thread of the block waits there, the
  /// worker arrives at `between` for the whole block, as member `member`,
  /// and waits on it (the block has its own worker in such a launch), then
  /// the threads run on. Null `between`: a plain block barrier (a cluster
  /// sync in a launch without clusters).
  void arrive_between_blocks(barrier_arrival& arrival, block_group_barrier* between, unsigned member,
                             std::source_location where) noexcept {
    arrive(arrival, barrier_kind::sync, 0, where, nullptr);
    if (between) {
      between_blocks_ = between;
      between_member_ = member;
    }
  }

  /// A lane arrives at a warp collective (warp_awaiter.hpp): true if its
  /// arrival completes the group, whose results are then ready, false if
  /// it is to suspend (park_in_warp). Throws the fiber executor's report
  /// for a mask that cannot complete. Like the block loop (run_block), it
  /// touches only the executor's memory: in an ASan build it is not
  /// instrumented, and `flatten` has Clang inline what it calls (the
  /// vectors' accessors, complete_group) uninstrumented too, where they
  /// would otherwise stay calls; GCC keeps them calls (docs/debugging.md,
  /// "What each mode costs").
  [[gnu::no_sanitize_address, gnu::flatten]] bool warp_arrive(warp_op op, unsigned mask, warp_operand operand,
                                                              std::source_location where);

  /// The lane that warp_arrive told to suspend does; its result is to be
  /// written to `result` when the group completes.
  void park_in_warp(std::coroutine_handle<> handle, warp_result& result) noexcept {
    parked_[running_id_] = {handle, threadIdx, running_id_};
    result_into_[running_id_] = &result;
    parked_now_ = true;
  }

  /// The running thread waits at __activemask (activemask_awaiter.hpp) and
  /// is about to suspend; its mask is to be written to `*mask` once no other
  /// thread of the block can run (converge).
  void park_at_activemask(std::coroutine_handle<> handle, std::source_location where, unsigned* mask) {
    converging_.push_back({{handle, threadIdx, running_id_}, where, mask});
    parked_now_ = true;
  }

  /// The running thread waits on a synchronisation object of CUDA's library
  /// (a block-scope cuda::barrier's state: weft/stackless_barrier.hpp) and is
  /// about to suspend, until another thread of the block calls
  /// wake_all(object). `what` and `describe` name the wait in a deadlock
  /// report, as on fibers (block_executor::wait_on).
  void park_on_object(std::coroutine_handle<> handle, const void* object, const char* what,
                      std::string (*describe)(const void*), std::source_location where) {
    on_objects_.push_back({{handle, threadIdx, running_id_}, object, what, describe, where});
    parked_now_ = true;
  }

  /// Makes the threads parked on `object` ready, in the order they parked:
  /// they run once the running thread suspends, before the round's next.
  void wake_all(const void* object) {
    auto kept = on_objects_.begin();
    for (const object_waiter& w : on_objects_) {
      if (w.object == object)
        ready_.push_back(w.thread);
      else
        *kept++ = w;
    }
    on_objects_.erase(kept, on_objects_.end());
  }

  /// The running lane's result of the warp collective it just completed.
  warp_result warp_result_of_running() const noexcept {
    std::uint64_t value = exchange_[running_id_ / 32].result[running_id_ % 32];
    return {value, value != 0};  // the predicate is match_all's: 0 or the (non-empty) mask
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
  void complete_group(unsigned warp, warp_group& g, unsigned caller_bit);
  // warp_arrive's refusals, out of line so that its `flatten` leaves the
  // reports' text alone.
  [[noreturn, gnu::cold, gnu::noinline]] static void refuse_group_mismatch(unsigned warp, const warp_group& open,
                                                                           warp_op op, unsigned mask, unsigned lane,
                                                                           std::source_location where) {
    throw kernel_fault{cudaErrorLaunchFailure, reports::group_mismatch(warp, open, op, mask, lane, where)};
  }
  [[noreturn, gnu::cold, gnu::noinline]] static void refuse_mask(unsigned warp, warp_op op, unsigned mask,
                                                                 unsigned lane, unsigned exited,
                                                                 std::source_location where) {
    throw kernel_fault{cudaErrorLaunchFailure, reports::refused_mask(warp, op, mask, lane, exited, where)};
  }
  void converge();
  [[gnu::cold]] void destroy_parked();
  [[gnu::cold]] std::string stall_report(const waiting_thread* waiting, unsigned count) const;
  [[gnu::cold]] void append_barrier_waiters(std::string& text, const waiting_thread* waiting, unsigned count) const;
  [[gnu::no_sanitize_address]] bool complete_barrier(const waiting_thread* waiting, unsigned count);
  [[gnu::cold]] bool meet_other_blocks(const waiting_thread* waiting);
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
  // The barrier between blocks that the round's barrier also waits at, if
  // any (arrive_between_blocks), and the block's member number there.
  block_group_barrier* between_blocks_ = nullptr;
  unsigned between_member_ = 0;
  // Per thread (linear id), where a counting barrier's result goes: into
  // the awaiter, not read from here as the thread resumes (warp_awaiter.hpp
  // says why).
  std::vector<int*> barrier_result_into_;
  block_failure failure_;
  // Warp collectives, laid out as the fiber executor's: per warp the
  // exchange, up to 32 open groups (groups_[warp * 32 + i] for i <
  // group_count_[warp]) and the lanes that have exited; per thread (linear
  // id) where a lane parked in a group resumes; the lanes released by a
  // completed group, to run next (ready_[ready_head_...]).
  std::vector<warp_exchange> exchange_;
  std::vector<warp_group> groups_;
  std::vector<unsigned> group_count_;
  std::vector<unsigned> exited_;
  std::vector<waiting_thread> parked_;
  std::vector<warp_result*> result_into_;
  std::vector<waiting_thread> ready_;
  std::size_t ready_head_ = 0;
  // The threads waiting at __activemask, in the order they arrived.
  struct converging_thread {
    waiting_thread thread;
    std::source_location where;
    unsigned* mask;
  };
  std::vector<converging_thread> converging_;
  // The threads parked on objects (park_on_object), in the order they parked.
  struct object_waiter {
    waiting_thread thread;
    const void* object;
    const char* what;
    std::string (*describe)(const void*);
    std::source_location where;
  };
  std::vector<object_waiter> on_objects_;
  unsigned warp_parked_ = 0;  // lanes parked in groups
  unsigned running_id_ = 0;   // the running thread's linear id
  bool parked_now_ = false;   // the thread that just suspended did so in a group, at __activemask or on an object
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
  }
  if (parked_.size() < thread_count_) {
    parked_.resize(thread_count_);
    result_into_.resize(thread_count_);
    barrier_result_into_.resize(thread_count_);
  }
  ready_.reserve(thread_count_);
  converging_.reserve(thread_count_);
  failure_ = {};
  if constexpr (fiber_sanitizer::address_sanitizer) poison_shared_guards();
  running_stackless_block = this;
  wake_stackless_waiters = [](const void* object) { running_stackless_block->wake_all(object); };
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
  wake_stackless_waiters = nullptr;
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
  between_blocks_ = nullptr;
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
  auto run_ready = [&]() __attribute__((no_sanitize_address)) {
    while (ready_head_ != ready_.size()) {
      waiting_thread thread = ready_[ready_head_++];
      threadIdx = thread.index;
      running_id_ = thread.id;
      unsigned before = arrivals_;
      resume(thread);
      if (!file(thread, before)) return false;
    }
    ready_.clear();
    ready_head_ = 0;
    return true;
  };
  auto abandon = [&](const waiting_thread* rest, const waiting_thread* rest_end) {
    destroy(next, next + kept);
    destroy(rest, rest_end);
    destroy(ready_.data() + ready_head_, ready_.data() + ready_.size());
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
    if (!file({handle, index, t}, before) || (!ready_.empty() && !run_ready())) [[unlikely]] {
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
    if (warp_parked_ != 0 || !on_objects_.empty()) [[unlikely]] {
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
  on_objects_.clear();
}

// A mask that names lanes past the block's end means the lanes that do,
// as on the fiber executor (and on an H100).
inline bool stackless_block_executor::warp_arrive(warp_op op, unsigned mask, warp_operand operand,
                                                  std::source_location where) {
  unsigned self = running_id_, warp = self / 32, lane = self % 32, lane_bit = 1u << lane;
  mask &= lanes_in_block(thread_count_, warp);
  warp_exchange& exchange = exchange_[warp];
  exchange.stage(lane, operand);
  warp_group* group = find_warp_group(&groups_[warp * 32], group_count_[warp], mask);
  if (!group) [[unlikely]] {
    if (const warp_group* blocked = blocking_warp_group(&groups_[warp * 32], group_count_[warp], mask, lane_bit))
      refuse_group_mismatch(warp, *blocked, op, mask, lane, where);
    // The first lane checks the mask for the group, as on fibers; a lane
    // that exits later while the group waits is found at the round's end.
    if (!(mask & lane_bit) || (mask & exited_[warp])) [[unlikely]]
      refuse_mask(warp, op, mask, lane, mask & exited_[warp], where);
    group = &groups_[warp * 32 + group_count_[warp]++];
    *group = {mask, 0, op, where};
  } else if (group->op != op) [[unlikely]] {
    refuse_group_mismatch(warp, *group, op, mask, lane, where);
  }
  group->arrived |= lane_bit;
  if (group->arrived != mask) {
    ++warp_parked_;
    return false;
  }
  complete_group(warp, *group, lane_bit);
  return true;
}

// Run by the last lane to arrive: every lane's result into the exchange and
// each waiting lane's awaiter, the others queued in lane order, the group
// closed.
inline void stackless_block_executor::complete_group(unsigned warp, warp_group& g, unsigned caller_bit) {
  warp_exchange& exchange = exchange_[warp];
  warp_results(g.op, g.mask, exchange);
  unsigned waiters = g.arrived & ~caller_bit;
  warp_parked_ -= static_cast<unsigned>(std::popcount(waiters));
  for (unsigned m = waiters; m != 0; m &= m - 1) {
    unsigned lane = static_cast<unsigned>(std::countr_zero(m)), id = warp * 32 + lane;
    std::uint64_t value = exchange.result[lane];
    *result_into_[id] = {value, value != 0};  // the predicate is match_all's: 0 or the (non-empty) mask
    ready_.push_back(parked_[id]);
  }
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
  bool last_runs_first = converging_.back().thread.id == running_id_;
  if (last_runs_first) ready_.push_back(converging_.back().thread);
  for (std::size_t i = 0; i + last_runs_first < converging_.size(); ++i) ready_.push_back(converging_[i].thread);
  converging_.clear();
}

// The block failed: lanes parked in groups or at __activemask are destroyed
// where they wait.
inline void stackless_block_executor::destroy_parked() {
  for (const converging_thread& t : converging_) t.thread.handle.destroy();
  converging_.clear();
  for (const object_waiter& w : on_objects_) w.thread.handle.destroy();
  on_objects_.clear();
  unsigned warps = (thread_count_ + 31) / 32;
  for (unsigned w = 0; w < warps; ++w) {
    for (unsigned i = 0; i < group_count_[w]; ++i)
      for (unsigned m = groups_[w * 32 + i].arrived; m != 0; m &= m - 1)
        parked_[w * 32 + std::countr_zero(m)].handle.destroy();
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
  if (between_blocks_ && !meet_other_blocks(waiting)) [[unlikely]]
    return false;
  if (phase_kind_ != barrier_kind::sync) {
    int result = barrier_result(phase_kind_, predicate_count_, arrivals_);
    for (unsigned r = 0; r < count; ++r) *barrier_result_into_[waiting[r].id] = result;
  }
  arrivals_ = 0;
  predicate_count_ = 0;
  return true;
}

// Every thread of the block waits at a grid or cluster barrier: the worker
// arrives for the block and waits for the other blocks, as the fiber
// executor's first thread to run after the block barrier does
// (cooperative_groups/block_set_sync.hpp). That thread is the one that runs
// first next, waiting[0], which a barrier that can never complete fails.
inline bool stackless_block_executor::meet_other_blocks(const waiting_thread* waiting) {
  block_group_barrier* between = std::exchange(between_blocks_, nullptr);
  try {
    between->arrive_and_wait(between_member_, "block " + reports::describe_index(blockIdx), phase_where_);
  } catch (const kernel_fault& fault) {
    fail(reports::describe_thread(waiting[0].index) + ": " + fault.what, fault.code);
    return false;
  }
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
  on_objects_.clear();
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
