// Part of block_executor (block_executor.hpp): the runner loop that calls
// the kernel for one CUDA thread after another, and parking, by which a
// thread that must wait keeps its fiber while control jumps to whatever can
// run next. The barriers, warp collectives and object waits all park and
// resume through here; the ready list, the threads released and not yet
// resumed, is here too.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "weft/detail/checks/shared_guards.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/fibers/fiber_sanitizer.hpp"

namespace weft::detail {

template <class Body>
inline block_failure block_executor::run(Body& body, const block_range& blocks, std::size_t stack_size,
                                         std::size_t dynamic_shared_bytes) {
  // Idle runners wait in runner_main<Body> of the launch they last served:
  // one of another kernel, or on a stack of another size, cannot serve this one.
  if (runner_entry_ != &runner_main<Body> || stacks_.stack_size() != round_up(stack_size, page_size()))
    drop_idle_runners();
  stacks_.set_stack_size(stack_size);
  reserve_dynamic_shared(dynamic_shared_bytes);
  start(blocks);
  body_ = &body;
  runner_entry_ = &runner_main<Body>;
  if constexpr (fiber_sanitizer::address_sanitizer) poison_shared_guards();
  running_block = this;
  switch_to(new_runner(), {&worker_, {}});  // back here once no fiber can run any more
  if (signal_fault_.signal) [[unlikely]]
    fail_from_signal();
  if (!abandoning_ && !block_finished()) fail(stall_report());
  if (abandoning_) unwind_parked_threads();
  running_block = nullptr;
  if constexpr (race_check_build) {
    // The worker may now wait for the launch's other blocks.
    if (race_running) race_running->let_go_of_pages();
    race_running = nullptr;
  }
  return std::move(failure_);
}

// A runner fiber. Whichever fiber finishes a block's last thread goes on
// with the next block, so blocks without barriers run back to back on one
// fiber with no context switch at all. A runner whose loop is over while
// the block still has parked threads rests idle (rest_idle) and is the next
// runner the block needs, instead of a fresh one: every block of a kernel
// with barriers promotes each of its threads to a runner of its own at the
// first barrier, and making and ending a fiber per thread per block cost
// more than four barriers did (docs/performance.md, log).
template <class Body>
inline void block_executor::runner_main(fctx::transfer_t from) {
  block_executor& self = *running_block;
  fiber_stack own = self.fresh_stack_;
  self.announcer_.resumed(nullptr, from.fctx);
  self.arrived(from);
  do {
    // Read again after each rest: a later launch of the same kernel brings its own body.
    Body& body = *static_cast<Body*>(self.body_);
    do {
      self.run_threads(body);
    } while (!self.abandoning_ && self.block_finished() && self.start_next_block());
  } while (self.rest_idle(own));
  self.leave(own);
  std::abort();  // leave() does not return (see fiber_sanitizer.hpp for why it is not [[noreturn]])
}

// The hot loop. It keeps the cursor (next unstarted thread) in locals and
// writes nothing per thread but threadIdx: a thread that parks publishes
// the cursor itself (see first_arrival), and a loop that finds another
// fiber has run meanwhile (switches_ moved) reloads it. One-dimensional
// blocks, the common case, get a loop that only writes threadIdx.x, which
// the compiler can keep in a register (see the end of the loop).
template <class Body>
inline void block_executor::run_threads(Body& body) {
  if (permuted_) [[unlikely]]
    run_threads_permuted(body);
  else if (block_dim_.y == 1 && block_dim_.z == 1)
    run_threads<true>(body);
  else
    run_threads<false>(body);
  // The last thread has exited: a barrier the others wait at may be complete
  // now, since exited threads count as arrived.
  if (!abandoning_ && !waiting_.empty() && all_arrived()) complete_barrier(false);
}

template <bool one_dimensional, class Body>
inline void block_executor::run_threads(const Body& shared_body) {
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
  // log, dbb7438). GCC unrolls only innermost loops with one exit, so a kernel
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
      fail_thread(fault);
      return;
    } catch (...) {
      fail_thread_uncaught();
      return;
    }
    // A bad access that AddressSanitizer reported failed the block
    // (fail_bad_access): its unstarted threads do not start.
    if constexpr (fiber_sanitizer::address_sanitizer)
      if (abandoning_) [[unlikely]]
        return;
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
    // AddressSanitizer's report of a bad access reads threadIdx from memory
    // (memory_check.hpp): in a build with it, the store is made for every
    // thread, which costs nothing beside ASan's own checks.
    if constexpr (fiber_sanitizer::address_sanitizer) asm volatile("" ::: "memory");
  }
  next_unstarted_ = next;
}

