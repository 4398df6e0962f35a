// cuda::pipeline (CUDA guide, "Asynchronous Data Copies using cuda::pipeline";
// libcu++'s <cuda/pipeline>).
//
// A pipeline sequences copies into a fixed number of stages, used round
// robin. Producers acquire the next stage (waiting until every consumer has
// released its previous use), issue copies, and commit it; consumers wait
// until every producer has committed the oldest stage, use it, and release
// it. A block-scope pipeline keeps, per stage, two barriers in its
// pipeline_shared_state: one counting the producers' commits of each round,
// one the consumers' releases. Waits are barrier waits (barrier.hpp): a
// thread that can never be released is reported, never left hanging.
//
// Copies are made at once (memcpy_async.hpp says why), so a thread-scope
// pipeline (make_pipeline()) never has anything to wait for.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>

#include "weft/cuda/device/async/barrier.hpp"
#include "weft/cuda/device/async/memcpy_async.hpp"

namespace weft::detail {
struct pipeline_access;
}  // namespace weft::detail

namespace cuda {

enum class pipeline_role { producer, consumer };

/// What the threads of a pipeline share: per stage, the barriers of its
/// commits and releases. Trivially default-constructible, so that it can be
/// __shared__; make_pipeline initialises it.
template <thread_scope Scope, ::std::uint8_t StagesCount>
class pipeline_shared_state {
 public:
  static_assert(StagesCount >= 1, "a pipeline needs at least one stage");
  pipeline_shared_state() = default;
  pipeline_shared_state(const pipeline_shared_state&) = delete;
  pipeline_shared_state& operator=(const pipeline_shared_state&) = delete;

 private:
  friend ::weft::detail::pipeline_access;
  ::weft::detail::barrier_state produced_[StagesCount];  // phase r completes when round r is committed
  ::weft::detail::barrier_state consumed_[StagesCount];  // ... and when round r is released
  ::std::uint32_t owners_;                               // threads that have not quit
  ::std::uint32_t producers_;                            // counted by make_pipeline's role form
};

template <thread_scope Scope>
class pipeline {
 public:
  pipeline() = delete;
  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;
  pipeline(pipeline&& other) noexcept
      : produced_(other.produced_),
        consumed_(other.consumed_),
        owners_(other.owners_),
        stages_(other.stages_),
        committed_(other.committed_),
        released_(other.released_),
        producer_(other.producer_),
        consumer_(other.consumer_),
        active_(other.active_) {
    other.active_ = false;
  }
  /// Quits, if the thread has not (as libcu++'s pipeline does). Nothing may
  /// escape a destructor: a thread unwound from a failed block must not
  /// terminate the process here.
  ~pipeline() {
    if (!active_) return;
    try {
      quit();
    } catch (...) {
    }
  }

  /// Waits until the next stage is free: every consumer released its last use.
  void producer_acquire(::std::source_location where = ::std::source_location::current()) {
    check(producer_, "cuda::pipeline::producer_acquire", "consumer");
    if (!produced_ || committed_ < stages_) return;
    ::std::uint32_t stage = committed_ % stages_, round = committed_ / stages_;
    consumed_[stage].wait(round - 1, ::weft::detail::completed_within_block<Scope>(),
                          "cuda::pipeline::producer_acquire", describe_consumed, where);
  }

  /// Commits the copies issued since producer_acquire to the stage.
  void producer_commit() {
    check(producer_, "cuda::pipeline::producer_commit", "consumer");
    if (produced_) produced_[committed_ % stages_].arrive_and_complete(1, false, "cuda::pipeline::producer_commit");
    ++committed_;
  }

  /// Waits until every producer committed the oldest stage not yet released.
  void consumer_wait(::std::source_location where = ::std::source_location::current()) {
    check(consumer_, "cuda::pipeline::consumer_wait", "producer");
    if (!produced_) {  // a thread-scope pipeline: its copies of the stage are complete
      if constexpr (::weft::detail::race_check_build)
        ::weft::detail::race_thread_copies_waited(::weft::detail::race_copy_wait::thread_pipeline, released_ + 1);
      return;
    }
    produced_[released_ % stages_].wait(released_ / stages_, ::weft::detail::completed_within_block<Scope>(),
                                        "cuda::pipeline::consumer_wait", describe_produced, where);
  }

