// Turns a fault in kernel code into a failed launch instead of a crash, as
// a GPU does: a CUDA thread that dereferences a wild or null pointer
// (SIGSEGV, or SIGBUS), overflows its stack into its fiber's guard page
// (SIGSEGV), or divides an integer by zero (SIGFPE on x86-64). The handler
// runs on a per-worker signal stack, since the faulting stack may be full.
// If the CPU raised the signal while one of the running worker's fibers
// ran, the block executor abandons the block (see
// block_executor::recover_from_fault) and the device gets a sticky error
// whose report names the kernel, block, thread and address. Any other such
// signal (the host's own code, or a signal some process sent) goes to the
// handler that was installed before weft's, or gets the default action, so
// a host segfault still dumps core. This is best effort: a thread that
// faults while holding a lock (inside malloc, say) leaves that lock held,
// and its frames are dropped without running their destructors.
#pragma once

#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <iterator>
#include <mutex>

#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/fibers/fiber_sanitizer.hpp"

namespace weft::detail {

/// The signals a kernel's faults raise.
inline constexpr int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE};

/// The action each of fault_signals had before weft's handler, by position.
inline struct sigaction& previous_fault_action(int signal_number) {
  static struct sigaction previous[std::size(fault_signals)]{};
  std::size_t i = 0;
  while (i + 1 < std::size(fault_signals) && fault_signals[i] != signal_number) ++i;
  return previous[i];
}

inline void on_fault_signal(int signal_number, siginfo_t* info, void* context) {
  if (auto* block = running_block) block->recover_from_fault(signal_number, *info, context);
  if (fault_landing* landing = running_fault_landing; landing && info->si_code > 0) {
    landing->fault = read_signal_fault(signal_number, *info, context);
    // The handler's frames on the signal stack are dropped, not returned
    // from: ASan must forget their redzones, or the next handler to run
    // there (the program's own, say) meets them.
    fiber_sanitizer::forget_dropped_frames();
    siglongjmp(landing->jump, 1);  // SA_NODEFER: the signal stays unblocked
  }
  const struct sigaction& previous = previous_fault_action(signal_number);
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(signal_number, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal_number);
  } else {
    ::signal(signal_number, SIG_DFL);
    // A fault re-runs the faulting instruction on return, which now gets the
    // default action (a core dump); a signal some process sent is raised again.
    if (info->si_code <= 0) ::raise(signal_number);
  }
}

/// The alternate signal stack of one SM worker thread: a handler cannot run
/// on the stack that just overflowed.
class signal_stack {
 public:
  static constexpr std::size_t size = 64 * 1024;

  signal_stack() {
    memory_ = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory_ == MAP_FAILED) {
      memory_ = nullptr;
      return;
    }
    stack_t stack{};
    stack.ss_sp = memory_;
    stack.ss_size = size;
    ::sigaltstack(&stack, nullptr);
  }

  ~signal_stack() {
    if (!memory_) return;
    stack_t disable{};
    disable.ss_flags = SS_DISABLE;
    ::sigaltstack(&disable, nullptr);
    ::munmap(memory_, size);
  }

  signal_stack(const signal_stack&) = delete;
  signal_stack& operator=(const signal_stack&) = delete;

 private:
  void* memory_ = nullptr;
};

/// Gives the calling thread an alternate signal stack, unless it has one
/// (its own or the program's): a host thread that runs a block itself
/// (sm_pool::run_on_caller) needs one as a worker does.
inline void ensure_signal_stack() {
  thread_local bool checked = false;
  if (checked) return;
  checked = true;
  stack_t current{};
  if (::sigaltstack(nullptr, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return;
  thread_local signal_stack stack;
}

/// Installs the process-wide handler for each fault signal, or installs it
/// again if some other code (a test framework, say) has since put its own
/// in place; weft's then passes on the signals that are not kernel faults
/// to that one. SA_NODEFER keeps the signal unblocked, since a recovered
/// handler never returns to restore the mask.
inline void install_fault_handlers() {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  for (int signal_number : fault_signals) {
    struct sigaction current {};
    ::sigaction(signal_number, nullptr, &current);
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_fault_signal) continue;
    struct sigaction action {};
    action.sa_sigaction = on_fault_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, &previous_fault_action(signal_number));
  }
}

/// What a thread calls before it runs a grid: install_fault_handlers once
/// it finds one of weft's handlers replaced. A sigaction query costs a
/// system call (0.25 us on the 2-core development machine), about what an
/// empty kernel's whole launch and synchronise costs otherwise, so a call
/// queries SIGSEGV, which code that puts its own crash handlers in place
/// (doctest, at each test case) always replaces, so that it is seen at
/// once; only every eighth call also queries SIGBUS or SIGFPE, in turn, so
/// that code that replaces only one of those is seen within 16 grids.
inline void keep_fault_handlers() {
  thread_local unsigned calls = 0;
  static std::atomic<bool> installed{false};
  auto is_weft_s = [](int signal_number) {
    struct sigaction current {};
    return ::sigaction(signal_number, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) &&
           current.sa_sigaction == on_fault_signal;
  };
  unsigned call = calls++;
  if (installed.load(std::memory_order_acquire) && is_weft_s(SIGSEGV) &&
      (call % 8 != 7 || is_weft_s(call % 16 == 7 ? SIGBUS : SIGFPE)))
    return;
  install_fault_handlers();
  installed.store(true, std::memory_order_release);
}

}  // namespace weft::detail
