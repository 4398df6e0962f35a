// cuda::atomic_thread_fence(order, scope), libcu++'s fence of a memory order
// for the threads of a scope (<cuda/atomic>; cuda::std::atomic_thread_fence
// is its system-scope form). A fence that releases (release, acq_rel,
// seq_cst) is CUDA's fence of that scope, __threadfence_block() for a block,
// __threadfence() for the device and __threadfence_system() for the system,
// so that the race check orders through it as through those: an atomic
// after it releases what the thread did before it. An acquire fence is the
// host's acquire fence; the race check needs nothing of it, as it takes
// every atomic as acquiring.
#pragma once

#include <atomic>

#include "weft/cuda/device/async/thread_scope.hpp"
#include "weft/cuda/device/memory/atomic_ref.hpp"
#include "weft/cuda/device/sync/synchronization.hpp"

namespace cuda {

inline void atomic_thread_fence(::std::memory_order order, thread_scope scope = thread_scope_system) noexcept {
  if (order == ::std::memory_order_relaxed) return;
  if (!::weft::detail::releases(order)) {
    ::std::atomic_thread_fence(order);
    return;
  }
  switch (scope) {
    case thread_scope_thread:
      ::std::atomic_signal_fence(order);  // no other thread to order
      return;
    case thread_scope_block:
      __threadfence_block();
      return;
    case thread_scope_device:
      __threadfence();
      return;
    case thread_scope_system:
      __threadfence_system();
      return;
  }
}

}  // namespace cuda
