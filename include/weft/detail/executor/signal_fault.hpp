// A fault that the CPU raised while kernel code ran: a load or store at an
// address nothing is mapped at (SIGSEGV), a bus error (SIGBUS), or an integer
// division by zero (SIGFPE on x86-64). On a GPU the first two fail the launch
// with cudaErrorIllegalAddress (cudaErrorMisalignedAddress for a misaligned
// access) and the program goes on; a GPU divides by zero silently, with an
// unspecified result, where the CPU traps, and weft fails the launch then too
// rather than invent a value (docs/debugging.md).
//
// The signal handler only copies what the signal says into a signal_fault:
// it runs on the faulting thread, which may hold any lock (malloc's
// included), so nothing here that runs in the handler allocates or locks.
// The report is written later, on the worker's own stack.
#pragma once

#include <cxxabi.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/text_format.hpp"

namespace weft::detail {

struct signal_fault {
  enum class access_kind : unsigned char { unknown, read, write };

  int signal = 0;  // 0: none
  int code = 0;    // siginfo's si_code
  const void* address = nullptr;
  const void* instruction = nullptr;  // null where the machine's context is not read
  access_kind access = access_kind::unknown;
  bool stack_overflow = false;  // the address is in the running fiber's guard page
};

/// Where the signal handler jumps when kernel code that runs on the worker's
/// own stack faults: a stackless kernel's threads are coroutines resumed
/// from the stackless block executor's loop, with no fiber to abandon, so
/// the handler records the fault here and jumps back into that loop, which
/// fails the block (coroutine_executor/stackless_block_executor.hpp).
struct fault_landing {
  sigjmp_buf jump;
  signal_fault fault;
};

/// The landing of the stackless block the calling thread runs, if any.
inline thread_local fault_landing* running_fault_landing = nullptr;

/// What weft knows of a faulting address: the allocation it falls in or
/// near, as "; 4 bytes past the end of ...", or nothing. The runtime layer,
/// which holds the allocation registries, sets it; the report is written
/// outside the signal handler, so it may lock (it must not wait for a lock
/// that the abandoned CUDA thread may hold: it uses try_lock).
inline std::string (*describe_address_near_allocation)(const void* address) = nullptr;

/// The stack pointer of the code the signal interrupted, or null on a
/// machine whose context weft does not read.
inline const void* interrupted_stack_pointer(const void* context) {
  const auto& machine = static_cast<const ucontext_t*>(context)->uc_mcontext;
#if defined(__x86_64__)
  return reinterpret_cast<const void*>(machine.gregs[REG_RSP]);
#elif defined(__aarch64__)
  return reinterpret_cast<const void*>(machine.sp);
#else
  (void)machine;
  return nullptr;
#endif
}

/// Reads what a fault signal says: safe to call in the handler.
inline signal_fault read_signal_fault(int signal, const siginfo_t& info, const void* context) {
  signal_fault fault;
  fault.signal = signal;
  fault.code = info.si_code;
  fault.address = info.si_addr;
  const auto& machine = static_cast<const ucontext_t*>(context)->uc_mcontext;
#if defined(__x86_64__)
  fault.instruction = reinterpret_cast<const void*>(machine.gregs[REG_RIP]);
  // A page fault (trap 14) says in bit 1 of its error code whether it wrote.
  constexpr long long page_fault = 14;
  if (signal == SIGSEGV && machine.gregs[REG_TRAPNO] == page_fault)
    fault.access = (machine.gregs[REG_ERR] & 2) ? signal_fault::access_kind::write : signal_fault::access_kind::read;
#elif defined(__aarch64__)
  fault.instruction = reinterpret_cast<const void*>(machine.pc);
#else
  (void)machine;
#endif
  return fault;
}

/// The code the launch fails with.
inline cudaError_t launch_error(const signal_fault& fault) {
  if (fault.stack_overflow) return cudaErrorLaunchFailure;
  if (fault.signal == SIGBUS && fault.code == BUS_ADRALN) return cudaErrorMisalignedAddress;
  if (fault.signal == SIGFPE) return cudaErrorLaunchFailure;
  return cudaErrorIllegalAddress;
}

namespace signal_fault_text {

inline std::string demangled(const char* symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(symbol, nullptr, nullptr, &status), std::free);
  return status == 0 && text ? text.get() : symbol;
}

// " by the instruction at 0x5555...(prog+0x1a2b, in wild(int*))": the offset
// is what `addr2line -i -f -C -e prog 0x1a2b` takes to name the source line
// of a position-independent executable (the default on Debian and Ubuntu).
// weft's runner loop, into which the compiler inlined the kernel, has a
// name pages long: it is said in words instead.
inline void append_instruction(std::string& text, const void* instruction) {
  if (!instruction) return;
  append_format(text, " by the instruction at %p", instruction);
  Dl_info info{};
  if (!::dladdr(instruction, &info) || !info.dli_fname) return;
  const char* file = std::strrchr(info.dli_fname, '/');
  file = file ? file + 1 : info.dli_fname;
  auto offset = reinterpret_cast<std::uintptr_t>(instruction) - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  append_format(text, " (%s+0x%llx", file, static_cast<unsigned long long>(offset));
  if (info.dli_sname) {
    if (std::strstr(info.dli_sname, "block_executor")) {
      text += ", in weft's loop over the block's threads, into which the kernel was inlined";
    } else {
      text += ", in ";
      text += demangled(info.dli_sname);
    }
  }
  text += ')';
}

inline const char* access_phrase(signal_fault::access_kind access) {
  switch (access) {
    case signal_fault::access_kind::read:
      return "a read of";
    case signal_fault::access_kind::write:
      return "a write to";
    default:
      return "an access to";
  }
}

// "a write to 0x7f0012345678 (no memory is mapped there)"
inline void append_address(std::string& text, const signal_fault& fault) {
  auto address = reinterpret_cast<std::uintptr_t>(fault.address);
  if (fault.code == SI_KERNEL) {
    // x86-64 reports a general protection fault, such as an address outside
    // the 47-bit user half (a wild pointer far from anything), with no address.
    text +=
        "an access to an address the CPU refuses outright (a non-canonical address: far outside any memory; "
        "the CPU does not say which)";
    return;
  }
  append_format(text, "%s 0x%llx", access_phrase(fault.access), static_cast<unsigned long long>(address));
  if (address < 4096)
    text += address == 0 ? " (a null pointer)" : " (near a null pointer)";
  else if (fault.signal == SIGSEGV && fault.code == SEGV_MAPERR)
    text += " (no memory is mapped there)";
  else if (fault.signal == SIGSEGV && fault.code == SEGV_ACCERR)
    text += " (mapped, but not for this access)";
  else if (fault.signal == SIGBUS && fault.code == BUS_ADRALN)
    text += " (misaligned)";
  else if (fault.signal == SIGBUS)
    text += " (a bus error: past the end of a mapped file, say)";
}

}  // namespace signal_fault_text

/// The report's text after "thread (x,y,z): ".
inline std::string describe_signal_fault(const signal_fault& fault) {
  using namespace signal_fault_text;
  std::string text;
  if (fault.signal == SIGFPE) {
    switch (fault.code) {
      case FPE_INTDIV:
        text = "integer division by zero (SIGFPE; a GPU goes on with an unspecified quotient)";
        break;
      case FPE_INTOVF:
        text = "integer overflow in a division (SIGFPE; a GPU goes on with an unspecified quotient)";
        break;
      default:
        text = "floating-point exception (SIGFPE: the program unmasked a floating-point trap)";
        break;
    }
    append_instruction(text, fault.instruction);
    return text;
  }
  text = fault.signal == SIGBUS ? "bus error: " : "illegal address: ";
  append_address(text, fault);
  append_instruction(text, fault.instruction);
  if (describe_address_near_allocation && fault.code != SI_KERNEL)
    text += describe_address_near_allocation(fault.address);
  return text;
}

}  // namespace weft::detail
