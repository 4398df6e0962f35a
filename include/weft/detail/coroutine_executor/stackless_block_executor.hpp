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
// A whole-warp shuffle of width 32 in a warp whose 32 lanes are live and
// have no other group open is a converged step, the fast path of the
// common case (a reduction, a scan): a lane deposits its operand and the
// lane it reads, and counts itself; the last to arrive releases the others,
// and each lane reads its source's deposit as it resumes, with no group to
// find and no pass over the warp's results. Deposits alternate between two
// halves, step by step, since a resumed lane deposits its next operand
// before the lanes after it have read this step's. The step's collective
// stays the warp's until another arrives, so that the next step's first
// lane arrives inline too. Anything that does not fit (another collective
// or mask, a width, an exit) turns an open step into the group it would
// have been (demote_converged), and the general path goes on from there
// with the same results and reports.
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
#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/checks/shared_guards.hpp"
#include "weft/detail/coroutine_executor/frame_arena.hpp"
#include "weft/detail/coroutine_executor/region_block.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/executor/block_group_barrier.hpp"
#include "weft/detail/executor/block_reports.hpp"
#include "weft/detail/executor/warp_arithmetic.hpp"
#include "weft/detail/executor/warp_reports.hpp"
#include "weft/detail/fibers/fiber_sanitizer.hpp"

namespace weft::detail {

/// Which barrier a stackless thread waits at, for a report.
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

  /// Runs blocks [first, end) of a grid as regions (region_block.hpp):
  /// `run_block(block)` runs the kernel's region version for one block.
  /// The same reports as run's: an exception that escapes a region fails
  /// the block naming the thread that threw (threadIdx still names it), a
  /// fault lands here as it does for a stackless block.
  template <class RunBlock>
  block_failure run_regions(RunBlock& run_block, const block_range& blocks, block_executor& host,
                            std::size_t dynamic_shared_bytes);

  /// How many blocks the worker has started, this one included (the host's
  /// count): a block's identity for state kept per block on the worker.
  std::uint64_t blocks_started() const { return host_->blocks_started(); }

  /// A thread arrives at a block barrier and is about to suspend; the
  /// counting flavours' result is to be written to `*result`. One compare
  /// when it is the round's barrier: where each thread waits is then the
  /// round's, and only an arrival elsewhere (or the round's first) is
  /// written down.
  // Always inline (barrier_awaiter.hpp says why).
  [[gnu::always_inline]] void arrive(barrier_kind kind, int predicate, std::source_location where,
                                     int* result) noexcept {
    if (kind != barrier_kind::sync) barrier_result_into_[running_id_] = result;
    ++arrivals_and_ready_;
    predicate_count_ += predicate != 0;
    // Last: nothing of the executor is used after the call, so the kernel's
    // coroutine need not keep it in a register that the call preserves
    // (a push and a pop on every resume).
    if (arrival_key(kind, where) != phase_key_) [[unlikely]]
      note_other_arrival(kind, where);
  }

  /// A thread arrives at a barrier between blocks (grid.sync(),
  /// cluster.sync(): block_set_awaiter.hpp) and is about to suspend. It is a
  /// block barrier first; once every thread of the block waits there, the
  /// worker arrives at `between` for the whole block, as member `member`,
  /// and waits on it (the block has its own worker in such a launch), then
  /// the threads run on. Null `between`: a plain block barrier (a cluster
  /// sync in a launch without clusters).
  void arrive_between_blocks(block_group_barrier* between, unsigned member, std::source_location where) noexcept {
    arrive(barrier_kind::sync, 0, where, nullptr);
    if (between) {
      between_blocks_ = between;
      between_member_ = member;
    }
  }

