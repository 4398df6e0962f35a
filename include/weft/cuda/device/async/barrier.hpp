// Asynchronous barriers: cuda::barrier (CUDA guide, "Asynchronous Barrier";
// libcu++'s <cuda/barrier>).
//
// A barrier counts arrivals per phase: a phase completes when its expected
// count of arrivals is reached, the completion function runs once, and the
// next phase starts with the expected count again (less the threads that
// dropped out). Arriving returns a token of the phase; waiting with it
// returns once that phase has completed.
//
// The default constructor is trivial, as CUDA's is, so that a __shared__
// barrier (a thread_local here) is never constructed per block: init() does
// the work, as the guide writes it.
//
// How a thread waits depends on who can complete the phase:
// - a block- or thread-scope barrier can only be completed by threads of the
//   waiter's block, so the waiter parks in the block executor and the thread
//   that completes the phase wakes it. A wait that can never complete is
//   found exactly, as a deadlock of the block, and reported naming who waits
//   where.
// - a device- or system-scope barrier may be completed by another block,
//   running on another worker (or by another grid, or a host thread). The
//   waiter spins, letting the other threads of its block run (and the other
//   workers, when none of its block can). Blocks meet at such a barrier only
//   if they run at the same time, which is up to the number of workers; a
//   wait that sees no arrival at its barrier for
//   weft::set_cross_block_wait_timeout's limit (10 s by default) fails the
//   launch with a report instead of hanging.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <new>
#include <source_location>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "weft/cuda/device/async/thread_scope.hpp"
#include "weft/detail/checks/race_async_copy_hooks.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft {

namespace detail {
inline ::std::atomic<long long> cross_block_wait_limit_ms{10'000};
}  // namespace detail

/// How long a thread may wait at a device- or system-scope barrier (or
/// pipeline) shared between blocks while no thread arrives there, before its
/// launch fails with a report (10 s by default). CUDA would hang instead.
inline void set_cross_block_wait_timeout(::std::chrono::milliseconds limit) {
  detail::cross_block_wait_limit_ms = limit.count();
}

namespace detail {

struct no_completion {
  void operator()() const noexcept {}
};

// Undefined behaviour in CUDA that weft reports: the launch fails with the
// text (outside a kernel, where no launch can fail, it is an exception).
[[noreturn]] inline void async_misuse(const ::std::string& what) {
  if (running_block || running_stackless_block) throw kernel_fault{cudaErrorLaunchFailure, what};
  throw ::std::logic_error(what);
}

// Whether a wait on an object of this scope can only be completed by threads
// of the waiter's own block. A device- or system-scope object may be reached
// by other blocks, by grids of other streams, or by host threads, even from a
// grid of one block.
template <cuda::thread_scope Scope>
constexpr bool completed_within_block() {
  return Scope == cuda::thread_scope_block || Scope == cuda::thread_scope_thread;
}

// The state of one barrier in a single 64-bit word, [phase:24 | expected:20 |
// pending:20], so that arrivals from blocks on different workers need no
// lock. pending == 0 means the phase's completion step is running (or the
// barrier expects nobody: never initialised, or every thread dropped out).
// No member initialiser: the type stays trivially default-constructible.
class barrier_state {
 public:
  static constexpr unsigned count_bits = 20;
  static constexpr ::std::uint64_t count_mask = (::std::uint64_t{1} << count_bits) - 1;
  static constexpr ::std::uint32_t phase_mask = (1u << 24) - 1;
  static constexpr ::std::ptrdiff_t max_count = static_cast<::std::ptrdiff_t>(count_mask);

  struct arrival {
    ::std::uint32_t phase;
    bool completes;  // the caller must run the completion step (complete())
  };

  void init(::std::ptrdiff_t expected) {
    if (expected < 0 || expected > max_count)
      async_misuse("cuda::barrier: init with an expected count of " + ::std::to_string(expected) + ", outside 0.." +
                   ::std::to_string(max_count));
    atomic().store(make(0, static_cast<::std::uint64_t>(expected), static_cast<::std::uint64_t>(expected)),
                   ::std::memory_order_release);
  }

