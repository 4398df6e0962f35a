// The block executor runs every CUDA thread of one block on one OS thread.
//
// Lazy fiber promotion (see docs/architecture.md): threads run one after
// another as a plain loop inside a "runner" fiber. A thread that never blocks
// costs an inlined call and no context switch. When a thread blocks at a
// barrier, the runner's stack stays with it and a fresh runner (from the stack
// pool) goes on with the next unstarted thread. When the barrier completes,
// its waiters become ready and each later resumes by a direct jump from the
// fiber that suspends next (symmetric transfer, no central scheduler), so a
// barrier costs about one context switch per thread.
//
// Deadlock is exact here: a fiber that must suspend while nothing is ready and
// no thread is unstarted hands control back to the worker, which reports who
// waits where. A failed block is abandoned by resuming each parked fiber with
// `block_abandoned` thrown from its barrier, so kernel destructors run.
#pragma once

#include <boost/context/detail/fcontext.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <source_location>
#include <string>
#include <vector>

#include "weft/detail/executor/builtin_variables.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/executor/context_switch.hpp"
#include "weft/detail/executor/fiber_stack.hpp"

namespace weft::detail {

namespace fctx = boost::context::detail;

/// The four flavours of the block-wide barrier (CUDA guide, "Synchronization Functions").
enum class barrier_kind : unsigned char { sync, count, all, any };

/// The warp collectives (CUDA guide, "Warp Shuffle Functions", "Warp Vote
/// Functions", "Warp Match Functions", "Warp Reduce Functions"). Lanes of one
/// group must call the same one.
enum class warp_op : unsigned char {
  sync,
  shfl,
  shfl_up,
  shfl_down,
  shfl_xor,
  ballot,
  any,
  all,
  match_any,
  match_all,
  reduce_add,
  reduce_min_signed,
  reduce_min_unsigned,
  reduce_max_signed,
  reduce_max_unsigned,
  reduce_and,
  reduce_or,
  reduce_xor,
};

/// What a lane brings to a warp collective: its operand (a shuffled value's
/// bits, a predicate, a key), the lane or delta argument, and the width.
struct warp_operand {
  std::uint64_t value = 0;
  int lane = 0;
  int width = 32;
};

/// What a lane gets back: the value, and match_all's predicate.
struct warp_result {
  std::uint64_t value = 0;
  int predicate = 0;
};

/// Thrown from a barrier to unwind a CUDA thread whose block is being abandoned.
struct block_abandoned {};

/// Thrown by device code that fails the way CUDA reports with a particular
/// code (a failed assert is cudaErrorAssert, __trap() cudaErrorLaunchFailure).
/// Any other exception escaping a thread is cudaErrorLaunchFailure.
struct kernel_fault {
  cudaError_t code;
  std::string what;
};

/// Why a block failed: the code the device faults with, and the report.
struct block_failure {
  cudaError_t code = cudaSuccess;
  std::string message;
  explicit operator bool() const { return code != cudaSuccess; }
};

/// Blocks [first, end) of a grid, in linear order.
struct block_range {
  dim3 grid;
  dim3 block;
  std::uint64_t first;
  std::uint64_t end;
};

class block_executor;
inline thread_local block_executor* running_block = nullptr;

class block_executor {
 public:
  block_executor() = default;
  block_executor(const block_executor&) = delete;
  block_executor& operator=(const block_executor&) = delete;

  /// Runs blocks [first_block, end_block) of a grid, one after another;
  /// `body` runs the kernel for the thread that threadIdx and blockIdx name.
  /// On failure, returns the code and what went wrong, naming the block and
  /// threads involved; the remaining blocks are then skipped.
  template <class Body>
  block_failure run(Body& body, const block_range& blocks, std::size_t stack_size, std::size_t dynamic_shared_bytes) {
    stacks_.set_stack_size(stack_size);
    reserve_dynamic_shared(dynamic_shared_bytes);
    start(blocks);
    body_ = &body;
    runner_entry_ = &runner_main<Body>;
    running_block = this;
    switch_to(new_runner(), {&worker_, {}});  // back here once no fiber can run any more
    if (!abandoning_ && !block_finished()) fail(stall_report());
    if (abandoning_) unwind_parked_threads();
    running_block = nullptr;
    return std::move(failure_);
  }

  /// Blocks started so far: how the SM pool's watchdog tells a worker that
  /// makes progress from one stuck in a block (read from another thread).
  std::uint64_t blocks_started() const { return generation_.load(std::memory_order_relaxed); }

  /// A barrier over the whole block. Threads that exited count as arrived
  /// (sm_70 and later). Returns the barrier's result for `kind`.
  int arrive_and_wait(barrier_kind kind, int predicate, std::source_location where) {
    unsigned self = threadIdx.x + block_dim_.x * (threadIdx.y + block_dim_.y * threadIdx.z);
    thread_slot& me = slots_[self];
    if (me.parked_in != blocks_started() || abandoning_) [[unlikely]]
      first_arrival(me, self);
    me.kind = kind;
    me.waiting_at = where;
    // Divergence is noticed on arrival, against the first waiter, so that
    // completing the barrier need not look at every waiter again.
    if (waiting_.empty())
      barrier_ = &me;
    else if (!same_barrier(me, *barrier_)) [[unlikely]]
      diverged_ = true;
    waiting_.push_back(self);
    predicate_count_ += predicate != 0;
    if (all_arrived()) [[unlikely]] {
      if (!complete_barrier(true)) throw block_abandoned{};
    } else {
      park(me);
    }
    switch (kind) {
      case barrier_kind::count:
        return static_cast<int>(last_count_);
      case barrier_kind::all:
        return last_count_ == last_arrivals_;
      case barrier_kind::any:
        return last_count_ != 0;
      default:
        return 0;
    }
  }

