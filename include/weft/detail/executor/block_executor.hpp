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
//
// This header is the one to include. It holds the class: what the rest of
// weft calls, the block's state, and the declarations of the private
// members, grouped by the header below that defines them (inline, out of
// the class, so that each part can be read on its own):
//
//   block_executor_runner.hpp   the runner loop, parking, the ready list
//   block_executor_barrier.hpp  the block-wide barrier (__syncthreads)
//   block_executor_warps.hpp    warp collectives and __activemask
//   block_executor_faults.hpp   failing a block, unwinding it, the reports
//
// What a warp collective computes, once its lanes have met, is in
// warp_arithmetic.hpp, which needs no executor.
//
// weft's gdb extension (tools/gdb/weft_gdb.py) reads this class's members
// by name: thread_slot, the barrier lists, the warp groups, the cursor and
// generation_, and the thread-local running_block. Renaming or re-meaning
// one of them means changing the script too (tests/gdb checks it).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/schedule_permutation.hpp"
#include "weft/detail/base/schedule_setting.hpp"
#include "weft/detail/checks/memory_poisoning.hpp"
#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/executor/block_reports.hpp"
#include "weft/detail/executor/signal_fault.hpp"
#include "weft/detail/executor/stalled_block.hpp"
#include "weft/detail/executor/thread_list.hpp"
#include "weft/detail/executor/warp_arithmetic.hpp"
#include "weft/detail/executor/warp_reports.hpp"
#include "weft/detail/fibers/context_switch.hpp"
#include "weft/detail/fibers/fiber_sanitizer.hpp"
#include "weft/detail/fibers/fiber_stack.hpp"

namespace weft::detail {

// barrier_kind, kernel_fault and block_failure are block_reports.hpp's,
// which the stackless executor shares.

/// Thrown from a barrier to unwind a CUDA thread whose block is being abandoned.
struct block_abandoned {};

/// Blocks [first, end) of a grid, in linear order, or in the order that
/// `claim_order` gives claim numbers [first, end) (WEFT_SCHEDULE).
struct block_range {
  dim3 grid;
  dim3 block;
  std::uint64_t first;
  std::uint64_t end;
  schedule_setting schedule{};      // the order of the blocks' threads
  std::uint64_t launch = 0;         // the launch's number under its schedule: in its permutations' seed
  index_permutation claim_order{};  // claim number -> linear block index
};

class block_executor;
inline thread_local block_executor* running_block = nullptr;

/// Whether the caller runs as a CUDA thread: in a kernel, or in a function a
/// kernel calls. A __host__ __device__ function whose body tests
/// __CUDA_ARCH__ is ported with both of nvcc's views and picks one with this
/// (tools/weft-port); constant evaluation takes the host view.
constexpr bool in_kernel() noexcept { return !std::is_constant_evaluated() && running_block != nullptr; }

class block_executor {
 public:
  block_executor() = default;
  ~block_executor() { drop_idle_runners(); }
  block_executor(const block_executor&) = delete;
  block_executor& operator=(const block_executor&) = delete;

  /// Runs blocks [first_block, end_block) of a grid, one after another;
  /// `body` runs the kernel for the thread that threadIdx and blockIdx name.
  /// On failure, returns the code and what went wrong, naming the block and
  /// threads involved; the remaining blocks are then skipped.
  template <class Body>
  block_failure run(Body& body, const block_range& blocks, std::size_t stack_size, std::size_t dynamic_shared_bytes);

  /// Blocks started so far: how the SM pool's watchdog tells a worker that
  /// makes progress from one stuck in a block (read from another thread).
  std::uint64_t blocks_started() const { return generation_.load(std::memory_order_relaxed); }

  /// Counts a block that another executor ran on this worker (a stackless
  /// kernel's, coroutine_executor/), so that the watchdog sees the worker
  /// make progress. Every thread slot is then stale, as after a block of
  /// this executor's own.
  void count_block_run_elsewhere() { generation_.store(blocks_started() + 1, std::memory_order_relaxed); }

  /// A barrier over the whole block. Threads that exited count as arrived
  /// (sm_70 and later). Returns the barrier's result for `kind`.
  int arrive_and_wait(barrier_kind kind, int predicate, std::source_location where);

