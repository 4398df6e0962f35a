// The command each kind of graph node becomes when an executable graph is
// launched (graph_exec.hpp's launch_graph): kernels are grids, copies and
// sets host tasks, host nodes host functions, event nodes record or wait
// for events, and memory nodes map or unmap graph memory (graph_memory.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weft/detail/commands/command.hpp"
#include "weft/detail/commands/event.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/memory/memory_copies.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/host_task.hpp"

namespace weft::detail {

inline void set_elements(const set_work& s) {
  for (std::size_t y = 0; y < s.height; ++y) {
    char* row = static_cast<char*>(s.dst) + y * s.pitch;
    if (s.element_size == 1) {
      std::memset(row, static_cast<int>(s.value & 0xffu), s.width);
    } else if (s.element_size == 2) {
      auto v = static_cast<std::uint16_t>(s.value);
      for (std::size_t x = 0; x < s.width; ++x) std::memcpy(row + x * 2, &v, 2);
    } else {
      std::uint32_t v = s.value;
      for (std::size_t x = 0; x < s.width; ++x) std::memcpy(row + x * 4, &v, 4);
    }
  }
}

/// The commands of one launch's step. `before` holds the commands it waits
/// for; a step may add to it (an event wait node, the event's latest record).
struct node_launch {
  runtime& rt;
  std::vector<std::shared_ptr<command>>& before;
};

inline std::shared_ptr<command> node_command(const kernel_work& w, node_launch at) {
  launch_shape shape{w.grid,          w.block,   w.shared_bytes,          at.rt.stack_bytes(),
                     at.rt.ordinal(), w.cluster, w.attributes.cooperative};
  std::shared_ptr<grid_job> grid = w.arguments->make_grid(shape);
  grid->priority = w.attributes.priority;
  return grid;
}

/// A memcpy or memset node's command, which moves the bytes of `rows`
/// (`node` names it in race reports). In a race-check build the check
/// traces it as a stream's copy or set (race_stream_copy.hpp), ordered by
/// the graph's edges as its kernels are: against a kernel node or another
/// copy that no path of edges orders with it, it races.
inline std::shared_ptr<command> graph_copy_command(std::string what, int device, std::function<void()> work,
                                                   const row_box& rows, const char* node) {
  if constexpr (race_check_build)
    return std::make_shared<race_traced_host_task>(
        std::move(what), device, std::move(work),
        race_trace_rows(std::make_shared<race_stream_copy>(device, node), rows));
  else
    return std::make_shared<host_task>(std::move(what), device, std::move(work));
}

inline std::shared_ptr<command> node_command(const copy_work& w, node_launch at) {
  row_box b = w.box();
  return graph_copy_command(
      "graph copy of " + std::to_string(b.width * b.height * b.depth) + " bytes", at.rt.ordinal(),
      [b] {
        if (b.width != 0) copy_rows(b);
      },
      b, "graph memcpy node");
}

inline std::shared_ptr<command> node_command(const set_work& w, node_launch at) {
  std::size_t row = w.width * w.element_size;
  return graph_copy_command(
      "graph set of " + std::to_string(row * w.height) + " bytes", at.rt.ordinal(), [w] { set_elements(w); },
      {w.dst, w.pitch, w.pitch * w.height, nullptr, 0, 0, row, w.height, 1}, "graph memset node");
}

inline std::shared_ptr<command> node_command(const host_work& w, node_launch) {
  return std::make_shared<host_function>([w] { w.fn(w.data); });
}

inline std::shared_ptr<command> node_command(const empty_work&, node_launch) {
  return std::make_shared<marker>("graph empty node");
}

/// Records the event as cudaEventRecord would at this point of the launch:
/// later waits, queries and elapsed times see this record.
inline std::shared_ptr<command> node_command(const event_record_work& w, node_launch) {
  auto point = std::make_shared<marker>("graph event record");
  if (event_registry::get().live(w.event)) w.event->set_recorded(point);
  return point;
}

/// Waits for the event's latest record as of the launch, as
/// cudaStreamWaitEvent does; an event never recorded is no wait.
inline std::shared_ptr<command> node_command(const event_wait_work& w, node_launch at) {
  if (event_registry::get().live(w.event))
    if (auto recorded = w.event->recorded()) at.before.push_back(std::move(recorded));
  return std::make_shared<marker>("graph event wait");
}

/// Maps physical memory of the device's graph memory pool at the
/// allocation's fixed address.
inline std::shared_ptr<command> node_command(const alloc_work& w, node_launch at) {
  auto allocation = w.allocation;
  return std::make_shared<host_task>(
      "graph memory allocation of " + std::to_string(w.bytes) + " bytes", at.rt.ordinal(), [allocation] {
        if (!graph_memory::of(allocation->device).map(allocation))
          fault(allocation->device)
              .raise(cudaErrorMemoryAllocation, "graph memory allocation of " + std::to_string(allocation->bytes) +
                                                    " bytes: the host is out of memory");
      });
}

/// Unmaps the allocation; its memory goes back to the pool.
inline std::shared_ptr<command> node_command(const free_work& w, node_launch at) {
  auto allocation = w.allocation;
  return std::make_shared<host_task>("graph memory free", at.rt.ordinal(),
                                     [allocation] { graph_memory::of(allocation->device).unmap(*allocation, true); });
}

}  // namespace weft::detail