  /// A warp collective: a rendezvous of the lanes of the caller's warp that
  /// `mask` names. Each lane deposits its operand; all but the last to arrive
  /// park as at a block barrier; the last computes every lane's result,
  /// makes the others ready and carries on. Lanes with other masks form
  /// other groups. A bad mask, or lanes that disagree on the collective or
  /// its mask, fail the block with a report naming warp, lanes and line.
  warp_result warp_collective(warp_op op, unsigned mask, warp_operand operand, std::source_location where) {
    unsigned self = linear_thread_id();
    thread_slot& me = slots_[self];
    if (me.parked_in != blocks_started() || abandoning_) [[unlikely]]
      first_arrival(me, self);
    unsigned warp = self / 32, lane = self % 32, lane_bit = 1u << lane;
    warp_exchange& exchange = exchange_[warp];
    exchange.operand[lane] = operand.value;
    exchange.source[lane] = static_cast<std::uint8_t>(operand.lane & 31);
    exchange.width[lane] = static_cast<std::uint8_t>(operand.width);
    warp_group* group = find_group(warp, mask);
    if (!group) [[unlikely]] {
      if (const warp_group* blocked = blocking_group(warp, mask, lane_bit))
        throw kernel_fault{cudaErrorLaunchFailure, mismatch(warp, *blocked, op, mask, lane_bit, where)};
      group = open_group(warp, op, mask, lane_bit, where);  // checks the mask
    } else if (group->op != op) [[unlikely]] {
      throw kernel_fault{cudaErrorLaunchFailure, mismatch(warp, *group, op, mask, lane_bit, where)};
    }
    group->arrived |= lane_bit;
    if (group->arrived == mask) {
      complete_group(warp, *group, lane_bit);
    } else {
      ++warp_parked_;
      park(me);
    }
    std::uint64_t result = exchange.result[lane];
    return {result, result != 0};  // the predicate is match_all's: its result is 0 or the (non-empty) mask
  }

  /// __activemask: the lanes of the caller's warp that are converged with it.
  /// weft has no program counter to compare, so it waits for them: the
  /// caller parks until no thread of the block can run otherwise (every
  /// thread has started, and has exited or parked), and then gets the lanes
  /// of its warp parked at the same __activemask call. Lanes that exited or
  /// took another branch are thereby left out, as on a GPU.
  unsigned active_mask(std::source_location where) {
    unsigned self = linear_thread_id();
    thread_slot& me = slots_[self];
    if (me.parked_in != blocks_started() || abandoning_) [[unlikely]]
      first_arrival(me, self);
    me.waiting_at = where;
    converging_.push_back(self);
    if (ready_count() == 0 && next_unstarted_ == thread_count_) {
      converge(self);  // nothing else can run: the caller is the last to come
      return static_cast<unsigned>(exchange_[self / 32].result[self % 32]);
    }
    ++warp_parked_;
    park(me);
    return static_cast<unsigned>(exchange_[self / 32].result[self % 32]);
  }

  /// Lets the other threads of the block run: the caller goes to the back of
  /// the ready list and control passes to a fresh runner for the next
  /// unstarted thread, else to the longest-ready thread. Unstarted threads go
  /// first so that two spinning threads cannot pass control back and forth
  /// forever while the thread they wait for has not started. If nothing
  /// else can run, returns false at once.
  bool yield() {
    unsigned self = linear_thread_id();
    thread_slot& me = slots_[self];
    if (me.parked_in != blocks_started() || abandoning_) [[unlikely]]
      first_arrival(me, self);
    fctx::fcontext_t target;
    if (next_unstarted_ < thread_count_)
      target = new_runner();
    else if (ready_count() != 0 || (!converging_.empty() && converge(~0u)))
      target = slots_[ready_[ready_head_++]].context;
    else
      return false;
    make_ready(self);
    park_to(me, target);
    return true;
  }

  /// Parks the calling thread until another thread of the block calls
  /// wake_all(object): a wait on a synchronisation object of CUDA's library
  /// (cuda::barrier, cuda::pipeline) that other threads complete. The caller
  /// checks its condition again when it resumes. If the block can make no
  /// progress, the deadlock report names `what` at `where`, followed by
  /// `describe(object)`, the object's state.
  void wait_on(const void* object, const char* what, std::string (*describe)(const void*), std::source_location where) {
    unsigned self = linear_thread_id();
    thread_slot& me = slots_[self];
    if (me.parked_in != blocks_started() || abandoning_) [[unlikely]]
      first_arrival(me, self);
    me.waiting_at = where;
    me.waits_on = object;
    me.wait_name = what;
    me.describe_wait = describe;
    on_objects_.push_back(self);
    park(me);
  }

  /// Makes every thread parked in wait_on(object) ready, in the order they parked.
  void wake_all(const void* object) {
    if (abandoning_) return;
    auto kept = on_objects_.begin();
    for (unsigned t : on_objects_) {
      if (slots_[t].waits_on == object)
        make_ready(t);
      else
        *kept++ = t;
    }
    on_objects_.erase(kept, on_objects_.end());
  }

  std::byte* dynamic_shared() const { return dynamic_shared_.get(); }

  /// Makes the dynamic shared memory buffer at least `bytes` long. It moves
  /// only when it grows, so a cluster can publish where it is before its
  /// block runs (run() reserves again, with the same size).
  void reserve_dynamic_shared(std::size_t bytes) {
    if (bytes <= dynamic_shared_capacity_) return;
    dynamic_shared_.reset(new (std::align_val_t{128}) std::byte[bytes]);
    dynamic_shared_capacity_ = bytes;
  }

  /// Called by the SIGSEGV handler, on the worker's signal stack. If the
  /// fault hit the guard page of one of this worker's fiber stacks, the
  /// running CUDA thread overflowed its stack: fail the block and jump back
  /// to the worker for good (the thread's frames cannot be unwound). The
  /// worker's context is valid, since it is parked whenever a fiber runs.
  /// Returns only if the fault was not a fiber stack overflow.
  bool recover_from_stack_overflow(const void* address) {
    const fiber_stack* hit = stacks_.guard_hit(address);
    if (!hit) return false;
    fail(describe_thread(threadIdx) + ": stack overflow (each CUDA thread has " +
         std::to_string(stacks_.stack_size() / 1024) +
         " KiB of stack; raise it with cudaDeviceSetLimit(cudaLimitStackSize, bytes))");
    switch_note note{nullptr, *hit};
    jump_context(worker_, &note);
    std::abort();  // the overflowed fiber is never resumed
  }

