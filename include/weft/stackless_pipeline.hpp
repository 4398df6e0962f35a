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
// pipeline never waits. A pipeline of device or system scope, and the
// role form of make_pipeline, are not awaited.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>

#include "weft/cuda/device/async/pipeline.hpp"
#include "weft/cuda/device/cooperative_groups.hpp"
#include "weft/stackless_barrier.hpp"
#include "weft/stackless_kernel.hpp"

namespace weft {

/// co_await weft::make_pipeline(block, &state): cuda::make_pipeline(block,
/// &state), a unified pipeline of the block (every thread produces and
/// consumes); with `producer_count`, the block's first producer_count
/// threads produce and the others consume.
template <cuda::thread_scope Scope, std::uint8_t Stages>
stackless_function<cuda::pipeline<Scope>> make_pipeline(cooperative_groups::thread_block block,
                                                        cuda::pipeline_shared_state<Scope, Stages>* state,
                                                        std::source_location where = std::source_location::current()) {
  static_assert(detail::awaitable_scope<Scope>, "only a block-scope cuda::pipeline is awaited");
  auto threads = static_cast<std::size_t>(block.size());
  if (block.thread_rank() == 0) detail::pipeline_access::init(state, threads, threads, threads);
  co_await syncthreads(where);
  co_return detail::pipeline_access::make(state, true, true);
}

template <cuda::thread_scope Scope, std::uint8_t Stages>
stackless_function<cuda::pipeline<Scope>> make_pipeline(cooperative_groups::thread_block block,
                                                        cuda::pipeline_shared_state<Scope, Stages>* state,
                                                        std::size_t producer_count,
                                                        std::source_location where = std::source_location::current()) {
  static_assert(detail::awaitable_scope<Scope>, "only a block-scope cuda::pipeline is awaited");
  auto threads = static_cast<std::size_t>(block.size());
  if (producer_count > threads)
    detail::async_misuse("cuda::make_pipeline: " + std::to_string(producer_count) + " producers in a group of " +
                         std::to_string(threads) + " threads");
  if (block.thread_rank() == 0) detail::pipeline_access::init(state, producer_count, threads - producer_count, threads);
  co_await syncthreads(where);
  bool producer = static_cast<std::size_t>(block.thread_rank()) < producer_count;
  co_return detail::pipeline_access::make(state, producer, !producer);
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
