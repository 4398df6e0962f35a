// The race check's hooks in weft's asynchronous copies (memcpy_async in its
// forms, race_async_copy.hpp says what is checked): the copy's issue, and
// what completes it. Called only in a race-check build; out of line and in
// namespace weft, so that neither the copy nor the bookkeeping is traced as
// the kernel's own accesses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>

#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/checks/race_check.hpp"

namespace weft::detail {

/// Copies `copied` bytes from `source` to `destination` and zeroes the
/// `zeroed` bytes after them: an asynchronous copy that the calling thread
/// issued at `where` with `call`, in flight until what `copy` names
/// completes it (its thread and the sequences it is counted in are filled
/// in here).
[[gnu::noinline]] inline void race_copy_async(void* destination, const void* source, std::size_t copied,
                                              std::size_t zeroed, race_copy copy, const char* call,
                                              const std::source_location& where) {
  std::memcpy(destination, source, copied);
  if (zeroed != 0) std::memset(static_cast<char*>(destination) + copied, 0, zeroed);
  race_worker* worker = race_running;
  if (!worker) return;
  race_copies_in_flight& copies = worker->copies_in_flight();
  copy.thread = linear_thread_index(threadIdx, blockDim);
  if (copy.wait == race_copy_wait::primitives) copy.sequence = copies.primitive_batches(copy.thread);
  if (copy.wait == race_copy_wait::group) copy.sequence = copies.group_copies(copy.thread)++;
  if (copied + zeroed == 0) return;  // a group copy's empty share
  copy.site = race_copy_sites::site(call, where);
  worker->copy_issued(copy, destination, copied + zeroed, source, copied);
}

/// A phase of the barrier state at `barrier` completed (a cuda::barrier's,
/// a block pipeline stage's): the copies committed to it are complete.
[[gnu::noinline]] inline void race_copies_complete(const void* barrier) {
  race_worker* worker = race_running;
  if (!worker || worker->copies_in_flight().empty()) return;
  worker->copies_in_flight().end(
      [&](const race_copy& c) { return c.wait == race_copy_wait::barrier && c.barrier == barrier; });
}

/// The calling thread's copies of `wait` numbered below `below` are
/// complete (its wait for a thread-scope pipeline's stage, its
/// __pipeline_wait_prior).
[[gnu::noinline]] inline void race_thread_copies_waited(race_copy_wait wait, std::uint32_t below) {
  race_worker* worker = race_running;
  if (!worker || worker->copies_in_flight().empty()) return;
  unsigned thread = linear_thread_index(threadIdx, blockDim);
  worker->copies_in_flight().end(
      [&](const race_copy& c) { return c.wait == wait && c.thread == thread && c.sequence < below; });
}

/// The calling thread committed its thread-scope pipeline's stage
/// `sequence` to the barrier state at `barrier` (pipeline_producer_commit):
/// its copies complete with the barrier's phase.
[[gnu::noinline]] inline void race_thread_copies_bound(std::uint32_t sequence, const void* barrier) {
  race_worker* worker = race_running;
  if (!worker || worker->copies_in_flight().empty()) return;
  unsigned thread = linear_thread_index(threadIdx, blockDim);
  worker->copies_in_flight().rebind(
      [&](const race_copy& c) {
        return c.wait == race_copy_wait::thread_pipeline && c.thread == thread && c.sequence == sequence;
      },
      barrier);
}

/// __pipeline_commit: the calling thread's next copies form a new batch.
[[gnu::noinline]] inline void race_primitives_committed() {
  if (race_worker* worker = race_running)
    ++worker->copies_in_flight().primitive_batches(linear_thread_index(threadIdx, blockDim));
}

/// __pipeline_wait_prior(prior): all but the calling thread's `prior`
/// latest batches are complete.
[[gnu::noinline]] inline void race_primitives_waited(std::size_t prior) {
  race_worker* worker = race_running;
  if (!worker) return;
  std::uint32_t batches = worker->copies_in_flight().primitive_batches(linear_thread_index(threadIdx, blockDim));
  if (prior < batches)
    race_thread_copies_waited(race_copy_wait::primitives, batches - static_cast<std::uint32_t>(prior));
}

/// cg::wait (prior 0) or cg::wait_prior<prior> of a group of `threads`
/// threads, before its sync: all but the calling thread's `prior` latest
/// cg::memcpy_async calls are complete once the sync completes (a group of
/// one thread has none: at once).
[[gnu::noinline]] inline void race_group_copies_waited(std::size_t prior, unsigned long long threads) {
  race_worker* worker = race_running;
  if (!worker) return;
  race_copies_in_flight& copies = worker->copies_in_flight();
  std::uint32_t issued = copies.group_copies(linear_thread_index(threadIdx, blockDim));
  if (prior >= issued) return;
  copies.group_waited(issued - static_cast<std::uint32_t>(prior));
  if (threads <= 1) copies.group_synced();
}

}  // namespace weft::detail