 private:
  struct thread_slot {
    std::uint64_t parked_in = 0;         // the generation_ of the block in which it last parked
    fctx::fcontext_t context = nullptr;  // where a parked thread resumes
    uint3 index{};                       // its threadIdx, saved when it parks
    barrier_kind kind{};
    bool exited = false;  // valid once it has parked in this block (parked_in)
    std::source_location waiting_at{};
    const void* waits_on = nullptr;  // wait_on's object, call and describer
    const char* wait_name = nullptr;
    std::string (*describe_wait)(const void*) = nullptr;
  };

  // A warp's lanes' operands and results at a warp collective, side by
  // side, so that the lane completing a group reads and writes a few cache
  // lines instead of one per lane.
  struct warp_exchange {
    std::uint64_t operand[32];
    std::uint64_t result[32];
    std::uint8_t source[32];  // a shuffle's lane or delta operand, modulo 32
    std::uint8_t width[32];   // a shuffle's segment width
  };

  // A pending warp collective: the lanes its mask names, those that have
  // arrived (all parked but none is the last), and what they call.
  struct warp_group {
    unsigned mask = 0;
    unsigned arrived = 0;
    warp_op op{};
    std::source_location where{};
  };

  // Written by the fiber that jumps, read by the one that resumes: where to
  // park the jumper's context, and which finished fiber's stack to recycle.
  struct switch_note {
    fctx::fcontext_t* save_to = nullptr;
    fiber_stack retire{};
  };

  // A thread's first barrier in this block (or any barrier of a block being
  // abandoned). The runner loop that started the thread has claimed nothing
  // since, so the shared cursor is just past it.
  [[gnu::noinline]] void first_arrival(thread_slot& me, unsigned self) {
    if (abandoning_) throw block_abandoned{};
    me.parked_in = blocks_started();
    me.exited = false;
    live_parked_[self / 32] |= 1u << (self % 32);
    // The runner loop that started this thread notices the bump when the
    // thread returns and marks it exited (see run_threads), even if it never
    // actually parks (yield with nothing else to run, __activemask).
    ++switches_;
    next_unstarted_ = self + 1;
    next_index_ = threadIdx;
    advance(next_index_);
    me.index = threadIdx;  // a thread's index is fixed for the block: saved once, restored at each resumption
  }

  // Suspends the calling thread until its barrier completes.
  void park(thread_slot& me) { park_to(me, next_to_run()); }

  void park_to(thread_slot& me, fctx::fcontext_t target) {
    ++switches_;
    switch_note note{&me.context, {}};
    arrived(jump_context_inline(target, &note));
    threadIdx = me.index;
    if (abandoning_) [[unlikely]]
      throw block_abandoned{};
  }

  // A runner fiber. Whichever fiber finishes a block's last thread goes on
  // with the next block, so blocks without barriers run back to back on one
  // fiber with no context switch at all.
  template <class Body>
  static void runner_main(fctx::transfer_t from) {
    block_executor& self = *running_block;
    fiber_stack own = self.fresh_stack_;
    self.arrived(from);
    Body& body = *static_cast<Body*>(self.body_);
    do {
      self.run_threads(body);
    } while (!self.abandoning_ && self.block_finished() && self.start_next_block());
    self.leave(own);
  }

  // The hot loop. It keeps the cursor (next unstarted thread) in locals and
  // writes nothing per thread but threadIdx: a thread that parks publishes
  // the cursor itself (see arrive_and_wait), and a loop that finds another
  // fiber has run meanwhile (switches_ moved) reloads it. One-dimensional
  // blocks, the common case, get a loop that only writes threadIdx.x, which
  // the compiler can keep in a register (see the end of the loop).
  template <class Body>
  void run_threads(Body& body) {
    if (block_dim_.y == 1 && block_dim_.z == 1)
      run_threads<true>(body);
    else
      run_threads<false>(body);
    // The last thread has exited: a barrier the others wait at may be complete
    // now, since exited threads count as arrived.
    if (!abandoning_ && !waiting_.empty() && all_arrived()) complete_barrier(false);
  }

  template <bool one_dimensional, class Body>
  void run_threads(const Body& shared_body) {
    // A private copy of the body (the kernel and its argument copies) whose
    // address never escapes, so that the compiler can keep a __global__
    // function's pointer and arguments in registers across the calls instead
    // of reloading them for every thread.
    Body body = shared_body;
    unsigned next = next_unstarted_;
    uint3 index = next_index_;
    threadIdx = one_dimensional ? uint3{next, 0, 0} : index;
    // Unrolled: a kernel that GCC inlines whole and that cannot park (a
    // streaming kernel such as vector add) then pays the loop's compare and
    // branch once per four CUDA threads; with fewer instructions per thread,
    // more of its loads and stores are in flight at once (docs/performance.md,
    // section 10). GCC unrolls only innermost loops with one exit, so a kernel
    // that can park or throw, or has a loop of its own, is compiled as before,
    // at no cost in size.
#pragma GCC unroll 4
    while (next < thread_count_) {
      if constexpr (!one_dimensional) advance(index);
      ++next;
      auto switches = switches_;
      try {
        body();
      } catch (const block_abandoned&) {
        return;
      } catch (const kernel_fault& fault) {
        fail(describe_thread(threadIdx) + ": " + fault.what, fault.code);
        return;
      } catch (...) {
        fail(describe_thread(threadIdx) + ": " + describe(std::current_exception()));
        return;
      }
      if (switches_ != switches) {
        if (abandoning_) return;
        // This thread has parked (or published the cursor) in this block:
        // its slot must say it exited, so that a warp collective naming it
        // is refused. Threads that never parked are told by the cursor.
        unsigned id = linear_thread_id();
        slots_[id].exited = true;
        live_parked_[id / 32] &= ~(1u << (id % 32));
        next = next_unstarted_;
        index = next_index_;
        if (one_dimensional) threadIdx = {0, 0, 0};
      }
      // The next thread's index is written at the end of an iteration, not
      // at the start of the next: GCC then keeps threadIdx in a register
      // across a kernel it inlined whole and stores it once after the loop,
      // instead of storing it for every CUDA thread (which costs a streaming
      // kernel a third of its time on some CPUs: docs/performance.md).
      if constexpr (one_dimensional)
        threadIdx.x = next;
      else
        threadIdx = index;
    }
    next_unstarted_ = next;
  }