// The loop under a schedule other than forward: the same, but the cursor
// is a position in start_order_, and speed matters less than in the loop
// above (the schedule is for finding bugs).
template <class Body>
inline void block_executor::run_threads_permuted(const Body& shared_body) {
  Body body = shared_body;
  unsigned next = next_unstarted_;
  while (next < thread_count_) {
    threadIdx = unflatten(start_order_[next], block_dim_);
    ++next;
    // As in the loop above: a bad access ASan reported failed the block, and
    // the report reads threadIdx from memory.
    if constexpr (fiber_sanitizer::address_sanitizer) {
      if (abandoning_) [[unlikely]]
        return;
      asm volatile("" ::: "memory");
    }
    auto switches = switches_;
    try {
      body();
    } catch (const block_abandoned&) {
      return;
    } catch (const kernel_fault& fault) {
      fail_thread(fault);
      return;
    } catch (...) {
      fail_thread_uncaught();
      return;
    }
    if (switches_ != switches) {
      if (abandoning_) return;
      unsigned id = linear_thread_id();  // as in the loop above
      slots_[id].exited = true;
      live_parked_[id / 32] &= ~(1u << (id % 32));
      next = next_unstarted_;
    }
  }
  next_unstarted_ = next;
}

inline void block_executor::start(const block_range& blocks) {
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
  idle_runners_.reserve(thread_count_ + 1);  // rest_idle pushes from a fiber: no allocation there
  unsigned warps = (thread_count_ + 31) / 32;
  if (groups_.size() < warps * 32) groups_.resize(warps * 32);
  if (group_count_.size() < warps) group_count_.resize(warps);
  if (live_parked_.size() < warps) live_parked_.resize(warps);
  if (exchange_.size() < warps) exchange_.resize(warps);
  std::fill(group_count_.begin(), group_count_.end(), 0);
  warp_parked_ = 0;
  next_block_ = blocks.first;
  end_block_ = blocks.end;
  schedule_ = blocks.schedule;
  launch_ = blocks.launch;
  claim_order_ = blocks.claim_order;
  permuted_ = schedule_.order != schedule_order::forward;
  abandoning_ = false;
  failure_ = {};
  start_next_block();
}

inline bool block_executor::start_next_block() {
  if (next_block_ == end_block_) return false;
  std::uint64_t claim = next_block_++;
  std::uint64_t block = claim_order_.is_identity() ? claim : claim_order_(claim);
  if constexpr (race_check_build) start_race_check(block);
  blockIdx = unflatten(block, grid_dim_);
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
  if (permuted_) [[unlikely]]
    draw_schedule();
  return true;
}

// The block's start order, and the generator of its release orders, drawn
// from the seed, the launch and the block: the same whichever worker runs
// the block, so that random:<seed> replays it.
inline void block_executor::draw_schedule() {
  auto threads = static_cast<unsigned>(volume(block_dim_));
  std::uint64_t block =
      blockIdx.x + std::uint64_t{grid_dim_.x} * (blockIdx.y + std::uint64_t{grid_dim_.y} * blockIdx.z);
  schedule_random_ = schedule_random(mix_seed(mix_seed(schedule_.seed, launch_), block));
  start_order_.resize(threads);
  start_position_.resize(threads);
  for (unsigned k = 0; k < threads; ++k)
    start_order_[k] = schedule_.order == schedule_order::reverse ? threads - 1 - k : k;
  if (schedule_.order == schedule_order::random)
    schedule_random_.shuffle(start_order_.data(), start_order_.data() + threads);
  for (unsigned k = 0; k < threads; ++k) start_position_[start_order_[k]] = k;
}

