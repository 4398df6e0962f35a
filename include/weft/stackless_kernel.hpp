// Stackless kernels: a kernel whose CUDA threads are C++20 coroutines, with
// no stack of their own, so that a block barrier costs a coroutine resume
// per thread instead of a context switch (docs/architecture.md, "Stackless
// kernels"). Not in weft.hpp: a program opts in by including this header.
//
//   weft::launch(blocks, 256, [] (const float* in, float* out) -> weft::stackless_kernel {
//     __shared__ float partial[256];
//     partial[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
//     co_await weft::syncthreads();
//     for (unsigned half = 128; half > 0; half /= 2) {
//       if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
//       co_await weft::syncthreads();
//     }
//     if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
//   }, d_in, d_out);
//
// A kernel, lambda or function, that returns weft::stackless_kernel is one;
// weft::launch runs it like any kernel. It waits only where its own body
// co_awaits one of the barriers below; a CUDA function that would block
// (__syncthreads, a warp collective) called without co_await fails the
// launch with a report that says so. Its threads read threadIdx, use
// __shared__ and dynamic shared memory and atomics as any kernel's. Not yet:
// warp collectives, cooperative groups and cuda::barrier as awaitables, a
// spin on another thread of the block (an atomic cannot let it run),
// launches from the kernel, and fault signals (a wild pointer ends the
// process). WEFT_EXECUTOR=fibers runs stackless kernels on fibers instead,
// as any kernel, with identical results and reports.
#pragma once

#include <source_location>

#include "weft/detail/coroutine_executor/barrier_awaiter.hpp"
#include "weft/detail/coroutine_executor/stackless_grid.hpp"
#include "weft/detail/coroutine_executor/stackless_thread.hpp"

namespace weft {

/// What a stackless kernel returns where a __global__ function returns void.
using stackless_kernel = detail::stackless_thread;

/// co_await weft::syncthreads(): __syncthreads for a stackless kernel.
inline detail::barrier_awaiter<detail::barrier_kind::sync> syncthreads(
    std::source_location where = std::source_location::current()) {
  return {0, where};
}

/// co_await weft::syncthreads_count(p): how many threads of the block passed
/// a non-zero predicate (__syncthreads_count).
inline detail::barrier_awaiter<detail::barrier_kind::count> syncthreads_count(
    int predicate, std::source_location where = std::source_location::current()) {
  return {predicate, where};
}

/// co_await weft::syncthreads_and(p): non-zero iff every thread's predicate is (__syncthreads_and).
inline detail::barrier_awaiter<detail::barrier_kind::all> syncthreads_and(
    int predicate, std::source_location where = std::source_location::current()) {
  return {predicate, where};
}

/// co_await weft::syncthreads_or(p): non-zero iff any thread's predicate is (__syncthreads_or).
inline detail::barrier_awaiter<detail::barrier_kind::any> syncthreads_or(
    int predicate, std::source_location where = std::source_location::current()) {
  return {predicate, where};
}

}  // namespace weft
