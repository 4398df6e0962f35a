// Part of block_executor (block_executor.hpp): how a block fails, and what
// the failure says.
//
// A block fails when an exception escapes a CUDA thread, a barrier or warp
// collective is misused, a thread faults (a stack overflow, a wild pointer,
// a division by zero: a signal, see fault_signals.hpp), or no thread can make
// progress (found when control falls back to the worker). Failing records
// the first report and marks the block abandoned; the worker then resumes
// every parked fiber once, with block_abandoned thrown from where it waits,
// so that the kernel's destructors run and the stacks return to the pool.
// The reports name the block, the threads by threadIdx, the calls by file,
// line and column, and the lanes of a warp as ranges.
#pragma once

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <source_location>
#include <string>
#include <vector>

#include "weft/detail/base/text_format.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

inline void block_executor::fail(const std::string& message, cudaError_t code) {
  if (abandoning_) return;
  abandoning_ = true;
  std::string text = "block " + describe_index(blockIdx);
  text += ", ";
  text += message;
  failure_ = {code, std::move(text)};
}

// The running CUDA thread threw: out of the runner loop, which every kernel
// instantiates, so that each kernel does not compile the report again.
inline void block_executor::fail_thread(const kernel_fault& fault) {
  fail(describe_thread(threadIdx) + ": " + fault.what, fault.code);
}

inline void block_executor::fail_bad_access(const std::string& report) {
  fail(describe_thread(threadIdx) + ": illegal address: " + report, cudaErrorIllegalAddress);
}

// Called in the handler of what the thread threw, which it describes.
inline void block_executor::fail_thread_uncaught() {
  fail(describe_thread(threadIdx) + ": " + describe(std::current_exception()));
}

// In the signal handler: no allocation, no lock (see signal_fault.hpp).
// A signal that some process sent (si_code <= 0: kill, raise) is no fault
// of the code that ran. A fault while the block is being abandoned (in a
// kernel destructor that unwinding runs) only ends that thread.
inline bool block_executor::recover_from_fault(int signal, const siginfo_t& info, const void* context) {
  if (info.si_code <= 0) return false;
  const fiber_stack* running = nullptr;
  bool overflow = false;
  if (signal == SIGSEGV && (running = stacks_.guard_hit(info.si_addr))) {
    overflow = true;
  } else if (const void* stack_pointer = interrupted_stack_pointer(context)) {
    running = stacks_.holding(stack_pointer);
  }
  if (!running) return false;  // the worker's own code, not a CUDA thread's
  if (!abandoning_) {
    abandoning_ = true;
    signal_fault_ = read_signal_fault(signal, info, context);
    signal_fault_.stack_overflow = overflow;
    faulting_thread_ = threadIdx;
  }
  // The faulting fiber is never resumed, and its frames, at any depth, are
  // dropped with the handler's here: in an ASan build, both stacks are
  // cleared of their poison before the stack goes back to the pool.
  // Last before the jump: a temporary's scope ending after it would
  // poison the signal stack again (stack-use-after-scope, met by the next
  // handler that runs there).
  fiber_sanitizer::forget_stack_poison(running->bottom(), running->usable());
  last_note_ = {nullptr, *running};
  fiber_sanitizer::forget_dropped_frames();
  announcer_.leave_for_good(worker_, &last_note_, nullptr);
  std::abort();  // leave_for_good does not return
}

// Back on the worker's stack: the report of the fault the handler kept.
inline void block_executor::fail_from_signal() {
  const signal_fault fault = signal_fault_;
  signal_fault_ = {};
  std::string text = "block " + describe_index(blockIdx);
  text += ", ";
  if (fault.stack_overflow) {
    text += describe_thread(faulting_thread_);
    append_format(text,
                  ": stack overflow (each CUDA thread has %zu KiB of stack; raise it with "
                  "cudaDeviceSetLimit(cudaLimitStackSize, bytes))",
                  stacks_.stack_size() / 1024);
  } else {
    if (replay_to_find_thread(fault) || index_in_memory_is_exact(fault.instruction)) {
      text += describe_thread(faulting_thread_);
    } else {
      text +=
          "a thread whose threadIdx weft could not tell (the compiler kept it in a register, and no "
          "thread replayed alone faulted there again; launch the kernel by address to have it named)";
    }
    text += ": ";
    text += describe_signal_fault(fault);
  }
  failure_ = {launch_error(fault), std::move(text)};
}

