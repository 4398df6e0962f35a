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
// __shared__ and dynamic shared memory and atomics as any kernel's, and
// co_await the warp collectives (weft::syncwarp, weft::shfl_sync, ...,
// below) and weft::activemask(). A __device__ function that waits returns
// weft::stackless_function<T> and is awaited (below). Cooperative groups
// are awaited with weft/stackless_groups.hpp. A fault in a thread (a wild
// pointer, an integer division by zero) fails the launch with the fiber
// executor's report. A block-scope cuda::barrier is awaited with
// weft/stackless_barrier.hpp, a block's cuda::pipeline with
// weft/stackless_pipeline.hpp, PTX's named barriers with weft/stackless_named_barriers.hpp. A kernel of C
// linkage runs stackless through a body of C++ linkage (weft::register_kernel<&k, &body>,
// weft/launch_by_address.hpp). Not yet: a spin on another thread of the block (an
// atomic cannot let it run), and launches from the kernel. WEFT_EXECUTOR=fibers runs
// stackless kernels on fibers instead, as any kernel, with identical results and reports.
#pragma once

#include <concepts>
#include <cstdint>
#include <source_location>

#include "weft/detail/coroutine_executor/activemask_awaiter.hpp"
#include "weft/detail/coroutine_executor/barrier_awaiter.hpp"
#include "weft/detail/coroutine_executor/call_site.hpp"
#include "weft/detail/coroutine_executor/stackless_function.hpp"
#include "weft/detail/coroutine_executor/stackless_grid.hpp"
#include "weft/detail/coroutine_executor/stackless_thread.hpp"
#include "weft/detail/coroutine_executor/warp_awaiter.hpp"
#include "weft/detail/executor/warp_reports.hpp"

