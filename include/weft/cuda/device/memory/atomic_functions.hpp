// CUDA's atomic functions (CUDA guide, "Atomic Functions"), with the
// overloads CUDA provides for each, on global and shared memory alike. They
// are relaxed read-modify-writes, as in CUDA: ordering against other memory
// needs a __threadfence. The _block and _system variants have the same
// effect here, since every block shares the host's coherent memory (the
// race check tells the _block ones apart: they order no other block).
//
// Under ThreadSanitizer they are sequentially consistent instead. TSan does
// not model fences (std::atomic_thread_fence is invisible to it), so a lock
// that CUDA code builds from atomicCAS, __threadfence and atomicExch would
// look unordered to it, and every access the lock guards a race. Making the
// atomics themselves order memory is a legal strengthening of CUDA's relaxed
// atomics, and it orders what the fences order there. Other builds keep them
// relaxed: the choice is made at compile time and costs them nothing.
#pragma once

#include <atomic>
#include <functional>

#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/fibers/fiber_sanitizer.hpp"

namespace weft::detail {

/// The memory order of every device atomic: CUDA's relaxed, or seq_cst
/// where ThreadSanitizer must see the order that fences give (above).
inline constexpr auto device_atomic_order =
    fiber_sanitizer::thread_sanitizer ? std::memory_order_seq_cst : std::memory_order_relaxed;

// Every atomic function below reaches its word through here: in a race-check
// build, the race check sees the read-modify-write (an acquire, and a
// release after a fence: docs/debugging.md, "Race check").
template <class T>
std::atomic_ref<T> atomic_at(T* address) {
  if constexpr (race_check_build)
    if (race_worker* race = race_running) race->atomic_read_modify_write(address);
  return std::atomic_ref<T>(*address);
}

/// The race check: the calling thread's next atomic, on `address`, is of
/// block scope (it orders only the threads of its block).
inline void race_block_scope(const void* address) {
  if constexpr (race_check_build)
    if (race_worker* race = race_running) race->next_atomic_at_block_scope(address);
}

/// Replaces *address by next(old) atomically; returns old.
template <class T, class Next>
T atomic_update(T* address, Next next) {
  auto a = atomic_at(address);
  T old = a.load(device_atomic_order);
  while (!a.compare_exchange_weak(old, next(old), device_atomic_order)) {
  }
  return old;
}

/// Stores `value` if it beats the current one (std::less: atomicMin,
/// std::greater: atomicMax); returns the old value.
template <class T, class Beats>
T atomic_keep_best(T* address, T value, Beats beats) {
  auto a = atomic_at(address);
  T old = a.load(device_atomic_order);
  while (beats(value, old) && !a.compare_exchange_weak(old, value, device_atomic_order)) {
  }
  return old;
}

template <class T>
T atomic_min(T* address, T value) {
  return atomic_keep_best(address, value, std::less<T>{});
}

template <class T>
T atomic_max(T* address, T value) {
  return atomic_keep_best(address, value, std::greater<T>{});
}

// Independent thread scheduling (sm_70 and later): a thread spinning on a
// lock or flag that another thread of its block will release must let that
// thread run. The threads of a block share one OS thread, so an atomic that
// failed to change anything (a compare-and-swap whose compare failed, an
// exchange that put back the value it found) yields to the block's other
// threads. A CAS or exchange that succeeds costs no switch. Out of line, so
// that the atomics stay small.
[[gnu::noinline]] inline void yield_after_failed_atomic() {
  if (block_executor* block = running_block) block->yield();
}

template <class T>
T atomic_cas(T* address, T compare, T value) {
  if (!atomic_at(address).compare_exchange_strong(compare, value, device_atomic_order)) [[unlikely]]
    yield_after_failed_atomic();
  return compare;  // the old value whether or not the swap happened
}

template <class T>
T atomic_exchange(T* address, T value) {
  T old = atomic_at(address).exchange(value, device_atomic_order);
  if (old == value) [[unlikely]]
    yield_after_failed_atomic();
  return old;
}

}  // namespace weft::detail

// clang-format off
inline int atomicAdd(int* a, int v) { return weft::detail::atomic_at(a).fetch_add(v, weft::detail::device_atomic_order); }
inline unsigned int atomicAdd(unsigned int* a, unsigned int v) { return weft::detail::atomic_at(a).fetch_add(v, weft::detail::device_atomic_order); }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) { return weft::detail::atomic_at(a).fetch_add(v, weft::detail::device_atomic_order); }
inline float atomicAdd(float* a, float v) { return weft::detail::atomic_at(a).fetch_add(v, weft::detail::device_atomic_order); }
inline double atomicAdd(double* a, double v) { return weft::detail::atomic_at(a).fetch_add(v, weft::detail::device_atomic_order); }

inline int atomicSub(int* a, int v) { return weft::detail::atomic_at(a).fetch_sub(v, weft::detail::device_atomic_order); }
inline unsigned int atomicSub(unsigned int* a, unsigned int v) { return weft::detail::atomic_at(a).fetch_sub(v, weft::detail::device_atomic_order); }

inline int atomicExch(int* a, int v) { return weft::detail::atomic_exchange(a, v); }
inline unsigned int atomicExch(unsigned int* a, unsigned int v) { return weft::detail::atomic_exchange(a, v); }
inline unsigned long long atomicExch(unsigned long long* a, unsigned long long v) { return weft::detail::atomic_exchange(a, v); }
inline float atomicExch(float* a, float v) { return weft::detail::atomic_exchange(a, v); }

