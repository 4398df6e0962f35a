// The rules memory nodes set for instantiating and launching a graph (CUDA
// 13's cudaGraphAddMemAllocNode and cudaGraphInstantiate): a graph with
// memory nodes has one executable graph at a time, and an executable graph
// whose earlier launch left an allocation allocated is not launched again
// until it is freed, unless it was instantiated with
// cudaGraphInstantiateFlagAutoFreeOnLaunch, whose launches free it first.
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

/// cudaGraphInstantiate of `g` into `exec`: cudaErrorInvalidValue while
/// another executable graph of a graph with memory nodes exists.
inline cudaError_t claim_memory_nodes(CUgraph_st& g, CUgraphExec_st& exec) {
  if (!has_memory_nodes(g)) return cudaSuccess;
  if (!g.memory_executable.expired()) return cudaErrorInvalidValue;
  auto claim = std::make_shared<int>(0);
  g.memory_executable = claim;
  exec.memory_claim = std::move(claim);
  return cudaSuccess;
}

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
  if (!exec.auto_free_on_launch)
    for (const graph_allocation* a : allocated)
      if (a->live) return cudaErrorInvalidValue;
  for (graph_allocation* a : allocated) a->live = !a->freed_in_owner;
  for (graph_allocation* a : freed) a->live = false;
  return cudaSuccess;
}

}  // namespace weft::detail