namespace weft {

/// What a stackless kernel returns where a __global__ function returns void.
using stackless_kernel = detail::stackless_thread;

/// What a __device__ function that waits returns: `co_await f(x)` in a
/// stackless kernel (or in another such function) runs it and gives its T;
/// in it, `co_await` what a kernel awaits and `co_return` the result.
template <class T = void>
using stackless_function = detail::stackless_function<T>;

/// Runs a stackless kernel's thread to its end on the calling fiber, as the
/// fiber executor runs every stackless kernel: the body of a `void` kernel
/// that stands for a stackless one, `extern "C" void k(int* x) {
/// weft::run_on_fiber(k_body(x)); }` (weft::register_kernel<&k, &k_body>,
/// weft/launch_by_address.hpp, makes launches of k run k_body stackless).
inline void run_on_fiber(stackless_kernel thread) { thread.finish_on_fiber(); }

/// co_await weft::syncthreads(): __syncthreads for a stackless kernel.
inline detail::barrier_awaiter<detail::barrier_kind::sync> syncthreads(
    detail::call_site where = __builtin_source_location()) {
  return {0, detail::to_source_location(where)};
}

/// co_await weft::syncthreads_count(p): how many threads of the block passed
/// a non-zero predicate (__syncthreads_count).
inline detail::barrier_awaiter<detail::barrier_kind::count> syncthreads_count(
    int predicate, detail::call_site where = __builtin_source_location()) {
  return {predicate, detail::to_source_location(where)};
}

/// co_await weft::syncthreads_and(p): non-zero iff every thread's predicate is (__syncthreads_and).
inline detail::barrier_awaiter<detail::barrier_kind::all> syncthreads_and(
    int predicate, detail::call_site where = __builtin_source_location()) {
  return {predicate, detail::to_source_location(where)};
}

/// co_await weft::syncthreads_or(p): non-zero iff any thread's predicate is (__syncthreads_or).
inline detail::barrier_awaiter<detail::barrier_kind::any> syncthreads_or(
    int predicate, detail::call_site where = __builtin_source_location()) {
  return {predicate, detail::to_source_location(where)};
}

// ---- Warp collectives ----
//
// Each is CUDA's intrinsic without its leading underscores, awaited:
// `int v = co_await weft::shfl_down_sync(~0u, v, 16);` where CUDA writes
// `v = __shfl_down_sync(~0u, v, 16);`. The semantics are sm_90's, as for the
// intrinsics on fibers (weft/cuda/device/sync/warp_functions.hpp): a collective
// completes once every lane of its mask has arrived; lanes in different
// branches with disjoint masks complete among themselves; a mask that omits
// the caller or names an exited lane, and lanes that disagree on the
// collective or mask, fail the launch with the same report as on fibers.

namespace detail {
/// The types CUDA declares the shuffles and matches for (half aside).
template <class T>
concept warp_shuffle_type = std::same_as<T, int> || std::same_as<T, unsigned> || std::same_as<T, long> ||
    std::same_as<T, unsigned long> || std::same_as<T, long long> || std::same_as<T, unsigned long long> ||
    std::same_as<T, float> || std::same_as<T, double>;

// Each kind of warp collective is one function object type, of which each
// collective of that kind is a constant: CUDA's overloads and defaults are
// written once per kind, and the call reads as a function's (a default
// argument, the caller's source_location included, is the call's).

/// A shuffle: `Source` is CUDA's type of its lane or delta operand.
template <warp_op Op, class Source>
struct awaited_shuffle {
  template <warp_shuffle_type T>
  warp_awaiter<T> operator()(unsigned mask, T var, Source source, int width = 32,
                             call_site where = __builtin_source_location()) const {
    check_shuffle_width(width);
    return {Op, mask, {to_bits(var), static_cast<int>(source), width}, to_source_location(where)};
  }
};

/// A vote, giving `Result`.
template <warp_op Op, class Result>
struct awaited_vote {
  warp_awaiter<Result> operator()(unsigned mask, int predicate, call_site where = __builtin_source_location()) const {
    return {Op, mask, {predicate != 0}, to_source_location(where)};
  }
};

/// A reduction of int (by `ForInt`) and of unsigned (by `ForUnsigned`);
/// ints sign-extended, so that min and max compare them as signed (as on
/// fibers). A cooperative group's reduce passes its own caller's
/// source_location.
template <warp_op ForInt, warp_op ForUnsigned>
struct awaited_reduction {
  warp_awaiter<int> operator()(unsigned mask, int value, call_site where = __builtin_source_location()) const {
    return (*this)(mask, value, to_source_location(where));
  }
  warp_awaiter<unsigned> operator()(unsigned mask, unsigned value,
                                    call_site where = __builtin_source_location()) const {
    return (*this)(mask, value, to_source_location(where));
  }
  warp_awaiter<int> operator()(unsigned mask, int value, std::source_location where) const {
    return {ForInt, mask, {static_cast<std::uint64_t>(static_cast<std::int64_t>(value))}, where};
  }
  warp_awaiter<unsigned> operator()(unsigned mask, unsigned value, std::source_location where) const {
    return {ForUnsigned, mask, {value}, where};
  }
};

/// A bitwise reduction, which CUDA declares for unsigned only.
template <warp_op Op>
struct awaited_bitwise_reduction {
  warp_awaiter<unsigned> operator()(unsigned mask, unsigned value,
                                    call_site where = __builtin_source_location()) const {
    return {Op, mask, {value}, to_source_location(where)};
  }
  warp_awaiter<unsigned> operator()(unsigned mask, unsigned value, std::source_location where) const {
    return {Op, mask, {value}, where};
  }
};
}  // namespace detail

/// co_await weft::syncwarp(mask): __syncwarp.
inline detail::warp_awaiter<void> syncwarp(unsigned mask = 0xffffffffu,
                                           detail::call_site where = __builtin_source_location()) {
  return {detail::warp_op::sync, mask, {}, detail::to_source_location(where)};
}

/// co_await weft::activemask(): __activemask, the lanes of the caller's warp
/// converged with it. As on fibers, the caller waits until no other thread
/// of the block can run, then gets the lanes of its warp waiting at the
/// same call (lanes that exited or went elsewhere are left out).
inline detail::activemask_awaiter activemask(std::source_location where = std::source_location::current()) {
  return detail::activemask_awaiter{where};
}

/// co_await weft::shfl_sync(mask, var, srcLane, width = 32): __shfl_sync, for CUDA's eight shuffle types.
inline constexpr detail::awaited_shuffle<detail::warp_op::shfl, int> shfl_sync{};
/// co_await weft::shfl_up_sync(mask, var, delta, width = 32): __shfl_up_sync.
inline constexpr detail::awaited_shuffle<detail::warp_op::shfl_up, unsigned> shfl_up_sync{};
/// co_await weft::shfl_down_sync(mask, var, delta, width = 32): __shfl_down_sync.
inline constexpr detail::awaited_shuffle<detail::warp_op::shfl_down, unsigned> shfl_down_sync{};
/// co_await weft::shfl_xor_sync(mask, var, laneMask, width = 32): __shfl_xor_sync.
inline constexpr detail::awaited_shuffle<detail::warp_op::shfl_xor, int> shfl_xor_sync{};

/// co_await weft::all_sync(mask, p): non-zero iff every lane of mask passed a non-zero p (__all_sync).
inline constexpr detail::awaited_vote<detail::warp_op::all, int> all_sync{};
/// co_await weft::any_sync(mask, p): non-zero iff any lane of mask passed a non-zero p (__any_sync).
inline constexpr detail::awaited_vote<detail::warp_op::any, int> any_sync{};
/// co_await weft::ballot_sync(mask, p): bit n set iff lane n of mask passed a non-zero p (__ballot_sync).
inline constexpr detail::awaited_vote<detail::warp_op::ballot, unsigned> ballot_sync{};

/// co_await weft::match_any_sync(mask, value): the lanes of mask whose value has the caller's bits (__match_any_sync).
template <detail::warp_shuffle_type T>
detail::warp_awaiter<unsigned> match_any_sync(unsigned mask, T value,
                                              detail::call_site where = __builtin_source_location()) {
  return {detail::warp_op::match_any, mask, {detail::to_bits(value)}, detail::to_source_location(where)};
}

/// co_await weft::match_all_sync(mask, value, &pred): mask if every lane's value has the same bits, else 0;
/// *pred says which (__match_all_sync). `pred` must outlive the co_await.
template <detail::warp_shuffle_type T>
detail::match_all_awaiter match_all_sync(unsigned mask, T value, int* pred,
                                         detail::call_site where = __builtin_source_location()) {
  return {mask, detail::to_bits(value), detail::to_source_location(where), pred};
}

/// co_await weft::reduce_add_sync(mask, v) and the other reductions: __reduce_*_sync (sm_80 and later), for
/// int and unsigned (add, min, max) or unsigned (and, or, xor), as CUDA declares them.
inline constexpr detail::awaited_reduction<detail::warp_op::reduce_add, detail::warp_op::reduce_add> reduce_add_sync{};
inline constexpr detail::awaited_reduction<detail::warp_op::reduce_min_signed, detail::warp_op::reduce_min_unsigned>
    reduce_min_sync{};
inline constexpr detail::awaited_reduction<detail::warp_op::reduce_max_signed, detail::warp_op::reduce_max_unsigned>
    reduce_max_sync{};
inline constexpr detail::awaited_bitwise_reduction<detail::warp_op::reduce_and> reduce_and_sync{};
inline constexpr detail::awaited_bitwise_reduction<detail::warp_op::reduce_or> reduce_or_sync{};
inline constexpr detail::awaited_bitwise_reduction<detail::warp_op::reduce_xor> reduce_xor_sync{};

}  // namespace weft
