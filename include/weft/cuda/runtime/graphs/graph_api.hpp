// Building CUDA graphs (CUDA guide, "CUDA Graphs", "Creating a Graph Using
// Graph APIs"): graphs, their nodes of the kinds weft runs (kernel, 1D
// memcpy, memset, host, child graph, empty), edges, queries, node parameters
// and cloning. The graph itself is detail/graphs/graph_model.hpp's;
// instantiating and launching one is graph_exec_api.hpp's.
//
// Arguments are checked as CUDA 13 checks them: a null handle or pointer, a
// dependency on a node of another graph, a dependency named twice, an edge
// that exists already (or, for removal, does not) are cudaErrorInvalidValue,
// recorded as the last error.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "weft/cuda/runtime/driver_enums.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/cuda/runtime/memory/pitched_memory.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/memory/memory_copies.hpp"
#include "weft/detail/memory/memory_lookup.hpp"
#include "weft/detail/runtime/kernel_registry.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/launch.hpp"

namespace weft::surface {

/// cudaErrorInvalidValue unless the dependencies are distinct nodes of `g`.
inline cudaError_t check_dependencies(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t count) {
  if (count > 0 && !deps) return cudaErrorInvalidValue;
  for (std::size_t i = 0; i < count; ++i) {
    if (!deps[i] || deps[i]->owner != g) return cudaErrorInvalidValue;
    if (std::find(deps, deps + i, deps[i]) != deps + i) return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

/// Adds a node doing `work` after `deps` (already checked).
inline cudaGraphNode_t add_node(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t count,
                                weft::detail::node_work work) {
  CUgraphNode_st* n = g->add(std::move(work));
  for (std::size_t i = 0; i < count; ++i) CUgraph_st::add_edge(deps[i], n);
  return n;
}

/// A kernel node's work from CUDA's parameters, or the code CUDA refuses
/// them with. The kernel must be registered (weft-port registers every
/// non-template kernel of a .cu file), as for cudaLaunchKernel by address.
/// `keep`: the node's work so far, whose attributes stay (its cluster shape
/// must fit the new parameters).
inline cudaError_t kernel_work_of(const cudaKernelNodeParams* p, weft::detail::kernel_work& work,
                                  const weft::detail::kernel_work* keep = nullptr) {
  using namespace weft::detail;
  if (!p) return cudaErrorInvalidValue;
  if (p->kernelParams && p->extra) return cudaErrorInvalidValue;
  // The "extra" form lays the arguments out by the kernel's ABI, which a
  // CPU build of the kernel does not share.
  if (p->extra) return cudaErrorNotSupported;
  argument_binder bind = p->func ? kernel_registry().find(p->func).bind : nullptr;
  if (!bind) return cudaErrorInvalidDeviceFunction;
  kernel_attributes attributes = runtime::get().attributes(p->func);
  launch_config config{p->gridDim, p->blockDim, p->sharedMemBytes};
  if (cudaError_t e = validate(config, attributes.max_dynamic_shared_bytes)) return e;
  dim3 cluster;
  launch_options requested;
  if (keep) requested.cluster = keep->attributes.cluster;
  if (cudaError_t e = cluster_shape(config, requested, compiled_cluster_dims().find(p->func, dim3(0, 0, 0)),
                                    attributes.non_portable_cluster_size, cluster))
    return e;
  auto arguments = bind(p->kernelParams);
  if (!arguments) return cudaErrorInvalidValue;
  work = kernel_work{p->func, p->gridDim, p->blockDim, p->sharedMemBytes, cluster, std::move(arguments)};
  if (keep) work.attributes = keep->attributes;
  return cudaSuccess;
}

inline cudaError_t set_work_of(const cudaMemsetParams* p, weft::detail::set_work& work) {
  if (!p || !p->dst) return cudaErrorInvalidValue;
  if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) return cudaErrorInvalidValue;
  std::size_t row = p->width * p->elementSize;
  if (p->height > 1 && p->pitch < row) return cudaErrorInvalidValue;
  std::size_t span = p->height == 0 ? 0 : (p->height - 1) * p->pitch + row;
  if (span > 0 && !weft::detail::is_device_or_graph_range(p->dst, span)) return cudaErrorInvalidValue;
  work = {p->dst, p->pitch, p->value, p->elementSize, p->width, p->height};
  return cudaSuccess;
}

/// The node's cudaGraphNodeType.
inline cudaGraphNodeType node_type(const weft::detail::node_work& work) {
  using namespace weft::detail;
  return std::visit(
      [](const auto& w) {
        using type = std::decay_t<decltype(w)>;
        if constexpr (std::is_same_v<type, kernel_work>)
          return cudaGraphNodeTypeKernel;
        else if constexpr (std::is_same_v<type, copy_work>)
          return cudaGraphNodeTypeMemcpy;
        else if constexpr (std::is_same_v<type, set_work>)
          return cudaGraphNodeTypeMemset;
        else if constexpr (std::is_same_v<type, host_work>)
          return cudaGraphNodeTypeHost;
        else if constexpr (std::is_same_v<type, child_work>)
          return cudaGraphNodeTypeGraph;
        else if constexpr (std::is_same_v<type, empty_work>)
          return cudaGraphNodeTypeEmpty;
        else if constexpr (std::is_same_v<type, event_wait_work>)
          return cudaGraphNodeTypeWaitEvent;
        else if constexpr (std::is_same_v<type, event_record_work>)
          return cudaGraphNodeTypeEventRecord;
        else if constexpr (std::is_same_v<type, alloc_work>)
          return cudaGraphNodeTypeMemAlloc;
        else if constexpr (std::is_same_v<type, conditional_work>)
          return cudaGraphNodeTypeConditional;
        else {
          static_assert(std::is_same_v<type, free_work>, "every kind of node has its cudaGraphNodeType");
          return cudaGraphNodeTypeMemFree;
        }
      },
      work);
}

/// A memcpy node's copy as cudaMemcpy3DParms describes it.
/// An array's side reads back as the array, with its position and the
/// extent's width in the array's elements, as they were given.
inline cudaMemcpy3DParms parameters_of(const weft::detail::copy_work& c) {
  cudaMemcpy3DParms p{};
  std::size_t element_bytes = c.src.array ? c.src.array->element_bytes : c.dst.array ? c.dst.array->element_bytes : 1;
  auto read_back = [&](const weft::detail::copy_operand& o, cudaArray_t& array, cudaPitchedPtr& ptr, cudaPos& pos) {
    if (o.array) {
      array = handle_of(o.array);
      pos = make_cudaPos(o.x / element_bytes, o.y, o.z);
    } else {
      ptr = make_cudaPitchedPtr(o.ptr, o.pitch, o.row_bytes, o.rows);
      pos = make_cudaPos(o.x, o.y, o.z);
    }
  };
  read_back(c.src, p.srcArray, p.srcPtr, p.srcPos);
  read_back(c.dst, p.dstArray, p.dstPtr, p.dstPos);
  p.extent = make_cudaExtent(c.width / element_bytes, c.height, c.depth);
  p.kind = c.kind;
  return p;
}

/// The node's work of kind W, or null (the node is of another kind).
template <class W>
W* work_of(cudaGraphNode_t node) {
  return node ? std::get_if<W>(&node->work) : nullptr;
}

/// CUDA's convention for array queries: with a null array, the count; else
/// up to *count entries, the rest of the array nulled, and how many were
/// written.
template <class T>
void fill(const std::vector<T>& all, T* out, std::size_t* count) {
  if (!out) {
    *count = all.size();
    return;
  }
  std::size_t n = std::min(*count, all.size());
  std::copy_n(all.begin(), n, out);
  std::fill(out + n, out + *count, T{});
  *count = n;
}

/// Edge data for each of `nodes`, the edges from (`outgoing`) or to `n`.
inline void fill_edge_data(cudaGraphEdgeData* data, const CUgraphNode_st* n, const std::vector<CUgraphNode_st*>& nodes,
                           bool outgoing, std::size_t count) {
  if (!data) return;
  for (std::size_t i = 0; i < count; ++i) {
    data[i] = cudaGraphEdgeData{};
    if (i >= nodes.size()) continue;
    unsigned char port = outgoing ? n->owner->port_of(n, nodes[i]) : n->owner->port_of(nodes[i], n);
    if (port != 0) {
      data[i].from_port = port;
      data[i].type = cudaGraphDependencyTypeProgrammatic;
    }
  }
}

/// Edge data that is all zero (ordinary edges), or none; stream capture
/// takes no other kind yet.
inline bool ordinary_edges(const cudaGraphEdgeData* data, std::size_t count) {
  if (!data) return true;
  for (std::size_t i = 0; i < count; ++i) {
    const cudaGraphEdgeData& d = data[i];
    if (d.from_port || d.to_port || d.type != cudaGraphDependencyTypeDefault) return false;
    if (std::any_of(std::begin(d.reserved), std::end(d.reserved), [](unsigned char b) { return b != 0; })) return false;
  }
  return true;
}

/// Edge data CUDA 13 takes: all zero (an ordinary edge), or a programmatic
/// edge from a kernel node's programmatic or launch completion port to
/// another kernel node; to_port and the reserved bytes are zero.
inline bool valid_edge(const cudaGraphEdgeData& d, const CUgraphNode_st* from, const CUgraphNode_st* to) {
  if (d.to_port || std::any_of(std::begin(d.reserved), std::end(d.reserved), [](unsigned char b) { return b != 0; }))
    return false;
  if (d.type == cudaGraphDependencyTypeDefault) return d.from_port == 0;
  if (d.type != cudaGraphDependencyTypeProgrammatic) return false;
  bool kernels = std::holds_alternative<weft::detail::kernel_work>(from->work) &&
                 std::holds_alternative<weft::detail::kernel_work>(to->work);
  return kernels &&
         (d.from_port == cudaGraphKernelNodePortProgrammatic || d.from_port == cudaGraphKernelNodePortLaunchCompletion);
}

}  // namespace weft::surface

/// flags must be 0.
inline cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
  if (cudaError_t e = weft::detail::check_not_forked()) return e;
  if (!pGraph || flags != 0) return weft::detail::record(cudaErrorInvalidValue);
  *pGraph = new CUgraph_st();
  return cudaSuccess;
}

