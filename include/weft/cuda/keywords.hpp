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
#define __shared__ thread_local
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
