// The switch between two CUDA threads' fibers. Fibers are Boost.Context's
// (make_fcontext builds them); on x86-64 Linux the switch itself is weft's
// own copy of Boost's jump_fcontext that leaves out saving and restoring the
// SSE control/status word (MXCSR) and the x87 control word. Those two loads
// are among the slowest instructions of a switch, and a barrier costs one
// switch per thread (docs/performance.md). Every fiber of a worker runs with
// the worker's floating-point environment: CUDA code sets rounding per
// instruction, never per thread, so there is nothing to keep apart; a kernel
// that changes the environment with fesetround changes it for the block.
// The frame layout is Boost's, so make_fcontext's fresh contexts start as
// they would under Boost's switch; but a context this switch saved holds no
// control words, so Boost's jump_fcontext must never resume one: weft uses
// this switch everywhere. Elsewhere, Boost's jump_fcontext is used as it is.
// The saved frame's layout (callee-saved registers at 0x8-0x30 above the
// context, the resume address at 0x38) is also read by weft's gdb extension
// (tools/gdb/weft_gdb.py, `weft thread`): change both together.
//
// Builds with CET markers (-fcf-protection, the default of Ubuntu's GCC,
// which defines __CET__) use this switch too. The markers ask nothing of a
// switch unless the process runs with shadow stacks (Linux has no user-space
// branch tracking), which a process gets only by asking (glibc 2.39 or later,
// GLIBC_TUNABLES=glibc.cpu.hwcaps=SHSTK, on Linux 6.6 or later). Such a
// process cannot run weft's fibers at all (semantics.md, "Processes with
// shadow stacks"): this switch keeps no shadow stack, and Debian's
// libboost_context is built without shadow-stack support. Boost's switch
// in such builds had made the 16-core Xeon's fiber barrier and shuffle
// about a fifth slower (docs/performance.md, log of 2026-12-01).
//
// weft includes no Boost header: it declares the two functions of
// libboost_context it calls itself. A program may put a Boost of its own on
// the include path (cuda-samples' interval sample ships a partial copy that
// lacks boost/config.hpp), and weft's fibers must not depend on which Boost
// headers that finds. The functions are extern "C" in libboost_context, with
// the same signatures since Boost 1.61's execution_context v2; they are bound
// here under C++ names of weft's own, by assembler label, so that a program
// that also includes <boost/context/detail/fcontext.hpp> sees no second
// declaration of Boost's extern "C" names with weft's types.
#pragma once

#include <cstddef>