  ::std::uint64_t load() const { return atomic().load(::std::memory_order_acquire); }
  ::std::uint32_t phase() const { return phase_of(load()); }

  // `waits_at_once`: the caller parks until the phase completes
  // (arrive_and_wait), which lets the race check order a whole block's
  // phase by its epoch.
  arrival arrive(::std::ptrdiff_t n, bool drop, const char* call, bool waits_at_once = false) {
    if (n < 1 || n > max_count)
      async_misuse(::std::string(call) + ": an update of " + ::std::to_string(n) + ", outside 1.." +
                   ::std::to_string(max_count));
    for (::std::uint64_t w = load();;) {
      ::std::uint32_t pending = pending_of(w);
      if (pending == 0) {
        if (expected_of(w) == 0)
          async_misuse(::std::string(call) + " on " + describe_state(this) +
                       ": it expects no arrival (never initialised with init(), or every thread dropped out)");
        w = await_change(w);  // another worker runs the completion step: the arrival belongs to the next phase
        continue;
      }
      if (static_cast<::std::uint64_t>(n) > pending)
        async_misuse(::std::string(call) + "(" + ::std::to_string(n) + ") on " + describe_state(this) +
                     ": more arrivals than the barrier was initialised for");
      if (drop && expected_of(w) == 0) async_misuse(::std::string(call) + ": no thread left to drop");
      ::std::uint64_t next = w - static_cast<::std::uint64_t>(n) - (drop ? ::std::uint64_t{1} << count_bits : 0);
      // The race check records the arrival; for a barrier that other
      // blocks arrive at, under a lock taken before the state changes.
      if constexpr (race_check_build) race_barrier_arrival_begins(this);
      if (atomic().compare_exchange_weak(w, next, ::std::memory_order_acq_rel, ::std::memory_order_acquire)) {
        if constexpr (race_check_build)
          race_barrier_arrival(this, phase_of(w), static_cast<::std::uint32_t>(n), waits_at_once);
        return {phase_of(w), pending_of(next) == 0};
      }
      if constexpr (race_check_build) race_barrier_arrival_failed(this);
    }
  }

  // The phase's last arrival came: for the race check, every arrival comes
  // before the completion function, which comes before the waits that
  // follow (complete()), as CUDA orders them.
  void arrivals_completed() const {
    if constexpr (race_check_build) race_barrier_arrivals_completed(this, phase_of(load()));
  }

  // The completion step's end: the next phase starts, expecting every thread
  // that has not dropped out, and the waiters of this block are woken.
  void complete() {
    // A completed phase orders its arrivals before the waits that observe
    // it (for the race check, as a block barrier does, or by its arrivals'
    // clocks: made known here, before a waiter of another block can see
    // the phase change), and completes the asynchronous copies committed
    // to it.
    if constexpr (race_check_build) {
      race_barrier_phase_completed(this, phase_of(load()));
      race_copies_complete(this);
    }
    for (::std::uint64_t w = load();;) {
      ::std::uint32_t expected = expected_of(w);
      ::std::uint64_t next = make(phase_of(w) + 1, expected, expected);
      if (atomic().compare_exchange_weak(w, next, ::std::memory_order_acq_rel, ::std::memory_order_acquire)) break;
    }
    if (block_executor* block = running_block)
      block->wake_all(this);
    else if (running_stackless_block)
      wake_stackless_waiters(this);
  }

  // Arrival with no completion function.
  ::std::uint32_t arrive_and_complete(::std::ptrdiff_t n, bool drop, const char* call) {
    arrival a = arrive(n, drop, call);
    if (a.completes) {
      arrivals_completed();
      complete();
    }
    return a.phase;
  }

