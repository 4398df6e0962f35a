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
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <source_location>
#include <string>
#include <vector>

#include "../cuda/builtins.hpp"
#include "../cuda/error_codes.hpp"
#include "fiber_stack.hpp"

namespace weft::detail {

namespace fctx = boost::context::detail;

/// The four flavours of the block-wide barrier (CUDA guide, "Synchronization Functions").
enum class barrier_kind : unsigned char { sync, count, all, any };

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
    if (!abandoning_ && !block_finished()) fail(report("deadlock: no thread of the block can make progress"));
    if (abandoning_) unwind_parked_threads();
    running_block = nullptr;
    return std::move(failure_);
  }

  /// A barrier over the whole block. Threads that exited count as arrived
  /// (sm_70 and later). Returns the barrier's result for `kind`.
  int arrive_and_wait(barrier_kind kind, int predicate, std::source_location where) {
    unsigned self = threadIdx.x + block_dim_.x * (threadIdx.y + block_dim_.y * threadIdx.z);
    thread_slot& me = slots_[self];
    if (me.parked_in != generation_ || abandoning_) [[unlikely]]
      first_arrival(me, self);
    me.index = threadIdx;
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

  std::byte* dynamic_shared() const { return dynamic_shared_.get(); }

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
    fctx::jump_fcontext(worker_, &note);
    std::abort();  // the overflowed fiber is never resumed
  }

 private:
  struct thread_slot {
    std::uint64_t parked_in = 0;         // the generation_ of the block in which it last parked
    fctx::fcontext_t context = nullptr;  // where a parked thread resumes
    uint3 index{};                       // its threadIdx, saved when it parks
    barrier_kind kind{};
    std::source_location waiting_at{};
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
    me.parked_in = generation_;
    next_unstarted_ = self + 1;
    next_index_ = threadIdx;
    advance(next_index_);
  }

  // Suspends the calling thread until its barrier completes.
  void park(thread_slot& me) {
    ++switches_;
    switch_note note{&me.context, {}};
    arrived(fctx::jump_fcontext(next_to_run(), &note));
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
  // the compiler can keep in a register and vectorise around.
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
    if (one_dimensional) threadIdx = {0, 0, 0};
    while (next < thread_count_) {
      if constexpr (one_dimensional) {
        threadIdx.x = next;
      } else {
        threadIdx = index;
        advance(index);
      }
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
        next = next_unstarted_;
        index = next_index_;
        if (one_dimensional) threadIdx = {0, 0, 0};
      }
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
    ++generation_;
    waiting_.clear();
    ready_.clear();
    ready_head_ = 0;
    predicate_count_ = 0;
    diverged_ = false;
    return true;
  }

  bool block_finished() const { return next_unstarted_ == thread_count_ && waiting_.empty() && ready_count() == 0; }

  void advance(uint3& index) const {
    if (++index.x < block_dim_.x) return;
    index.x = 0;
    if (++index.y < block_dim_.y) return;
    index.y = 0;
    ++index.z;
  }

  unsigned ready_count() const { return ready_.size() - ready_head_; }

  // Started threads have exited, wait at the barrier, or were released and
  // not resumed yet (no thread is running when this is asked).
  unsigned exited_count() const { return next_unstarted_ - static_cast<unsigned>(waiting_.size() + ready_count()); }

  /// Every thread that has not exited waits at the barrier.
  bool all_arrived() const { return next_unstarted_ == thread_count_ && ready_count() == 0; }

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
    return worker_;  // nothing can run: the worker finds the deadlock
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
  void switch_to(fctx::fcontext_t target, switch_note note) { arrived(fctx::jump_fcontext(target, &note)); }

  // A list of thread ids with room for the whole block, so adding one is a store.
  class thread_list {
   public:
    void reserve(unsigned n) {
      if (ids_.size() < n) ids_.resize(n);
    }
    void push_back(unsigned t) { ids_[size_++] = t; }
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
    bool resume_ready = !abandoning_ && ready_head_ < ready_.size();
    fctx::fcontext_t target = resume_ready ? slots_[ready_[ready_head_++]].context : worker_;
    fctx::jump_fcontext(target, &note);
    std::abort();  // a finished fiber is never resumed
  }

  void unwind_parked_threads() {
    std::vector<unsigned> parked(ready_.begin() + ready_head_, ready_.end());
    parked.insert(parked.end(), waiting_.begin(), waiting_.end());
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

  void reserve_dynamic_shared(std::size_t bytes) {
    if (bytes <= dynamic_shared_capacity_) return;
    dynamic_shared_.reset(new (std::align_val_t{128}) std::byte[bytes]);
    dynamic_shared_capacity_ = bytes;
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
    text += "; " + std::to_string(exited_count()) + " of " + std::to_string(thread_count_) + " threads exited";
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
  std::uint64_t generation_ = 0;  // counts blocks run, to tell a thread's first park
  std::uint64_t switches_ = 0;    // counts parks, so a loop notices other fibers ran
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
