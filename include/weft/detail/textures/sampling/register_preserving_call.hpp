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
// registers the ABI lets a callee clobber (rcx, rsi, rdi, r8-r11) and
// restores them afterwards: the asm statement that calls it clobbers only
// rax, rdx, the flags and the vector registers (the loop over threads
// keeps no floats; saving all 16 vector registers made the linear fetch,
// which always calls, about 0.4x slower).
//
// The asm statement reads no memory and no variable bound to a register,
// as GCC sees it: the coordinates go in as the bits of general registers
// (rcx: x and y, rdx: z), which the trampoline moves to xmm0-xmm2. GCC
// cannot analyse a statement that reads memory (a memory operand, or a
// float bound to xmm0 with `register ... asm`, which GCC keeps as a
// variable in memory), and one such statement anywhere in the loop over
// threads stops it from keeping threadIdx in registers: it stored
// threadIdx for every thread (docs/textures.md, "Performance"). So the
// compiler does not know that the routine reads the sampler. That is safe
// because samplers are made by cudaCreateTextureObject (and the null
// sampler before main), whose stores reach memory before it returns, and
// nothing writes them afterwards; a sampler made in the function that
// calls this must be escaped first (the unit test does). The routine reads
// texels too, which a kernel writing them in the same launch leaves
// undefined in CUDA; a write the same thread made just before may not be
// seen (docs/textures.md). `volatile` keeps it in order with barriers and
// other calls.
#pragma once

#include <bit>
#include <cstdint>

#include "weft/detail/textures/sampling/texel_values.hpp"

namespace weft::detail::textures {

struct texture_sampler;

/// What the trampoline calls: the general fetch at (x, y, z) of layer
/// `layer` (coordinates a fetch of fewer dimensions lacks are unused).
using general_fetch_routine = texel_words (*)(const texture_sampler& s, float x, float y, float z, int layer);

// Not with AVX-512, whose extra registers exist only in such builds (as for
// the inline context switch). Builds with CET markers (__CET__) may use it:
// the trampoline is reached by a direct call and returns with `ret`, so it
// keeps a shadow stack balanced, and its one indirect call goes to a
// compiled function, which starts with the marker that branch tracking
// wants.
#if defined(__x86_64__) && defined(__ELF__) && !defined(__AVX512F__)

// In: rax, the routine; rdi, the sampler; ecx, x; the high half of rcx, y;
// edx, z (the bits of the floats); esi, the layer. Out: rax and rdx, the
// texel's words. Every other general register as it was; the vector
// registers clobbered. A COMDAT group, so that every translation unit may
// carry it and the linker keeps one (the library is header-only).
#if defined(__AVX__)
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
  vzeroupper
  vmovd %ecx, %xmm0
  shrq $32, %rcx
  vmovd %ecx, %xmm1
  vmovd %edx, %xmm2
  callq *%rax
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
  movd %ecx, %xmm0
  shrq $32, %rcx
  movd %ecx, %xmm1
  movd %edx, %xmm2
  callq *%rax
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

/// routine(s, x, y, z, layer), with every general register but the
/// result's kept.
[[gnu::always_inline]] inline texel_words call_preserving_registers(general_fetch_routine routine,
                                                                    const texture_sampler& s, float x, float y, float z,
                                                                    int layer) {
  auto low = reinterpret_cast<std::uint64_t>(routine);
  std::uint64_t high = std::bit_cast<std::uint32_t>(z);
  std::uint64_t xy = std::bit_cast<std::uint32_t>(x) | std::uint64_t{std::bit_cast<std::uint32_t>(y)} << 32;
  asm volatile(
      "leaq -128(%%rsp), %%rsp\n\t"  // the red zone stays untouched
      "call weft_texture_fetch_preserving\n\t"
      "leaq 128(%%rsp), %%rsp"
      : "+a"(low), "+d"(high)
      : "D"(&s), "S"(layer), "c"(xy)
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "xmm14", "xmm15");
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