  /// A warp collective: a rendezvous of the lanes of the caller's warp that
  /// `mask` names. Each lane deposits its operand; all but the last to arrive
  /// park as at a block barrier; the last computes every lane's result,
  /// makes the others ready and carries on. Lanes with other masks form
  /// other groups. A bad mask, or lanes that disagree on the collective or
  /// its mask, fail the block with a report naming warp, lanes and line.
  [[gnu::always_inline]] warp_result warp_collective(warp_op op, unsigned mask, warp_operand operand,
                                                     std::source_location where);

  /// __activemask: the lanes of the caller's warp that are converged with it.
  /// weft has no program counter to compare, so it waits for them: the
  /// caller parks until no thread of the block can run otherwise (every
  /// thread has started, and has exited or parked), and then gets the lanes
  /// of its warp parked at the same __activemask call. Lanes that exited or
  /// took another branch are thereby left out, as on a GPU.
  unsigned active_mask(std::source_location where);

  /// Lets the other threads of the block run: the caller goes to the back of
  /// the ready list and control passes to a fresh runner for the next
  /// unstarted thread, else to the longest-ready thread. Unstarted threads go
  /// first so that two spinning threads cannot pass control back and forth
  /// forever while the thread they wait for has not started. If nothing
  /// else can run, returns false at once.
  bool yield();

  /// Parks the calling thread until another thread of the block calls
  /// wake_all(object): a wait on a synchronisation object of CUDA's library
  /// (cuda::barrier, cuda::pipeline) that other threads complete. The caller
  /// checks its condition again when it resumes. If the block can make no
  /// progress, the deadlock report names `what` at `where`, followed by
  /// `describe(object)`, the object's state.
  void wait_on(const void* object, const char* what, std::string (*describe)(const void*), std::source_location where);

  /// Makes every thread parked in wait_on(object) ready, in the order they parked.
  void wake_all(const void* object);

  /// The lanes of `warp` that have exited. Called by a running thread of
  /// the block (never among them), or with `by_thread` false where the block
  /// stalls (settle_stalled_block), when no thread runs.
  unsigned lanes_exited(unsigned warp, bool by_thread = true);

  std::byte* dynamic_shared() const { return dynamic_shared_.get(); }
  /// The dynamic shared memory the running launch gave each block, in bytes.
  std::size_t dynamic_shared_size() const { return dynamic_shared_bytes_; }
  /// The buffer's whole length, of which the launch's bytes are the start.
  std::size_t dynamic_shared_capacity() const { return dynamic_shared_capacity_; }

  /// Makes the dynamic shared memory buffer at least `bytes` long. It moves
  /// only when it grows, so a cluster can publish where it is before its
  /// block runs (run() reserves again, with the same size). In a build with
  /// AddressSanitizer, the buffer past `bytes`, left from a larger launch,
  /// is poisoned: a GPU faults there.
  void reserve_dynamic_shared(std::size_t bytes) {
    if (bytes > dynamic_shared_capacity_) {
      dynamic_shared_.reset(new (std::align_val_t{128}) std::byte[bytes]);
      dynamic_shared_capacity_ = bytes;
    }
    dynamic_shared_bytes_ = bytes;
    if constexpr (fiber_sanitizer::address_sanitizer) {
      unpoison_memory(dynamic_shared_.get(), bytes);
      poison_memory(dynamic_shared_.get() + bytes, dynamic_shared_capacity_ - bytes);
    }
  }

  /// In a build with AddressSanitizer: the running CUDA thread made a bad
  /// access that ASan reported and let it go on from (memory_check.hpp).
  /// The block fails with cudaErrorIllegalAddress, as a GPU's launch does;
  /// the thread runs on to its end or its next barrier, the block's other
  /// threads stop there or do not start.
  [[gnu::cold]] void fail_bad_access(const std::string& report);

  /// Called by the handler of SIGSEGV, SIGBUS and SIGFPE, on the worker's
  /// signal stack. If the CPU raised the signal while one of this worker's
  /// fibers ran, kernel code faulted (a wild pointer, a stack overflow into
  /// the guard page, a division by zero): fail the block and jump back to
  /// the worker for good (the thread's frames cannot be unwound: a signal
  /// is no C++ exception). The worker's context is valid, since it is
  /// parked whenever a fiber runs. The report is written once the worker
  /// has control back, off the signal stack. Returns only if the fault was
  /// not kernel code's.
  bool recover_from_fault(int signal, const siginfo_t& info, const void* context);

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

  // Written by the fiber that jumps, read by the one that resumes: where to
  // park the jumper's context, and which finished fiber's stack to recycle.
  struct switch_note {
    fctx::fcontext_t* save_to = nullptr;
    fiber_stack retire{};
  };

