// The rule memory nodes set for launching a graph (CUDA 13's
// cudaGraphAddMemAllocNode): an executable graph whose earlier launch left
// an allocation allocated is not launched again until it is freed, unless
// it was instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch, whose
// launches free it first. (That a graph with memory nodes has one
// executable graph at a time is cudaGraphInstantiate's rule, as for
// conditional nodes.)
#pragma once

#include <memory>
#include <mutex>
#include <variant>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/graphs/graph_exec.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/graph_model.hpp"

namespace weft::detail {

/// cudaGraphLaunch of `exec`, in the program's view of its allocations:
/// the ones its graph does not free stay allocated after it, those its free
/// nodes free (of other graphs) are freed. cudaErrorInvalidValue if one of
/// its allocations is still allocated from an earlier launch.
inline cudaError_t launch_memory_nodes(const CUgraphExec_st& exec) {
  std::vector<graph_allocation*> allocated, freed;
  for (const graph_step& step : exec.steps) {
    if (const auto* a = std::get_if<alloc_work>(&step.work)) allocated.push_back(a->allocation.get());
    if (const auto* f = std::get_if<free_work>(&step.work)) freed.push_back(f->allocation.get());
  }
  if (allocated.empty() && freed.empty()) return cudaSuccess;
  std::lock_guard lock(graph_allocation_state());
  if (!(exec.flags & auto_free_on_launch_flag))
    for (const graph_allocation* a : allocated)
      if (a->live) return cudaErrorInvalidValue;
  for (graph_allocation* a : allocated) a->live = !a->freed_in_owner;
  for (graph_allocation* a : freed) a->live = false;
  return cudaSuccess;
}

}  // namespace weft::detail