// The runner loop writes threadIdx to memory at the end of each CUDA
// thread, and where the compiler inlined the kernel into the loop it keeps
// the value in a register and stores it once after the loop (the store per
// thread would cost a streaming kernel a third of its time:
// docs/architecture.md). So threadIdx in memory names the faulting thread
// only where the faulting instruction is outside the loop's own function:
// in a kernel called through its address, or a function a kernel calls
// (and even then the compiler may skip the store before a call it can see
// does not read threadIdx): the replay is asked first.
inline bool block_executor::index_in_memory_is_exact(const void* instruction) {
  Dl_info info{};
  if (!instruction || !::dladdr(instruction, &info) || !info.dli_sname) return false;  // not known: no -rdynamic
  return std::strstr(info.dli_sname, "block_executor") == nullptr;
}

// Finds the faulting thread by running the block's threads again in
// forked copies of the process. A copy runs threads [start, last] in order
// as the runner loop does, as if the threads before `start` had exited and
// none came after `last`, and says whether it faulted as the process did:
// the same signal and kind of fault, at the same address (a division by
// zero reports the instruction as its address, and the loop is unrolled,
// so that the same line of a kernel is at several instructions, depending
// on how many threads the loop runs: not compared). The first `last` for
// which it does is the faulting thread, found by bisection. The start is
// the thread threadIdx last named: the loop stores it on entry, so it is
// where the loop began, or the faulting thread itself; failing that, 0.
// A copy shares nothing with the process but what the program mapped
// shared, its output goes nowhere, and it is given a second (a thread may
// wait forever for one that is not replayed). A fault that needs threads
// the replay leaves out may not happen again; then the report trusts
// threadIdx where it can, and otherwise says that the thread is not known.
inline bool block_executor::replay_to_find_thread(const signal_fault& fault) {
  const unsigned last = thread_count_ - 1;
  // Threads are replayed in the order they started: positions in the
  // schedule's start order (linear ids under forward).
  const unsigned remembered_id = std::min(linear_thread_index(faulting_thread_, block_dim_), last);
  const unsigned remembered = permuted_ ? start_position_[remembered_id] : remembered_id;
  for (unsigned start : {remembered, 0u}) {
    replay_outcome whole = replay(fault, start, last);
    if (whole == replay_outcome::failed) return false;
    if (whole == replay_outcome::other) {
      if (start == 0) return false;
      continue;
    }
    unsigned low = start, high = last;  // replaying [start, high] faults alike
    while (low < high) {
      unsigned middle = low + (high - low) / 2;
      replay_outcome outcome = replay(fault, start, middle);
      if (outcome == replay_outcome::failed) return false;
      if (outcome == replay_outcome::alike)
        high = middle;
      else
        low = middle + 1;
    }
    faulting_thread_ = unflatten(permuted_ ? start_order_[low] : low, block_dim_);
    return true;
  }
  return false;
}