namespace weft::detail {

namespace fctx {

/// A suspended context: the stack pointer its switch saved.
using fcontext_t = void*;

/// What a switch hands the resumed context: where the switch came from, and
/// a word of data. Boost's transfer_t, member for member.
struct transfer_t {
  fcontext_t fctx;
  void* data;
};

#if defined(__APPLE__)
transfer_t jump_fcontext(fcontext_t const to, void* vp) asm("_jump_fcontext");
fcontext_t make_fcontext(void* sp, std::size_t size, void (*fn)(transfer_t)) asm("_make_fcontext");
#else
transfer_t jump_fcontext(fcontext_t const to, void* vp) asm("jump_fcontext");
fcontext_t make_fcontext(void* sp, std::size_t size, void (*fn)(transfer_t)) asm("make_fcontext");
#endif

}  // namespace fctx

#if defined(__x86_64__) && defined(__ELF__)

extern "C" fctx::transfer_t weft_jump_context(fctx::fcontext_t to, void* data);

// A COMDAT group, so that every translation unit may carry it and the linker
// keeps one (the library is header-only).
asm(R"(
  .pushsection .text.weft_jump_context,"axG",@progbits,weft_jump_context,comdat
  .weak weft_jump_context
  .hidden weft_jump_context
  .type weft_jump_context,@function
  .p2align 6
weft_jump_context:
  leaq -0x38(%rsp), %rsp
  movq %r12, 0x8(%rsp)
  movq %r13, 0x10(%rsp)
  movq %r14, 0x18(%rsp)
  movq %r15, 0x20(%rsp)
  movq %rbx, 0x28(%rsp)
  movq %rbp, 0x30(%rsp)
  movq %rsp, %rax
  movq %rdi, %rsp
  movq 0x38(%rsp), %r8
  movq 0x8(%rsp), %r12
  movq 0x10(%rsp), %r13
  movq 0x18(%rsp), %r14
  movq 0x20(%rsp), %r15
  movq 0x28(%rsp), %rbx
  movq 0x30(%rsp), %rbp
  leaq 0x40(%rsp), %rsp
  movq %rsi, %rdx
  movq %rax, %rdi
  jmp *%r8
  .size weft_jump_context, .-weft_jump_context
  .popsection
)");

/// Suspends the calling fiber into the returned transfer's context and
/// resumes `to`, passing `data`.
[[gnu::no_sanitize_address]] inline fctx::transfer_t jump_context(fctx::fcontext_t to, void* data) {
  return weft_jump_context(to, data);
}

/// The same switch written into its caller: no call, so no return address
/// and no return, for the hot park of a CUDA thread. It builds the same
/// frame below the red zone, so that either switch resumes what the other
/// (or make_fcontext) left; the callee-saved registers travel in the frame,
/// the others are clobbered as by a call.
// Not instrumented by ASan, as its callers are not (block_executor.hpp):
// a function is only inlined into one with the same sanitizers.
[[gnu::always_inline, gnu::no_sanitize_address]] inline fctx::transfer_t jump_context_inline(fctx::fcontext_t to,
                                                                                             void* data) {
#if defined(__AVX512F__) || defined(__AMX_TILE__)
  // A call clobbers every vector and mask register; an asm statement only
  // those it names, and the names of AVX-512's extra registers exist only
  // in such builds: they switch with the call.
  return jump_context(to, data);
#else
  void* from;
  void* passed;
  asm volatile(
      "leaq -0x80(%%rsp), %%rsp\n\t"  // the red zone stays untouched
      "leaq 1f(%%rip), %%rax\n\t"
      "pushq %%rax\n\t"
      "leaq -0x38(%%rsp), %%rsp\n\t"
      "movq %%r12, 0x8(%%rsp)\n\t"
      "movq %%r13, 0x10(%%rsp)\n\t"
      "movq %%r14, 0x18(%%rsp)\n\t"
      "movq %%r15, 0x20(%%rsp)\n\t"
      "movq %%rbx, 0x28(%%rsp)\n\t"
      "movq %%rbp, 0x30(%%rsp)\n\t"
      "movq %%rsp, %%rax\n\t"
      "movq %%rdi, %%rsp\n\t"
      "movq 0x38(%%rsp), %%r8\n\t"
      "movq 0x8(%%rsp), %%r12\n\t"
      "movq 0x10(%%rsp), %%r13\n\t"
      "movq 0x18(%%rsp), %%r14\n\t"
      "movq 0x20(%%rsp), %%r15\n\t"
      "movq 0x28(%%rsp), %%rbx\n\t"
      "movq 0x30(%%rsp), %%rbp\n\t"
      "leaq 0x40(%%rsp), %%rsp\n\t"
      "movq %%rsi, %%rdx\n\t"
      "movq %%rax, %%rdi\n\t"
      "jmp *%%r8\n\t"
      "1:\n\t"
      "leaq 0x80(%%rsp), %%rsp\n\t"
      : "=a"(from), "=d"(passed), "+D"(to), "+S"(data)
      :
      : "rcx", "r8", "r9", "r10", "r11", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
        "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)",
        "st(5)", "st(6)", "st(7)");
  return {from, passed};
#endif
}

#if !defined(__AVX512F__) && !defined(__AMX_TILE__)

/// Whether park_context_inline exists: a switch that stores the caller's
/// context itself, so that the fiber it resumes has nothing to store.
inline constexpr bool switch_saves_context = true;

/// jump_context_inline for a fiber that parks: the switch itself stores the
/// suspended context in `*save_to` (before it leaves the stack, one store)
/// and hands the resumed fiber a null data word. The fiber it resumes then
/// has no note to read and no context to file, which saved a barrier about
/// seven of its ~91 instructions per thread (docs/performance.md, log).
/// Same frame as the other switches, so that any of them resumes what this
/// one left. Not in AVX-512 builds, for the reason jump_context_inline
/// gives: there the executor sends a note through the called switch.
[[gnu::always_inline, gnu::no_sanitize_address]] inline fctx::transfer_t park_context_inline(
    fctx::fcontext_t to, fctx::fcontext_t* save_to) {
  void* from;
  void* passed;
  asm volatile(
      "leaq -0x80(%%rsp), %%rsp\n\t"  // the red zone stays untouched
      "leaq 1f(%%rip), %%rax\n\t"
      "pushq %%rax\n\t"
      "leaq -0x38(%%rsp), %%rsp\n\t"
      "movq %%r12, 0x8(%%rsp)\n\t"
      "movq %%r13, 0x10(%%rsp)\n\t"
      "movq %%r14, 0x18(%%rsp)\n\t"
      "movq %%r15, 0x20(%%rsp)\n\t"
      "movq %%rbx, 0x28(%%rsp)\n\t"
      "movq %%rbp, 0x30(%%rsp)\n\t"
      "movq %%rsp, (%%rsi)\n\t"  // the parked context, where its owner keeps it
      "movq %%rsp, %%rax\n\t"
      "movq %%rdi, %%rsp\n\t"
      "movq 0x38(%%rsp), %%r8\n\t"
      "movq 0x8(%%rsp), %%r12\n\t"
      "movq 0x10(%%rsp), %%r13\n\t"
      "movq 0x18(%%rsp), %%r14\n\t"
      "movq 0x20(%%rsp), %%r15\n\t"
      "movq 0x28(%%rsp), %%rbx\n\t"
      "movq 0x30(%%rsp), %%rbp\n\t"
      "leaq 0x40(%%rsp), %%rsp\n\t"
      "xorl %%edx, %%edx\n\t"  // no data: the resumed fiber has nothing to do for this switch
      "movq %%rax, %%rdi\n\t"
      "jmp *%%r8\n\t"
      "1:\n\t"
      "leaq 0x80(%%rsp), %%rsp\n\t"
      : "=a"(from), "=d"(passed), "+D"(to), "+S"(save_to)
      :
      : "rcx", "r8", "r9", "r10", "r11", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
        "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)",
        "st(5)", "st(6)", "st(7)");
  return {from, passed};
}

#else

inline constexpr bool switch_saves_context = false;

// Declared, never defined, so that the executor can name it in a branch of
// `if constexpr (switch_saves_context)` that this build discards (an entity
// named only there need not be defined).
fctx::transfer_t park_context_inline(fctx::fcontext_t to, fctx::fcontext_t* save_to);

#endif

#else

[[gnu::no_sanitize_address]] inline fctx::transfer_t jump_context(fctx::fcontext_t to, void* data) {
  return fctx::jump_fcontext(to, data);
}
[[gnu::no_sanitize_address]] inline fctx::transfer_t jump_context_inline(fctx::fcontext_t to, void* data) {
  return jump_context(to, data);
}

// Boost's switch cannot store the caller's context before it leaves: the
// executor sends a note with each park instead.
inline constexpr bool switch_saves_context = false;

// Declared, never defined, so that the executor can name it in a branch of
// `if constexpr (switch_saves_context)` that this build discards (an entity
// named only there need not be defined).
fctx::transfer_t park_context_inline(fctx::fcontext_t to, fctx::fcontext_t* save_to);

#endif

}  // namespace weft::detail
