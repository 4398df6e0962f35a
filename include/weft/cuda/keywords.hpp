// CUDA's declaration qualifiers, which only a macro can spell. On the CPU
// every function runs on the host, so the execution-space qualifiers vanish.
//
// __shared__ becomes `thread_local`: a worker runs one block at a time, so a
// worker's thread-local statics are exactly the running block's shared
// memory, and blocks on different workers never see each other's. Inside a
// function thread_local implies static, so `__shared__ float s[16];` and
// `static __shared__ float s[16];` both work. As in CUDA, shared variables
// start uninitialised for each block (they keep whatever the worker's
// previous block left).
//
// In a build with AddressSanitizer, each `__shared__` declaration is preceded
// by a guard, a 32-byte thread-local that the memory check poisons, so that an
// index just past or before a `__shared__` array is reported instead of
// reaching the next variable (detail/checks/shared_guard_poisoning.hpp). A
// specifier written before `__shared__` (`static`, `volatile`, `alignas`)
// then applies to the guard, not the variable: inside a function the
// variable is static anyway, and the variable is aligned to 128 bytes, which
// keeps the alignment `alignas(16) __shared__` asks for (cp.async, float4).
//
// __constant__ and __managed__ variables are ordinary globals: all memory is
// host memory. __launch_bounds__ and __cluster_dims__ are accepted and have
// no effect on a CPU.
#pragma once

// libstdc++ spells an attribute `__attribute__((__noinline__))` in
// <bits/shared_ptr_base.h>, which CUDA's __noinline__ macro would break; it
// is parsed here, once, before the macro exists.
#include <memory>

#define __global__
#define __device__
#define __host__
#if defined(__SANITIZE_ADDRESS__)
#define WEFT_SHARED_GUARDS_ 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEFT_SHARED_GUARDS_ 1
#endif
#endif
#if defined(WEFT_SHARED_GUARDS_)
#include "weft/detail/checks/shared_guard.hpp"
// The guard's name must be unique in its scope: __COUNTER__, pasted once
// expanded (hence two steps).
#define WEFT_SHARED_GUARD_NAME_(n) weft_shared_guard_##n
#define WEFT_SHARED_GUARD_NAME(n) WEFT_SHARED_GUARD_NAME_(n)
#define __shared__                                                                                     \
  __attribute__((used)) thread_local ::weft::detail::shared_guard WEFT_SHARED_GUARD_NAME(__COUNTER__); \
  thread_local __attribute__((aligned(128)))
#else
#define __shared__ thread_local
#endif
#define __constant__
#define __managed__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __cluster_dims__(...)
// A const kernel parameter whose address the kernel may take (CUDA 11.7):
// on the GPU it stays in parameter memory instead of being copied; a CPU
// kernel's parameters are ordinary variables, so there is nothing to do.
#define __grid_constant__
#define CUDART_CB
