// Conditional nodes (CUDA 13, cudaGraphNodeTypeConditional): a handle
// created for a graph holds a value that kernels of the launch set with
// cudaGraphSetConditional; a conditional node runs its body graph(s) by it,
// decided when the node's dependencies are done: IF (body 0 when nonzero,
// else body 1 if the node has two), WHILE (body 0 again and again while
// nonzero, checked before the first run) and SWITCH (body n for the value
// n, none past the last). The node is added with cudaGraphAddNode; its body
// graphs come with it (phGraph_out) for the program to fill, with nodes or
// by capturing a stream into them. Running them is
// detail/graphs/graph_exec.hpp's conditional_command.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "weft/cuda/runtime/driver_enums.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_api.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/conditional_nodes.hpp"
#include "weft/detail/graphs/graph_model.hpp"

/// The value starts at defaultLaunchValue; with cudaGraphCondAssignDefault
/// (the only flag) it is reset to it at the start of each launch, else it
/// keeps what the last launch left (each executable graph starts from the
/// default).
inline cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* pHandle_out, cudaGraph_t graph,
                                                    unsigned int defaultLaunchValue = 0, unsigned int flags = 0) {
  using namespace weft::detail;
  if (!pHandle_out || !graph || (flags & ~static_cast<unsigned>(cudaGraphCondAssignDefault)))
    return record(cudaErrorInvalidValue);
  auto h = conditional_handles::get().make(graph, defaultLaunchValue, flags & cudaGraphCondAssignDefault);
  graph->handles.push_back(h);
  *pHandle_out = conditional_handles::number(*h);
  return cudaSuccess;
}

namespace weft::surface {

/// cudaGraphAddNode for cudaGraphNodeTypeConditional: checks the parameters
/// as CUDA does (a handle of this graph or of one enclosing it; size 1 or 2
/// for IF, 1 for WHILE, at least 1 for SWITCH: else cudaErrorInvalidValue)
/// and points p->phGraph_out to the node's new, empty body graphs.
inline cudaError_t add_conditional_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                        cudaConditionalNodeParams* p) {
  using namespace weft::detail;
  if (!pGraphNode || !graph || !p) return cudaErrorInvalidValue;
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return e;
  auto handle = conditional_handles::get().find(p->handle);
  if (!handle) return cudaErrorInvalidValue;
  const CUgraph_st* scope = graph;
  while (scope && scope != handle->graph) scope = scope->enclosing;
  if (!scope) return cudaErrorInvalidValue;
  conditional_kind kind;
  switch (p->type) {
    case cudaGraphCondTypeIf:
      if (p->size != 1 && p->size != 2) return cudaErrorInvalidValue;
      kind = conditional_kind::if_else;
      break;
    case cudaGraphCondTypeWhile:
      if (p->size != 1) return cudaErrorInvalidValue;
      kind = conditional_kind::while_loop;
      break;
    case cudaGraphCondTypeSwitch:
      if (p->size == 0) return cudaErrorInvalidValue;
      kind = conditional_kind::switch_of;
      break;
    default:
      return cudaErrorInvalidValue;
  }
  conditional_work work{std::move(handle), kind, {}, std::make_shared<std::vector<CUgraph_st*>>()};
  for (unsigned i = 0; i < p->size; ++i) {
    auto body = std::make_shared<CUgraph_st>();
    body->enclosing = graph;
    work.body_handles->push_back(body.get());
    work.bodies.push_back(std::move(body));
  }
  p->phGraph_out = work.body_handles->data();
  *pGraphNode = add_node(graph, pDependencies, numDependencies, std::move(work));
  return cudaSuccess;
}

}  // namespace weft::surface
