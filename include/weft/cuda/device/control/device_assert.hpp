// assert in kernels (CUDA guide, "Assertion"): a failed assert fails the
// launch with cudaErrorAssert, sticky until cudaDeviceReset, reporting the
// condition, file, line, block and thread; the process goes on. On the host,
// outside kernels, assert aborts as usual, and NDEBUG disables it as usual.
//
// How: weft defines no assert macro. In C++, glibc's assert(e) expands to
//   (static_cast<bool>(e) ? void(0) : __assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__))
// and its __assert_fail takes the line as unsigned int. The overload below
// takes it as int, the type of __LINE__, so overload resolution prefers it
// wherever it is visible, whichever of <cassert> and <weft.hpp> came first,
// and however often <cassert> is included again (each inclusion redefines
// the macro, always with this call). Inside a kernel it throws kernel_fault,
// which unwinds the CUDA thread (destructors run) and fails its block;
// elsewhere it calls glibc's __assert_fail, which prints the usual message
// and aborts. (nvcc's headers, likewise, make glibc's assert work in device
// code by declaring a device __assert_fail.)
//
// Limits: glibc only (musl's __assert_fail takes int already). The overload
// must be visible where assert is used: a template defined before
// <weft.hpp> was included keeps glibc's abort. An assert failing inside a
// noexcept function (a destructor, say) terminates the process, since the
// exception cannot leave it, and a catch (...) in device code would swallow
// it.
#pragma once

#include <cassert>  // as with nvcc, whose headers make assert available to every .cu file
#include <string>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"

#if defined(__GLIBC__)

// glibc's own, declared here as <assert.h> declares it, because <assert.h>
// leaves it undeclared when NDEBUG is defined at its inclusion.
extern "C" void __assert_fail(const char* assertion, const char* file, unsigned int line, const char* function) noexcept
    __attribute__((__noreturn__));

[[noreturn]] inline void __assert_fail(const char* assertion, const char* file, int line, const char* function) {
  if (weft::detail::running_block || weft::detail::running_stackless_block) {
    std::string what = std::string("assertion `") + assertion + "' failed at " + file + ":" + std::to_string(line);
    if (function) what.append(" in ").append(function);
    throw weft::detail::kernel_fault{cudaErrorAssert, std::move(what)};
  }
  ::__assert_fail(assertion, file, static_cast<unsigned int>(line), function);
}

#endif
