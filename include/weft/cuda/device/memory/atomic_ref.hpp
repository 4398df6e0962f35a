// cuda::atomic_ref<T, Scope> and cuda::atomic<T, Scope>, libcu++'s atomics
// with a thread scope (<cuda/atomic>): load, store, exchange,
// compare_exchange, fetch_add/sub (of pointers too), fetch_and/or/xor,
// fetch_min/max, their operators, and wait/notify. cuda::std::atomic and
// cuda::std::atomic_ref are their system-scope forms (<cuda/std/atomic>).
//
// Every scope has the same effect on memory here, as for atomicAdd_block
// and atomicAdd_system: every block shares the host's coherent memory (the
// race check takes a block or thread scope's to order its block only). Each
// operation reaches its word through weft's atomic_at (atomic_functions.hpp),
// so that the race check sees it; the memory order is the caller's, seq_cst
// by default as in libcu++. Written with ::std, never std: user code's
// `using namespace cuda;` with <cuda/std/...> declares cuda::std.
//
// In PTX, a store or read-modify-write that releases (release, acq_rel,
// seq_cst) is a fence of its scope followed by the relaxed operation; the
// race check is told of that fence (__threadfence_block's for a block or
// thread scope, __threadfence's otherwise), so that the atomic releases
// what the thread did before it, as an atomic after a fence does. A
// relaxed one releases nothing. Every atomic acquires, as CUDA's atomic
// functions do for the race check.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <thread>
#include <type_traits>

#include "weft/cuda/device/async/thread_scope.hpp"
#include "weft/cuda/device/memory/atomic_functions.hpp"

namespace weft::detail {

// An atomic load or store inlined into kernel code is traced by the race
// check as a plain one (Clang's instrumentation does not tell them apart),
// and atomics never race: in a race-check build they are made out of line
// in namespace weft, which the check ignores (flatten: std::atomic_ref's
// own functions inlined, not called as traced std code).
template <class T>
[[gnu::noinline, gnu::flatten]] void untraced_atomic_store(::std::atomic_ref<T> word, T desired,
                                                           ::std::memory_order order) {
  word.store(desired, order);
}
template <class T>
[[gnu::noinline, gnu::flatten]] T untraced_atomic_load(::std::atomic_ref<T> word, ::std::memory_order order) {
  return word.load(order);
}
template <class T>
void atomic_store(::std::atomic_ref<T> word, T desired, ::std::memory_order order) {
  if constexpr (race_check_build)
    untraced_atomic_store(word, desired, order);
  else
    word.store(desired, order);
}
template <class T>
T atomic_load(::std::atomic_ref<T> word, ::std::memory_order order) {
  if constexpr (race_check_build)
    return untraced_atomic_load(word, order);
  else
    return word.load(order);
}

inline bool releases(::std::memory_order order) {
  return order == ::std::memory_order_release || order == ::std::memory_order_acq_rel ||
         order == ::std::memory_order_seq_cst;
}

/// The race check: the calling thread's next atomic releases, at `scope`
/// (the fence that PTX puts before a releasing atomic).
inline void race_release_before_atomic(::std::memory_order order, ::cuda::thread_scope scope) {
  if constexpr (race_check_build)
    if (race_worker* race = race_running; race && releases(order)) {
      if (scope == ::cuda::thread_scope_block || scope == ::cuda::thread_scope_thread)
        race->thread_fenced();
      else
        race->fenced();
    }
}

/// A thread that polls an atomic lets the other threads of its block run
/// now and then (every 64th load on a worker), so that a spin on a flag
/// that another thread of the block sets ends on fibers, as independent
/// thread scheduling lets it end on a GPU; atomicCAS and atomicExch yield
/// when they fail (atomic_functions.hpp), which a load cannot tell. Out of
/// line in namespace weft: the race check must not trace the count, a
/// thread-local that it would take for __shared__ memory.
[[gnu::noinline]] inline void yield_now_and_then_after_load() {
  static thread_local unsigned loads = 0;
  if (++loads % 64 == 0 && running_block) [[unlikely]]
    yield_after_failed_atomic();
}

/// wait()'s poll: lets the block's other threads run, or, on the host,
/// other host threads.
inline void wait_for_atomic_change() {
  if (running_block)
    yield_after_failed_atomic();
  else
    ::std::this_thread::yield();
}

}  // namespace weft::detail

namespace cuda {

template <class T, thread_scope Scope = thread_scope_system>
class atomic_ref {
  static_assert(::std::is_trivially_copyable_v<T>, "cuda::atomic_ref needs a trivially copyable type");

 public:
  using value_type = T;
  static constexpr ::std::size_t required_alignment = ::std::atomic_ref<T>::required_alignment;

  explicit atomic_ref(T& object) noexcept : object_(&object) {}
  atomic_ref(const atomic_ref&) noexcept = default;
  atomic_ref& operator=(const atomic_ref&) = delete;

  T operator=(T desired) const noexcept {
    store(desired);
    return desired;
  }
  operator T() const noexcept { return load(); }
  bool is_lock_free() const noexcept { return word().is_lock_free(); }

