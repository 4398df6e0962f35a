// Turns a CUDA thread's stack overflow into a failed launch instead of a
// crash. Fiber stacks have a guard page; touching it raises SIGSEGV, which
// this handler catches on a per-worker signal stack. If the fault address is
// in one of the running worker's guard pages, the block executor abandons
// the block (see block_executor::recover_from_stack_overflow) and the
// device gets a sticky cudaErrorLaunchFailure naming the thread. Any other
// SIGSEGV goes to the handler that was installed before weft's, or gets the
// default action. This is best effort: a thread that overflows while holding
// a lock (inside malloc, say) may leave that lock held.
#pragma once

#include <signal.h>
#include <sys/mman.h>

#include <cstddef>
#include <mutex>

#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

inline struct sigaction& previous_segv_action() {
  static struct sigaction previous {};
  return previous;
}

inline void on_segv(int signal_number, siginfo_t* info, void* context) {
  if (auto* block = running_block) block->recover_from_stack_overflow(info->si_addr);
  const struct sigaction& previous = previous_segv_action();
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(signal_number, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal_number);
  } else {
    // Returning re-runs the faulting access, which now gets the default action.
    ::signal(signal_number, SIG_DFL);
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

/// Installs the process-wide handler, or installs it again if some other
/// code (a test framework, say) has since put its own in place; weft's then
/// passes on the faults that are not fiber stack overflows to that one.
/// SA_NODEFER keeps SIGSEGV unblocked, since a recovered handler never
/// returns to restore the mask. Called by each worker before each grid: a
/// sigaction query is far cheaper than a grid.
inline void install_stack_overflow_handler() {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  struct sigaction current {};
  ::sigaction(SIGSEGV, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_segv) return;
  struct sigaction action {};
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &previous_segv_action());
}

}  // namespace weft::detail