/// Executable graphs made from it are unaffected.
inline cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  // A graph moved into a child graph node belongs to that node.
  if (!graph || graph->moved_into_parent) return weft::detail::record(cudaErrorInvalidValue);
  delete graph;
  return cudaSuccess;
}

/// The arguments are copied now (kernelParams[i] points to the i-th
/// argument); later changes to them do not reach the node.
inline cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                          const cudaKernelNodeParams* pNodeParams) {
  using namespace weft::surface;
  if (!pGraphNode || !graph) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return weft::detail::record(e);
  weft::detail::kernel_work work;
  if (cudaError_t e = kernel_work_of(pNodeParams, work)) return weft::detail::record(e);
  *pGraphNode = add_node(graph, pDependencies, numDependencies, std::move(work));
  return cudaSuccess;
}

inline cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                            void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  using namespace weft::surface;
  if (!pGraphNode || !graph) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return weft::detail::record(e);
  if (cudaError_t e = weft::detail::check_copy({dst, count, 0, src, count, 0, count, 1, 1}, kind,
                                               weft::detail::is_device_or_graph_range))
    return weft::detail::record(e);
  *pGraphNode = add_node(graph, pDependencies, numDependencies, weft::detail::copy_work::linear(dst, src, count, kind));
  return cudaSuccess;
}