  void store(T desired, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept {
    ::weft::detail::atomic_store(releasing(order), desired, order);
  }
  T load(::std::memory_order order = ::std::memory_order_seq_cst) const noexcept {
    T value = ::weft::detail::atomic_load(word(), order);
    ::weft::detail::yield_now_and_then_after_load();
    return value;
  }
  /// Stores `desired`; a thread that put back the value it found (a failed
  /// test-and-set) lets its block's other threads run, as atomicExch does.
  T exchange(T desired, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept {
    T old = releasing(order).exchange(desired, order);
    if (same_value(old, desired)) [[unlikely]]
      ::weft::detail::yield_after_failed_atomic();
    return old;
  }
  /// A failed compare lets the block's other threads run, as atomicCAS's does.
  bool compare_exchange_weak(T& expected, T desired, ::std::memory_order success,
                             ::std::memory_order failure) const noexcept {
    return yield_unless(releasing(success).compare_exchange_weak(expected, desired, success, failure));
  }
  bool compare_exchange_strong(T& expected, T desired, ::std::memory_order success,
                               ::std::memory_order failure) const noexcept {
    return yield_unless(releasing(success).compare_exchange_strong(expected, desired, success, failure));
  }
  bool compare_exchange_weak(T& expected, T desired,
                             ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept {
    return yield_unless(releasing(order).compare_exchange_weak(expected, desired, order));
  }
  bool compare_exchange_strong(T& expected, T desired,
                               ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept {
    return yield_unless(releasing(order).compare_exchange_strong(expected, desired, order));
  }

  /// Returns once the value differs from `old` (compared as bytes, as
  /// std::atomic's wait does), polling: notify_one and notify_all have
  /// nothing to wake.
  void wait(T old, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept {
    while (same_value(::weft::detail::atomic_load(word(), order), old)) ::weft::detail::wait_for_atomic_change();
  }
  void notify_one() const noexcept {}
  void notify_all() const noexcept {}

  T fetch_add(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept
      requires(::std::is_arithmetic_v<T>) {
    return releasing(order).fetch_add(arg, order);
  }
  T fetch_sub(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept
      requires(::std::is_arithmetic_v<T>) {
    return releasing(order).fetch_sub(arg, order);
  }
  T fetch_add(::std::ptrdiff_t arg, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept
      requires(::std::is_pointer_v<T>) {
    return releasing(order).fetch_add(arg, order);
  }
  T fetch_sub(::std::ptrdiff_t arg, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept
      requires(::std::is_pointer_v<T>) {
    return releasing(order).fetch_sub(arg, order);
  }
  T fetch_and(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept
      requires(::std::is_integral_v<T>) {
    return releasing(order).fetch_and(arg, order);
  }
  T fetch_or(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept
      requires(::std::is_integral_v<T>) {
    return releasing(order).fetch_or(arg, order);
  }
  T fetch_xor(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept
      requires(::std::is_integral_v<T>) {
    return releasing(order).fetch_xor(arg, order);
  }
  /// libcu++'s extension: the smaller (fetch_min) or larger (fetch_max) of
  /// the current value and `arg` is stored; the old value is returned.
  T fetch_min(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept
      requires(::std::is_arithmetic_v<T>) {
    return keep_if(arg, order, [](T a, T b) { return a < b; });
  }
  T fetch_max(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept
      requires(::std::is_arithmetic_v<T>) {
    return keep_if(arg, order, [](T a, T b) { return a > b; });
  }

  T operator+=(T arg) const noexcept requires(::std::is_arithmetic_v<T>) { return fetch_add(arg) + arg; }
  T operator-=(T arg) const noexcept requires(::std::is_arithmetic_v<T>) { return fetch_sub(arg) - arg; }
  T operator&=(T arg) const noexcept requires(::std::is_integral_v<T>) { return fetch_and(arg) & arg; }
  T operator|=(T arg) const noexcept requires(::std::is_integral_v<T>) { return fetch_or(arg) | arg; }
  T operator^=(T arg) const noexcept requires(::std::is_integral_v<T>) { return fetch_xor(arg) ^ arg; }
  T operator++() const noexcept requires(::std::is_integral_v<T>) { return fetch_add(1) + 1; }
  T operator++(int) const noexcept requires(::std::is_integral_v<T>) { return fetch_add(1); }
  T operator--() const noexcept requires(::std::is_integral_v<T>) { return fetch_sub(1) - 1; }
  T operator--(int) const noexcept requires(::std::is_integral_v<T>) { return fetch_sub(1); }
  T operator+=(::std::ptrdiff_t arg) const noexcept requires(::std::is_pointer_v<T>) { return fetch_add(arg) + arg; }
  T operator-=(::std::ptrdiff_t arg) const noexcept requires(::std::is_pointer_v<T>) { return fetch_sub(arg) - arg; }
  T operator++() const noexcept requires(::std::is_pointer_v<T>) { return fetch_add(1) + 1; }
  T operator++(int) const noexcept requires(::std::is_pointer_v<T>) { return fetch_add(1); }
  T operator--() const noexcept requires(::std::is_pointer_v<T>) { return fetch_sub(1) - 1; }
  T operator--(int) const noexcept requires(::std::is_pointer_v<T>) { return fetch_sub(1); }

 private:
  ::std::atomic_ref<T> word() const {
    if constexpr (Scope == thread_scope_block || Scope == thread_scope_thread)
      ::weft::detail::race_block_scope(object_);
    return ::weft::detail::atomic_at(object_);
  }
  /// word(), for an atomic of `order` that may write: one that releases
  /// has its scope's fence before it, for the race check.
  ::std::atomic_ref<T> releasing(::std::memory_order order) const {
    ::weft::detail::race_release_before_atomic(order, Scope);
    return word();
  }
  static bool same_value(const T& a, const T& b) { return ::std::memcmp(&a, &b, sizeof(T)) == 0; }
  static bool yield_unless(bool swapped) {
    if (!swapped) [[unlikely]]
      ::weft::detail::yield_after_failed_atomic();
    return swapped;
  }

  template <class Beats>
  T keep_if(T arg, ::std::memory_order order, Beats beats) const {
    auto w = releasing(order);
    T old = ::weft::detail::atomic_load(w, ::std::memory_order_relaxed);
    while (beats(arg, old) && !w.compare_exchange_weak(old, arg, order)) {
    }
    return old;
  }

  T* object_;
};

/// An atomic object (a __shared__ one is set by a plain assignment after its
/// declaration, as CUDA's examples do); its operations are atomic_ref's.
template <class T, thread_scope Scope = thread_scope_system>
class atomic {
 public:
  using value_type = T;

  using difference_type = ::std::conditional_t<::std::is_pointer_v<T>, ::std::ptrdiff_t, T>;
  static constexpr bool is_always_lock_free = ::std::atomic<T>::is_always_lock_free;

  atomic() noexcept = default;  // trivial, as a __shared__ variable's type must be
  constexpr atomic(T desired) noexcept : value_(desired) {}
  atomic(const atomic&) = delete;
  atomic& operator=(const atomic&) = delete;

  T operator=(T desired) noexcept { return ref() = desired; }
  operator T() const noexcept { return load(); }
  bool is_lock_free() const noexcept { return ref().is_lock_free(); }

  void store(T desired, ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    ref().store(desired, order);
  }
  T load(::std::memory_order order = ::std::memory_order_seq_cst) const noexcept { return ref().load(order); }
  T exchange(T desired, ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    return ref().exchange(desired, order);
  }
  bool compare_exchange_weak(T& expected, T desired, ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    return ref().compare_exchange_weak(expected, desired, order);
  }
  bool compare_exchange_strong(T& expected, T desired,
                               ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    return ref().compare_exchange_strong(expected, desired, order);
  }
  bool compare_exchange_weak(T& expected, T desired, ::std::memory_order success,
                             ::std::memory_order failure) noexcept {
    return ref().compare_exchange_weak(expected, desired, success, failure);
  }
  bool compare_exchange_strong(T& expected, T desired, ::std::memory_order success,
                               ::std::memory_order failure) noexcept {
    return ref().compare_exchange_strong(expected, desired, success, failure);
  }
  void wait(T old, ::std::memory_order order = ::std::memory_order_seq_cst) const noexcept { ref().wait(old, order); }
  void notify_one() noexcept {}
  void notify_all() noexcept {}
  T fetch_add(difference_type arg, ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    return ref().fetch_add(arg, order);
  }
  T fetch_sub(difference_type arg, ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    return ref().fetch_sub(arg, order);
  }
  T fetch_and(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    return ref().fetch_and(arg, order);
  }
  T fetch_or(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    return ref().fetch_or(arg, order);
  }
  T fetch_xor(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    return ref().fetch_xor(arg, order);
  }
  T fetch_min(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    return ref().fetch_min(arg, order);
  }
  T fetch_max(T arg, ::std::memory_order order = ::std::memory_order_seq_cst) noexcept {
    return ref().fetch_max(arg, order);
  }
  T operator+=(difference_type arg) noexcept { return ref() += arg; }
  T operator-=(difference_type arg) noexcept { return ref() -= arg; }
  T operator&=(T arg) noexcept { return ref() &= arg; }
  T operator|=(T arg) noexcept { return ref() |= arg; }
  T operator^=(T arg) noexcept { return ref() ^= arg; }
  T operator++() noexcept { return ++ref(); }
  T operator++(int) noexcept { return ref()++; }
  T operator--() noexcept { return --ref(); }
  T operator--(int) noexcept { return ref()--; }

  /// The same object seen through an atomic_ref (not libcu++'s API): how
  /// cooperative groups' functions treat both kinds alike.
  atomic_ref<T, Scope> weft_ref() const noexcept { return ref(); }

 private:
  atomic_ref<T, Scope> ref() const noexcept { return atomic_ref<T, Scope>(const_cast<T&>(value_)); }
  T value_;
};

}  // namespace cuda
