// cuda::pipeline in stackless kernels: a block's pipeline made and waited
// on, awaited, as CUDA's name in namespace weft taking the pipeline (or the
// block) first.
//
//   __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
//   auto block = cooperative_groups::this_thread_block();
//   cuda::pipeline<cuda::thread_scope_block> pipe =
//       co_await weft::make_pipeline(block, &state);     // cuda::make_pipeline(block, &state)
//   co_await weft::producer_acquire(pipe);               // pipe.producer_acquire()
//   cuda::memcpy_async(block, dst, src, bytes, pipe);    // issuing and committing never wait
//   pipe.producer_commit();
//   co_await weft::consumer_wait(pipe);                  // pipe.consumer_wait()
//   ...
//   pipe.consumer_release();
//
// A stage's waits are waits on its barrier states (weft/stackless_barrier.hpp):
// the thread parks until the commit or release that completes the stage
// wakes it, with the fiber executor's deadlock report when none can. Copies
// are made at once (cuda/device/async/memcpy_async.hpp), so a thread-scope
// pipeline never waits. A pipeline of a tile is made the same way, from
// the tile, and so are partitioned ones (a producer count, or each
// thread's cuda::pipeline_role). A pipeline of device or system scope is
// not awaited.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>

#include "weft/cuda/device/async/pipeline.hpp"
#include "weft/cuda/device/cooperative_groups.hpp"
#include "weft/stackless_barrier.hpp"
#include "weft/stackless_groups.hpp"
#include "weft/stackless_kernel.hpp"

namespace weft {

namespace detail {
/// A group whose threads can make a pipeline together: one weft::sync awaits.
template <class Group>
concept pipeline_group = requires(const Group& g) {
  weft::sync(g);
};
}  // namespace detail

/// co_await weft::make_pipeline(group, &state): cuda::make_pipeline(group,
/// &state), a unified pipeline of the block or a tile (every thread
/// produces and consumes); with `producer_count`, the group's first
/// producer_count threads produce and the others consume; with a
/// cuda::pipeline_role, each thread names its own. As on fibers, the group
/// meets at its sync once (twice more for roles, to count them).
template <detail::pipeline_group Group, cuda::thread_scope Scope, std::uint8_t Stages>
stackless_function<cuda::pipeline<Scope>> make_pipeline(Group group, cuda::pipeline_shared_state<Scope, Stages>* state,
                                                        std::source_location where = std::source_location::current()) {
  static_assert(detail::awaitable_scope<Scope>, "only a block-scope cuda::pipeline is awaited");
  auto threads = static_cast<std::size_t>(group.size());
  if (group.thread_rank() == 0) detail::pipeline_access::init(state, threads, threads, threads);
  co_await sync(group, where);
  co_return detail::pipeline_access::make(state, true, true);
}

template <detail::pipeline_group Group, cuda::thread_scope Scope, std::uint8_t Stages>
stackless_function<cuda::pipeline<Scope>> make_pipeline(Group group, cuda::pipeline_shared_state<Scope, Stages>* state,
                                                        std::size_t producer_count,
                                                        std::source_location where = std::source_location::current()) {
  static_assert(detail::awaitable_scope<Scope>, "only a block-scope cuda::pipeline is awaited");
  auto threads = static_cast<std::size_t>(group.size());
  if (producer_count > threads)
    detail::async_misuse("cuda::make_pipeline: " + std::to_string(producer_count) + " producers in a group of " +
                         std::to_string(threads) + " threads");
  if (group.thread_rank() == 0) detail::pipeline_access::init(state, producer_count, threads - producer_count, threads);
  co_await sync(group, where);
  bool producer = static_cast<std::size_t>(group.thread_rank()) < producer_count;
  co_return detail::pipeline_access::make(state, producer, !producer);
}

template <detail::pipeline_group Group, cuda::thread_scope Scope, std::uint8_t Stages>
stackless_function<cuda::pipeline<Scope>> make_pipeline(Group group, cuda::pipeline_shared_state<Scope, Stages>* state,
                                                        cuda::pipeline_role role,
                                                        std::source_location where = std::source_location::current()) {
  static_assert(detail::awaitable_scope<Scope>, "only a block-scope cuda::pipeline is awaited");
  using access = detail::pipeline_access;
  if (group.thread_rank() == 0) {
    access::producers(state).store(0);
    access::owners(state).store(0);
  }
  co_await sync(group, where);
  access::owners(state).fetch_add(1);
  if (role == cuda::pipeline_role::producer) access::producers(state).fetch_add(1);
  co_await sync(group, where);
  if (group.thread_rank() == 0) {
    std::size_t owners = access::owners(state).load(), producers = access::producers(state).load();
    access::init(state, producers, owners - producers, owners);
  }
  co_await sync(group, where);
  co_return access::make(state, role == cuda::pipeline_role::producer, role == cuda::pipeline_role::consumer);
}

/// co_await weft::producer_acquire(pipe): pipe.producer_acquire().
template <cuda::thread_scope Scope>
detail::barrier_phase_awaiter producer_acquire(const cuda::pipeline<Scope>& pipe,
                                               std::source_location where = std::source_location::current()) {
  static_assert(detail::awaitable_scope<Scope>, "only a block-scope cuda::pipeline is awaited");
  detail::pipeline_access::stage_wait w = detail::pipeline_access::acquire_wait(pipe);
  return {w.stage, w.phase, "cuda::pipeline::producer_acquire", w.describe, where};
}

/// co_await weft::consumer_wait(pipe): pipe.consumer_wait().
template <cuda::thread_scope Scope>
detail::barrier_phase_awaiter consumer_wait(const cuda::pipeline<Scope>& pipe,
                                            std::source_location where = std::source_location::current()) {
  static_assert(detail::awaitable_scope<Scope>, "only a block-scope cuda::pipeline is awaited");
  detail::pipeline_access::stage_wait w = detail::pipeline_access::consume_wait(pipe);
  return {w.stage, w.phase, "cuda::pipeline::consumer_wait", w.describe, where};
}

}  // namespace weft