// In a race-check build, the block's accesses are checked from here on
// (race_check.hpp), if its launch is checked.
inline void block_executor::start_race_check(std::uint64_t block) {
  race_running = nullptr;
  if (race_launch* launch = race_launching) {
    race_worker& worker = race_worker_of_this_thread();
    worker.start_block(launch, block, thread_count_, dynamic_shared_.get(), dynamic_shared_capacity_);
    race_running = &worker;
  }
}

inline bool block_executor::block_finished() const {
  return next_unstarted_ == thread_count_ && waiting_.empty() && ready_count() == 0 && warp_parked_ == 0 &&
         on_objects_.empty();
}

inline void block_executor::advance(uint3& index) const {
  if (++index.x < block_dim_.x) return;
  index.x = 0;
  if (++index.y < block_dim_.y) return;
  index.y = 0;
  ++index.z;
}

// The invariant: every started thread is exactly one of running (at most
// one), exited, waiting at the block barrier (waiting_), parked in a warp
// group or at __activemask (warp_parked_ counts both), parked on an object
// (on_objects_), or ready (released or yielded, not yet resumed). So, when
// no thread is running:
inline unsigned block_executor::exited_count() const {
  return next_unstarted_ - static_cast<unsigned>(waiting_.size() + warp_parked_ + on_objects_.size() + ready_count());
}

// A thread's first barrier in this block (or any barrier of a block being
// abandoned). The runner loop that started the thread has claimed nothing
// since, so the shared cursor is just past it.
void block_executor::first_arrival(thread_slot& me, unsigned self) {
  if (abandoning_) throw block_abandoned{};
  me.parked_in = blocks_started();
  me.exited = false;
  live_parked_[self / 32] |= 1u << (self % 32);
  // The runner loop that started this thread notices the bump when the
  // thread returns and marks it exited (see run_threads), even if it never
  // actually parks (yield with nothing else to run, __activemask).
  ++switches_;
  next_unstarted_ = (permuted_ ? start_position_[self] : self) + 1;
  next_index_ = threadIdx;
  advance(next_index_);
  me.index = threadIdx;  // a thread's index is fixed for the block: saved once, restored at each resumption
}

// Suspends the calling thread until its barrier completes.
inline void block_executor::park(thread_slot& me) { park_to(me, next_to_run()); }

// No count of the switch here: a thread's first park in a block went
// through first_arrival, whose count is what its runner loop looks for.
inline void block_executor::park_to(thread_slot& me, fctx::fcontext_t target) {
  arrived(park_jump(target, me.context));
  threadIdx = me.index;
  if (abandoning_) [[unlikely]]
    throw block_abandoned{};
}

inline fctx::fcontext_t block_executor::next_to_run() {
  if (ready_head_ < ready_.size()) return slots_[ready_[ready_head_++]].context;
  if (next_unstarted_ < thread_count_) return new_runner();
  if (!converging_.empty() && converge(~0u)) return slots_[ready_[ready_head_++]].context;
  if (settled_stall()) return slots_[ready_[ready_head_++]].context;
  return worker_;  // nothing can run: the worker finds the deadlock
}

// Stack tops are staggered by a few cache lines: tops at the same offset
// of equally sized stacks would all map to the same cache sets, and a
// barrier touches every parked thread's top frames in turn.
inline fctx::fcontext_t block_executor::new_runner() {
  if (!idle_runners_.empty()) {
    fctx::fcontext_t idle = idle_runners_.back().context;
    idle_runners_.pop_back();
    return idle;
  }
  fresh_stack_ = stacks_.take();
  std::size_t stagger = (++runners_started_ % 61) * 64;
  fctx::fcontext_t context = fctx::make_fcontext(static_cast<char*>(fresh_stack_.top()) - stagger,
                                                 fresh_stack_.usable() - stagger, runner_entry_);
  announcer_.fiber_made(context, fresh_stack_.bottom(), fresh_stack_.usable() - stagger);
  return context;
}