  /// Releases that stage for the producers' next round.
  void consumer_release() {
    check(consumer_, "cuda::pipeline::consumer_release", "producer");
    if (consumed_) consumed_[released_ % stages_].arrive_and_complete(1, false, "cuda::pipeline::consumer_release");
    ++released_;
  }

  /// Leaves the pipeline: the others no longer wait for this thread. Returns
  /// whether it was the last thread to leave.
  bool quit() {
    if (!active_) ::weft::detail::async_misuse("cuda::pipeline::quit: the thread has quit already");
    active_ = false;
    if (!produced_) return true;
    for (::std::uint32_t stage = 0; stage < stages_; ++stage) {
      if (producer_) produced_[stage].leave(rounds(committed_, stage), "cuda::pipeline::quit");
      if (consumer_) consumed_[stage].leave(rounds(released_, stage), "cuda::pipeline::quit");
    }
    return ::std::atomic_ref<::std::uint32_t>(*owners_).fetch_sub(1, ::std::memory_order_acq_rel) == 1;
  }

 private:
  friend ::weft::detail::pipeline_access;
  struct made {};
  explicit pipeline(made) {}

  // How many times this thread has used `stage` in `count` uses of the pipeline.
  ::std::uint32_t rounds(::std::uint32_t count, ::std::uint32_t stage) const {
    return count / stages_ + (stage < count % stages_ ? 1 : 0);
  }

  // Every call checks, so only the test is inline: with the report built
  // here as well, GCC at -O1 called check out of line for every stage of
  // every thread (docs/performance.md, log).
  void check(bool allowed, const char* call, const char* role) const {
    if (!active_ || !allowed) [[unlikely]]
      refuse(call, role);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void refuse(const char* call, const char* role) const {
    if (!active_) ::weft::detail::async_misuse(::std::string(call) + " after the thread quit the pipeline");
    ::weft::detail::async_misuse(::std::string(call) + " called by a " + role + " thread of a partitioned pipeline");
  }

  static ::std::string describe_produced(const void* stage) {
    auto w = static_cast<const ::weft::detail::barrier_state*>(stage)->load();
    return "a stage in round " + ::std::to_string(::weft::detail::barrier_state::phase_of(w)) + " that " +
           ::std::to_string(::weft::detail::barrier_state::pending_of(w)) + " of " +
           ::std::to_string(::weft::detail::barrier_state::expected_of(w)) + " producers have not committed";
  }
  static ::std::string describe_consumed(const void* stage) {
    auto w = static_cast<const ::weft::detail::barrier_state*>(stage)->load();
    return "a stage in round " + ::std::to_string(::weft::detail::barrier_state::phase_of(w)) + " that " +
           ::std::to_string(::weft::detail::barrier_state::pending_of(w)) + " of " +
           ::std::to_string(::weft::detail::barrier_state::expected_of(w)) + " consumers have not released";
  }

  ::weft::detail::barrier_state* produced_ = nullptr;  // null for a thread-scope pipeline
  ::weft::detail::barrier_state* consumed_ = nullptr;
  ::std::uint32_t* owners_ = nullptr;
  ::std::uint32_t stages_ = 1;
  ::std::uint32_t committed_ = 0;  // stages this thread has committed, all rounds
  ::std::uint32_t released_ = 0;   // ... and released
  bool producer_ = true;
  bool consumer_ = true;
  bool active_ = true;
};

}  // namespace cuda

namespace weft::detail {

struct pipeline_access {
  template <cuda::thread_scope Scope, ::std::uint8_t Stages>
  static cuda::pipeline<Scope> make(cuda::pipeline_shared_state<Scope, Stages>* state, bool producer, bool consumer) {
    cuda::pipeline<Scope> pipe(typename cuda::pipeline<Scope>::made{});
    pipe.produced_ = state->produced_;
    pipe.consumed_ = state->consumed_;
    pipe.owners_ = &state->owners_;
    pipe.stages_ = Stages;
    pipe.producer_ = producer;
    pipe.consumer_ = consumer;
    return pipe;
  }

