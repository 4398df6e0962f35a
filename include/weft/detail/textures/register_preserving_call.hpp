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
// x86-64 the call goes through a trampoline that saves what the ABI lets a
// callee clobber (rcx, rsi, rdi, r8-r11, the vector registers) and restores
// it afterwards: the asm statement that calls it clobbers only rax, rdx
// and the flags. It declares no memory access but its read of the sampler:
// with a call's "memory", GCC would store threadIdx and reload the loop's
// bounds for every thread again. The routine reads texels too, which a
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
// the layer. Out: rax and rdx, the texel's words. Every other register as
// it was. A COMDAT group, so that every translation unit may carry it and
// the linker keeps one (the library is header-only).
#if defined(__AVX__)
// Built for AVX, the caller may hold values in the upper halves of ymm.
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
  subq $512, %rsp
  vmovups %ymm0, 0(%rsp)
  vmovups %ymm1, 32(%rsp)
  vmovups %ymm2, 64(%rsp)
  vmovups %ymm3, 96(%rsp)
  vmovups %ymm4, 128(%rsp)
  vmovups %ymm5, 160(%rsp)
  vmovups %ymm6, 192(%rsp)
  vmovups %ymm7, 224(%rsp)
  vmovups %ymm8, 256(%rsp)
  vmovups %ymm9, 288(%rsp)
  vmovups %ymm10, 320(%rsp)
  vmovups %ymm11, 352(%rsp)
  vmovups %ymm12, 384(%rsp)
  vmovups %ymm13, 416(%rsp)
  vmovups %ymm14, 448(%rsp)
  vmovups %ymm15, 480(%rsp)
  vzeroupper
  callq *%rax
  vmovups 0(%rsp), %ymm0
  vmovups 32(%rsp), %ymm1
  vmovups 64(%rsp), %ymm2
  vmovups 96(%rsp), %ymm3
  vmovups 128(%rsp), %ymm4
  vmovups 160(%rsp), %ymm5
  vmovups 192(%rsp), %ymm6
  vmovups 224(%rsp), %ymm7
  vmovups 256(%rsp), %ymm8
  vmovups 288(%rsp), %ymm9
  vmovups 320(%rsp), %ymm10
  vmovups 352(%rsp), %ymm11
  vmovups 384(%rsp), %ymm12
  vmovups 416(%rsp), %ymm13
  vmovups 448(%rsp), %ymm14
  vmovups 480(%rsp), %ymm15
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
  subq $256, %rsp
  movaps %xmm0, 0(%rsp)
  movaps %xmm1, 16(%rsp)
  movaps %xmm2, 32(%rsp)
  movaps %xmm3, 48(%rsp)
  movaps %xmm4, 64(%rsp)
  movaps %xmm5, 80(%rsp)
  movaps %xmm6, 96(%rsp)
  movaps %xmm7, 112(%rsp)
  movaps %xmm8, 128(%rsp)
  movaps %xmm9, 144(%rsp)
  movaps %xmm10, 160(%rsp)
  movaps %xmm11, 176(%rsp)
  movaps %xmm12, 192(%rsp)
  movaps %xmm13, 208(%rsp)
  movaps %xmm14, 224(%rsp)
  movaps %xmm15, 240(%rsp)
  callq *%rax
  movaps 0(%rsp), %xmm0
  movaps 16(%rsp), %xmm1
  movaps 32(%rsp), %xmm2
  movaps 48(%rsp), %xmm3
  movaps 64(%rsp), %xmm4
  movaps 80(%rsp), %xmm5
  movaps 96(%rsp), %xmm6
  movaps 112(%rsp), %xmm7
  movaps 128(%rsp), %xmm8
  movaps 144(%rsp), %xmm9
  movaps 160(%rsp), %xmm10
  movaps 176(%rsp), %xmm11
  movaps 192(%rsp), %xmm12
  movaps 208(%rsp), %xmm13
  movaps 224(%rsp), %xmm14
  movaps 240(%rsp), %xmm15
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
[[gnu::always_inline]] inline texel_words call_preserving_registers(general_fetch_routine routine,
                                                                    const texture_sampler& s, float x, float y, float z,
                                                                    int layer) {
  register float x_in asm("xmm0") = x;
  register float y_in asm("xmm1") = y;
  register float z_in asm("xmm2") = z;
  auto low = reinterpret_cast<std::uint64_t>(routine);
  std::uint64_t high;
  asm volatile(
      "leaq -128(%%rsp), %%rsp\n\t"  // the red zone stays untouched
      "call weft_texture_fetch_preserving\n\t"
      "leaq 128(%%rsp), %%rsp"
      : "+a"(low), "=d"(high)
      : "D"(&s), "m"(s), "S"(layer), "x"(x_in), "x"(y_in), "x"(z_in)
      : "cc");
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