// The note travels with the jump and lives on the jumping fiber's stack,
// which stays intact until the resumed side has read it.
inline void block_executor::switch_to(fctx::fcontext_t target, switch_note note) { arrived(jump<false>(target, note)); }

// Every switch goes through here or park_jump (or through a fiber's entry,
// runner_main), so that a sanitizer hears of it. Without one, this is the bare jump: the
// called one, or the one written into the caller for the hot park.
template <bool inline_switch>
inline fctx::transfer_t block_executor::jump(fctx::fcontext_t target, switch_note& note) {
  if constexpr (fiber_sanitizer::announced) {
    void* fake_stack = nullptr;
    announcer_.switching(target, &fake_stack);
    fctx::transfer_t from = inline_switch ? jump_context_inline(target, &note) : jump_context(target, &note);
    announcer_.resumed(fake_stack, from.fctx);
    return from;
  } else if constexpr (inline_switch) {
    return jump_context_inline(target, &note);
  } else {
    return jump_context(target, &note);
  }
}

// The hot park's switch: where the switch stores the parked context itself
// (x86-64, park_context_inline), no note travels, and the fiber it resumes
// finds a null data word in arrived(). Elsewhere, a note as any switch sends.
inline fctx::transfer_t block_executor::park_jump(fctx::fcontext_t target, fctx::fcontext_t& save_to) {
  if constexpr (!switch_saves_context) {
    switch_note note{&save_to, {}};
    return jump<true>(target, note);
  } else if constexpr (fiber_sanitizer::announced) {
    void* fake_stack = nullptr;
    announcer_.switching(target, &fake_stack);
    fctx::transfer_t from = park_context_inline(target, &save_to);
    announcer_.resumed(fake_stack, from.fctx);
    return from;
  } else {
    return park_context_inline(target, &save_to);
  }
}

// Runs after every switch, so only its first half is inline: a finished
// runner's stack comes back once per runner, and the pool's code inline here
// made every switch save and restore six registers for it (about 12 of the
// 25 instructions this took per switch, docs/performance.md, log). A null
// data word is a park whose switch filed the parked context itself.
inline void block_executor::arrived(fctx::transfer_t from) {
  if (!from.data) return;
  const switch_note& note = *static_cast<const switch_note*>(from.data);
  if (note.save_to) *note.save_to = from.fctx;
  if (note.retire.mapping) recycle(note.retire);
}

void block_executor::recycle(fiber_stack stack) { stacks_.give_back(stack); }

// Where a runner whose loop is over goes: the longest-ready thread, else the worker.
inline fctx::fcontext_t block_executor::after_runner() {
  bool resume_ready =
      !abandoning_ && (ready_head_ < ready_.size() || (next_unstarted_ == thread_count_ &&
                                                       ((!converging_.empty() && converge(~0u)) || settled_stall())));
  return resume_ready ? slots_[ready_[ready_head_++]].context : worker_;
}

// A runner whose loop is over: hand its stack back through the note and
// jump away for good. In an ASan build the stack must go back clean: the
// jump clears the poison of the frames it drops, up to the stack's top.
inline void block_executor::leave(fiber_stack own) {
  last_note_ = {nullptr, own};
  announcer_.leave_for_good(after_runner(), &last_note_, own.top());
}

// A runner whose loop is over parks in idle_runners_, to be resumed by
// new_runner (returns true: run the next unstarted thread) or by
// drop_idle_runners (returns false: leave). Not while a block is
// abandoned, whose runners all leave.
inline bool block_executor::rest_idle(fiber_stack own) {
  if (abandoning_) return false;
  fctx::fcontext_t target = after_runner();
  idle_runners_.push_back({nullptr, own});
  switch_to(target, {&idle_runners_.back().context, {}});
  return !dropping_idle_runners_;
}