  // Run by one thread of the group while the others wait at group.sync().
  template <cuda::thread_scope Scope, ::std::uint8_t Stages>
  static void init(cuda::pipeline_shared_state<Scope, Stages>* state, ::std::size_t producers, ::std::size_t consumers,
                   ::std::size_t owners) {
    for (auto& stage : state->produced_) stage.init(static_cast<::std::ptrdiff_t>(producers));
    for (auto& stage : state->consumed_) stage.init(static_cast<::std::ptrdiff_t>(consumers));
    state->owners_ = static_cast<::std::uint32_t>(owners);
  }

  template <cuda::thread_scope Scope, ::std::uint8_t Stages>
  static ::std::atomic_ref<::std::uint32_t> producers(cuda::pipeline_shared_state<Scope, Stages>* state) {
    return ::std::atomic_ref<::std::uint32_t>(state->producers_);
  }
  template <cuda::thread_scope Scope, ::std::uint8_t Stages>
  static ::std::atomic_ref<::std::uint32_t> owners(cuda::pipeline_shared_state<Scope, Stages>* state) {
    return ::std::atomic_ref<::std::uint32_t>(state->owners_);
  }

  /// A wait of a block's pipeline: the stage's barrier state (null when
  /// there is nothing to wait for) and the phase that must complete.
  struct stage_wait {
    const barrier_state* stage = nullptr;
    ::std::uint32_t phase = 0;
    ::std::string (*describe)(const void*) = nullptr;
  };

  /// What producer_acquire waits for, its checks made (the awaitables of
  /// weft/stackless_pipeline.hpp).
  template <cuda::thread_scope Scope>
  static stage_wait acquire_wait(const cuda::pipeline<Scope>& pipe) {
    pipe.check(pipe.producer_, "cuda::pipeline::producer_acquire", "consumer");
    if (!pipe.produced_ || pipe.committed_ < pipe.stages_) return {};
    ::std::uint32_t stage = pipe.committed_ % pipe.stages_, round = pipe.committed_ / pipe.stages_;
    return {&pipe.consumed_[stage], round - 1, cuda::pipeline<Scope>::describe_consumed};
  }

  /// What consumer_wait waits for, its checks made.
  template <cuda::thread_scope Scope>
  static stage_wait consume_wait(const cuda::pipeline<Scope>& pipe) {
    pipe.check(pipe.consumer_, "cuda::pipeline::consumer_wait", "producer");
    if (!pipe.produced_) return {};
    return {&pipe.produced_[pipe.released_ % pipe.stages_], pipe.released_ / pipe.stages_,
            cuda::pipeline<Scope>::describe_produced};
  }

  /// What completes a copy issued to `pipe` now: the stage it produces
  /// (the race check's bookkeeping, race_async_copy.hpp).
  template <cuda::thread_scope Scope>
  static race_copy completed_by(const cuda::pipeline<Scope>& pipe) {
    if (!pipe.produced_) return {.wait = race_copy_wait::thread_pipeline, .sequence = pipe.committed_};
    if constexpr (!completed_within_block<Scope>()) return {.wait = race_copy_wait::barrier, .barrier = nullptr};
    return {.wait = race_copy_wait::barrier, .barrier = &pipe.produced_[pipe.committed_ % pipe.stages_]};
  }
  static ::std::uint32_t committed(const cuda::pipeline<cuda::thread_scope_thread>& pipe) { return pipe.committed_; }

