// How a launch's grid enters its stream when cudaLaunchKernelEx's
// attributes ask for more than stream order: programmatic stream
// serialization, programmatic and launch completion events, its own
// priority (scheduler/programmatic_launch.hpp explains the first three).
#pragma once

#include <memory>

#include "weft/detail/commands/command.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/commands/event.hpp"
#include "weft/detail/commands/stream.hpp"
#include "weft/detail/scheduler/grid_job.hpp"

namespace weft::detail {

struct launch_dependence {
  bool stream_serialization = false;              // overlap the kernel before it in the stream
  CUevent_st* programmatic_event = nullptr;       // recorded when every block has triggered or exited
  bool trigger_at_block_start = false;            // ... every block triggering as it begins
  CUevent_st* launch_completion_event = nullptr;  // recorded when every block has begun
  int priority = command::stream_priority;        // the stream's unless given
};

inline void enqueue_grid(command_graph& commands, CUstream_st& s, std::shared_ptr<grid_job> grid,
                         const launch_dependence& d) {
  grid->priority = d.priority;
  if (d.trigger_at_block_start) grid->trigger_at_block_start();
  if (d.launch_completion_event) grid->watch_launch_completion();
  std::shared_ptr<command> kernel = grid;
  commands.enqueue(s, std::move(grid), nullptr, d.stream_serialization);
  // Events recorded at a point of the kernel rather than after it in the
  // stream; the point is in the command graph before the event names it.
  if (d.programmatic_event) d.programmatic_event->set_recorded(commands.port(*kernel, completion_port::programmatic));
  if (d.launch_completion_event)
    d.launch_completion_event->set_recorded(commands.port(*kernel, completion_port::launch_completion));
}

}  // namespace weft::detail
