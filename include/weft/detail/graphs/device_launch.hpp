// Launches made by a kernel: dynamic parallelism (CDP2: `k<<<...>>>` in
// device code) and device graph launch (cudaGraphLaunch from a kernel).
// Nothing here waits: a launch from a CUDA thread only enqueues commands and
// ties them to the launching grid or graph launch through the command
// graph's children and tail launches (commands/command_graph.hpp), so the
// SM worker running the caller goes on at once.
//
// - A child grid (NULL stream, cudaStreamFireAndForget, a stream the kernel
//   created) is a child of the launching grid: the grid completes, as its
//   stream sees it, only once the child has. Launches from one block into
//   the NULL stream run one after another; into a created stream, in that
//   stream's order. cudaStreamTailLaunch launches run, in the order made,
//   after the grid and all its children.
// - A device graph launched fire-and-forget is a child of the launching
//   graph launch's nodes (graph_environment::body_done); as a sibling, of
//   the environment around that launch; a tail launch runs after the
//   launching graph's environment, before the launch is complete.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <variant>
#include <vector>

#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/command.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/commands/stream.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/graphs/graph_exec.hpp"
#include "weft/detail/runtime/device_limits.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/scheduler/device_block_state.hpp"
#include "weft/detail/scheduler/grid_job.hpp"
#include "weft/detail/scheduler/programmatic_launch.hpp"
#include "weft/detail/streams/stream_registry.hpp"