  static cuda::pipeline<cuda::thread_scope_thread> make_thread_scope() {
    return cuda::pipeline<cuda::thread_scope_thread>(cuda::pipeline<cuda::thread_scope_thread>::made{});
  }
};

}  // namespace weft::detail

namespace cuda {

/// A pipeline of the calling thread alone.
inline pipeline<thread_scope_thread> make_pipeline() { return ::weft::detail::pipeline_access::make_thread_scope(); }

/// A unified pipeline: every thread of the group produces and consumes.
/// Collective: every thread of the group calls it.
template <class Group, thread_scope Scope, ::std::uint8_t Stages>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, Stages>* state) {
  auto threads = static_cast<::std::size_t>(group.size());
  if (group.thread_rank() == 0) ::weft::detail::pipeline_access::init(state, threads, threads, threads);
  group.sync();
  return ::weft::detail::pipeline_access::make(state, true, true);
}

/// A partitioned pipeline: the group's first `producer_count` threads (by
/// thread_rank) produce, the others consume.
template <class Group, thread_scope Scope, ::std::uint8_t Stages>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, Stages>* state,
                              ::std::size_t producer_count) {
  auto threads = static_cast<::std::size_t>(group.size());
  if (producer_count > threads)
    ::weft::detail::async_misuse("cuda::make_pipeline: " + ::std::to_string(producer_count) +
                                 " producers in a group of " + ::std::to_string(threads) + " threads");
  if (group.thread_rank() == 0)
    ::weft::detail::pipeline_access::init(state, producer_count, threads - producer_count, threads);
  group.sync();
  bool producer = static_cast<::std::size_t>(group.thread_rank()) < producer_count;
  return ::weft::detail::pipeline_access::make(state, producer, !producer);
}

/// A partitioned pipeline where each thread names its role.
template <class Group, thread_scope Scope, ::std::uint8_t Stages>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, Stages>* state, pipeline_role role) {
  using access = ::weft::detail::pipeline_access;
  if (group.thread_rank() == 0) {
    access::producers(state).store(0);
    access::owners(state).store(0);
  }
  group.sync();
  access::owners(state).fetch_add(1);
  if (role == pipeline_role::producer) access::producers(state).fetch_add(1);
  group.sync();
  if (group.thread_rank() == 0) {
    ::std::size_t owners = access::owners(state).load(), producers = access::producers(state).load();
    access::init(state, producers, owners - producers, owners);
  }
  group.sync();
  return access::make(state, role == pipeline_role::producer, role == pipeline_role::consumer);
}

/// A thread-scope pipeline's wait for all but its `Prior` latest stages,
/// which also releases the stages before. Copies are complete already.
template <::std::uint8_t Prior>
void pipeline_consumer_wait_prior(pipeline<thread_scope_thread>& pipe) {
  if constexpr (::weft::detail::race_check_build) {
    ::std::uint32_t committed = ::weft::detail::pipeline_access::committed(pipe);
    if (committed > Prior)
      ::weft::detail::race_thread_copies_waited(::weft::detail::race_copy_wait::thread_pipeline, committed - Prior);
  }
}

/// Binds the copies committed so far to a barrier, which CUDA counts as an
/// arrival when they complete and as one more expected arrival now: no net
/// change, and the copies are complete already.
template <thread_scope Scope, class CompletionF>
void pipeline_producer_commit(pipeline<thread_scope_thread>& pipe, barrier<Scope, CompletionF>& bar) {
  if constexpr (::weft::detail::race_check_build)
    ::weft::detail::race_thread_copies_bound(::weft::detail::pipeline_access::committed(pipe),
                                             ::weft::detail::completed_by_barrier<Scope>(&bar).barrier);
  pipe.producer_commit();
}

template <class Shape, thread_scope Scope>
void memcpy_async(void* destination, const void* source, Shape size, pipeline<Scope>& pipe,
                  ::std::source_location where = ::std::source_location::current()) {
  ::weft::detail::copy_async(destination, source,
                             ::weft::detail::checked_size(destination, source, size, "cuda::memcpy_async"),
                             ::weft::detail::pipeline_access::completed_by(pipe), where);
}

template <class Group, class Shape, thread_scope Scope>
void memcpy_async(const Group& group, void* destination, const void* source, Shape size, pipeline<Scope>& pipe,
                  ::std::source_location where = ::std::source_location::current()) {
  ::weft::detail::copy_share(group, destination, source,
                             ::weft::detail::checked_size(destination, source, size, "cuda::memcpy_async"),
                             ::weft::detail::pipeline_access::completed_by(pipe), where);
}

}  // namespace cuda
