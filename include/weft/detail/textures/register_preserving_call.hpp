// The call a kernel makes when a texture fetch leaves its inlined path (a
// texture that is not plain point, or a texel outside), made so that the
// kernel keeps every register across it.
//
// weft inlines a kernel into its loop over a block's threads. An ordinary
// call anywhere in the kernel, even one that never runs, clobbers the
// caller-saved registers, so GCC keeps that loop's state (thread index,
// bounds, counters) in the six callee-saved registers and on the stack for
// every thread. Measured on the 2-core EPYC (docs/textures.md,
// "Performance"), that alone made a point fetch cost 2.3-2.6x a plain
// load where the same inlined path without the call cost 1.7-1.9x. So on
// x86-64 the call goes through a trampoline that saves the general
// registers the ABI lets a callee clobber (rcx, rsi, rdi, r8-r11) and the
// vector registers that carry the coordinates (xmm0-xmm2, ymm in AVX
// builds), and restores them afterwards: the asm statement that calls it
// clobbers only rax, rdx, the flags and xmm3-xmm15. The loop over threads
// keeps no floats; saving all 16 vector registers made the linear fetch,
// which always calls, about 0.4x slower. It declares no memory access but
// its read of the sampler: with a call's "memory", GCC would store
// threadIdx and reload the loop's bounds for every thread again. The routine reads texels too, which a
// kernel writing them in the same launch leaves undefined in CUDA; a write
// the same thread made just before may not be seen (docs/textures.md).
// `volatile` keeps it in order with barriers and other calls.
#pragma once

#include <bit>
#include <cstdint>

#include "weft/detail/textures/texel_values.hpp"

namespace weft::detail::textures {

struct texture_sampler;

/// What the trampoline calls: the general fetch at (x, y, z) of layer
/// `layer` (coordinates a fetch of fewer dimensions lacks are unused).
using general_fetch_routine = texel_words (*)(const texture_sampler& s, float x, float y, float z, int layer);

// Not with AVX-512, whose extra registers exist only in such builds (as for
// the inline context switch), nor with CET's indirect-branch tracking.
#if defined(__x86_64__) && defined(__ELF__) && !defined(__CET__) && !defined(__AVX512F__)

// In: rax, the routine; rdi, the sampler; xmm0-xmm2, the coordinates; esi,
// the layer. Out: rax and rdx, the texel's words. Every other general
// register and xmm0-xmm2 as they were; xmm3-xmm15 clobbered. A COMDAT
// group, so that every translation unit may carry it and the linker keeps
// one (the library is header-only).
#if defined(__AVX__)
// Built for AVX, the caller may hold values in the upper halves of ymm0-2.
asm(R"(
  .pushsection .text.weft_texture_fetch_preserving,"axG",@progbits,weft_texture_fetch_preserving,comdat
  .weak weft_texture_fetch_preserving
  .hidden weft_texture_fetch_preserving
  .type weft_texture_fetch_preserving,@function
  .p2align 4
weft_texture_fetch_preserving:
  .cfi_startproc
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  pushq %rcx
  pushq %rsi
  pushq %rdi
  pushq %r8
  pushq %r9
  pushq %r10
  pushq %r11
  andq $-32, %rsp
  subq $96, %rsp
  vmovups %ymm0, 0(%rsp)
  vmovups %ymm1, 32(%rsp)
  vmovups %ymm2, 64(%rsp)
  vzeroupper
  callq *%rax
  vmovups 0(%rsp), %ymm0
  vmovups 32(%rsp), %ymm1
  vmovups 64(%rsp), %ymm2
  leaq -56(%rbp), %rsp
  popq %r11
  popq %r10
  popq %r9
  popq %r8
  popq %rdi
  popq %rsi
  popq %rcx
  popq %rbp
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size weft_texture_fetch_preserving, .-weft_texture_fetch_preserving
  .popsection
)");
#else
asm(R"(
  .pushsection .text.weft_texture_fetch_preserving,"axG",@progbits,weft_texture_fetch_preserving,comdat
  .weak weft_texture_fetch_preserving
  .hidden weft_texture_fetch_preserving
  .type weft_texture_fetch_preserving,@function
  .p2align 4
weft_texture_fetch_preserving:
  .cfi_startproc
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  pushq %rcx
  pushq %rsi
  pushq %rdi
  pushq %r8
  pushq %r9
  pushq %r10
  pushq %r11
  andq $-16, %rsp
  subq $48, %rsp
  movaps %xmm0, 0(%rsp)
  movaps %xmm1, 16(%rsp)
  movaps %xmm2, 32(%rsp)
  callq *%rax
  movaps 0(%rsp), %xmm0
  movaps 16(%rsp), %xmm1
  movaps 32(%rsp), %xmm2
  leaq -56(%rbp), %rsp
  popq %r11
  popq %r10
  popq %r9
  popq %r8
  popq %rdi
  popq %rsi
  popq %rcx
  popq %rbp
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size weft_texture_fetch_preserving, .-weft_texture_fetch_preserving
  .popsection
)");
#endif

/// routine(s, x, y, z, layer), with every register but the result's kept.
// A template so that the sampler, named as the asm's memory operand, is a
// complete type where the call is made (Clang requires it).
template <class Sampler>
[[gnu::always_inline]] inline texel_words call_preserving_registers(general_fetch_routine routine, const Sampler& s,
                                                                    float x, float y, float z, int layer) {
  register float x_in asm("xmm0") = x;
  register float y_in asm("xmm1") = y;
  register float z_in asm("xmm2") = z;
  auto low = reinterpret_cast<std::uint64_t>(routine);
  std::uint64_t high;
  // The sampler named as 64-bit words: a memory operand of the sampler's
  // own type (which holds ints) may, to the compiler, read threadIdx, so
  // the loop over a block's threads would store threadIdx for every
  // thread; 64-bit words cannot alias it. Nothing in a kernel writes a
  // sampler, so any type names it as well for ordering.
  struct sampler_words {
    std::uint64_t word[sizeof(Sampler) / sizeof(std::uint64_t)];
  };
  const auto& image = *reinterpret_cast<const sampler_words*>(&s);
  asm volatile(
      "leaq -128(%%rsp), %%rsp\n\t"  // the red zone stays untouched
      "call weft_texture_fetch_preserving\n\t"
      "leaq 128(%%rsp), %%rsp"
      : "+a"(low), "=d"(high)
      : "D"(&s), "m"(image), "S"(layer), "x"(x_in), "x"(y_in), "x"(z_in)
      : "cc", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
        "xmm15");
  return {{static_cast<std::uint32_t>(low), static_cast<std::uint32_t>(low >> 32), static_cast<std::uint32_t>(high),
           static_cast<std::uint32_t>(high >> 32)}};
}

#else

/// Elsewhere, an ordinary call.
[[gnu::always_inline]] inline texel_words call_preserving_registers(general_fetch_routine routine,
                                                                    const texture_sampler& s, float x, float y, float z,
                                                                    int layer) {
  return routine(s, x, y, z, layer);
}

#endif

}  // namespace weft::detail::textures