  void start(const block_range& blocks) {
    grid_dim_ = blocks.grid;
    block_dim_ = blocks.block;
    gridDim = blocks.grid;
    blockDim = blocks.block;
    thread_count_ = static_cast<unsigned>(volume(blocks.block));
    if (slots_.size() < thread_count_) slots_.resize(thread_count_);
    waiting_.reserve(thread_count_);
    ready_.reserve(thread_count_);
    converging_.reserve(thread_count_);
    on_objects_.reserve(thread_count_);
    unsigned warps = (thread_count_ + 31) / 32;
    if (groups_.size() < warps * 32) groups_.resize(warps * 32);
    if (group_count_.size() < warps) group_count_.resize(warps);
    if (live_parked_.size() < warps) live_parked_.resize(warps);
    if (exchange_.size() < warps) exchange_.resize(warps);
    std::fill(group_count_.begin(), group_count_.end(), 0);
    warp_parked_ = 0;
    next_block_ = blocks.first;
    end_block_ = blocks.end;
    abandoning_ = false;
    failure_ = {};
    start_next_block();
  }

  bool start_next_block() {
    if (next_block_ == end_block_) return false;
    blockIdx = unflatten(next_block_++, grid_dim_);
    next_unstarted_ = 0;
    next_index_ = {0, 0, 0};
    generation_.store(blocks_started() + 1, std::memory_order_relaxed);
    std::fill(live_parked_.begin(), live_parked_.end(), 0u);
    waiting_.clear();
    ready_.clear();
    converging_.clear();
    on_objects_.clear();
    ready_head_ = 0;
    predicate_count_ = 0;
    diverged_ = false;
    return true;
  }

  bool block_finished() const {
    return next_unstarted_ == thread_count_ && waiting_.empty() && ready_count() == 0 && warp_parked_ == 0 &&
           on_objects_.empty();
  }

  unsigned linear_thread_id() const { return threadIdx.x + block_dim_.x * (threadIdx.y + block_dim_.y * threadIdx.z); }

  void advance(uint3& index) const {
    if (++index.x < block_dim_.x) return;
    index.x = 0;
    if (++index.y < block_dim_.y) return;
    index.y = 0;
    ++index.z;
  }

  unsigned ready_count() const { return ready_.size() - ready_head_; }

  // The invariant: every started thread is exactly one of running (at most
  // one), exited, waiting at the block barrier (waiting_), parked in a warp
  // group or at __activemask (warp_parked_ counts both), parked on an object
  // (on_objects_), or ready (released or yielded, not yet resumed). So, when
  // no thread is running:
  unsigned exited_count() const {
    return next_unstarted_ - static_cast<unsigned>(waiting_.size() + warp_parked_ + on_objects_.size() + ready_count());
  }

  /// Every thread that has not exited waits at the barrier. A thread parked
  /// in a warp group has not arrived: the barrier waits for it (and if its
  /// group can never complete, the block ends in a reported deadlock).
  bool all_arrived() const {
    return next_unstarted_ == thread_count_ && ready_count() == 0 && warp_parked_ == 0 && on_objects_.empty();
  }

  // Every thread that has not exited waits at the barrier. Releases them,
  // unless they wait at different barriers, which fails the block.
  bool complete_barrier(bool caller_waits) {
    bool one_barrier = !diverged_;
    if (!one_barrier)
      fail(report("barrier divergence: threads wait at different barriers, which can never all complete"));
    last_count_ = predicate_count_;
    last_arrivals_ = static_cast<unsigned>(waiting_.size());
    predicate_count_ = 0;
    if (caller_waits) waiting_.pop_back();  // the last to arrive runs on
    if (!one_barrier) return false;
    // No thread can still be ready: all that have not exited were waiting.
    ready_.swap(waiting_);
    ready_head_ = 0;
    waiting_.clear();
    return true;
  }

  static bool same_site(const std::source_location& a, const std::source_location& b) {
    return std::memcmp(&a, &b, sizeof(std::source_location)) == 0 ||
           (a.line() == b.line() && a.column() == b.column() &&
            (a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0));
  }

  static bool same_barrier(const thread_slot& a, const thread_slot& b) {
    // A call site's source_location is one pointer to static data, so equal
    // bytes mean the same site; otherwise compare what it says.
    if (a.kind == b.kind && std::memcmp(&a.waiting_at, &b.waiting_at, sizeof(std::source_location)) == 0) return true;
    return a.kind == b.kind && a.waiting_at.line() == b.waiting_at.line() &&
           a.waiting_at.column() == b.waiting_at.column() &&
           (a.waiting_at.file_name() == b.waiting_at.file_name() ||
            std::strcmp(a.waiting_at.file_name(), b.waiting_at.file_name()) == 0);
  }

  fctx::fcontext_t next_to_run() {
    if (ready_head_ < ready_.size()) return slots_[ready_[ready_head_++]].context;
    if (next_unstarted_ < thread_count_) return new_runner();
    if (!converging_.empty() && converge(~0u)) return slots_[ready_[ready_head_++]].context;
    return worker_;  // nothing can run: the worker finds the deadlock
  }

  // Nothing else can run: every thread waiting at __activemask gets the
  // lanes of its warp waiting at the same call, and all but `caller` (which
  // runs on) become ready. Returns whether any did.
  bool converge(unsigned caller) {
    for (unsigned t : converging_) {
      unsigned mask = 0;
      for (unsigned o : converging_)
        if (o / 32 == t / 32 && same_site(slots_[o].waiting_at, slots_[t].waiting_at)) mask |= 1u << (o % 32);
      exchange_[t / 32].result[t % 32] = mask;
    }
    unsigned moved = 0;
    for (unsigned t : converging_)
      if (t != caller) {
        make_ready(t);
        ++moved;
      }
    warp_parked_ -= moved;
    converging_.clear();
    return moved != 0;
  }

