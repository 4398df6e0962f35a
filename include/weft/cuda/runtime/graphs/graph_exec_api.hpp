// Executable graphs (CUDA guide, "CUDA Graphs", "Graph Instantiation",
// "Executing a Graph"): instantiating a graph snapshots its nodes'
// parameters, so later changes to the graph do not reach the executable one;
// each launch runs the nodes in dependency order, after the stream's earlier
// work and before its later work, and after the previous launches of the same
// executable graph (detail/graphs/graph_exec.hpp).
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/driver_enums.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/executor/block_executor.hpp"
#include "weft/detail/graphs/device_launch.hpp"
#include "weft/detail/graphs/graph_exec.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/graph_memory_launch.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/runtime/caller_checks.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/stream_registry.hpp"

static_assert(weft::detail::use_node_priority_flag == cudaGraphInstantiateFlagUseNodePriority);
static_assert(weft::detail::auto_free_on_launch_flag == cudaGraphInstantiateFlagAutoFreeOnLaunch);
static_assert(weft::detail::device_launch_flag == cudaGraphInstantiateFlagDeviceLaunch);

namespace weft::surface {

/// cudaGraphInstantiateWithParams' work; the other forms report less.
inline cudaError_t instantiate_graph(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags,
                                     cudaStream_t uploadStream, cudaGraphInstantiateResult* result,
                                     cudaGraphNode_t* errNode) {
  using namespace weft::detail;
  *result = cudaGraphInstantiateError;
  *errNode = nullptr;
  // A graph moved into a child graph node is instantiated with its parent only.
  if (!pGraphExec || !graph || graph->moved_into_parent) return cudaErrorInvalidValue;
  constexpr unsigned long long accepted = cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUpload |
                                          cudaGraphInstantiateFlagUseNodePriority |
                                          cudaGraphInstantiateFlagDeviceLaunch;
  if (flags & ~accepted) return cudaErrorInvalidValue;
  // A device graph frees nothing on its own, and holds only what a kernel
  // can launch (the H100's answers: device_launch_probe.expected).
  if (flags & cudaGraphInstantiateFlagDeviceLaunch) {
    if (flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) return cudaErrorInvalidValue;
    if (!launchable_from_device(*graph)) return cudaErrorInvalidValue;
  }
  if ((flags & cudaGraphInstantiateFlagUpload) && !resolve_stream(weft::surface::explicit_stream(uploadStream)))
    return cudaErrorInvalidResourceHandle;
  // CUDA allows one executable graph at a time of a graph with conditional
  // nodes: the handles' values are the graph's. The code is the one an
  // H100 gives for a graph with memory nodes, which has the same rule.
  // The same holds for memory nodes, whose allocations are the graph's.
  bool only_one = graph->has_conditional_nodes() || has_memory_nodes(*graph);
  if (only_one && !graph->instantiation.expired()) return cudaErrorNotSupported;
  instantiate_outcome outcome;
  auto exec = instantiate(*graph, outcome);
  if (!exec) {
    *errNode = const_cast<cudaGraphNode_t>(outcome.node);
    switch (outcome.failure) {
      case instantiate_failure::cycle:
        *result = cudaGraphInstantiateInvalidStructure;
        return cudaErrorInvalidValue;
      case instantiate_failure::unsupported_in_body:
        *result = cudaGraphInstantiateNodeOperationNotSupported;
        return cudaErrorNotSupported;
      case instantiate_failure::handle_unused:
        *result = cudaGraphInstantiateConditionalHandleUnused;
        return cudaErrorInvalidValue;
      case instantiate_failure::none:
        break;
    }
    return cudaErrorInvalidValue;
  }
  // Without cudaGraphInstantiateFlagUseNodePriority kernel nodes run at the
  // priority of the stream the graph is launched into, as in CUDA: each
  // launch reads the flag (graph_exec.hpp's launch_target), so nodes that
  // cudaGraphExecUpdate brings in and conditional bodies follow it too.
  // Upload is not kept: cudaGraphExecGetFlags does not return it.
  exec->flags = flags & ~static_cast<unsigned long long>(cudaGraphInstantiateFlagUpload);
  if (flags & cudaGraphInstantiateFlagUpload) exec->uploaded.store(true, std::memory_order_release);
  if (only_one) graph->instantiation = exec->alive;
  mark_instantiated(*graph);
  *pGraphExec = exec.release();
  *result = cudaGraphInstantiateSuccess;
  return cudaSuccess;
}

}  // namespace weft::surface

