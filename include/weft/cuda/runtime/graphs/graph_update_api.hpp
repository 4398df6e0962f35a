// Updating executable graphs (CUDA guide, "Updating Instantiated Graphs",
// "Whole Graph Update", "Individual node update", "Individual node
// enable"): cudaGraphExecUpdate from a graph of the same topology, the
// per-node cudaGraphExec*NodeSetParams, and cudaGraphNodeSetEnabled. A node
// is named by its handle in the graph the executable graph was instantiated
// from (or in the graphs nested in it). Changes reach the launches made
// after them; launches already in streams keep the parameters they were
// launched with (detail/graphs/graph_update.hpp).
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

#include "weft/cuda/runtime/driver_enums.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_api.hpp"
#include "weft/cuda/runtime/graphs/graph_copy_node_api.hpp"
#include "weft/cuda/runtime/graphs/graph_node_params_api.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/event.hpp"
#include "weft/detail/graphs/graph_exec.hpp"
#include "weft/detail/graphs/graph_update.hpp"
#include "weft/detail/memory/memory_copies.hpp"

namespace weft::surface {

inline cudaGraphExecUpdateResult update_result_of(weft::detail::update_refusal refusal) {
  using weft::detail::update_refusal;
  switch (refusal) {
    case update_refusal::none:
      return cudaGraphExecUpdateSuccess;
    case update_refusal::topology_changed:
      return cudaGraphExecUpdateErrorTopologyChanged;
    case update_refusal::node_type_changed:
      return cudaGraphExecUpdateErrorNodeTypeChanged;
    case update_refusal::parameters_changed:
      return cudaGraphExecUpdateErrorParametersChanged;
    case update_refusal::not_supported:
      return cudaGraphExecUpdateErrorNotSupported;
    case update_refusal::attributes_changed:
      return cudaGraphExecUpdateErrorAttributesChanged;
  }
  return cudaGraphExecUpdateError;
}

/// Gives the step of `node` (a node of kind W in the graph `exec` came
/// from) the work `now`, if the kind's update limits allow.
template <class W>
cudaError_t set_exec_node(cudaGraphExec_t exec, cudaGraphNode_t node, const weft::detail::node_work& now) {
  using namespace weft::detail;
  if (!exec || !node) return cudaErrorInvalidValue;
  const graph_shape::node* shape = exec->find(node);
  if (!shape || shape->type != kind_index<W>()) return cudaErrorInvalidValue;
  auto lock = exec->lock_steps();
  graph_step& step = exec->step_at(shape->place);
  if (check_work_change(step.work, now, uses_node_priorities(*exec)) != update_refusal::none)
    return cudaErrorInvalidValue;
  step.work = as_step(now);
  return cudaSuccess;
}

/// The node's shape if it is a kernel, memcpy or memset node of the graph
/// `exec` came from: the kinds CUDA enables and disables.
inline const weft::detail::graph_shape::node* switchable_node(cudaGraphExec_t exec, cudaGraphNode_t node) {
  if (!exec || !node) return nullptr;
  const auto* shape = exec->find(node);
  if (!shape) return nullptr;
  using namespace weft::detail;
  bool switchable = shape->type == kind_index<kernel_work>() || shape->type == kind_index<copy_work>() ||
                    shape->type == kind_index<set_work>();
  return switchable ? shape : nullptr;
}

}  // namespace weft::surface

/// Takes hGraph's parameters if its topology is the executable graph's
/// (nodes paired in creation order, the same edges in the same order) and
/// each node's change is one CUDA allows: else cudaErrorGraphExecUpdateFailure,
/// resultInfo saying why (...ErrorTopologyChanged, ...ErrorNodeTypeChanged,
/// ...ErrorParametersChanged) with hGraph's node at fault, and nothing is
/// changed. Kernel nodes may change function, shape and arguments; a memset
/// node its address and value (a 1D one its width and element size too),
/// not the device or kind of its memory; a 1D memcpy node its addresses, not
/// its kind or the devices or kinds of its memory; host nodes anything.
/// Child graphs are updated node by node; conditional nodes may not change
/// type or body count, take hGraph's handle, and update their bodies. Nodes
/// keep their enabled state. resultInfo may be null (CUDA 13 on an H100
/// accepts that too).
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                       cudaGraphExecUpdateResultInfo* resultInfo) {
  using namespace weft::detail;
  if (!hGraphExec || !hGraph) {
    if (resultInfo) *resultInfo = {cudaGraphExecUpdateError, nullptr, nullptr};
    return record(cudaErrorInvalidValue);
  }
  auto lock = hGraphExec->lock_steps();
  std::vector<step_change> changes;
  update_outcome outcome = plan_update(*hGraphExec, hGraphExec->shape, *hGraph, changes);
  if (resultInfo)
    *resultInfo = {weft::surface::update_result_of(outcome.refusal), const_cast<cudaGraphNode_t>(outcome.node),
                   const_cast<cudaGraphNode_t>(outcome.from_node)};
  if (outcome.refusal != update_refusal::none) return record(cudaErrorGraphExecUpdateFailure);
  apply_update(*hGraphExec, changes);
  return cudaSuccess;
}