inline block_executor::replay_outcome block_executor::replay(const signal_fault& fault, unsigned start, unsigned last) {
  const pid_t child = ::fork();
  if (child < 0) return replay_outcome::failed;
  if (child == 0) {
    ::signal(SIGALRM, SIG_DFL);  // the program's own handler would keep the copy alive
    ::alarm(1);
    int nowhere = ::open("/dev/null", O_WRONLY);
    ::dup2(nowhere, STDOUT_FILENO);
    ::dup2(nowhere, STDERR_FILENO);
    replay_threads(start, last);
    bool alike = signal_fault_.signal == fault.signal && signal_fault_.code == fault.code &&
                 (fault.signal == SIGFPE || signal_fault_.address == fault.address);
    ::_exit(alike ? 0 : 1);  // no flush, no destructors: the copy only answers
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return replay_outcome::failed;
  if (!WIFEXITED(status)) return replay_outcome::failed;
  return WEXITSTATUS(status) == 0 ? replay_outcome::alike : replay_outcome::other;
}

// In the forked copy: runs threads [start, last] of the block on a fresh
// runner, and returns once they have exited or one has faulted
// (signal_fault_ then says how).
inline void block_executor::replay_threads(unsigned start, unsigned last) {
  abandoning_ = false;
  failure_ = {};
  signal_fault_ = {};
  thread_count_ = last + 1;
  const uint3 block = blockIdx;
  next_block_ = end_block_ - 1;
  start_next_block();  // clears the barriers; the runner goes on with no other block
  blockIdx = block;
  if (permuted_) draw_schedule();  // the block's own start order, not that of the block start_next_block named
  std::fill(group_count_.begin(), group_count_.end(), 0);
  warp_parked_ = 0;
  next_unstarted_ = start;
  next_index_ = unflatten(start, block_dim_);
  threadIdx = next_index_;
  switch_to(new_runner(), {&worker_, {}});
}

inline void block_executor::unwind_parked_threads() {
  std::vector<unsigned> parked;
  for (const unsigned* t = ready_.begin() + ready_head_; t != ready_.end(); ++t) parked.push_back(*t);
  for (unsigned t : waiting_) parked.push_back(t);
  for (unsigned t : converging_) parked.push_back(t);
  for (unsigned t : on_objects_) parked.push_back(t);
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

// Why the block can make no progress. A warp group waiting for a lane that
// has exited is named as such; anything else is a deadlock, listing the
// threads at block barriers and in warp collectives.
inline std::string block_executor::stall_report() const {
  for (unsigned w = 0; w < group_count_.size() && w * 32 < thread_count_; ++w) {
    for (unsigned i = 0; i < group_count_[w]; ++i) {
      const warp_group& g = groups_[w * 32 + i];
      if (unsigned gone = g.mask & ~g.arrived & exited_lanes(w, thread_count_))
        return report(reports::group_waits_for_exited(w, g, gone).c_str());
    }
  }
  return report("deadlock: no thread of the block can make progress");
}

// "<headline>; thread (0,0,0) to thread (63,0,0) wait at __syncthreads
// (a.cu:12:5); thread (64,0,0) to ... (a.cu:15:5); 0 of 128 threads exited".
// Consecutive threads waiting at the same barrier are shown as one range.
inline std::string block_executor::report(const char* headline) const {
  std::vector<unsigned> waiters(waiting_.begin(), waiting_.end());
  sort_ids(waiters);
  std::string text = headline;
  for (std::size_t i = 0; i < waiters.size();) {
    std::size_t j = i + 1;
    while (j < waiters.size() && waiters[j] == waiters[j - 1] + 1 &&
           same_barrier(slots_[waiters[j]], slots_[waiters[i]]))
      ++j;
    const thread_slot& s = slots_[waiters[i]];
    append_threads(text, s.index, slots_[waiters[j - 1]].index, j - i > 1);
    append_format(text, " wait at %s (%s)", barrier_name(s.kind), describe_site(s.waiting_at).c_str());
    i = j;
  }
  std::vector<unsigned> on_objects(on_objects_.begin(), on_objects_.end());
  sort_ids(on_objects);
  for (std::size_t i = 0; i < on_objects.size();) {
    const thread_slot& s = slots_[on_objects[i]];
    std::size_t j = i + 1;
    while (j < on_objects.size() && on_objects[j] == on_objects[j - 1] + 1 &&
           slots_[on_objects[j]].waits_on == s.waits_on && slots_[on_objects[j]].wait_name == s.wait_name &&
           same_call_site(slots_[on_objects[j]].waiting_at, s.waiting_at))
      ++j;
    append_threads(text, s.index, slots_[on_objects[j - 1]].index, j - i > 1);
    append_format(text, " wait at %s (%s)", s.wait_name, describe_site(s.waiting_at).c_str());
    if (s.describe_wait) {
      text += ", ";
      text += s.describe_wait(s.waits_on);
    }
    i = j;
  }
  for (unsigned w = 0; w < group_count_.size() && w * 32 < thread_count_; ++w) {
    for (unsigned i = 0; i < group_count_[w]; ++i) {
      const warp_group& g = groups_[w * 32 + i];
      reports::append_waiting_group(text, w, g,
                                    slots_[w * 32 + static_cast<unsigned>(std::countr_zero(g.arrived))].index);
    }
  }
  append_format(text, "; %u of %u threads exited", exited_count(), thread_count_);
  return text;
}

// The texts below are block_reports.hpp's, shared with the stackless executor.
inline void block_executor::append_threads(std::string& text, uint3 first, uint3 last, bool range) {
  reports::append_threads(text, first, last, range);
}

inline void block_executor::sort_ids(std::vector<unsigned>& ids) { reports::sort_ids(ids); }

// ---- Text ----

inline std::string block_executor::describe_index(uint3 i) { return reports::describe_index(i); }

inline std::string block_executor::describe_thread(uint3 t) { return reports::describe_thread(t); }

inline std::string block_executor::describe(std::exception_ptr error) { return reports::describe_exception(error); }

inline const char* block_executor::barrier_name(barrier_kind kind) { return reports::barrier_name(kind); }

inline std::string block_executor::describe_site(std::source_location where) { return reports::describe_site(where); }

}  // namespace weft::detail