/// A graph whose edges form a cycle is refused with cudaErrorInvalidValue.
/// A graph with memory allocation or free nodes may have one executable
/// graph at a time: a second is cudaErrorNotSupported until the first is
/// destroyed. Of the flags, cudaGraphInstantiateFlagAutoFreeOnLaunch makes
/// each launch free what the previous one left allocated; ...UseNodePriority
/// runs kernel nodes at their cudaLaunchAttributePriority; ...Upload belongs to cudaGraphInstantiateWithParams
/// (cudaErrorInvalidValue here, as in CUDA); ...DeviceLaunch makes a
/// graph kernels can launch (cudaErrorInvalidValue for a graph with host,
/// event or memory nodes, and with ...AutoFreeOnLaunch).
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags = 0) {
  if (flags & cudaGraphInstantiateFlagUpload) return weft::detail::record(cudaErrorInvalidValue);
  cudaGraphInstantiateResult result;
  cudaGraphNode_t errNode;
  if (cudaError_t e = weft::surface::instantiate_graph(pGraphExec, graph, flags, nullptr, &result, &errNode))
    return weft::detail::record(e);
  return cudaSuccess;
}

/// The form of CUDA before 12 that cuda_runtime.h still offers to C++: the
/// error node and log are not filled in, as in CUDA 13.
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, cudaGraphNode_t*, char*,
                                        std::size_t) {
  return cudaGraphInstantiate(pGraphExec, graph, 0);
}

inline cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                 unsigned long long flags = 0) {
  return cudaGraphInstantiate(pGraphExec, graph, flags);
}

/// result_out and errNode_out say why instantiation failed:
/// cudaGraphInstantiateInvalidStructure with a node of the cycle,
/// ...NodeOperationNotSupported with a node that a conditional body may not
/// hold (cudaErrorNotSupported), ...ConditionalHandleUnused when a handle
/// created for the graph is used by none of its conditional nodes, and
/// cudaGraphInstantiateError (no node) for bad arguments. With
/// cudaGraphInstantiateFlagUpload, uploadStream is checked; there is
/// nothing to upload on a CPU.
inline cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                  cudaGraphInstantiateParams* instantiateParams) {
  if (!instantiateParams) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e =
          weft::surface::instantiate_graph(pGraphExec, graph, instantiateParams->flags, instantiateParams->uploadStream,
                                           &instantiateParams->result_out, &instantiateParams->errNode_out))
    return weft::detail::record(e);
  return cudaSuccess;
}

/// The flags it was instantiated with, but cudaGraphInstantiateFlagUpload.
inline cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long* flags) {
  if (!graphExec || !flags) return weft::detail::record(cudaErrorInvalidValue);
  *flags = graphExec->flags;
  return cudaSuccess;
}

/// Launches already in streams still run.
inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  using namespace weft::detail;
  if (!graphExec) return record(cudaErrorInvalidValue);
  // Its launches keep what they need once their nodes are enqueued.
  graphExec->settle();
  // The memory its free nodes gave back stops counting as used by graphs.
  for (const graph_step& step : graphExec->steps)
    if (const auto* a = std::get_if<alloc_work>(&step.work))
      graph_memory::of(a->allocation->device).forget_cached(*a->allocation);
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
/// Into a capturing stream, the launch becomes a child graph node holding
/// the executable graph's nodes as they are now. cudaErrorInvalidValue
/// while an allocation an earlier launch left allocated is not freed (unless
/// instantiated with AutoFreeOnLaunch).
/// From a kernel (device graph launch), `stream` is the launch mode:
/// cudaStreamGraphFireAndForget, ...AsSibling or cudaStreamGraphTailLaunch
/// (detail/graphs/device_launch.hpp).
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  using namespace weft::detail;
  if (running_block) return launch_graph_from_device(graphExec, stream);
  if (cudaError_t e = check_caller(false)) return e;
  if (!graphExec) return record(cudaErrorInvalidValue);
  CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (cudaError_t sticky = fault(s->device).code()) return record(sticky);
  if (auto captured = capture_into(*s, [&] { return child_work{graph_of(*graphExec)}; })) return *captured;
  if (cudaError_t e = launch_memory_nodes(*graphExec)) return record(e);
  launch_graph(*graphExec, *s, runtime::get(s->device));
  return cudaSuccess;
}

/// Nothing to upload on a CPU: the handles are checked, and a device graph
/// may be launched from kernels from now on.
inline cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
  using namespace weft::detail;
  if (!graphExec) return record(cudaErrorInvalidValue);
  if (!resolve_stream(weft::surface::explicit_stream(stream))) return record(cudaErrorInvalidResourceHandle);
  graphExec->uploaded.store(true, std::memory_order_release);
  return cudaSuccess;
}

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream

/// In a kernel: the device graph it is a node of, or null (outside any
/// graph, and in a graph not instantiated for device launch).
inline cudaGraphExec_t cudaGetCurrentGraphExec() { return weft::detail::current_graph_exec(); }
