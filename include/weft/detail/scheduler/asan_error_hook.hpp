// The definition of AddressSanitizer's error hook, __asan_on_error, that
// hands ASan's errors to weft's memory check (memory_check.hpp says why it
// is written this way). Included by grid_job.hpp in builds with ASan only:
// elsewhere nothing defines the ASan functions the check calls.
#pragma once

#include "weft/detail/scheduler/memory_check.hpp"

// `used` keeps each translation
// unit's copy of weft's function, which only the assembly below names.
extern "C" [[gnu::used]] inline void weft_memory_check_on_asan_error() { weft::detail::memory_check::on_error(); }

#if defined(__x86_64__)
asm(".pushsection .text.__asan_on_error,\"axG\",@progbits,__asan_on_error,comdat\n"
    ".globl __asan_on_error\n"
    ".type __asan_on_error,@function\n"
    "__asan_on_error:\n"
    "  jmp weft_memory_check_on_asan_error@PLT\n"
    ".popsection\n");
#elif defined(__aarch64__)
asm(".pushsection .text.__asan_on_error,\"axG\",@progbits,__asan_on_error,comdat\n"
    ".globl __asan_on_error\n"
    ".type __asan_on_error,%function\n"
    "__asan_on_error:\n"
    "  b weft_memory_check_on_asan_error\n"
    ".popsection\n");
#endif