  // Stack tops are staggered by a few cache lines: tops at the same offset
  // of equally sized stacks would all map to the same cache sets, and a
  // barrier touches every parked thread's top frames in turn.
  fctx::fcontext_t new_runner() {
    fresh_stack_ = stacks_.take();
    std::size_t stagger = (++runners_started_ % 61) * 64;
    return fctx::make_fcontext(static_cast<char*>(fresh_stack_.top()) - stagger, fresh_stack_.usable() - stagger,
                               runner_entry_);
  }

  // The note travels with the jump and lives on the jumping fiber's stack,
  // which stays intact until the resumed side has read it.
  void switch_to(fctx::fcontext_t target, switch_note note) { arrived(jump_context(target, &note)); }

  // A list of thread ids with room for the whole block, so adding one is a store.
  class thread_list {
   public:
    void reserve(unsigned n) {
      if (ids_.size() < n) ids_.resize(n);
    }
    void push_back(unsigned t) { ids_[size_++] = t; }
    unsigned capacity() const { return static_cast<unsigned>(ids_.size()); }
    void drop_front(unsigned n) {
      std::copy(ids_.begin() + n, ids_.begin() + size_, ids_.begin());
      size_ -= n;
    }
    void pop_back() { --size_; }
    void clear() { size_ = 0; }
    bool empty() const { return size_ == 0; }
    unsigned size() const { return size_; }
    unsigned operator[](unsigned i) const { return ids_[i]; }
    const unsigned* begin() const { return ids_.data(); }
    const unsigned* end() const { return ids_.data() + size_; }
    void swap(thread_list& other) {
      ids_.swap(other.ids_);
      std::swap(size_, other.size_);
    }

   private:
    std::vector<unsigned> ids_;
    unsigned size_ = 0;
  };

  void arrived(fctx::transfer_t from) {
    const switch_note& note = *static_cast<const switch_note*>(from.data);
    if (note.save_to) *note.save_to = from.fctx;
    if (note.retire.mapping) stacks_.give_back(note.retire);
  }

  // A runner whose loop is over: hand its stack back through the note and
  // jump away for good.
  [[noreturn]] void leave(fiber_stack own) {
    switch_note note{nullptr, own};
    bool resume_ready = !abandoning_ && (ready_head_ < ready_.size() ||
                                         (next_unstarted_ == thread_count_ && !converging_.empty() && converge(~0u)));
    fctx::fcontext_t target = resume_ready ? slots_[ready_[ready_head_++]].context : worker_;
    jump_context(target, &note);
    std::abort();  // a finished fiber is never resumed
  }

  void unwind_parked_threads() {
    std::vector<unsigned> parked(ready_.begin() + ready_head_, ready_.end());
    parked.insert(parked.end(), waiting_.begin(), waiting_.end());
    parked.insert(parked.end(), converging_.begin(), converging_.end());
    parked.insert(parked.end(), on_objects_.begin(), on_objects_.end());
    converging_.clear();
    on_objects_.clear();
    for (unsigned w = 0; w < group_count_.size(); ++w) {
      for (unsigned g = 0; g < group_count_[w]; ++g)
        for (unsigned lanes = groups_[w * 32 + g].arrived; lanes != 0; lanes &= lanes - 1)
          parked.push_back(w * 32 + static_cast<unsigned>(std::countr_zero(lanes)));
      group_count_[w] = 0;
    }
    warp_parked_ = 0;
    ready_.clear();
    ready_head_ = 0;
    waiting_.clear();
    for (unsigned t : parked) {
      switch_to(slots_[t].context, {&worker_, {}});
    }
  }

  void fail(const std::string& message, cudaError_t code = cudaErrorLaunchFailure) {
    if (abandoning_) return;
    abandoning_ = true;
    failure_ = {code, "block " + describe_index(blockIdx) + ", " + message};
  }

  static std::string describe_index(uint3 i) {
    // Appended piece by piece: `"(" + std::to_string(...)` trips a false
    // -Wrestrict in GCC 12 (its bug 105329) in every program built with -Wall.
    std::string text("(");
    text.append(std::to_string(i.x)).append(",").append(std::to_string(i.y));
    text.append(",").append(std::to_string(i.z)).append(")");
    return text;
  }
  static std::string describe_thread(uint3 t) { return "thread " + describe_index(t); }

  static std::string describe(std::exception_ptr error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      return std::string("uncaught exception: ") + e.what();
    } catch (...) {
      return "uncaught exception of a type not derived from std::exception";
    }
  }

  static const char* barrier_name(barrier_kind kind) {
    switch (kind) {
      case barrier_kind::count:
        return "__syncthreads_count";
      case barrier_kind::all:
        return "__syncthreads_and";
      case barrier_kind::any:
        return "__syncthreads_or";
      default:
        return "__syncthreads";
    }
  }

