// Programmatic dependent launch (CUDA guide, "Programmatic Dependent Launch
// and Synchronization") as the kernel sees it: cudaTriggerProgrammaticLaunchCompletion
// and cudaGridDependencySynchronize.
//
// A kernel launched with programmatic stream serialization (or after a
// programmatic event, or a programmatic graph edge) is linked after its
// primary kernel's programmatic point rather than after its completion
// (commands/command_graph.hpp): the point completes once every block of the
// primary has triggered or exited, so the secondary's blocks start while
// the primary's last ones still run. Every block of the primary has then
// begun on a worker of its own, so nothing the secondary does can keep the
// primary from finishing: a secondary block waiting in
// cudaGridDependencySynchronize holds its worker, as a waiting block holds its
// SM, while the primary's blocks run on theirs. The secondary completes only
// after its primaries, so that work after it in its stream still sees them done.
#pragma once

#include <atomic>
#include <cstdint>

#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/commands/command.hpp"
#include "weft/detail/commands/command_graph.hpp"

namespace weft::detail {

/// What the worker's running block needs to trigger: set by grid_job for
/// each run of blocks. A worker runs one block at a time, so the last
/// triggering block tells a block's first trigger from its later ones.
struct programmatic_scope {
  command* grid = nullptr;
  std::atomic<std::uint64_t>* triggered = nullptr;  // the grid's blocks that triggered or exited
  std::uint64_t block_count = 0;
  bool triggers_at_start = false;  // every block triggered as it began
  std::uint64_t last_triggering_block = ~std::uint64_t{0};
  std::uint64_t triggered_here = 0;  // blocks of this run that triggered before exiting
};

inline thread_local programmatic_scope running_programmatic;
// weft's state, not the kernel's shared memory (race_check.hpp).
inline const bool running_programmatic_untraced =
    !race_check_build ||
    race_untraced([]() -> const void* { return &running_programmatic; }, sizeof running_programmatic);

/// Counts `blocks` more of `grid`'s blocks as triggered; the last fires its
/// programmatic point.
inline void count_triggered_blocks(command& grid, std::atomic<std::uint64_t>& triggered, std::uint64_t block_count,
                                   std::uint64_t blocks) {
  if (blocks != 0 && triggered.fetch_add(blocks, std::memory_order_acq_rel) + blocks == block_count)
    command_graph::fire(grid, completion_port::programmatic);
}

/// cudaTriggerProgrammaticLaunchCompletion: the calling block's first call
/// counts (any thread's); outside a kernel, nothing.
inline void trigger_programmatic_launch() {
  programmatic_scope& scope = running_programmatic;
  if (!scope.grid || scope.triggers_at_start) return;
  std::uint64_t block = blockIdx.x + std::uint64_t{gridDim.x} * (blockIdx.y + std::uint64_t{gridDim.y} * blockIdx.z);
  if (block == scope.last_triggering_block) return;
  scope.last_triggering_block = block;
  ++scope.triggered_here;
  count_triggered_blocks(*scope.grid, *scope.triggered, scope.block_count, 1);
}

/// cudaGridDependencySynchronize: waits until every kernel the running one
/// overlaps has completed, and its memory is visible (the completion is a
/// release, the wait an acquire). A kernel launched without programmatic
/// dependence overlaps none: it returns at once.
inline void wait_for_programmatic_primaries() {
  const command* grid = running_programmatic.grid;
  if (!grid) return;
  for (const auto& primary : grid->programmatic_primaries()) command_graph::wait(*primary);
}

}  // namespace weft::detail