  unsigned linear_thread_id() const { return linear_thread_index(threadIdx, block_dim_); }

  // The parts define these inline, as if in the class. The [[gnu::noinline]]
  // ones (off the hot path) are declared inline here instead, and defined
  // without it: GCC warns about an inline definition after noinline.

  // ---- The runner loop and parking: block_executor_runner.hpp ----
  template <class Body>
  static void runner_main(fctx::transfer_t from);
  template <class Body>
  void run_threads(Body& body);
  template <bool one_dimensional, class Body>
  void run_threads(const Body& shared_body);
  void start(const block_range& blocks);
  bool start_next_block();
  void draw_schedule();
  template <class Body>
  void run_threads_permuted(const Body& shared_body);
  unsigned started_lanes_permuted(unsigned warp) const;
  void order_released(unsigned from);
  void start_race_check(std::uint64_t block);
  bool block_finished() const;
  void advance(uint3& index) const;
  [[gnu::noinline]] inline void first_arrival(thread_slot& me, unsigned self);
  void park(thread_slot& me);
  // The switch itself, which every barrier runs once per thread, is weft's
  // own bookkeeping of its own memory: ASan does not instrument it (a
  // third of what a barrier cost under ASan was its checks and its copies
  // of the switch's note here; docs/debugging.md, "What each mode costs").
  [[gnu::no_sanitize_address]] void park_to(thread_slot& me, fctx::fcontext_t target);
  fctx::fcontext_t next_to_run();
  bool settled_stall();
  fctx::fcontext_t new_runner();
  [[gnu::no_sanitize_address]] void switch_to(fctx::fcontext_t target, switch_note note);
  template <bool inline_switch>
  [[gnu::no_sanitize_address]] fctx::transfer_t jump(fctx::fcontext_t target, switch_note& note);
  [[gnu::no_sanitize_address]] fctx::transfer_t park_jump(fctx::fcontext_t target, fctx::fcontext_t& save_to);
  [[gnu::no_sanitize_address]] void arrived(fctx::transfer_t from);
  [[gnu::noinline]] inline void recycle(fiber_stack stack);
  void leave(fiber_stack own);  // never returns; not [[noreturn]]: see fiber_sanitizer.hpp
  fctx::fcontext_t after_runner();
  bool rest_idle(fiber_stack own);
  void drop_idle_runners();
  unsigned ready_count() const;
  unsigned exited_count() const;
  void make_ready(unsigned t);
  void make_room(unsigned count);

  // ---- The block-wide barrier: block_executor_barrier.hpp ----
  bool all_arrived() const;
  bool complete_barrier(bool caller_waits);
  static bool same_barrier(const thread_slot& a, const thread_slot& b);

  // ---- Warp collectives: block_executor_warps.hpp ----
  bool converge(unsigned caller);
  unsigned exited_lanes(unsigned warp, unsigned self) const;
  warp_group* find_or_open_group(unsigned warp, warp_op op, unsigned mask, unsigned lane_bit,
                                 std::source_location where);
  [[gnu::noinline]] inline warp_group* open_group(unsigned warp, warp_op op, unsigned mask, unsigned lane_bit,
                                                  std::source_location where);
  [[gnu::noinline, gnu::cold]] inline std::string mismatch(unsigned warp, const warp_group& g, warp_op op,
                                                           unsigned mask, unsigned lane_bit,
                                                           std::source_location where) const;
  [[noreturn, gnu::cold]] void refuse_group(unsigned warp, warp_op op, unsigned mask, unsigned lane_bit,
                                            std::source_location where) const;
  void complete_group(unsigned warp, warp_group& g, unsigned caller_bit);
  unsigned make_ready(unsigned warp, unsigned lanes);

  // ---- Failing and abandoning a block, and the reports: block_executor_faults.hpp ----
  [[gnu::cold]] void fail(const std::string& message, cudaError_t code = cudaErrorLaunchFailure);
  [[gnu::cold]] void fail_thread(const kernel_fault& fault);
  [[gnu::cold]] void fail_thread_uncaught();
  [[gnu::cold]] void fail_from_signal();
  [[gnu::cold]] static bool index_in_memory_is_exact(const void* instruction);
  enum class replay_outcome { alike, other, failed };
  [[gnu::cold]] bool replay_to_find_thread(const signal_fault& fault);
  [[gnu::cold]] replay_outcome replay(const signal_fault& fault, unsigned start, unsigned last);
  [[gnu::cold]] void replay_threads(unsigned start, unsigned last);
  [[gnu::cold]] void unwind_parked_threads();
  [[gnu::cold]] std::string report(const char* headline) const;
  [[gnu::cold]] std::string stall_report() const;
  [[gnu::cold]] static void sort_ids(std::vector<unsigned>& ids);
  [[gnu::cold]] static void append_threads(std::string& text, uint3 first, uint3 last, bool range);
  [[gnu::cold]] static std::string describe_index(uint3 i);
  [[gnu::cold]] static std::string describe_thread(uint3 t);
  [[gnu::cold]] static std::string describe(std::exception_ptr error);
  [[gnu::cold]] static const char* barrier_name(barrier_kind kind);
  [[gnu::cold]] static std::string describe_site(std::source_location where);