namespace weft::detail {

/// Pending graph tail launches one graph launch may have (an H100 refuses
/// the 256th with cudaErrorInvalidValue: device_launch_probe.expected).
inline constexpr std::size_t max_pending_tail_launches = 255;

/// Launches made from the device that have not completed, per device:
/// cudaLimitDevRuntimePendingLaunchCount bounds them.
inline std::atomic<std::size_t>& pending_device_launches(int device) {
  static std::deque<std::atomic<std::size_t>> counts(static_cast<std::size_t>(device_count()));
  return counts[static_cast<std::size_t>(device)];
}

/// Takes a place among the pending launches, or says there is none left.
inline bool reserve_pending_launch(int device) {
  auto& pending = pending_device_launches(device);
  std::size_t limit = stored_limits()[4];  // cudaLimitDevRuntimePendingLaunchCount
  for (std::size_t n = pending.load(std::memory_order_relaxed);;)
    if (n >= limit || pending.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) return n < limit;
}

/// Gives the place back once `c` (a launch's first command) starts: CUDA
/// counts launches that have not begun (a parent waiting for its children
/// holds no place).
inline void release_pending_launch_at_start(command& c, int device) {
  c.when_started = [device] { pending_device_launches(device).fetch_sub(1, std::memory_order_relaxed); };
}

/// Enqueues a grid launched by the running grid into `stream`, as its
/// child (or tail launch); the launch has been checked.
inline cudaError_t launch_child_grid(std::shared_ptr<grid_job> child, cudaStream_t stream) {
  grid_job* parent = running_grid();
  if (!parent || !parent->graph()) return record_on_device(cudaErrorNotPermitted);
  int device = current_device;
  command_graph& commands = *parent->graph();
  bool null_stream = stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
  bool tail = stream == cudaStreamTailLaunch;
  bool named = !null_stream && !tail && stream != cudaStreamFireAndForget;
  // A stream the host created may hold the launching grid itself: a child
  // waiting for its parent would never start (CUDA leaves it undefined).
  if (named && (!stream_registry::get().live(stream) || !stream->device_created))
    return record_on_device(cudaErrorInvalidValue);
  if (!reserve_pending_launch(device)) return record_on_device(cudaErrorLaunchPendingCountExceeded);
  std::uint64_t stream_id = parent->stream_id;
  int priority = parent->priority;
  release_pending_launch_at_start(*child, device);
  if (tail) {
    command_graph::add_tail(
        *parent,
        [child, &commands, stream_id, priority] {
          commands.enqueue_after(stream_id, priority, child, {});
          return std::shared_ptr<command>(child);
        },
        ~std::size_t{0});
    return cudaSuccess;
  }
  command_graph::add_child(*parent, child);
  if (named) {
    commands.enqueue(*stream, child);
  } else if (null_stream) {
    device_block_state& block = device_block();
    std::vector<std::shared_ptr<command>> before;
    if (block.null_stream_last) before.push_back(block.null_stream_last);
    block.null_stream_last = child;
    commands.enqueue_after(stream_id, priority, child, before);
  } else {
    commands.enqueue_after(stream_id, priority, child, {});
  }
  return cudaSuccess;
}

/// Whether a device graph may hold `g`'s nodes (CUDA guide, "Device Graph
/// Requirements"): kernels, copies, sets, empty and child graph nodes, and
/// conditional nodes; not host, event or memory nodes.
inline bool launchable_from_device(const CUgraph_st& g) {
  for (const auto& n : g.nodes) {
    if (std::holds_alternative<host_work>(n->work) || std::holds_alternative<event_record_work>(n->work) ||
        std::holds_alternative<event_wait_work>(n->work) || std::holds_alternative<alloc_work>(n->work) ||
        std::holds_alternative<free_work>(n->work))
      return false;
    if (const auto* child = std::get_if<child_work>(&n->work))
      if (!launchable_from_device(*child->graph)) return false;
    if (const auto* conditional = std::get_if<conditional_work>(&n->work))
      for (const auto& body : conditional->bodies)
        if (!launchable_from_device(*body)) return false;
  }
  return true;
}

/// The graph launch the calling kernel is a node of, if any.
inline graph_environment* running_environment() {
  grid_job* grid = running_grid();
  return grid ? grid->environment.get() : nullptr;
}

/// cudaGetCurrentGraphExec: the device graph the calling kernel is a node
/// of; null outside one (in a host graph too, as CUDA documents).
inline CUgraphExec_st* current_graph_exec() {
  graph_environment* env = running_environment();
  return env && env->device_graph ? env->exec : nullptr;
}

/// cudaGraphLaunch from a kernel. `mode` is one of the three
/// cudaStreamGraph* values; anything else (stream 0 included, as an H100
/// answers) is cudaErrorInvalidValue. What the H100 answers with a hang or
/// a crash is refused instead: a graph not instantiated for device launch or
/// never uploaded (cudaErrorInvalidValue), a launch from a kernel that is no
/// graph's node (cudaErrorNotPermitted).
inline cudaError_t launch_graph_from_device(CUgraphExec_st* exec, cudaStream_t mode) {
  bool tail = mode == cudaStreamGraphTailLaunch;
  bool sibling = mode == cudaStreamGraphFireAndForgetAsSibling;
  if (!tail && !sibling && mode != cudaStreamGraphFireAndForget) return record_on_device(cudaErrorInvalidValue);
  if (!exec || !(exec->flags & device_launch_flag) || !exec->uploaded.load(std::memory_order_acquire))
    return record_on_device(cudaErrorInvalidValue);
  grid_job* grid = running_grid();
  std::shared_ptr<graph_environment> caller = grid ? grid->environment : nullptr;
  if (!caller) return record_on_device(cudaErrorNotPermitted);
  // One launch at a time; a graph may tail-launch itself while it runs.
  bool relaunch = tail && caller->exec == exec;
  for (int n = exec->device_launches.load(std::memory_order_relaxed);;) {
    if (n > (relaunch ? 1 : 0)) return record_on_device(cudaErrorInvalidValue);
    if (exec->device_launches.compare_exchange_weak(n, n + 1, std::memory_order_acq_rel)) break;
  }
  int device = current_device;
  auto give_back = [exec] { exec->device_launches.fetch_sub(1, std::memory_order_acq_rel); };
  if (!reserve_pending_launch(device)) {
    give_back();
    return record_on_device(cudaErrorLaunchPendingCountExceeded);
  }
  command_graph& commands = *grid->graph();
  launch_target target{
      &commands, &runtime::get(device), grid->stream_id, grid->priority, (exec->flags & use_node_priority_flag) != 0,
      nullptr};
  // A tail launch takes the launching graph's place in the environment
  // around it; the others are children of a running environment.
  std::shared_ptr<command> parent = tail ? caller->parent : sibling ? caller->parent : caller->body_done;
  std::shared_ptr<command> release_after = caller->body_done;
  auto launch = [exec, target, parent, device, give_back, tail, release_after] {
    auto start = launch_start(*exec, device);
    release_pending_launch_at_start(*start, device);
    auto env = make_environment(*exec, target, start, parent);
    {
      // Only reads the steps, as the launches from the host that the
      // enqueuing thread has yet to make do: no need to wait for them.
      std::lock_guard lock(exec->launching);
      target.commands->enqueue_after(target.stream_id, target.priority, start, {});
      enqueue_launch_steps(*exec, *env, target, start);
    }
    // A tail launch is pending until its nodes are done; a child until the
    // launching graph's nodes are (they wait for it), so that the kernel
    // that launched it, which cannot see it finish, cannot launch it twice
    // (as on an H100, device_launch_probe.expected).
    command_graph::when_done(tail ? *env->body_done : *release_after, give_back);
    enqueue_environment_end(*env, target);
    return env->end;
  };
  if (tail) {
    if (!command_graph::add_tail(*caller->end, launch, max_pending_tail_launches)) {
      give_back();
      pending_device_launches(device).fetch_sub(1, std::memory_order_relaxed);
      return record_on_device(cudaErrorInvalidValue);
    }
    return cudaSuccess;
  }
  command_graph::add_child(sibling ? *caller->parent : *caller->body_done, launch());
  return cudaSuccess;
}

}  // namespace weft::detail