  // "<headline>; thread (0,0,0) to thread (63,0,0) wait at __syncthreads
  // (a.cu:12:5); thread (64,0,0) to ... (a.cu:15:5); 0 of 128 threads exited".
  // Consecutive threads waiting at the same barrier are shown as one range.
  std::string report(const char* headline) const {
    std::vector<unsigned> waiters(waiting_.begin(), waiting_.end());
    std::sort(waiters.begin(), waiters.end());
    std::string text = headline;
    for (std::size_t i = 0; i < waiters.size();) {
      std::size_t j = i + 1;
      while (j < waiters.size() && waiters[j] == waiters[j - 1] + 1 &&
             same_barrier(slots_[waiters[j]], slots_[waiters[i]]))
        ++j;
      const thread_slot& s = slots_[waiters[i]];
      text += "; " + describe_thread(s.index);
      if (j - i > 1) text += " to " + describe_thread(slots_[waiters[j - 1]].index);
      text += std::string(" wait at ") + barrier_name(s.kind) + " (" + s.waiting_at.file_name() + ":" +
              std::to_string(s.waiting_at.line()) + ":" + std::to_string(s.waiting_at.column()) + ")";
      i = j;
    }
    std::vector<unsigned> on_objects(on_objects_.begin(), on_objects_.end());
    std::sort(on_objects.begin(), on_objects.end());
    for (std::size_t i = 0; i < on_objects.size();) {
      const thread_slot& s = slots_[on_objects[i]];
      std::size_t j = i + 1;
      while (j < on_objects.size() && on_objects[j] == on_objects[j - 1] + 1 &&
             slots_[on_objects[j]].waits_on == s.waits_on && slots_[on_objects[j]].wait_name == s.wait_name &&
             same_site(slots_[on_objects[j]].waiting_at, s.waiting_at))
        ++j;
      text += "; " + describe_thread(s.index);
      if (j - i > 1) text += " to " + describe_thread(slots_[on_objects[j - 1]].index);
      text += std::string(" wait at ") + s.wait_name + " (" + describe_site(s.waiting_at) + ")";
      if (s.describe_wait) text += ", " + s.describe_wait(s.waits_on);
      i = j;
    }
    for (unsigned w = 0; w < group_count_.size() && w * 32 < thread_count_; ++w) {
      for (unsigned i = 0; i < group_count_[w]; ++i) {
        const warp_group& g = groups_[w * 32 + i];
        text += "; warp " + std::to_string(w) + " lanes " + describe_lanes(g.arrived) + " (thread " +
                describe_index(slots_[w * 32 + static_cast<unsigned>(std::countr_zero(g.arrived))].index) +
                " first) wait at " + describe_call(g.op, g.where) + " with mask " + hex(g.mask);
      }
    }
    text += "; " + std::to_string(exited_count()) + " of " + std::to_string(thread_count_) + " threads exited";
    return text;
  }

  // ---- Warp collectives -------------------------------------------------

  // The lanes of `warp` that exist: the last warp of a block may be partial.
  unsigned lanes_in_block(unsigned warp) const {
    unsigned n = thread_count_ - warp * 32;
    return n >= 32 ? ~0u : (1u << n) - 1;
  }

  // Lanes of `warp` other than `self` that have exited. Needs the cursor
  // exact (the caller went through first_arrival): a started thread that
  // never parked in this block ran to its end, since threads run one after
  // another until one parks; one that parked says so in its slot.
  unsigned exited_lanes(unsigned warp, unsigned self) const {
    unsigned first = warp * 32;
    unsigned started = next_unstarted_ > first ? std::min(next_unstarted_ - first, 32u) : 0;
    unsigned started_lanes = started == 32 ? ~0u : (1u << started) - 1;
    // A started lane that is not parked-and-alive has run to its end (lazily,
    // never parking, or after parking); the caller (if `self` is in this
    // warp) is running.
    unsigned caller = self / 32 == warp ? 1u << (self % 32) : 0;
    return started_lanes & ~live_parked_[warp] & ~caller;
  }

  // The open group with this mask.
  warp_group* find_group(unsigned warp, unsigned mask) {
    warp_group* g = &groups_[warp * 32];
    for (unsigned i = 0, n = group_count_[warp]; i < n; ++i)
      if (g[i].mask == mask) return &g[i];
    return nullptr;
  }

  // Groups with overlapping masks may be open at once: lanes wait in a
  // larger group while others of its lanes first meet in a smaller one (a
  // tile inside a tile, say), which completes on a GPU too. A new group can
  // never complete only if it needs a lane parked in an open group that
  // waits for the caller: returns that group.
  const warp_group* blocking_group(unsigned warp, unsigned mask, unsigned lane_bit) const {
    const warp_group* g = &groups_[warp * 32];
    for (unsigned i = 0, n = group_count_[warp]; i < n; ++i)
      if ((g[i].mask & lane_bit) && (g[i].arrived & mask)) return &g[i];
    return nullptr;
  }

  // The first lane of a group to arrive checks the mask for all of them: it
  // must name the caller, only lanes of the block, and no lane that exited.
  // (A lane that exits later, while the group waits for it, is found when
  // the block can no longer make progress: see stall_report.)
  [[gnu::noinline]] warp_group* open_group(unsigned warp, warp_op op, unsigned mask, unsigned lane_bit,
                                           std::source_location where) {
    unsigned self = warp * 32 + static_cast<unsigned>(std::countr_zero(lane_bit));
    auto refuse = [&](const std::string& why) {
      throw kernel_fault{cudaErrorLaunchFailure, describe_call(op, where) + " in warp " + std::to_string(warp) +
                                                     " with mask " + hex(mask) + ": " + why};
    };
    if (!(mask & lane_bit)) refuse("the mask omits the calling lane " + std::to_string(self % 32));
    if (unsigned outside = mask & ~lanes_in_block(warp))
      refuse("the mask names " + lanes_phrase(outside) + " past the block's end (" + std::to_string(thread_count_) +
             " threads)");
    if (unsigned gone = mask & exited_lanes(warp, self))
      refuse("the mask names " + lanes_phrase(gone) + ", which " + (std::has_single_bit(gone) ? "has" : "have") +
             " exited");
    warp_group& g = groups_[warp * 32 + group_count_[warp]++];
    g = {mask, 0, op, where};
    return &g;
  }

  [[gnu::noinline]] std::string mismatch(unsigned warp, const warp_group& g, warp_op op, unsigned mask,
                                         unsigned lane_bit, std::source_location where) const {
    std::string text = "warp " + std::to_string(warp) + ": lane " + std::to_string(std::countr_zero(lane_bit)) +
                       " calls " + describe_call(op, where) + " with mask " + hex(mask) + " while " +
                       lanes_phrase(g.arrived) + (std::has_single_bit(g.arrived) ? " waits" : " wait") + " at " +
                       describe_call(g.op, g.where) + " with mask " + hex(g.mask);
    return text + (g.op != op ? ": lanes of one group call different collectives"
                              : ": overlapping masks that differ can never complete");
  }