inline cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                          const cudaMemsetParams* pMemsetParams) {
  using namespace weft::surface;
  if (!pGraphNode || !graph) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return weft::detail::record(e);
  weft::detail::set_work work;
  if (cudaError_t e = set_work_of(pMemsetParams, work)) return weft::detail::record(e);
  *pGraphNode = add_node(graph, pDependencies, numDependencies, work);
  return cudaSuccess;
}

/// The function runs on weft's host-function thread, as a stream's host
/// functions do, and must not call the CUDA API.
inline cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                        const cudaHostNodeParams* pNodeParams) {
  using namespace weft::surface;
  if (!pGraphNode || !graph || !pNodeParams || !pNodeParams->fn) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return weft::detail::record(e);
  *pGraphNode =
      add_node(graph, pDependencies, numDependencies, weft::detail::host_work{pNodeParams->fn, pNodeParams->userData});
  return cudaSuccess;
}

inline cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                         const cudaGraphNode_t* pDependencies, std::size_t numDependencies) {
  using namespace weft::surface;
  if (!pGraphNode || !graph) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return weft::detail::record(e);
  *pGraphNode = add_node(graph, pDependencies, numDependencies, weft::detail::empty_work{});
  return cudaSuccess;
}

/// The node embeds a clone of `childGraph`: later changes to `childGraph`
/// do not reach it. A graph with memory allocation or free nodes can only
/// be moved into its parent (cudaGraphAddNode, cudaGraphChildGraphOwnershipMove):
/// here it is cudaErrorNotSupported.
inline cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                              cudaGraph_t childGraph) {
  using namespace weft::surface;
  if (!pGraphNode || !graph || !childGraph || childGraph == graph || childGraph->moved_into_parent)
    return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return weft::detail::record(e);
  // Memory nodes' allocations belong to one graph: such a graph can only be
  // moved into the parent (cudaGraphAddNode with cudaGraphChildGraphOwnershipMove).
  if (weft::detail::has_memory_nodes(*childGraph)) return weft::detail::record(cudaErrorNotSupported);
  // CUDA: a graph with conditional nodes cannot be a child graph.
  if (childGraph->has_conditional_nodes()) return weft::detail::record(cudaErrorNotSupported);
  *pGraphNode = add_node(graph, pDependencies, numDependencies,
                         weft::detail::child_work{std::shared_ptr<CUgraph_st>(childGraph->clone())});
  return cudaSuccess;
}

