// Event record and event wait nodes (cudaGraphAddEventRecordNode,
// cudaGraphAddEventWaitNode and their Get/SetEvent).
//
// At each launch, a record node records its event as cudaEventRecord would
// at that point of the graph: cudaEventSynchronize, cudaEventQuery,
// cudaStreamWaitEvent and cudaEventElapsedTime then see that record. A wait
// node waits, as cudaStreamWaitEvent does, for the record the event has when
// the graph is launched (none: no wait); the nodes after it wait with it.
// Which event a node names is taken at instantiation, as other parameters.
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_api.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/event.hpp"
#include "weft/detail/graphs/graph_model.hpp"

namespace weft::surface {

/// A null or destroyed event is cudaErrorInvalidValue, the one code CUDA 13
/// gives these calls.
inline bool usable_event(cudaEvent_t event) { return event && weft::detail::event_registry::get().live(event); }

template <class W>
cudaError_t add_event_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                           std::size_t numDependencies, cudaEvent_t event) {
  if (!pGraphNode || !graph || !usable_event(event)) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return weft::detail::record(e);
  *pGraphNode = add_node(graph, pDependencies, numDependencies, W{event});
  return cudaSuccess;
}

template <class W>
cudaError_t get_event(cudaGraphNode_t node, cudaEvent_t* event_out) {
  auto* w = work_of<W>(node);
  if (!w || !event_out) return weft::detail::record(cudaErrorInvalidValue);
  *event_out = w->event;
  return cudaSuccess;
}

template <class W>
cudaError_t set_event(cudaGraphNode_t node, cudaEvent_t event) {
  auto* w = work_of<W>(node);
  if (!w || !usable_event(event)) return weft::detail::record(cudaErrorInvalidValue);
  w->event = event;
  return cudaSuccess;
}

}  // namespace weft::surface

inline cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                               cudaEvent_t event) {
  return weft::surface::add_event_node<weft::detail::event_record_work>(pGraphNode, graph, pDependencies,
                                                                        numDependencies, event);
}

inline cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event_out) {
  return weft::surface::get_event<weft::detail::event_record_work>(node, event_out);
}

inline cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return weft::surface::set_event<weft::detail::event_record_work>(node, event);
}

inline cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                             cudaEvent_t event) {
  return weft::surface::add_event_node<weft::detail::event_wait_work>(pGraphNode, graph, pDependencies, numDependencies,
                                                                      event);
}

inline cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event_out) {
  return weft::surface::get_event<weft::detail::event_wait_work>(node, event_out);
}

inline cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return weft::surface::set_event<weft::detail::event_wait_work>(node, event);
}