  /// A lane arrives at a warp collective (warp_awaiter.hpp): true if its
  /// arrival completes the group, whose results are then ready (the lane's
  /// in `result`), false if it is to suspend, parked in the group until
  /// that completes and writes its result to `result`. (Where it resumes is
  /// the thread's entry in threads_, written once as it starts.) Throws the
  /// fiber executor's report for a mask that cannot complete. Like the
  /// block loop (run_block), it touches only the executor's memory: in an
  /// ASan build it is not instrumented, nor is arrive_elsewhere, whose
  /// `flatten` has Clang inline what it calls (the vectors' accessors,
  /// join_group, complete_group) uninstrumented too, where they would
  /// otherwise stay calls; GCC keeps them calls (docs/debugging.md, "What
  /// each mode costs").
  [[gnu::no_sanitize_address]] bool warp_arrive(warp_op op, unsigned mask, const warp_operand& operand,
                                                std::source_location where, std::uint64_t& result);

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
        queue_without_result(w.thread.id);
      else
        *kept++ = w;
    }
    on_objects_.erase(kept, on_objects_.end());
  }

  /// The lanes of `warp` that have exited (named barriers count the others).
  unsigned lanes_exited(unsigned warp) const { return warps_[warp].exited; }

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
  // `converged`: the deposits that a converged step's lanes read their
  // results from; null for a group's lanes, which take theirs from the
  // exchange.
  struct ready_lanes {
    unsigned warp;
    unsigned lanes;
    const std::uint64_t* converged = nullptr;
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
  // A round's resumes while every thread arrives at the barrier in the
  // order it runs, then while every thread after those exits (a kernel's
  // last round, or threads past a bound that leave after a barrier):
  // where that stopped (the thread there, if any, is resumed but not
  // filed: it did something else, or released lanes) and how many arrived
  // (the first `arrived` of the list, which stay where they are). In a
  // block of one dimension (Linear) a thread's index is its linear id, and
  // threadIdx.y and .z stay 0: one load and two stores set the thread's
  // identity, not three of each.
  struct in_order {
    unsigned stopped;
    unsigned arrived;
  };
  template <bool Linear>
  [[gnu::no_sanitize_address]] void set_running(const waiting_thread& thread) {
    if constexpr (Linear) {
      unsigned id = thread.id;
      threadIdx.x = id;
      running_id_ = id;
    } else {
      threadIdx = thread.index;
      running_id_ = thread.id;
    }
  }
  // The first round's starts, in a block of one dimension, while every
  // thread arrives at the barrier in the order it starts: how many did (the
  // thread at the returned place, if any, is started and listed in
  // threads_, but not filed). Those that did are listed in `next` too.
  template <class StartThread>
  [[gnu::no_sanitize_address]] unsigned start_in_order(StartThread& start, waiting_thread* next) {
    threadIdx = {0, 0, 0};
    unsigned t = 0;
    for (; t < thread_count_; ++t) {
      threadIdx.x = t;
      running_id_ = t;
      std::coroutine_handle<> handle;
      try {
        handle = start().handle();
      } catch (...) {  // no room for its frame: the body has not run
        fail_running_thread(std::current_exception());
      }
      // Stored from the local (run_block says why).
      const waiting_thread started{handle, {t, 0, 0}, t};
      threads_[t] = started;
      if (arrivals_and_ready_ != t + 1) [[unlikely]]  // another arrival count, or lanes to run
        break;
      next[t] = started;
    }
    return t;
  }
  template <bool Linear>
  [[gnu::no_sanitize_address]] in_order resume_in_order(const waiting_thread* waiting, unsigned count) {
    unsigned r = 0;
    for (; r < count; ++r) {
      set_running<Linear>(waiting[r]);
      resume(waiting[r]);
      if (arrivals_and_ready_ != r + 1) [[unlikely]]  // another arrival count, or lanes to run
        break;
    }
    // The thread at r exited (what file() tells from these): the threads
    // after it exit too, most often. Its own loop, which keeps only the
    // list, the place in it and the arrivals across a resume.
    unsigned arrived = r;
    if (r == count || arrivals_and_ready_ != arrived || exit_unusual()) return {r, arrived};
    note_exited(waiting[r].id);
    for (++r; r < count; ++r) {
      set_running<Linear>(waiting[r]);
      resume(waiting[r]);
      if (arrivals_and_ready_ != arrived || exit_unusual()) [[unlikely]]
        break;
      note_exited(waiting[r].id);
    }
    return {r, arrived};
  }
  // A thread that neither arrived nor parked has exited, unless it failed
  // the block (whether it released lanes, which file() and run_ready in
  // run_block see to, is asked with the arrivals: arrivals_and_ready_).
  bool exit_unusual() const { return parked_now_ || failure_; }
  // The thread of linear id `id` has exited: it counts as arrived at every
  // barrier and group from now on.
  void note_exited(unsigned id) {
    warp_state& w = warps_[id / 32];
    w.exited |= 1u << (id % 32);
    // No converged step opens in a warp with a lane gone (one that lanes
    // wait in already stays: it is that of a group the lane left).
    if (w.converged_arrived == 0) w.converged_key = no_group_key;
  }
  // Resumes the lanes `lanes` of `warp`, released by a completed group (or
  // queued without a result), in lane order, each with its result copied
  // from the exchange into its awaiter first; returns the lanes from the
  // first that did not park again (it suspended at the block barrier,
  // returned or failed) on, 0 if every lane parked. Its own loop, which
  // keeps only the lanes, the warp's state and its threads across a resume,
  // and (Linear, as resume_in_order) sets a lane's identity from its id.
  // A converged step's lanes (`converged`: its deposits) read their
  // results from their sources' deposits instead.
  template <bool Linear, bool Converged>
  [[gnu::no_sanitize_address, gnu::noinline]] unsigned resume_lanes(unsigned warp, unsigned lanes,
                                                                    const std::uint64_t* converged) {
    warp_state& w = warps_[warp];
    // The lane's thread found by its id, not from a pointer to the warp's
    // first: GCC kept both that pointer and the warp's first id, and spilled
    // the thread-local's offset to the stack, loaded back for every lane.
    unsigned first_id = warp * 32;
    const waiting_thread* threads = threads_.data();
    for (unsigned m = lanes; m != 0; m &= m - 1) {
      unsigned lane = static_cast<unsigned>(std::countr_zero(m)), id = first_id + lane;
      if constexpr (Converged)
        *w.result_into[lane] = converged[w.converged_source[lane]];
      else
        *w.result_into[lane] = w.exchange.result[lane];
      const waiting_thread& thread = threads[id];
      if constexpr (Linear) {
        threadIdx.x = id;
        running_id_ = id;
      } else {
        threadIdx = thread.index;
        running_id_ = thread.id;
      }
      resume(thread);
      if (!parked_now_) [[unlikely]]
        return m;
      parked_now_ = false;
    }
    return 0;
  }
  // What run and run_regions share: the grid's state and the worker's
  // (running_stackless_block, ...), the fault landing, the loop over blocks.
  template <class RunBlock>
  [[gnu::no_sanitize_address]] block_failure run_grid(const RunBlock& run_one_block, const block_range& blocks,
                                                      block_executor& host, std::size_t dynamic_shared_bytes);
  // Resumes a waiting thread where it waits: in its own body, or in a
  // stackless function it awaits (defined in stackless_thread.hpp).
  [[gnu::no_sanitize_address]] static void resume(const waiting_thread& thread);
  void start_warps();
  // Queues the thread of linear id `id`, released by something other than
  // a warp group (__activemask, a synchronisation object), to run next:
  // what run_ready delivers to it from the exchange goes nowhere.
  void queue_without_result(unsigned id) {
    warps_[id / 32].result_into[id % 32] = &no_result_;
    push_ready({id / 32, 1u << (id % 32)});
  }
  [[gnu::no_sanitize_address, gnu::flatten]] bool arrive_elsewhere(warp_op op, unsigned mask,
                                                                   const warp_operand& operand,
                                                                   std::source_location where, std::uint64_t& result);
  warp_group* join_group(warp_op op, unsigned mask, unsigned warp, unsigned lane, std::source_location where);
  // Converged steps (the fast path: the file's head comment).
  static constexpr bool converged_shuffle(warp_op op) {
    return op == warp_op::shfl || op == warp_op::shfl_up || op == warp_op::shfl_down || op == warp_op::shfl_xor;
  }
  struct warp_state;
  // The lane's deposit and the lane it reads: shuffle_source's rules for
  // width 32, as conditional moves (GCC made up and down a branch on the
  // lane, which a reduction's steps take one way or the other lane by lane).
  static void deposit_converged(warp_state& w, warp_op op, unsigned lane, const warp_operand& operand) {
    std::uint64_t value = operand.value;
    unsigned b = static_cast<unsigned>(operand.lane) & 31, source = b;
    if (op == warp_op::shfl_down) {
      unsigned down = lane + b;  // past lane 31: the lane's own
      source = __builtin_expect_with_probability(down < 32, 1, 0.5) ? down : lane;
    } else if (op == warp_op::shfl_up) {
      source = __builtin_expect_with_probability(lane >= b, 1, 0.5) ? lane - b : lane;
    } else if (op == warp_op::shfl_xor) {
      source = lane ^ b;
    }
    w.converged_deposits[lane] = value;
    w.converged_source[lane] = static_cast<std::uint8_t>(source);
  }
  bool complete_converged(unsigned warp, unsigned lane, std::uint64_t& result);
  bool open_converged(warp_state& w, warp_op op, unsigned mask, const warp_operand& operand, unsigned lane,
                      std::source_location where, std::uint64_t& result);
  void demote_converged(warp_state& w);
  void demote_converged_steps();
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
  // Whether lanes wait in warp groups: at a round's end, a stall.
  bool lanes_parked_in_groups() const;
  [[gnu::cold]] std::string stall_report(const waiting_thread* waiting, unsigned count) const;
  [[gnu::cold]] void append_barrier_waiters(std::string& text, const waiting_thread* waiting, unsigned count) const;
  [[gnu::no_sanitize_address]] bool complete_barrier(const waiting_thread* waiting, unsigned count);
  [[gnu::cold]] bool meet_other_blocks(const waiting_thread* waiting);
  [[gnu::no_sanitize_address]] void advance(uint3& index) const;
  // In a race-check build, the block's accesses are checked from here on,
  // if its launch is (race_check.hpp), as on the fiber executor.
  void start_race_check(std::uint64_t block, const block_executor& host);
  [[gnu::cold]] void fail(const std::string& message, cudaError_t code = cudaErrorLaunchFailure);
  [[gnu::cold]] void fail_from_signal(const signal_fault& fault);
  [[gnu::cold]] static void destroy(const waiting_thread* first, const waiting_thread* last);
  // The round's barrier in one word: the source_location's pointer (to
  // an 8-byte-aligned record, in libstdc++) with the kind in its low bits.
  // Where a source_location is not one pointer, no key: every arrival is
  // written down.
  static std::uintptr_t arrival_key(barrier_kind kind, std::source_location where) noexcept {
    if constexpr (sizeof(std::source_location) == sizeof(std::uintptr_t) &&
                  std::is_trivially_copyable_v<std::source_location>)
      return std::bit_cast<std::uintptr_t>(where) | static_cast<std::uintptr_t>(kind);
    else
      return no_phase_key;
  }
  // phase_key_ before a round's first arrival: no arrival's key.
  static constexpr std::uintptr_t no_phase_key = ~std::uintptr_t{0};
  // The round's first arrival (counted already) sets its barrier; a later
  // one at another barrier kind or another source_location is listed, and
  // is a divergence unless the two name one call site (the same file, line
  // and column in other bytes).
  [[gnu::cold, gnu::noinline]] void note_other_arrival(barrier_kind kind, std::source_location where) noexcept {
    if (arrivals() == 1) {
      phase_kind_ = kind;
      phase_where_ = where;
      phase_key_ = arrival_key(kind, where);
      return;
    }
    if (kind != phase_kind_ || !same_call_site(where, phase_where_)) diverged_ = true;
    other_arrivals_.push_back({running_id_, kind, where});  // reserved for the block: never allocates
  }
  // Where the thread of linear id `id`, which arrived in this round, waits.
  barrier_arrival arrival_of(unsigned id) const;
  // A round starts with no arrival.
  void start_round() noexcept {
    arrivals_and_ready_ &= lanes_ready;
    predicate_count_ = 0;
    phase_key_ = no_phase_key;
    other_arrivals_.clear();
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
  // The round's arrivals at its barrier (the low 32 bits) and, above them,
  // whether released lanes wait in ready_ (lanes_ready): one word, so that
  // the loop of a round whose threads arrive in order asks both with one
  // compare.
  std::uint64_t arrivals_and_ready_ = 0;
  static constexpr std::uint64_t lanes_ready = std::uint64_t{1} << 32;
  unsigned arrivals() const { return static_cast<unsigned>(arrivals_and_ready_); }
  // The barrier the running round's threads arrive at: the first
  // arrival's, against which the others are checked.
  unsigned predicate_count_ = 0;
  barrier_kind phase_kind_{};
  std::source_location phase_where_{};
  std::uintptr_t phase_key_ = no_phase_key;
  bool diverged_ = false;
  // The barrier between blocks that the round's barrier also waits at, if
  // any (arrive_between_blocks), and the block's member number there.
  block_group_barrier* between_blocks_ = nullptr;
  unsigned between_member_ = 0;
  // The round's arrivals at another barrier than its first's.
  struct other_arrival {
    unsigned id;
    barrier_kind kind;
    std::source_location where;
  };
  std::vector<other_arrival> other_arrivals_;
  // Per thread (linear id), where a counting barrier's result goes: into
  // the awaiter, not read from here as the thread resumes (warp_awaiter.hpp
  // says why).
  std::vector<int*> barrier_result_into_;
  block_failure failure_;
  // A group's mask and collective in one word, so that the inline arrival
  // tells whether it joins the warp's first open group with one compare
  // instead of four (a group open, its mask, its collective, the mask
  // trimmed to the block's lanes: a group's mask is trimmed already, so an
  // untrimmed mask that equals it needs no trimming).
  static std::uint64_t group_key(unsigned mask, warp_op op) { return mask | static_cast<std::uint64_t>(op) << 32; }
  static constexpr std::uint64_t no_group_key = ~std::uint64_t{0};  // no mask and collective give it
  // A warp's collectives, as the fiber executor keeps them, in one place so
  // that an arrival finds all it touches from one address: the open
  // groups, up to 32 (groups[i] for i < group_count; the first beside the
  // count, in one cache line), the lanes the block has (all 32 but in a
  // partial last warp) and those that have exited, where each parked lane
  // takes its result, and the exchange of operands and results.
  struct warp_state {
    std::uint64_t first_key = no_group_key;  // groups[0]'s group_key, no_group_key while none is open
    unsigned group_count = 0;
    unsigned block_lanes = 0;
    unsigned exited = 0;
    warp_group groups[32];
    std::uint64_t* result_into[32];
    warp_exchange exchange;
    // The converged step: the group_key of its collective (no_group_key
    // while the warp has none; it stays set, with no lane arrived, from one
    // step to the next), the lanes that arrived, where the first did, the
    // half of converged_operand it fills (set as a block starts), and each
    // lane's source lane.
    std::uint64_t converged_key = no_group_key;
    unsigned converged_arrived = 0;
    std::uint64_t* converged_deposits = nullptr;
    std::source_location converged_where{};
    std::uint8_t converged_source[32];
    std::uint64_t converged_operand[2][32];
  };
  std::vector<warp_state> warps_;
  // After groups[0] opened or closed.
  static void note_first_group(warp_state& w) {
    w.first_key = w.group_count != 0 ? group_key(w.groups[0].mask, w.groups[0].op) : no_group_key;
  }
  // Per thread (linear id) its coroutine and index, written as it starts;
  // the lanes released by completed groups, to run next
  // (ready_[ready_head_...]).
  std::vector<waiting_thread> threads_;
  std::vector<ready_lanes> ready_;
  std::size_t ready_head_ = 0;
  void push_ready(const ready_lanes& lanes) {
    ready_.push_back(lanes);
    arrivals_and_ready_ |= lanes_ready;
  }
  void clear_ready() {
    ready_.clear();
    ready_head_ = 0;
    arrivals_and_ready_ &= ~lanes_ready;
  }
  std::uint64_t no_result_ = 0;  // where queue_without_result's lanes take a result
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
  unsigned running_id_ = 0;    // the running thread's linear id
  bool linear_block_ = false;  // blockDim.y and .z are 1: threadIdx.x is the linear id
  bool parked_now_ = false;    // the thread that just suspended did so in a group, at __activemask or on an object
};

template <class StartThread>
block_failure stackless_block_executor::run(StartThread& start, const block_range& blocks, block_executor& host,
                                            std::size_t dynamic_shared_bytes) {
  return run_grid([&] { run_block(start); }, blocks, host, dynamic_shared_bytes);
}

template <class RunBlock>
block_failure stackless_block_executor::run_regions(RunBlock& run_block, const block_range& blocks,
                                                    block_executor& host, std::size_t dynamic_shared_bytes) {
  auto block_as_regions = [&] {
    frames_.start_block();
    try {
      region_block block(frames_, blockDim);
      run_block(block);
    } catch (...) {
      fail_running_thread(std::current_exception());
    }
  };
  return run_grid(block_as_regions, blocks, host, dynamic_shared_bytes);
}

template <class RunBlock>
block_failure stackless_block_executor::run_grid(const RunBlock& run_one_block, const block_range& blocks,
                                                 block_executor& host, std::size_t dynamic_shared_bytes) {
  host.reserve_dynamic_shared(dynamic_shared_bytes);
  gridDim = blocks.grid;
  blockDim = blocks.block;
  thread_count_ = static_cast<unsigned>(volume(blocks.block));
  linear_block_ = blocks.block.y == 1 && blocks.block.z == 1;
  for (auto& list : lists_)
    if (list.size() < thread_count_ + list_front_room) list.resize(thread_count_ + list_front_room);
  unsigned warps = (thread_count_ + 31) / 32;
  if (warps_.size() < warps) warps_.resize(warps);
  for (unsigned w = 0; w < warps; ++w) warps_[w].block_lanes = lanes_in_block(thread_count_, w);
  other_arrivals_.reserve(thread_count_);
  if (threads_.size() < thread_count_) {
    threads_.resize(thread_count_);
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
      if constexpr (race_check_build) start_race_check(block, host);
      run_one_block();
    }
  } else {
    fail_from_signal(landing.fault);
  }
  if constexpr (race_check_build) {
    // The worker may now wait for the launch's other blocks.
    if (race_running) race_running->let_go_of_pages();
    race_running = nullptr;
  }
  running_fault_landing = nullptr;
  running_stackless_block = nullptr;
  wake_stackless_waiters = nullptr;
  host_ = nullptr;
  running_stackless_shared = nullptr;
  running_frame_arena = nullptr;
  return std::move(failure_);
}

