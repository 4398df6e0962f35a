// One unit of stream work: a kernel grid, a copy or set, a host function, an
// event record, or a marker that only orders others. Commands form a graph:
// each waits for the commands it depends on (the one before it in its
// stream, and those that the legacy default stream or an event wait adds)
// and starts once they have all completed. Every dependency points to an
// earlier command, so the graph has no cycles and never deadlocks by itself.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weft/detail/checks/race_launch_order.hpp"

namespace weft::detail {

class command;
class command_graph;
struct graph_environment;

/// A launch queued to follow a command (a tail launch): it enqueues its
/// work when called and returns the command that completes it.
using tail_launch = std::function<std::shared_ptr<command>()>;

/// How a command runs once its dependencies are done.
enum class command_kind {
  marker,         // completes at once (an event record, a wait, a synchronisation point)
  grid,           // blocks go to the SM workers; completes with its last block
  host_task,      // a copy or set: runs on the thread that finds it ready
  host_function,  // a callback: runs on the device's host-function thread
};

/// The points of a kernel, before its completion, that programmatic
/// dependent launch lets later work start at (CUDA's
/// cudaGraphKernelNodePort values): every block has called
/// cudaTriggerProgrammaticLaunchCompletion or exited, or every block has
/// begun.
enum class completion_port { programmatic = 1, launch_completion = 2 };

class command : public std::enable_shared_from_this<command> {
 public:
  explicit command(command_kind kind) : kind_(kind) {}
  command(const command&) = delete;
  command& operator=(const command&) = delete;
  virtual ~command() = default;

  command_kind kind() const { return kind_; }
  bool done() const { return done_.load(std::memory_order_acquire); }

  /// When the command completed, for event timing and the timeline: valid
  /// once done(), for a marker, or any command while WEFT_TRACE records.
  std::chrono::steady_clock::time_point completed_at() const { return completed_at_; }

  /// What the command is, for the timeline trace: "kernel 'saxpy' <<<...>>>".
  virtual std::string describe() const = 0;

  /// The stream's number in the trace (0: the legacy default stream).
  std::uint64_t stream_id = 0;
  /// The stream's priority, unless a launch gave its own: a grid's blocks go
  /// before those of grids with a numerically greater one.
  static constexpr int stream_priority = INT_MIN;
  int priority = stream_priority;

  /// The kernels this command was allowed to overlap (programmatic dependent
  /// launch): cudaGridDependencySynchronize waits for them, and the command
  /// completes only after them, so that the work after it in its stream
  /// still sees them done. Set while the command is linked in, read once it
  /// runs.
  const std::vector<std::shared_ptr<command>>& programmatic_primaries() const { return primaries_; }

  /// The graph launch whose kernel node this grid is: device-side graph
  /// launches from its CUDA threads belong to that launch. Null for a grid
  /// launched into a stream. Set before the command is enqueued.
  std::shared_ptr<graph_environment> environment;

  /// The graph launch the command is part of ("graph launch 3"), which the
  /// timeline trace names its slice after; null outside graph launches and
  /// when not tracing. Set before the command is enqueued.
  std::shared_ptr<const std::string> graph_launch;

  /// Called once, by the thread that starts the command, as it starts (a
  /// launch from the device stops counting as pending then). Set before
  /// the command is enqueued.
  std::function<void()> when_started;

  /// In a race-check build, the kernel launches CUDA orders before this
  /// command (made when first linked; null elsewhere), and the place by
  /// which later commands know this one if it is traced, a launch, copy or
  /// set (0 if not).
  std::unique_ptr<race_launch_order> launches_before;
  std::uint64_t race_serial = 0;
  /// A traced command whose race_serial was race_launch_order::unplaced has
  /// just been given its place (race_chains), as it was linked in.
  virtual void race_placed() {}

  /// Runs a host task or host function; grids and markers do nothing here.
  virtual void run_on_host() {}

 private:
  friend class command_graph;

  command_kind kind_;
  std::atomic<bool> done_{false};
  std::chrono::steady_clock::time_point completed_at_{};
  // Dependencies not yet completed, plus one held while the command is being
  // linked in; whoever brings it to zero starts the command.
  std::atomic<unsigned> pending_{1};
  // Who waits for it, and what to call when it completes; guarded by the
  // mutex of the graph it was enqueued in.
  std::vector<std::shared_ptr<command>> successors_;
  std::vector<std::function<void()>> continuations_;
  command_graph* graph_ = nullptr;
  // Programmatic dependent launch; guarded by the graph's mutex. A point is
  // a marker whose primaries_ is the kernel it belongs to.
  std::vector<std::shared_ptr<command>> primaries_;
  std::array<std::shared_ptr<command>, 2> ports_;  // pending points, by completion_port - 1
  std::array<bool, 2> port_fired_{false, false};
  // Device-side launches (dynamic parallelism, device graph launch): the
  // commands whose completion this one's waits for (its children), and the
  // launches to make, one after another, once it and they are done (its
  // tail launches); guarded by the graph's mutex. `launches_` tells, without
  // the mutex, that there are any.
  // A vector, not a deque: libstdc++'s deque allocates twice when made,
  // and every launch makes a command while few ever get tail launches.
  std::vector<std::shared_ptr<command>> children_;
  std::vector<tail_launch> tails_;
  std::atomic<bool> launches_{false};

 public:
  /// The graph the command was enqueued in; it reports completion there.
  command_graph* graph() const { return graph_; }
};

/// A command that only orders others, or records a time.
class marker final : public command {
 public:
  explicit marker(std::string what = "marker") : command(command_kind::marker), what_(std::move(what)) {}
  std::string describe() const override { return what_; }

 private:
  std::string what_;
};

}  // namespace weft::detail