/// The form of CUDA before 12 that cuda_runtime.h keeps for C++
/// (cuda-samples' jacobiCudaGraphs calls it): either output may be null.
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphNode_t* hErrorNode_out,
                                       cudaGraphExecUpdateResult* updateResult_out) {
  cudaGraphExecUpdateResultInfo info{cudaGraphExecUpdateError, nullptr, nullptr};
  cudaError_t status = cudaGraphExecUpdate(hGraphExec, hGraph, &info);
  if (hErrorNode_out) *hErrorNode_out = info.errorNode;
  if (updateResult_out) *updateResult_out = info.result;
  return status;
}

/// The node keeps its attributes (cluster shape, cooperative launch,
/// priority), which cudaKernelNodeParams does not carry.
inline cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                    const cudaKernelNodeParams* pNodeParams) {
  using namespace weft::detail;
  if (!hGraphExec || !node) return record(cudaErrorInvalidValue);
  const graph_shape::node* shape = hGraphExec->find(node);
  if (!shape || shape->type != kind_index<kernel_work>()) return record(cudaErrorInvalidValue);
  kernel_work keep;
  {
    auto lock = hGraphExec->lock_steps();
    keep = std::get<kernel_work>(hGraphExec->step_at(shape->place).work);
  }
  kernel_work work;
  if (cudaError_t e = weft::surface::kernel_work_of(pNodeParams, work, &keep)) return record(e);
  return record(weft::surface::set_exec_node<kernel_work>(hGraphExec, node, work));
}

/// Only 1D copies, to and from memory of the same devices and kinds as before.
inline cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void* dst,
                                                      const void* src, std::size_t count, cudaMemcpyKind kind) {
  if (cudaError_t e = weft::detail::check_copy({dst, count, 0, src, count, 0, count, 1, 1}, kind,
                                               weft::detail::is_device_or_graph_range))
    return weft::detail::record(e);
  return weft::detail::record(weft::surface::set_exec_node<weft::detail::copy_work>(
      hGraphExec, node, weft::detail::copy_work::linear(dst, src, count, kind)));
}

/// Only a 1D copy (one row) may be given another 1D copy, of the same
/// cudaMemcpyKind, between memory of the same devices and kinds as before.
inline cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                    const cudaMemcpy3DParms* pNodeParams) {
  weft::detail::copy_work work;
  if (cudaError_t e = weft::surface::copy_work_of(pNodeParams, work)) return weft::detail::record(e);
  return weft::detail::record(weft::surface::set_exec_node<weft::detail::copy_work>(hGraphExec, node, work));
}

/// The symbol is taken by reference, as CUDA's C++ overload takes it (and
/// weft's cudaMemcpyToSymbol): its type gives its size.
template <class T>
cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const T& symbol,
                                                     const void* src, std::size_t count, std::size_t offset,
                                                     cudaMemcpyKind kind) {
  weft::detail::copy_work work;
  if (cudaError_t e =
          weft::surface::symbol_copy_work(&symbol, sizeof(T), nullptr, src, count, offset, kind, true, work))
    return weft::detail::record(e);
  return weft::detail::record(weft::surface::set_exec_node<weft::detail::copy_work>(hGraphExec, node, work));
}

template <class T>
cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void* dst,
                                                       const T& symbol, std::size_t count, std::size_t offset,
                                                       cudaMemcpyKind kind) {
  weft::detail::copy_work work;
  if (cudaError_t e =
          weft::surface::symbol_copy_work(&symbol, sizeof(T), dst, nullptr, count, offset, kind, false, work))
    return weft::detail::record(e);
  return weft::detail::record(weft::surface::set_exec_node<weft::detail::copy_work>(hGraphExec, node, work));
}

/// The address and value may change, and a 1D set's width and element size;
/// not its height, nor the device or kind of its memory.
inline cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                    const cudaMemsetParams* pNodeParams) {
  weft::detail::set_work work;
  if (cudaError_t e = weft::surface::set_work_of(pNodeParams, work)) return weft::detail::record(e);
  return weft::detail::record(weft::surface::set_exec_node<weft::detail::set_work>(hGraphExec, node, work));
}

inline cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                  const cudaHostNodeParams* pNodeParams) {
  if (!pNodeParams || !pNodeParams->fn) return weft::detail::record(cudaErrorInvalidValue);
  return weft::detail::record(weft::surface::set_exec_node<weft::detail::host_work>(
      hGraphExec, node, weft::detail::host_work{pNodeParams->fn, pNodeParams->userData}));
}

/// childGraph must have the topology of the node's graph; its nodes'
/// parameters are taken as cudaGraphExecUpdate takes them.
inline cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                        cudaGraph_t childGraph) {
  using namespace weft::detail;
  if (!hGraphExec || !node || !childGraph) return record(cudaErrorInvalidValue);
  const graph_shape::node* shape = hGraphExec->find(node);
  if (!shape || shape->type != kind_index<child_work>()) return record(cudaErrorInvalidValue);
  auto lock = hGraphExec->lock_steps();
  std::vector<step_change> changes;
  if (plan_update(*hGraphExec, shape->inner[0], *childGraph, changes).refusal != update_refusal::none)
    return record(cudaErrorInvalidValue);
  apply_update(*hGraphExec, changes);
  return cudaSuccess;
}