  // A thread leaves for good: it will not arrive in `first_missing` or any
  // later phase. If the current phase is that one, leaving counts as its
  // arrival there (arrive_and_drop); if it is the one before, where the
  // thread has arrived already, only later phases expect one thread fewer.
  void leave(::std::uint32_t first_missing, const char* call) {
    for (::std::uint64_t w = load();;) {
      if (expected_of(w) == 0) async_misuse(::std::string(call) + ": no thread left to drop");
      if (phase_of(w) != (first_missing & phase_mask)) {
        if (atomic().compare_exchange_weak(w, w - (::std::uint64_t{1} << count_bits), ::std::memory_order_acq_rel,
                                           ::std::memory_order_acquire))
          return;
        continue;
      }
      if (pending_of(w) == 0) {
        w = await_change(w);
        continue;
      }
      arrive_and_complete(1, true, call);
      return;
    }
  }

  // Returns once phase `phase` has completed. `within_block`: only threads
  // of the caller's block can complete it (see the top of this file).
  void wait(::std::uint32_t phase, bool within_block, const char* call, ::std::string (*describe)(const void*),
            ::std::source_location where) const {
    phase &= phase_mask;
    if (phase_of(load()) == phase) {
      // A stackless thread waits only where it co_awaits
      // (weft/stackless_barrier.hpp); spinning here would keep the threads
      // that complete the phase from running.
      if (running_stackless_block) refuse_blocking_call(call);
      block_executor* block = running_block;
      if (block && within_block)
        while (phase_of(load()) == phase) block->wait_on(this, call, describe, where);
      else
        spin_while_phase(phase, block, call, describe, where);
    }
    // The wait observed the phase's completion: it acquires what the
    // phase's arrivals released (race check).
    if constexpr (race_check_build) race_barrier_waited(this, phase);
  }

  // "cuda::barrier 0x7f.. in phase 2: 3 of 64 arrivals missing"
  static ::std::string describe_state(const void* object) {
    ::std::uint64_t w = static_cast<const barrier_state*>(object)->load();
    char text[160];
    ::std::snprintf(text, sizeof text, "cuda::barrier %p in phase %u: %u of %u arrivals missing", object, phase_of(w),
                    pending_of(w), expected_of(w));
    return text;
  }

  static ::std::uint32_t phase_of(::std::uint64_t w) { return static_cast<::std::uint32_t>(w >> (2 * count_bits)); }
  static ::std::uint32_t expected_of(::std::uint64_t w) {
    return static_cast<::std::uint32_t>(w >> count_bits & count_mask);
  }
  static ::std::uint32_t pending_of(::std::uint64_t w) { return static_cast<::std::uint32_t>(w & count_mask); }

 private:
  static ::std::uint64_t make(::std::uint32_t phase, ::std::uint64_t expected, ::std::uint64_t pending) {
    return ::std::uint64_t{phase & phase_mask} << (2 * count_bits) | expected << count_bits | pending;
  }

  ::std::atomic_ref<::std::uint64_t> atomic() const { return ::std::atomic_ref<::std::uint64_t>(word_); }

  // Lets others run until the state differs from `w`: the completion step
  // runs on another worker, or in a fiber of this block.
  ::std::uint64_t await_change(::std::uint64_t w) const {
    for (::std::uint64_t now = load();; now = load()) {
      if (now != w) return now;
      block_executor* block = running_block;
      if (!block || !block->yield()) {
        race_let_go_before_waiting();  // the other blocks may need this worker's shadow pages
        ::std::this_thread::yield();
      }
    }
  }

  [[gnu::noinline]] void spin_while_phase(::std::uint32_t phase, block_executor* block, const char* call,
                                          ::std::string (*describe)(const void*), ::std::source_location where) const {
    using clock = ::std::chrono::steady_clock;
    ::std::uint64_t seen = load();
    auto since = clock::now();
    for (unsigned idle = 0; phase_of(seen) == phase;) {
      if (block && block->yield()) {
        idle = 0;
      } else if (++idle < 1000) {
        race_let_go_before_waiting();  // the other blocks may need this worker's shadow pages
        ::std::this_thread::yield();
      } else {
        ::std::this_thread::sleep_for(::std::chrono::microseconds(50));  // leave the core to the other workers
      }
      ::std::uint64_t now = load();
      if (now != seen) {
        seen = now;
        since = clock::now();
      } else if (block && clock::now() - since > ::std::chrono::milliseconds(cross_block_wait_limit_ms.load())) {
        async_misuse(::std::string(call) + " (" + where.file_name() + ":" + ::std::to_string(where.line()) + ":" +
                     ::std::to_string(where.column()) + "), " + describe(this) + ": no thread arrived for " +
                     ::std::to_string(cross_block_wait_limit_ms.load()) +
                     " ms. A device- or system-scope barrier waits for threads that weft cannot tell from slow "
                     "ones (of other blocks, grids or host threads); blocks meet there only if they run at the same "
                     "time, and each worker (WEFT_WORKERS) runs one block at a time (this grid has " +
                     ::std::to_string(gridDim.x * gridDim.y * gridDim.z) +
                     " blocks). weft::set_cross_block_wait_timeout sets the limit");
      }
    }
  }

