// Executable graphs (CUDA guide, "CUDA Graphs", "Graph Instantiation",
// "Executing a Graph"): instantiating a graph snapshots its nodes'
// parameters, so later changes to the graph do not reach the executable one;
// each launch runs the nodes in dependency order, after the stream's earlier
// work and before its later work, and after the previous launches of the same
// executable graph (detail/graphs/graph_exec.hpp).
#pragma once

#include "weft/cuda/runtime/default_stream.hpp"
#include "weft/cuda/runtime/driver_enums.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graph_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/graph_exec.hpp"
#include "weft/detail/graphs/graph_memory_launch.hpp"
#include "weft/detail/runtime/caller_checks.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/stream_registry.hpp"

/// A graph whose edges form a cycle is refused with cudaErrorInvalidValue.
/// A graph with memory allocation or free nodes may have one executable
/// graph at a time: a second is cudaErrorInvalidValue until the first is
/// destroyed. cudaGraphInstantiateFlagAutoFreeOnLaunch makes each launch
/// free what the previous one left allocated; ...UseNodePriority is
/// accepted and changes nothing yet (no node priorities); ...Upload belongs to cudaGraphInstantiateWithParams
/// (cudaErrorInvalidValue here, as in CUDA); ...DeviceLaunch is not there
/// yet (cudaErrorNotSupported).
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags = 0) {
  using namespace weft::detail;
  // A graph moved into a child graph node is instantiated with its parent only.
  if (!pGraphExec || !graph || graph->moved_into_parent) return record(cudaErrorInvalidValue);
  constexpr unsigned long long accepted =
      cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUseNodePriority;
  if (flags & cudaGraphInstantiateFlagDeviceLaunch) return record(cudaErrorNotSupported);
  if (flags & ~accepted) return record(cudaErrorInvalidValue);
  auto exec = instantiate(*graph);
  if (!exec) return record(cudaErrorInvalidValue);
  exec->auto_free_on_launch = (flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) != 0;
  if (cudaError_t e = claim_memory_nodes(*graph, *exec)) return record(e);
  *pGraphExec = exec.release();
  return cudaSuccess;
}

inline cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                 unsigned long long flags = 0) {
  return cudaGraphInstantiate(pGraphExec, graph, flags);
}

/// Launches already in streams still run.
inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  if (!graphExec) return weft::detail::record(cudaErrorInvalidValue);
  delete graphExec;
  return cudaSuccess;
}

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

/// Returns at once. The nodes run in dependency order, those without a
/// path between them at the same time; the stream's later work waits for all.
/// cudaErrorInvalidValue while an allocation an earlier launch left
/// allocated is not freed (unless instantiated with AutoFreeOnLaunch).
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  using namespace weft::detail;
  if (cudaError_t e = check_caller(false)) return e;
  if (!graphExec) return record(cudaErrorInvalidValue);
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (cudaError_t sticky = fault(s->device).code()) return record(sticky);
  if (cudaError_t e = launch_memory_nodes(*graphExec)) return record(e);
  launch_graph(*graphExec, *s, runtime::get(s->device));
  return cudaSuccess;
}

/// Nothing to upload on a CPU: the handles are checked, and that is all.
inline cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
  using namespace weft::detail;
  if (!graphExec) return record(cudaErrorInvalidValue);
  if (!resolve_stream(weft::surface::explicit_stream(stream))) return record(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