inline int atomicMin(int* a, int v) { return weft::detail::atomic_min(a, v); }
inline unsigned int atomicMin(unsigned int* a, unsigned int v) { return weft::detail::atomic_min(a, v); }
inline long long atomicMin(long long* a, long long v) { return weft::detail::atomic_min(a, v); }
inline unsigned long long atomicMin(unsigned long long* a, unsigned long long v) { return weft::detail::atomic_min(a, v); }

inline int atomicMax(int* a, int v) { return weft::detail::atomic_max(a, v); }
inline unsigned int atomicMax(unsigned int* a, unsigned int v) { return weft::detail::atomic_max(a, v); }
inline long long atomicMax(long long* a, long long v) { return weft::detail::atomic_max(a, v); }
inline unsigned long long atomicMax(unsigned long long* a, unsigned long long v) { return weft::detail::atomic_max(a, v); }

/// ((old >= limit) ? 0 : old + 1): a counter that wraps to 0 after `limit`.
inline unsigned int atomicInc(unsigned int* a, unsigned int limit) {
  return weft::detail::atomic_update(a, [limit](unsigned int old) { return old >= limit ? 0u : old + 1; });
}
/// (old == 0 || old > limit) ? limit : old - 1: a counter that wraps to `limit` below 0.
inline unsigned int atomicDec(unsigned int* a, unsigned int limit) {
  return weft::detail::atomic_update(a, [limit](unsigned int old) { return old == 0 || old > limit ? limit : old - 1; });
}

inline int atomicCAS(int* a, int compare, int v) { return weft::detail::atomic_cas(a, compare, v); }
inline unsigned int atomicCAS(unsigned int* a, unsigned int compare, unsigned int v) { return weft::detail::atomic_cas(a, compare, v); }
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long compare, unsigned long long v) { return weft::detail::atomic_cas(a, compare, v); }
inline unsigned short atomicCAS(unsigned short* a, unsigned short compare, unsigned short v) { return weft::detail::atomic_cas(a, compare, v); }

inline int atomicAnd(int* a, int v) { return weft::detail::atomic_at(a).fetch_and(v, weft::detail::device_atomic_order); }
inline unsigned int atomicAnd(unsigned int* a, unsigned int v) { return weft::detail::atomic_at(a).fetch_and(v, weft::detail::device_atomic_order); }
inline unsigned long long atomicAnd(unsigned long long* a, unsigned long long v) { return weft::detail::atomic_at(a).fetch_and(v, weft::detail::device_atomic_order); }

inline int atomicOr(int* a, int v) { return weft::detail::atomic_at(a).fetch_or(v, weft::detail::device_atomic_order); }
inline unsigned int atomicOr(unsigned int* a, unsigned int v) { return weft::detail::atomic_at(a).fetch_or(v, weft::detail::device_atomic_order); }
inline unsigned long long atomicOr(unsigned long long* a, unsigned long long v) { return weft::detail::atomic_at(a).fetch_or(v, weft::detail::device_atomic_order); }

inline int atomicXor(int* a, int v) { return weft::detail::atomic_at(a).fetch_xor(v, weft::detail::device_atomic_order); }
inline unsigned int atomicXor(unsigned int* a, unsigned int v) { return weft::detail::atomic_at(a).fetch_xor(v, weft::detail::device_atomic_order); }
inline unsigned long long atomicXor(unsigned long long* a, unsigned long long v) { return weft::detail::atomic_at(a).fetch_xor(v, weft::detail::device_atomic_order); }
// clang-format on

// The scoped variants accept what the plain functions accept. A _block
// one synchronises only the threads of its block, which the race check
// tells apart; the effect on memory is the same.
template <class T, class... V>
auto atomicAdd_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicAdd(a, v...);
}
template <class T, class... V>
auto atomicAdd_system(T* a, V... v) {
  return atomicAdd(a, v...);
}
template <class T, class... V>
auto atomicSub_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicSub(a, v...);
}
template <class T, class... V>
auto atomicSub_system(T* a, V... v) {
  return atomicSub(a, v...);
}
template <class T, class... V>
auto atomicExch_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicExch(a, v...);
}
template <class T, class... V>
auto atomicExch_system(T* a, V... v) {
  return atomicExch(a, v...);
}
template <class T, class... V>
auto atomicMin_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicMin(a, v...);
}
template <class T, class... V>
auto atomicMin_system(T* a, V... v) {
  return atomicMin(a, v...);
}
template <class T, class... V>
auto atomicMax_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicMax(a, v...);
}
template <class T, class... V>
auto atomicMax_system(T* a, V... v) {
  return atomicMax(a, v...);
}
template <class T, class... V>
auto atomicInc_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicInc(a, v...);
}
template <class T, class... V>
auto atomicInc_system(T* a, V... v) {
  return atomicInc(a, v...);
}
template <class T, class... V>
auto atomicDec_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicDec(a, v...);
}
template <class T, class... V>
auto atomicDec_system(T* a, V... v) {
  return atomicDec(a, v...);
}
template <class T, class... V>
auto atomicCAS_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicCAS(a, v...);
}
template <class T, class... V>
auto atomicCAS_system(T* a, V... v) {
  return atomicCAS(a, v...);
}
template <class T, class... V>
auto atomicAnd_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicAnd(a, v...);
}
template <class T, class... V>
auto atomicAnd_system(T* a, V... v) {
  return atomicAnd(a, v...);
}
template <class T, class... V>
auto atomicOr_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicOr(a, v...);
}
template <class T, class... V>
auto atomicOr_system(T* a, V... v) {
  return atomicOr(a, v...);
}
template <class T, class... V>
auto atomicXor_block(T* a, V... v) {
  weft::detail::race_block_scope(a);
  return atomicXor(a, v...);
}
template <class T, class... V>
auto atomicXor_system(T* a, V... v) {
  return atomicXor(a, v...);
}