  mutable ::std::uint64_t word_;
};

}  // namespace detail
}  // namespace weft

namespace weft::detail {
struct barrier_access;
}  // namespace weft::detail

namespace cuda {

template <thread_scope Scope, class CompletionF = ::weft::detail::no_completion>
class barrier {
 public:
  /// Names the phase an arrival belongs to; wait() takes it back.
  class arrival_token {
   public:
    arrival_token() = default;

   private:
    explicit arrival_token(::std::uint32_t phase) : phase_(phase) {}
    ::std::uint32_t phase_ = 0;
    friend class barrier;
    friend ::weft::detail::barrier_access;
  };

  barrier() = default;
  explicit barrier(::std::ptrdiff_t expected, CompletionF completion = CompletionF())
      : completion_(::std::move(completion)) {
    state_.init(expected);
  }
  barrier(const barrier&) = delete;
  barrier& operator=(const barrier&) = delete;

  /// CUDA's way to initialise a barrier whose constructor did not run (a
  /// __shared__ one): one thread calls it, then the block synchronises.
  friend void init(barrier* b, ::std::ptrdiff_t expected, CompletionF completion = CompletionF()) {
    ::new (static_cast<void*>(b)) barrier(expected, ::std::move(completion));
  }

  static constexpr ::std::ptrdiff_t max() noexcept { return ::weft::detail::barrier_state::max_count; }

  [[nodiscard]] arrival_token arrive(::std::ptrdiff_t update = 1) {
    return arrival_token(arrive_as(update, false, "cuda::barrier::arrive"));
  }

  void wait(arrival_token&& token, ::std::source_location where = ::std::source_location::current()) const {
    state_.wait(token.phase_, ::weft::detail::completed_within_block<Scope>(), "cuda::barrier::wait",
                ::weft::detail::barrier_state::describe_state, where);
  }

  /// Whether the token's phase has completed. Not CUDA's: libcu++ has no
  /// public query, so weft's own tests reach it through this name only.
  bool weft_phase_completed(const arrival_token& token) const {
    return state_.phase() != (token.phase_ & ::weft::detail::barrier_state::phase_mask);
  }

  void arrive_and_wait(::std::source_location where = ::std::source_location::current()) {
    ::std::uint32_t phase = arrive_as(1, false, "cuda::barrier::arrive_and_wait", true);
    state_.wait(phase, ::weft::detail::completed_within_block<Scope>(), "cuda::barrier::arrive_and_wait",
                ::weft::detail::barrier_state::describe_state, where);
  }

  /// Arrives, and leaves: later phases expect one arrival fewer.
  void arrive_and_drop() { arrive_as(1, true, "cuda::barrier::arrive_and_drop"); }

 private:
  ::std::uint32_t arrive_as(::std::ptrdiff_t update, bool drop, const char* call, bool waits_at_once = false) {
    auto arrival = state_.arrive(update, drop, call, waits_at_once);
    if (arrival.completes) {
      state_.arrivals_completed();
      completion_();  // before any waiter is released, as CUDA orders it
      state_.complete();
    }
    return arrival.phase;
  }

  friend ::weft::detail::barrier_access;  // the awaitables of weft/stackless_barrier.hpp
  ::weft::detail::barrier_state state_;   // first, so that the barrier's address is its state's
  [[no_unique_address]] CompletionF completion_;
};

}  // namespace cuda