  // Run by the last lane to arrive: every lane's result into its slot, the
  // others to the ready list (in lane order), the group closed.
  void complete_group(unsigned warp, warp_group& g, unsigned caller_bit) {
    warp_exchange& x = exchange_[warp];
    unsigned mask = g.mask;
    switch (g.op) {
      case warp_op::sync:
        break;
      case warp_op::shfl:
      case warp_op::shfl_up:
      case warp_op::shfl_down:
      case warp_op::shfl_xor:
        if (mask == ~0u && same_shuffle_operands(x)) {
          shuffle_whole_warp(g.op, x);
          break;
        }
        for (unsigned m = mask; m != 0; m &= m - 1) {
          unsigned lane = static_cast<unsigned>(std::countr_zero(m));
          unsigned source = shuffle_source(g.op, lane, x.source[lane], x.width[lane]);
          // A source lane outside the mask is undefined in CUDA; weft gives
          // 0, as an H100 did (tests/differential/warp_probe.expected).
          x.result[lane] = mask >> source & 1 ? x.operand[source] : 0;
        }
        break;
      case warp_op::match_any:
        for (unsigned m = mask; m != 0; m &= m - 1) {
          unsigned lane = static_cast<unsigned>(std::countr_zero(m)), same = 0;
          for (unsigned o = mask; o != 0; o &= o - 1) {
            unsigned other = static_cast<unsigned>(std::countr_zero(o));
            if (x.operand[other] == x.operand[lane]) same |= 1u << other;
          }
          x.result[lane] = same;
        }
        break;
      default: {
        std::uint64_t r = uniform_result(g.op, x.operand, mask);
        for (unsigned m = mask; m != 0; m &= m - 1) x.result[std::countr_zero(m)] = r;
      }
    }
    unsigned waiters = g.arrived & ~caller_bit;  // the caller is not parked: it carries on
    warp_parked_ -= make_ready(warp, waiters);
    g = groups_[warp * 32 + --group_count_[warp]];  // close: the last open group takes its place
  }

  // Whether every lane of the warp shuffles with the same lane or delta
  // operand and width, the common case, compared eight lanes at a time.
  static bool same_shuffle_operands(const warp_exchange& x) {
    std::uint64_t source[4], width[4];
    std::memcpy(source, x.source, sizeof source);
    std::memcpy(width, x.width, sizeof width);
    std::uint64_t first_source = source[0] & 0xff, first_width = width[0] & 0xff;
    std::uint64_t all_source = first_source * 0x0101010101010101u, all_width = first_width * 0x0101010101010101u;
    return ((source[0] ^ all_source) | (source[1] ^ all_source) | (source[2] ^ all_source) | (source[3] ^ all_source) |
            (width[0] ^ all_width) | (width[1] ^ all_width) | (width[2] ^ all_width) | (width[3] ^ all_width)) == 0;
  }

  // A shuffle of all 32 lanes with one operand and width: every source lane
  // is in the mask, and the loop has no per-lane decoding.
  static void shuffle_whole_warp(warp_op op, warp_exchange& x) {
    unsigned b = x.source[0], width = x.width[0];
    for (unsigned lane = 0; lane < 32; ++lane) x.result[lane] = x.operand[shuffle_source(op, lane, b, width)];
  }

  // CUDA's shfl.sync rules (PTX ISA, "shfl.sync"): lanes form segments of
  // `width`; the delta or lane operand is taken modulo 32; up and down past
  // the segment's edge, and xor past its end, read the caller's own value.
  static unsigned shuffle_source(warp_op op, unsigned lane, unsigned b, unsigned width) {
    unsigned first = lane & ~(width - 1), last = first + width - 1;
    switch (op) {
      case warp_op::shfl_up:
        return lane >= first + b ? lane - b : lane;
      case warp_op::shfl_down:
        return lane + b <= last ? lane + b : lane;
      case warp_op::shfl_xor:
        return (lane ^ b) <= last ? lane ^ b : lane;
      default:
        return first | (b & (width - 1));
    }
  }

  // The one result every lane of a vote, match_all or reduction gets
  // (match_all: the mask if all operands are equal, else 0).
  static std::uint64_t uniform_result(warp_op op, const std::uint64_t* operand, unsigned mask) {
    unsigned first = static_cast<unsigned>(std::countr_zero(mask));
    std::uint64_t acc = operand[first];
    unsigned ballot = 0;
    bool all_equal = true;
    for (unsigned m = mask; m != 0; m &= m - 1) {
      unsigned lane = static_cast<unsigned>(std::countr_zero(m));
      std::uint64_t v = operand[lane];
      if (v != 0) ballot |= 1u << lane;
      all_equal &= v == acc;
      switch (op) {
        case warp_op::reduce_add:
          if (lane != first) acc += v;
          break;
        case warp_op::reduce_min_signed:
          acc = static_cast<std::int64_t>(v) < static_cast<std::int64_t>(acc) ? v : acc;
          break;
        case warp_op::reduce_max_signed:
          acc = static_cast<std::int64_t>(v) > static_cast<std::int64_t>(acc) ? v : acc;
          break;
        case warp_op::reduce_min_unsigned:
          acc = std::min(acc, v);
          break;
        case warp_op::reduce_max_unsigned:
          acc = std::max(acc, v);
          break;
        case warp_op::reduce_and:
          acc &= v;
          break;
        case warp_op::reduce_or:
          acc |= v;
          break;
        case warp_op::reduce_xor:
          if (lane != first) acc ^= v;
          break;
        default:
          break;
      }
    }
    switch (op) {
      case warp_op::ballot:
        return ballot;
      case warp_op::any:
        return ballot != 0;
      case warp_op::all:
        return ballot == mask;
      case warp_op::match_all:
        return all_equal ? mask : 0u;
      default:
        return acc;
    }
  }

  // Appends to the ready list. It has room for the whole block, and each
  // thread is in it at most once, so moving the unread part to the front
  // always makes room.
  //
  // Makes the lanes of `warp` in `lanes` ready, in lane order; returns how many.
  unsigned make_ready(unsigned warp, unsigned lanes) {
    make_room(32);
    unsigned count = 0;
    for (unsigned m = lanes; m != 0; m &= m - 1, ++count)
      ready_.push_back(warp * 32 + static_cast<unsigned>(std::countr_zero(m)));
    return count;
  }

  void make_ready(unsigned t) {
    make_room(1);
    ready_.push_back(t);
  }

  // Room at the ready list's end for `count` more threads (or all that can
  // still join it, which each thread does at most once).
  void make_room(unsigned count) {
    if (ready_head_ == ready_.size()) {
      ready_.clear();
      ready_head_ = 0;
    } else if (ready_.size() + count > ready_.capacity()) {
      ready_.drop_front(ready_head_);
      ready_head_ = 0;
    }
  }