// Idle runners cannot serve a launch of another kernel: their stacks go back
// to the pool (and to the system with it, when the executor ends). Without
// a sanitizer they are dropped unresumed: their frames hold nothing to
// destroy. A build that tells a sanitizer of each switch resumes each one
// instead, to leave as any ending fiber does, so that the sanitizer's
// record of it goes too (ASan's fake stack, TSan's fiber). Runs on the
// worker's own stack, where every block's runners end up.
inline void block_executor::drop_idle_runners() {
  if constexpr (fiber_sanitizer::announced) {
    dropping_idle_runners_ = true;
    while (!idle_runners_.empty()) {
      fctx::fcontext_t idle = idle_runners_.back().context;
      idle_runners_.pop_back();
      switch_to(idle, {&worker_, {}});
    }
    dropping_idle_runners_ = false;
  } else {
    for (const idle_runner& idle : idle_runners_) stacks_.give_back(idle.stack);
    idle_runners_.clear();
  }
}

// ---- The ready list: threads released or yielded, not yet resumed ----

inline unsigned block_executor::ready_count() const { return ready_.size() - ready_head_; }

// Appends to the ready list. It has room for the whole block, and each
// thread is in it at most once, so moving the unread part to the front
// always makes room.
inline void block_executor::make_ready(unsigned t) {
  make_room(1);
  ready_.push_back(t);
}

// Waiters released together (by a barrier, a warp collective, __activemask,
// wake_all), ready_[from, end), in the schedule's order: decreasing linear
// id under reverse, shuffled under random. Forward keeps the order they
// came in (arrival order, or lane order), and never calls this.
inline void block_executor::order_released(unsigned from) {
  unsigned *first = ready_.begin() + from, *last = ready_.end();
  if (schedule_.order == schedule_order::reverse)
    std::sort(first, last, [](unsigned a, unsigned b) { return a > b; });
  else
    schedule_random_.shuffle(first, last);
}

// Room at the ready list's end for `count` more threads (or all that can
// still join it, which each thread does at most once).
inline void block_executor::make_room(unsigned count) {
  if (ready_head_ == ready_.size()) {
    ready_.clear();
    ready_head_ = 0;
  } else if (ready_.size() + count > ready_.capacity()) {
    ready_.drop_front(ready_head_);
    ready_head_ = 0;
  }
}

// ---- Waits with no rendezvous: yield, and waits on library objects ----

inline bool block_executor::yield() {
  unsigned self = linear_thread_id();
  thread_slot& me = slots_[self];
  if (me.parked_in != blocks_started() || abandoning_) [[unlikely]]
    first_arrival(me, self);
  // A lane that spins is busy elsewhere: its warp's arrival at a named
  // barrier need not wait for it.
  if (!on_objects_.empty() && settle_stalled_block) [[unlikely]]
    settle_stalled_block(self);
  fctx::fcontext_t target;
  if (next_unstarted_ < thread_count_)
    target = new_runner();
  else if (ready_count() != 0 || (!converging_.empty() && converge(~0u)) || settled_stall())
    target = slots_[ready_[ready_head_++]].context;
  else
    return false;
  make_ready(self);
  park_to(me, target);
  return true;
}

inline void block_executor::wait_on(const void* object, const char* what, std::string (*describe)(const void*),
                                    std::source_location where) {
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

// Nothing else can run: threads parked on objects that count lanes (named
// barriers) may go on with the lanes that are left.
inline bool block_executor::settled_stall() {
  return !on_objects_.empty() && settle_stalled_block && settle_stalled_block(~0u) && ready_head_ < ready_.size();
}

inline unsigned block_executor::lanes_exited(unsigned warp, bool by_thread) {
  if (!by_thread) return exited_lanes(warp, ~0u);
  unsigned self = linear_thread_id();
  thread_slot& me = slots_[self];
  if (me.parked_in != blocks_started() || abandoning_) [[unlikely]]
    first_arrival(me, self);
  return exited_lanes(warp, self);
}

inline void block_executor::wake_all(const void* object) {
  if (abandoning_) return;
  auto kept = on_objects_.begin();
  unsigned woken = 0;
  for (unsigned t : on_objects_) {
    if (slots_[t].waits_on == object) {
      make_ready(t);
      ++woken;
    } else {
      *kept++ = t;
    }
  }
  on_objects_.erase(kept, on_objects_.end());
  if (permuted_ && woken > 1) [[unlikely]]
    order_released(ready_.size() - woken);  // make_ready moves only the unread front
}

}  // namespace weft::detail