  // The blocks to run.
  dim3 grid_dim_{};
  std::uint64_t next_block_ = 0;
  std::uint64_t end_block_ = 0;

  // The block being run. The cursor (next_unstarted_, next_index_) is exact
  // whenever no runner loop is running; a running loop keeps it in locals.
  // Threads start in cursor order, so a thread has started exactly when its
  // position is below next_unstarted_ (its linear id under forward, and
  // start_position_[id] under another schedule).
  dim3 block_dim_{};
  unsigned thread_count_ = 0;
  unsigned next_unstarted_ = 0;
  uint3 next_index_{};
  // Counts blocks run, to tell a thread's first park; the SM pool's watchdog
  // reads it from another thread (blocks_started), hence atomic, but only
  // this worker writes it.
  std::atomic<std::uint64_t> generation_{0};
  // WEFT_SCHEDULE (schedule_setting.hpp). Under forward (permuted_ false)
  // threads start in linear order and the cursor is a linear id; otherwise
  // the cursor counts started threads, start_order_[k] is the k-th to
  // start and start_position_ its inverse, and released waiters are
  // reordered (order_released) with schedule_random_.
  schedule_setting schedule_{};
  std::uint64_t launch_ = 0;
  index_permutation claim_order_{};
  bool permuted_ = false;
  std::vector<unsigned> start_order_;
  std::vector<unsigned> start_position_;
  schedule_random schedule_random_{};
  // Per warp, the lanes that have parked in this block and not exited: what
  // exited_lanes needs, without reading every lane's slot.
  std::vector<unsigned> live_parked_;
  std::uint64_t switches_ = 0;  // counts first parks in a block, so a loop notices that other fibers ran
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
  // A fault signal that abandoned the block, and the thread that ran, kept
  // by the handler until the worker writes the report.
  signal_fault signal_fault_{};
  uint3 faulting_thread_{};

  // Fibers.
  void* body_ = nullptr;
  void (*runner_entry_)(fctx::transfer_t) = nullptr;
  fctx::fcontext_t worker_ = nullptr;
  fiber_stack fresh_stack_{};
  std::size_t runners_started_ = 0;
  // Runners whose loop ended while their block had parked threads, parked
  // in runner_main of the kernel runner_entry_ names, each with its stack
  // (see rest_idle); new_runner takes the last one before making a fiber.
  struct idle_runner {
    fctx::fcontext_t context = nullptr;
    fiber_stack stack{};
  };
  std::vector<idle_runner> idle_runners_;
  bool dropping_idle_runners_ = false;  // an idle runner resumed now leaves (drop_idle_runners)
  stack_pool stacks_;
  // The note of a jump away from a fiber that is finished (or dropped by a
  // fault): it must outlive the jump, and the jumping fiber's frames do not
  // (ASan frees a finished fiber's fake stack, where its locals may live).
  switch_note last_note_{};
  // Tells AddressSanitizer and ThreadSanitizer about every switch, in builds
  // with one of them (fiber_sanitizer.hpp); empty otherwise.
  [[no_unique_address]] fiber_sanitizer::announcer announcer_;

  struct aligned_delete {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{128}); }
  };
  std::unique_ptr<std::byte[], aligned_delete> dynamic_shared_;
  std::size_t dynamic_shared_capacity_ = 0;
  std::size_t dynamic_shared_bytes_ = 0;
};

}  // namespace weft::detail

// The definitions of the members declared above. Each part includes this
// header first, so that any of them can also be included on its own.
#include "weft/detail/executor/block_executor_barrier.hpp"
#include "weft/detail/executor/block_executor_faults.hpp"
#include "weft/detail/executor/block_executor_runner.hpp"
#include "weft/detail/executor/block_executor_warps.hpp"