  // Why the block can make no progress. A warp group waiting for a lane that
  // has exited is named as such; anything else is a deadlock, listing the
  // threads at block barriers and in warp collectives.
  std::string stall_report() const {
    for (unsigned w = 0; w < group_count_.size() && w * 32 < thread_count_; ++w) {
      for (unsigned i = 0; i < group_count_[w]; ++i) {
        const warp_group& g = groups_[w * 32 + i];
        if (unsigned gone = g.mask & ~g.arrived & exited_lanes(w, thread_count_)) {
          std::string text = describe_call(g.op, g.where) + " in warp " + std::to_string(w) + " with mask " +
                             hex(g.mask) + ": " + lanes_phrase(g.arrived) +
                             (std::has_single_bit(g.arrived) ? " waits" : " wait") + " for " + lanes_phrase(gone) +
                             ", which " + (std::has_single_bit(gone) ? "has" : "have") + " exited";
          return report(text.c_str());
        }
      }
    }
    return report("deadlock: no thread of the block can make progress");
  }

  static const char* warp_op_name(warp_op op) {
    switch (op) {
      case warp_op::sync:
        return "__syncwarp";
      case warp_op::shfl:
        return "__shfl_sync";
      case warp_op::shfl_up:
        return "__shfl_up_sync";
      case warp_op::shfl_down:
        return "__shfl_down_sync";
      case warp_op::shfl_xor:
        return "__shfl_xor_sync";
      case warp_op::ballot:
        return "__ballot_sync";
      case warp_op::any:
        return "__any_sync";
      case warp_op::all:
        return "__all_sync";
      case warp_op::match_any:
        return "__match_any_sync";
      case warp_op::match_all:
        return "__match_all_sync";
      case warp_op::reduce_add:
        return "__reduce_add_sync";
      case warp_op::reduce_min_signed:
      case warp_op::reduce_min_unsigned:
        return "__reduce_min_sync";
      case warp_op::reduce_max_signed:
      case warp_op::reduce_max_unsigned:
        return "__reduce_max_sync";
      case warp_op::reduce_and:
        return "__reduce_and_sync";
      case warp_op::reduce_or:
        return "__reduce_or_sync";
      default:
        return "__reduce_xor_sync";
    }
  }

  static std::string describe_site(std::source_location where) {
    return std::string(where.file_name()) + ":" + std::to_string(where.line()) + ":" + std::to_string(where.column());
  }
  static std::string describe_call(warp_op op, std::source_location where) {
    return std::string(warp_op_name(op)) + " (" + describe_site(where) + ")";
  }
  static std::string hex(unsigned mask) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", mask);
    return text;
  }
  // "lane 3", "lanes 0-3,7"
  static std::string lanes_phrase(unsigned lanes) {
    return (std::has_single_bit(lanes) ? "lane " : "lanes ") + describe_lanes(lanes);
  }
  // "0-3,7,9-10"
  static std::string describe_lanes(unsigned lanes) {
    std::string text;
    for (unsigned lane = 0; lane < 32;) {
      if (!(lanes >> lane & 1)) {
        ++lane;
        continue;
      }
      unsigned end = lane;
      while (end + 1 < 32 && (lanes >> (end + 1) & 1)) ++end;
      if (!text.empty()) text += ",";
      text += std::to_string(lane);
      if (end > lane) text.append("-").append(std::to_string(end));  // not "-" + ...: GCC 12's false -Wrestrict
      lane = end + 1;
    }
    return text;
  }

  // The blocks to run.
  dim3 grid_dim_{};
  std::uint64_t next_block_ = 0;
  std::uint64_t end_block_ = 0;

  // The block being run. The cursor (next_unstarted_, next_index_) is exact
  // whenever no runner loop is running; a running loop keeps it in locals.
  dim3 block_dim_{};
  unsigned thread_count_ = 0;
  unsigned next_unstarted_ = 0;
  uint3 next_index_{};
  // Counts blocks run, to tell a thread's first park; the SM pool's watchdog
  // reads it from another thread (blocks_started), hence atomic, but only
  // this worker writes it.
  std::atomic<std::uint64_t> generation_{0};
  // Per warp, the lanes that have parked in this block and not exited: what
  // exited_lanes needs, without reading every lane's slot.
  std::vector<unsigned> live_parked_;
  std::uint64_t switches_ = 0;  // counts parks, so a loop notices other fibers ran
  std::vector<thread_slot> slots_;

  // Barrier state: threads parked at the barrier, and those released but not
  // yet resumed (ready_[ready_head_...]).
  thread_list waiting_;
  thread_list ready_;
  unsigned ready_head_ = 0;
  unsigned predicate_count_ = 0;
  const thread_slot* barrier_ = nullptr;  // the first waiter, whose barrier the others must match
  bool diverged_ = false;
  unsigned last_count_ = 0;
  unsigned last_arrivals_ = 0;

  // Warp collectives: up to 32 open groups per warp (each holds a lane),
  // groups_[warp * 32 + i] for i < group_count_[warp]; warp_parked_ counts
  // the lanes parked in them.
  std::vector<warp_group> groups_;
  std::vector<unsigned> group_count_;
  std::vector<warp_exchange> exchange_;
  unsigned warp_parked_ = 0;          // lanes parked in groups or at __activemask
  thread_list converging_;            // threads parked at __activemask
  std::vector<unsigned> on_objects_;  // threads parked in wait_on, in the order they parked

  bool abandoning_ = false;
  block_failure failure_;

  // Fibers.
  void* body_ = nullptr;
  void (*runner_entry_)(fctx::transfer_t) = nullptr;
  fctx::fcontext_t worker_ = nullptr;
  fiber_stack fresh_stack_{};
  std::size_t runners_started_ = 0;
  stack_pool stacks_;

  struct aligned_delete {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{128}); }
  };
  std::unique_ptr<std::byte[], aligned_delete> dynamic_shared_;
  std::size_t dynamic_shared_capacity_ = 0;
};

}  // namespace weft::detail