// A thread that suspended at the barrier counted its arrival
// (arrivals_and_ready_); one that suspended in a warp group set
// parked_now_; one that returned (or threw) did neither. Those compares
// per thread are all the loop asks of a thread.
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
  start_round();
  diverged_ = false;
  between_blocks_ = nullptr;
  waiting_thread* next = lists_[0].data() + list_front_room;
  unsigned waiting_list = 0;  // the list that holds the threads the round resumes
  unsigned kept = 0;
  bool last_arrived = false;
  // Where the thread that just ran went; false if it failed the block.
  // (A lambda does not take its function's attributes: it is given them.)
  auto file = [&](const waiting_thread& thread, unsigned arrivals_before) __attribute__((no_sanitize_address)) {
    last_arrived = arrivals() != arrivals_before;
    if (last_arrived) {
      next[kept++] = thread;
    } else if (parked_now_) {
      parked_now_ = false;
    } else if (failure_) [[unlikely]] {
      return false;
    } else {
      note_exited(thread.id);
    }
    return true;
  };
  // Runs the lanes that warp collectives released, and those they release.
  // Outside it the queue is empty, so a thread's run asks only !empty().
  // A group's lanes run in resume_lanes' loop, which returns at the first
  // lane that does not park again in a warp group (or on an object, at
  // __activemask), filed here: a lane that parks changes no count of
  // arrivals, so the count before the loop is that lane's before.
  auto run_ready = [&]() __attribute__((no_sanitize_address)) {
    while (ready_head_ != ready_.size()) {
      ready_lanes entry = ready_[ready_head_++];
      for (unsigned m = entry.lanes;; m &= m - 1) {
        unsigned before = arrivals();
        if (entry.converged)
          m = linear_block_ ? resume_lanes<true, true>(entry.warp, m, entry.converged)
                            : resume_lanes<false, true>(entry.warp, m, entry.converged);
        else
          m = linear_block_ ? resume_lanes<true, false>(entry.warp, m, nullptr)
                            : resume_lanes<false, false>(entry.warp, m, nullptr);
        if (m == 0) [[likely]] {  // every lane parked again, as released lanes most often do
          last_arrived = false;
          break;
        }
        if (!file(threads_[entry.warp * 32 + static_cast<unsigned>(std::countr_zero(m))], before)) [[unlikely]] {
          ready_[--ready_head_] = {entry.warp, m & (m - 1), entry.converged};  // the lanes after it, for abandon
          return false;
        }
        if ((m & (m - 1)) == 0) break;
      }
    }
    clear_ready();
    return true;
  };
  auto abandon = [&](const waiting_thread* rest, const waiting_thread* rest_end) {
    destroy(next, next + kept);
    destroy(rest, rest_end);
    for (std::size_t i = ready_head_; i < ready_.size(); ++i)
      for (unsigned m = ready_[i].lanes; m != 0; m &= m - 1)
        threads_[ready_[i].warp * 32 + static_cast<unsigned>(std::countr_zero(m))].handle.destroy();
    clear_ready();
    destroy_parked();
  };
  uint3 index{0, 0, 0};
  unsigned t = 0;
  if (linear_block_) {
    t = start_in_order(start, next);
    kept = t;
    last_arrived = t != 0;
    if (t != thread_count_) {  // the thread at t is started, not filed
      if (!file(threads_[t], t) || (!ready_.empty() && !run_ready())) [[unlikely]] {
        abandon(nullptr, nullptr);
        return;
      }
      index.x = ++t;
    }
  }
  for (; t < thread_count_; ++t) {
    threadIdx = index;
    running_id_ = t;
    unsigned before = arrivals();
    std::coroutine_handle<> handle;
    try {
      handle = start().handle();
    } catch (...) {  // no room for its frame: the body has not run
      fail_running_thread(std::current_exception());
    }
    // Filed from the local: read back from threads_[t], the copy spanned
    // the two stores just made to it, which the CPU could not forward (a
    // tenth of the block reduction's time went to that stall).
    const waiting_thread started{handle, index, t};
    threads_[t] = started;
    if (!file(started, before) || (!ready_.empty() && !run_ready())) [[unlikely]] {
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
    // Threads parked on named barriers may go on with the lanes left
    // (executor/stalled_block.hpp).
    if (!on_objects_.empty() && settle_stalled_block && settle_stalled_block(~0u)) [[unlikely]] {
      if (!run_ready()) {
        abandon(nullptr, nullptr);
        return;
      }
      continue;
    }
    demote_converged_steps();
    if (lanes_parked_in_groups() || !on_objects_.empty()) [[unlikely]] {
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
    next = lists_[1 - waiting_list].data() + list_front_room;
    kept = 0;
    unsigned r = 0;
    if (waiting != lists_[waiting_list].data()) {
      // Its own loop, which keeps little across the resume (the list, the
      // count, the place in it): the round started with no arrival, so the
      // thread at r arrived in order if the word is now r + 1, and one
      // after those exited if it did not change and nothing else
      // happened.
      in_order resumed = linear_block_ ? resume_in_order<true>(waiting, count) : resume_in_order<false>(waiting, count);
      r = resumed.stopped;
      if (r == count) {  // the list stays where it is, less the threads that exited after the last arrival
        next = waiting;
        kept = resumed.arrived;
        last_arrived = resumed.arrived == count;
        continue;
      }
      std::copy(waiting, waiting + resumed.arrived, next);
      kept = resumed.arrived;
      if (!file(waiting[r], resumed.arrived) || (!ready_.empty() && !run_ready())) [[unlikely]] {
        abandon(waiting + r + 1, waiting + count);
        return;
      }
      ++r;
    }
    for (; r < count; ++r) {
      // A reference: read again after the resume rather than kept across
      // it (GCC spilled the copy to the stack and back).
      const waiting_thread& thread = waiting[r];
      threadIdx = thread.index;
      running_id_ = thread.id;
      unsigned before = arrivals();
      resume(thread);
      if (!file(thread, before) || (!ready_.empty() && !run_ready())) [[unlikely]] {
        abandon(waiting + r + 1, waiting + count);
        return;
      }
    }
    waiting_list = 1 - waiting_list;
  }
}

// ---- Warp collectives ----

inline void stackless_block_executor::start_warps() {
  unsigned warps = (thread_count_ + 31) / 32;
  for (unsigned w = 0; w < warps; ++w) {
    warps_[w].group_count = 0;
    warps_[w].first_key = no_group_key;
    warps_[w].exited = 0;
    warps_[w].converged_key = no_group_key;
    warps_[w].converged_arrived = 0;
    // The warp's state may have moved since the last block (warps_ grew).
    warps_[w].converged_deposits = warps_[w].converged_operand[0];
  }
  parked_now_ = false;
  converging_.clear();
  on_objects_.clear();
}

// A mask that names lanes past the block's end means the lanes that do,
// as on the fiber executor (and on an H100). Inline, only the common case:
// the lane joins the warp's first open group (a whole-warp collective
// opens only one) without completing it, and parks; whether the group is
// the lane's is one compare of its mask and collective (group_key).
// Opening a group, finding another, and completing one are
// arrive_elsewhere's, a call, so that the kernel's coroutine keeps nothing
// in registers across it (each register it saves is a push and a pop on
// every resume of the thread).
// The operand comes by reference, from the awaiter in the frame: passed by
// value, its lane and width, just stored as two 4-byte fields, were loaded
// back as one 8-byte register for the call on every arrival, a load that
// no store can forward (a 5-step shuffle reduction 55 -> 42 ns per thread).
inline bool stackless_block_executor::warp_arrive(warp_op op, unsigned mask, const warp_operand& operand,
                                                  std::source_location where, std::uint64_t& result) {
  unsigned self = running_id_, lane = self % 32;
  warp_state& w = warps_[self / 32];
  if (converged_shuffle(op) && w.converged_key == group_key(mask, op) && operand.width == 32) [[likely]] {
    unsigned before = w.converged_arrived, arrived = before | 1u << lane;
    if (before == 0) w.converged_where = where;
    deposit_converged(w, op, lane, operand);
    w.result_into[lane] = &result;
    if (arrived != ~0u) [[likely]] {
      w.converged_arrived = arrived;
      parked_now_ = true;
      return false;
    }
    return complete_converged(self / 32, lane, result);
  }
  warp_group& first = w.groups[0];
  unsigned arrived = first.arrived | 1u << lane;
  if (w.first_key == group_key(mask, op) && arrived != mask) [[likely]] {
    first.arrived = arrived;
    w.exchange.stage(lane, operand);
    w.result_into[lane] = &result;
    parked_now_ = true;
    return false;
  }
  return arrive_elsewhere(op, mask & w.block_lanes, operand, where, result);
}

// The rest of warp_arrive: the lane's group is not the first open one, or
// there is none, or the lane completes it. Throws the fiber executor's
// report for a mask that cannot complete.
[[gnu::noinline]] inline bool stackless_block_executor::arrive_elsewhere(warp_op op, unsigned mask,
                                                                         const warp_operand& operand,
                                                                         std::source_location where,
                                                                         std::uint64_t& result) {
  unsigned self = running_id_, warp = self / 32, lane = self % 32, lane_bit = 1u << lane;
  warp_state& w = warps_[warp];
  if (w.converged_key != no_group_key) demote_converged(w);
  if (w.group_count == 0 && open_converged(w, op, mask, operand, lane, where, result)) return false;
  w.exchange.stage(lane, operand);
  warp_group* group = join_group(op, mask, warp, lane, where);
  group->arrived |= lane_bit;
  if (group->arrived != mask) {
    w.result_into[lane] = &result;
    parked_now_ = true;
    return false;
  }
  complete_group(warp, *group, lane_bit);
  result = w.exchange.result[lane];
  return true;
}

// The open group of the lane's mask, or a new one; throws the fiber
// executor's report for a mask that cannot complete.
inline warp_group* stackless_block_executor::join_group(warp_op op, unsigned mask, unsigned warp, unsigned lane,
                                                        std::source_location where) {
  unsigned lane_bit = 1u << lane;
  warp_state& w = warps_[warp];
  warp_group* group = find_warp_group(w.groups, w.group_count, mask);
  if (!group) {
    if (const warp_group* blocked = blocking_warp_group(w.groups, w.group_count, mask, lane_bit))
      refuse_group_mismatch(warp, *blocked, op, mask, lane, where);
    // The first lane checks the mask for the group, as on fibers; a lane
    // that exits later while the group waits is found at the round's end.
    if (!(mask & lane_bit) || (mask & w.exited)) [[unlikely]]
      refuse_mask(warp, op, mask, lane, mask & w.exited, where);
    group = &w.groups[w.group_count++];
    *group = {mask, 0, op, where};
    if (w.group_count == 1) note_first_group(w);
  } else if (group->op != op) [[unlikely]] {
    refuse_group_mismatch(warp, *group, op, mask, lane, where);
  }
  return group;
}

// Run by the last lane to arrive: every lane's result into the exchange, the
// others queued in lane order (one entry), the group closed. Each waiting
// lane's result goes into its awaiter as the lane resumes (run_ready), not
// in a pass here: its slot of the exchange stays until then, since only a
// group that the lane itself joins writes it.
inline void stackless_block_executor::complete_group(unsigned warp, warp_group& g, unsigned caller_bit) {
  warp_state& w = warps_[warp];
  warp_results(g.op, g.mask, w.exchange);
  if constexpr (race_check_build)
    if (race_running) race_running->warp_synced(warp, g.mask);
  unsigned waiters = g.arrived & ~caller_bit;
  if (waiters != 0) push_ready({warp, waiters});
  bool first = &g == &w.groups[0];
  g = w.groups[--w.group_count];  // close: the last open group takes its place
  if (first) note_first_group(w);
}

// Run by the last lane to arrive at a converged step: the others resume
// with the deposits of this step's half, the next step fills the other.
[[gnu::noinline]] inline bool stackless_block_executor::complete_converged(unsigned warp, unsigned lane,
                                                                           std::uint64_t& result) {
  warp_state& w = warps_[warp];
  std::uint64_t* deposits = w.converged_deposits;
  if constexpr (race_check_build)
    if (race_running) race_running->warp_synced(warp, ~0u);
  w.converged_arrived = 0;
  w.converged_deposits = deposits == w.converged_operand[0] ? w.converged_operand[1] : w.converged_operand[0];
  push_ready({warp, ~(1u << lane), deposits});
  result = deposits[w.converged_source[lane]];
  return true;
}

// The lane is the first to arrive at a collective in a warp with no group
// open: it opens a converged step if the step can be one (a shuffle of the
// whole warp, width 32, every lane live), and parks in it.
inline bool stackless_block_executor::open_converged(warp_state& w, warp_op op, unsigned mask,
                                                     const warp_operand& operand, unsigned lane,
                                                     std::source_location where, std::uint64_t& result) {
  if (!converged_shuffle(op) || mask != ~0u || operand.width != 32 || w.exited != 0) return false;
  w.converged_key = group_key(mask, op);
  w.converged_where = where;
  w.converged_arrived = 1u << lane;
  deposit_converged(w, op, lane, operand);
  w.result_into[lane] = &result;
  parked_now_ = true;
  return true;
}

// The warp's converged step ends: the lanes that wait in it become the
// group they would have joined on the general path, which goes on from
// there (a lane that does not fit the step, a stall at the round's end, a
// failed block). Each lane's lane or delta operand is written back as one
// that reads the source it chose, which with the whole warp and width 32
// gives each lane the same result.
inline void stackless_block_executor::demote_converged(warp_state& w) {
  if (unsigned arrived = w.converged_arrived) {
    warp_op op = static_cast<warp_op>(w.converged_key >> 32);
    const std::uint64_t* deposits = w.converged_deposits;
    for (unsigned m = arrived; m != 0; m &= m - 1) {
      unsigned lane = static_cast<unsigned>(std::countr_zero(m)), source = w.converged_source[lane], b = source;
      if (op == warp_op::shfl_down) b = (source - lane) & 31;
      if (op == warp_op::shfl_up) b = (lane - source) & 31;
      if (op == warp_op::shfl_xor) b = lane ^ source;
      w.exchange.stage(lane, {deposits[lane], static_cast<int>(b), 32});
    }
    w.groups[0] = {~0u, arrived, op, w.converged_where};
    w.group_count = 1;
    note_first_group(w);
  }
  w.converged_key = no_group_key;
  w.converged_arrived = 0;
}

inline void stackless_block_executor::demote_converged_steps() {
  unsigned warps = (thread_count_ + 31) / 32;
  for (unsigned w = 0; w < warps; ++w)
    if (warps_[w].converged_arrived != 0) demote_converged(warps_[w]);
}

inline bool stackless_block_executor::lanes_parked_in_groups() const {
  unsigned warps = (thread_count_ + 31) / 32;
  for (unsigned w = 0; w < warps; ++w)
    if (warps_[w].group_count != 0) return true;
  return false;
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
  auto queue = [&](const converging_thread& t) { queue_without_result(t.thread.id); };
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
  // Taken out first: a destroyed thread's locals may wake the others (a
  // cuda::pipeline's destructor drops its thread from its stages), which
  // must neither change the list being walked nor queue them to run.
  std::vector<object_waiter> on_objects = std::move(on_objects_);
  on_objects_.clear();
  for (const object_waiter& w : on_objects) w.thread.handle.destroy();
  demote_converged_steps();
  unsigned warps = (thread_count_ + 31) / 32;
  for (unsigned w = 0; w < warps; ++w) {
    for (unsigned i = 0; i < warps_[w].group_count; ++i)
      for (unsigned m = warps_[w].groups[i].arrived; m != 0; m &= m - 1)
        threads_[w * 32 + std::countr_zero(m)].handle.destroy();
    warps_[w].group_count = 0;
    warps_[w].first_key = no_group_key;
  }
  // Whatever those destructors woke is destroyed too: nothing runs again.
  clear_ready();
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
  if constexpr (race_check_build)
    if (race_running) race_running->block_synced();
  if (phase_kind_ != barrier_kind::sync) {
    int result = barrier_result(phase_kind_, predicate_count_, arrivals());
    for (unsigned r = 0; r < count; ++r) *barrier_result_into_[waiting[r].id] = result;
  }
  start_round();
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
  // Orders the block's accesses after those the other blocks made before
  // the sync (race_check.hpp), as on fibers (block_set_sync.hpp).
  if constexpr (race_check_build)
    if (race_running) race_running->group_synced();
  return true;
}

inline void stackless_block_executor::advance(uint3& index) const {
  if (++index.x < blockDim.x) return;
  index.x = 0;
  if (++index.y < blockDim.y) return;
  index.y = 0;
  ++index.z;
}

inline void stackless_block_executor::start_race_check(std::uint64_t block, const block_executor& host) {
  race_running = nullptr;
  if (race_launch* launch = race_launching) {
    race_worker& worker = race_worker_of_this_thread();
    worker.start_block(launch, block, thread_count_, host.dynamic_shared(), host.dynamic_shared_capacity());
    race_running = &worker;
  }
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
  clear_ready();
  for (warp_state& w : warps_) {
    w.group_count = 0;
    w.first_key = no_group_key;
    w.converged_key = no_group_key;
    w.converged_arrived = 0;
  }
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