/// Later launches record `event` instead; an event that does not exist is
/// cudaErrorInvalidResourceHandle, as for cudaEventRecord.
inline cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                        cudaEvent_t event) {
  using namespace weft::detail;
  if (!event_registry::get().live(event)) return record(cudaErrorInvalidResourceHandle);
  return record(weft::surface::set_exec_node<event_record_work>(hGraphExec, hNode, event_record_work{event}));
}

/// Later launches wait for `event`'s latest record as of the launch.
inline cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                      cudaEvent_t event) {
  using namespace weft::detail;
  if (!event_registry::get().live(event)) return record(cudaErrorInvalidResourceHandle);
  return record(weft::surface::set_exec_node<event_wait_work>(hGraphExec, hNode, event_wait_work{event}));
}

/// Only kernel, memcpy and memset nodes (cudaErrorInvalidValue for others,
/// as CUDA). A disabled node runs as an empty node, keeping its parameters,
/// which updates still change.
inline cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int isEnabled) {
  const auto* shape = weft::surface::switchable_node(hGraphExec, hNode);
  if (!shape) return weft::detail::record(cudaErrorInvalidValue);
  auto lock = hGraphExec->lock_steps();
  hGraphExec->step_at(shape->place).enabled = isEnabled != 0;
  return cudaSuccess;
}

inline cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, unsigned int* isEnabled) {
  const auto* shape = weft::surface::switchable_node(hGraphExec, hNode);
  if (!shape || !isEnabled) return weft::detail::record(cudaErrorInvalidValue);
  auto lock = hGraphExec->lock_steps();
  *isEnabled = hGraphExec->step_at(shape->place).enabled ? 1 : 0;
  return cudaSuccess;
}

/// cudaGraphExec*SetParams by the node's type, which must be the node's
/// (else cudaErrorInvalidValue): kernel, memcpy (cudaMemcpy3DParms),
/// memset, host, child graph, event record and wait nodes; an empty node
/// has nothing to change. Allocation, free and conditional nodes cannot be
/// changed in an executable graph (cudaErrorNotSupported), as in CUDA.
inline cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                              cudaGraphNodeParams* nodeParams) {
  using namespace weft::surface;
  using weft::detail::record;
  if (!graphExec || !node || !nodeParams || !zero_reserved(*nodeParams)) return record(cudaErrorInvalidValue);
  using weft::detail::kind_index;
  // Each call below checks that the node is of its kind; the node is read
  // through the executable graph only, as the graph's may be gone.
  const weft::detail::graph_shape::node* shape = graphExec->find(node);
  if (!shape) return record(cudaErrorInvalidValue);
  cudaGraphNodeParams& p = *nodeParams;
  switch (p.type) {
    case cudaGraphNodeTypeKernel: {
      cudaKernelNodeParams k = kernel_parameters(p.kernel);
      return cudaGraphExecKernelNodeSetParams(graphExec, node, &k);
    }
    case cudaGraphNodeTypeMemcpy:
      if (!plain_copy(p.memcpy)) return record(cudaErrorInvalidValue);
      return cudaGraphExecMemcpyNodeSetParams(graphExec, node, &p.memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
      cudaMemsetParams m = set_parameters(p.memset);
      return cudaGraphExecMemsetNodeSetParams(graphExec, node, &m);
    }
    case cudaGraphNodeTypeHost: {
      cudaHostNodeParams h{p.host.fn, p.host.userData};
      return cudaGraphExecHostNodeSetParams(graphExec, node, &h);
    }
    case cudaGraphNodeTypeGraph:
      return cudaGraphExecChildGraphNodeSetParams(graphExec, node, p.graph.graph);
    case cudaGraphNodeTypeEmpty:
      return record(shape->type == kind_index<weft::detail::empty_work>() ? cudaSuccess : cudaErrorInvalidValue);
    case cudaGraphNodeTypeWaitEvent:
      return cudaGraphExecEventWaitNodeSetEvent(graphExec, node, p.eventWait.event);
    case cudaGraphNodeTypeEventRecord:
      return cudaGraphExecEventRecordNodeSetEvent(graphExec, node, p.eventRecord.event);
    case cudaGraphNodeTypeMemAlloc:
      return record(shape->type == kind_index<weft::detail::alloc_work>() ? cudaErrorNotSupported
                                                                          : cudaErrorInvalidValue);
    case cudaGraphNodeTypeMemFree:
      return record(shape->type == kind_index<weft::detail::free_work>() ? cudaErrorNotSupported
                                                                         : cudaErrorInvalidValue);
    case cudaGraphNodeTypeConditional:
      return record(shape->type == kind_index<weft::detail::conditional_work>() ? cudaErrorNotSupported
                                                                                : cudaErrorInvalidValue);
    default:
      return record(cudaErrorInvalidValue);
  }
}