/// The graph the node embeds (owned by the node: not to be destroyed).
inline cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* pGraph) {
  auto* child = weft::surface::work_of<weft::detail::child_work>(node);
  if (!child || !pGraph) return weft::detail::record(cudaErrorInvalidValue);
  *pGraph = child->graph.get();
  return cudaSuccess;
}

/// from[i] -> to[i]: to[i] runs after from[i]. edgeData may be null (ordinary
/// edges); edge i of type cudaGraphDependencyTypeProgrammatic, between two
/// kernel nodes, lets to[i] start once every block of from[i] has triggered
/// (cudaGraphKernelNodePortProgrammatic) or begun (...LaunchCompletion), as
/// programmatic dependent launch does in a stream.
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                            const cudaGraphEdgeData* edgeData, std::size_t numDependencies) {
  if (!graph) return weft::detail::record(cudaErrorInvalidValue);
  if (numDependencies == 0) return cudaSuccess;
  if (!from || !to) return weft::detail::record(cudaErrorInvalidValue);
  for (std::size_t i = 0; i < numDependencies; ++i) {
    if (!from[i] || !to[i] || from[i]->owner != graph || to[i]->owner != graph || from[i] == to[i] ||
        graph->has_edge(from[i], to[i]))
      return weft::detail::record(cudaErrorInvalidValue);
    if (edgeData && !weft::surface::valid_edge(edgeData[i], from[i], to[i]))
      return weft::detail::record(cudaErrorInvalidValue);
    for (std::size_t j = 0; j < i; ++j)
      if (from[j] == from[i] && to[j] == to[i]) return weft::detail::record(cudaErrorInvalidValue);
  }
  for (std::size_t i = 0; i < numDependencies; ++i) {
    CUgraph_st::add_edge(from[i], to[i]);
    if (edgeData && edgeData[i].from_port != 0) graph->edge_ports[{from[i], to[i]}] = edgeData[i].from_port;
  }
  return cudaSuccess;
}

inline cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                               const cudaGraphNode_t* to, const cudaGraphEdgeData* edgeData,
                                               std::size_t numDependencies) {
  if (!graph) return weft::detail::record(cudaErrorInvalidValue);
  if (numDependencies == 0) return cudaSuccess;
  if (!from || !to) return weft::detail::record(cudaErrorInvalidValue);
  // The edge data, where given, must be valid edge data.
  for (std::size_t i = 0; i < numDependencies; ++i) {
    if (!from[i] || !to[i] || from[i]->owner != graph || to[i]->owner != graph || !graph->has_edge(from[i], to[i]))
      return weft::detail::record(cudaErrorInvalidValue);
    // An H100 removes a programmatic edge named as an ordinary one
    // (pdl_probe.expected): the data must only be valid edge data.
    if (edgeData && !weft::surface::valid_edge(edgeData[i], from[i], to[i]))
      return weft::detail::record(cudaErrorInvalidValue);
  }
  // The edges of a graph with memory nodes cannot be deleted (CUDA 13's
  // cudaGraphAddMemAllocNode).
  if (weft::detail::has_memory_nodes(*graph)) return weft::detail::record(cudaErrorNotSupported);
  for (std::size_t i = 0; i < numDependencies; ++i) {
    CUgraph_st::remove_edge(from[i], to[i]);
    graph->edge_ports.erase({from[i], to[i]});
  }
  return cudaSuccess;
}

/// In the order the nodes were added.
inline cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* numNodes) {
  if (!graph || !numNodes) return weft::detail::record(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> all;
  for (const auto& n : graph->nodes) all.push_back(n.get());
  weft::surface::fill(all, nodes, numNodes);
  return cudaSuccess;
}

inline cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* pRootNodes, std::size_t* pNumRootNodes) {
  if (!graph || !pNumRootNodes) return weft::detail::record(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> roots;
  for (const auto& n : graph->nodes)
    if (n->dependencies.empty()) roots.push_back(n.get());
  weft::surface::fill(roots, pRootNodes, pNumRootNodes);
  return cudaSuccess;
}

/// Edge i is from[i] -> to[i]; from and to are both null (to count) or both given.
inline cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                                     cudaGraphEdgeData* edgeData, std::size_t* numEdges) {
  if (!graph || !numEdges || (!from != !to) || (edgeData && !from)) return weft::detail::record(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> sources, targets;
  for (const auto& n : graph->nodes)
    for (CUgraphNode_st* d : n->dependents) {
      sources.push_back(n.get());
      targets.push_back(d);
    }
  std::size_t count = *numEdges;
  weft::surface::fill(sources, from, numEdges);
  weft::surface::fill(targets, to, &count);
  if (edgeData)
    for (std::size_t i = 0; i < count; ++i) {
      edgeData[i] = cudaGraphEdgeData{};
      if (i >= sources.size()) continue;
      if (unsigned char port = graph->port_of(sources[i], targets[i])) {
        edgeData[i].from_port = port;
        edgeData[i].type = cudaGraphDependencyTypeProgrammatic;
      }
    }
  return cudaSuccess;
}

inline cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* pType) {
  if (!node || !pType) return weft::detail::record(cudaErrorInvalidValue);
  *pType = weft::surface::node_type(node->work);
  return cudaSuccess;
}

inline cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* pDependencies,
                                                cudaGraphEdgeData* edgeData, std::size_t* pNumDependencies) {
  if (!node || !pNumDependencies || (edgeData && !pDependencies)) return weft::detail::record(cudaErrorInvalidValue);
  weft::surface::fill(node->dependencies, pDependencies, pNumDependencies);
  weft::surface::fill_edge_data(edgeData, node, node->dependencies, false, *pNumDependencies);
  return cudaSuccess;
}

inline cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* pDependentNodes,
                                                  cudaGraphEdgeData* edgeData, std::size_t* pNumDependentNodes) {
  if (!node || !pNumDependentNodes || (edgeData && !pDependentNodes))
    return weft::detail::record(cudaErrorInvalidValue);
  weft::surface::fill(node->dependents, pDependentNodes, pNumDependentNodes);
  weft::surface::fill_edge_data(edgeData, node, node->dependents, true, *pNumDependentNodes);
  return cudaSuccess;
}

/// kernelParams points to the node's own copies of the arguments.
inline cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* pNodeParams) {
  auto* k = weft::surface::work_of<weft::detail::kernel_work>(node);
  if (!k || !pNodeParams) return weft::detail::record(cudaErrorInvalidValue);
  *pNodeParams = {const_cast<void*>(k->func), k->grid, k->block, k->shared_bytes, k->arguments->pointers(), nullptr};
  return cudaSuccess;
}

inline cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* pNodeParams) {
  auto* k = weft::surface::work_of<weft::detail::kernel_work>(node);
  if (!k) return weft::detail::record(cudaErrorInvalidValue);
  weft::detail::kernel_work work;
  if (cudaError_t e = weft::surface::kernel_work_of(pNodeParams, work, k)) return weft::detail::record(e);
  *k = std::move(work);
  return cudaSuccess;
}

/// A 1D copy is one row of `count` bytes, as CUDA describes it.
inline cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* pNodeParams) {
  auto* c = weft::surface::work_of<weft::detail::copy_work>(node);
  if (!c || !pNodeParams) return weft::detail::record(cudaErrorInvalidValue);
  *pNodeParams = weft::surface::parameters_of(*c);
  return cudaSuccess;
}

inline cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src, std::size_t count,
                                                  cudaMemcpyKind kind) {
  auto* c = weft::surface::work_of<weft::detail::copy_work>(node);
  if (!c) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = weft::detail::check_copy({dst, count, 0, src, count, 0, count, 1, 1}, kind,
                                               weft::detail::is_device_or_graph_range))
    return weft::detail::record(e);
  *c = weft::detail::copy_work::linear(dst, src, count, kind);
  return cudaSuccess;
}

inline cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams* pNodeParams) {
  auto* s = weft::surface::work_of<weft::detail::set_work>(node);
  if (!s || !pNodeParams) return weft::detail::record(cudaErrorInvalidValue);
  *pNodeParams = {s->dst, s->pitch, s->value, s->element_size, s->width, s->height};
  return cudaSuccess;
}

inline cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams* pNodeParams) {
  auto* s = weft::surface::work_of<weft::detail::set_work>(node);
  if (!s) return weft::detail::record(cudaErrorInvalidValue);
  weft::detail::set_work work;
  if (cudaError_t e = weft::surface::set_work_of(pNodeParams, work)) return weft::detail::record(e);
  *s = work;
  return cudaSuccess;
}

inline cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* pNodeParams) {
  auto* h = weft::surface::work_of<weft::detail::host_work>(node);
  if (!h || !pNodeParams) return weft::detail::record(cudaErrorInvalidValue);
  *pNodeParams = {h->fn, h->data};
  return cudaSuccess;
}

inline cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* pNodeParams) {
  auto* h = weft::surface::work_of<weft::detail::host_work>(node);
  if (!h || !pNodeParams || !pNodeParams->fn) return weft::detail::record(cudaErrorInvalidValue);
  *h = {pNodeParams->fn, pNodeParams->userData};
  return cudaSuccess;
}

/// Removes the node and its edges; not in a graph with memory allocation or
/// free nodes (cudaErrorNotSupported), as in CUDA.
inline cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  if (!node || !node->owner) return weft::detail::record(cudaErrorInvalidValue);
  if (weft::detail::has_memory_nodes(*node->owner)) return weft::detail::record(cudaErrorNotSupported);
  node->owner->destroy(node);
  return cudaSuccess;
}

/// A deep copy: its nodes are new nodes (cudaGraphNodeFindInClone maps
/// them), and child graphs are copied too. A graph with memory allocation
/// or free nodes cannot be cloned (cudaErrorNotSupported), as in CUDA.
inline cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph) {
  if (!pGraphClone || !originalGraph) return weft::detail::record(cudaErrorInvalidValue);
  if (weft::detail::has_memory_nodes(*originalGraph)) return weft::detail::record(cudaErrorNotSupported);
  // CUDA: a graph with conditional nodes cannot be cloned.
  if (originalGraph->has_conditional_nodes()) return weft::detail::record(cudaErrorNotSupported);
  std::unordered_map<const CUgraphNode_st*, CUgraphNode_st*> copies;
  auto copy = originalGraph->clone(&copies);
  copy->copies_of = std::move(copies);
  *pGraphClone = copy.release();
  return cudaSuccess;
}

/// The node of `clonedGraph` that copies `originalNode` of the graph it was
/// cloned from.
inline cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* pNode, cudaGraphNode_t originalNode,
                                            cudaGraph_t clonedGraph) {
  if (!pNode || !originalNode || !clonedGraph) return weft::detail::record(cudaErrorInvalidValue);
  auto found = clonedGraph->copies_of.find(originalNode);
  if (found == clonedGraph->copies_of.end()) return weft::detail::record(cudaErrorInvalidValue);
  *pNode = found->second;
  return cudaSuccess;
}
