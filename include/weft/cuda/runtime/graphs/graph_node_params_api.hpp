// The generic node calls of CUDA 12.2 on: cudaGraphAddNode and
// cudaGraphNodeSetParams with cudaGraphNodeParams, a tagged union of every
// kind's parameters. Each kind forwards to its own call (cudaGraphAddKernelNode,
// cudaGraphAddMemcpyNode, ...), so checks and codes are the same.
//
// Child graphs come in two ownerships: cudaGraphChildGraphOwnershipClone
// embeds a copy (cudaGraphAddChildGraphNode), ...Move hands the graph itself
// to the node, the one way to embed a graph with memory nodes; the moved
// graph belongs to the node from then on. Conditional nodes are
// graph_conditional_api.hpp's; external semaphores are not there
// (cudaErrorNotSupported).
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>

#include "weft/cuda/runtime/driver_enums.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_api.hpp"
#include "weft/cuda/runtime/graphs/graph_conditional_api.hpp"
#include "weft/cuda/runtime/graphs/graph_copy_node_api.hpp"
#include "weft/cuda/runtime/graphs/graph_event_node_api.hpp"
#include "weft/cuda/runtime/graphs/graph_memory_api.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/cuda/runtime/memory/memory_pools.hpp"
#include "weft/cuda/runtime/memory/pitched_memory.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/graph_model.hpp"

struct cudaKernelNodeParamsV2 {
  void* func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};

struct cudaMemcpyNodeParams {
  int flags;
  int reserved[3];
  cudaMemcpy3DParms copyParams;
};

struct cudaMemsetParamsV2 {
  void* dst;
  std::size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  std::size_t width;
  std::size_t height;
};

struct cudaHostNodeParamsV2 {
  cudaHostFn_t fn;
  void* userData;
};

struct cudaChildGraphNodeParams {
  cudaGraph_t graph;
  cudaGraphChildGraphNodeOwnership ownership;
};

struct cudaEventRecordNodeParams {
  cudaEvent_t event;
};

struct cudaEventWaitNodeParams {
  cudaEvent_t event;
};

struct cudaMemAllocNodeParamsV2 {
  cudaMemPoolProps poolProps;
  const cudaMemAccessDesc* accessDescs;
  std::size_t accessDescCount;
  std::size_t bytesize;
  void* dptr;
};

struct cudaMemFreeNodeParams {
  void* dptr;
};

/// CUDA 13's layout (256 bytes). The union lacks CUDA's extSemSignal and
/// extSemWait members: weft has no external semaphores.
struct cudaGraphNodeParams {
  cudaGraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    cudaKernelNodeParamsV2 kernel;
    cudaMemcpyNodeParams memcpy;
    cudaMemsetParamsV2 memset;
    cudaHostNodeParamsV2 host;
    cudaChildGraphNodeParams graph;
    cudaEventWaitNodeParams eventWait;
    cudaEventRecordNodeParams eventRecord;
    cudaMemAllocNodeParamsV2 alloc;
    cudaMemFreeNodeParams free;
    cudaConditionalNodeParams conditional;
  };
  long long reserved2;
};
static_assert(sizeof(cudaGraphNodeParams) == 256, "cudaGraphNodeParams has CUDA 13's size");

namespace weft::surface {

inline bool zero_reserved(const cudaGraphNodeParams& p) {
  return std::all_of(std::begin(p.reserved0), std::end(p.reserved0), [](int v) { return v == 0; }) && p.reserved2 == 0;
}

inline cudaKernelNodeParams kernel_parameters(const cudaKernelNodeParamsV2& k) {
  return {k.func, k.gridDim, k.blockDim, k.sharedMemBytes, k.kernelParams, k.extra};
}

inline cudaMemsetParams set_parameters(const cudaMemsetParamsV2& s) {
  return {s.dst, s.pitch, s.value, s.elementSize, s.width, s.height};
}

inline bool plain_copy(const cudaMemcpyNodeParams& c) {
  return c.flags == 0 && std::all_of(std::begin(c.reserved), std::end(c.reserved), [](int v) { return v == 0; });
}

/// A child graph node that owns `child` itself.
inline cudaError_t add_moved_child(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   std::size_t numDependencies, cudaGraph_t child) {
  if (!pGraphNode || !graph || !child || child == graph || child->moved_into_parent)
    return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return weft::detail::record(e);
  child->moved_into_parent = true;
  *pGraphNode =
      add_node(graph, pDependencies, numDependencies, weft::detail::child_work{std::shared_ptr<CUgraph_st>(child)});
  return cudaSuccess;
}

}  // namespace weft::surface

/// nodeParams->type picks the kind; reserved fields must be zero. For an
/// allocation node, nodeParams->alloc.dptr receives the address.
/// dependencyData may be null; where given, only ordinary (all-zero) edges
/// are accepted so far.
inline cudaError_t cudaGraphAddNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t* pDependencies, const cudaGraphEdgeData* dependencyData,
                                    std::size_t numDependencies, cudaGraphNodeParams* nodeParams) {
  using namespace weft::surface;
  using weft::detail::record;
  if (!nodeParams || !zero_reserved(*nodeParams) || !ordinary_edges(dependencyData, numDependencies))
    return record(cudaErrorInvalidValue);
  cudaGraphNodeParams& p = *nodeParams;
  switch (p.type) {
    case cudaGraphNodeTypeKernel: {
      cudaKernelNodeParams k = kernel_parameters(p.kernel);
      return cudaGraphAddKernelNode(pGraphNode, graph, pDependencies, numDependencies, &k);
    }
    case cudaGraphNodeTypeMemcpy:
      if (!plain_copy(p.memcpy)) return record(cudaErrorInvalidValue);
      return cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &p.memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
      cudaMemsetParams s = set_parameters(p.memset);
      return cudaGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies, &s);
    }
    case cudaGraphNodeTypeHost: {
      cudaHostNodeParams h{p.host.fn, p.host.userData};
      return cudaGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies, &h);
    }
    case cudaGraphNodeTypeGraph:
      if (p.graph.ownership == cudaGraphChildGraphOwnershipMove)
        return add_moved_child(pGraphNode, graph, pDependencies, numDependencies, p.graph.graph);
      if (p.graph.ownership != cudaGraphChildGraphOwnershipClone) return record(cudaErrorInvalidValue);
      return cudaGraphAddChildGraphNode(pGraphNode, graph, pDependencies, numDependencies, p.graph.graph);
    case cudaGraphNodeTypeEmpty:
      return cudaGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies);
    case cudaGraphNodeTypeWaitEvent:
      return cudaGraphAddEventWaitNode(pGraphNode, graph, pDependencies, numDependencies, p.eventWait.event);
    case cudaGraphNodeTypeEventRecord:
      return cudaGraphAddEventRecordNode(pGraphNode, graph, pDependencies, numDependencies, p.eventRecord.event);
    case cudaGraphNodeTypeMemAlloc: {
      cudaMemAllocNodeParams a{p.alloc.poolProps, p.alloc.accessDescs, p.alloc.accessDescCount, p.alloc.bytesize,
                               nullptr};
      cudaError_t e = cudaGraphAddMemAllocNode(pGraphNode, graph, pDependencies, numDependencies, &a);
      if (e == cudaSuccess) p.alloc.dptr = a.dptr;
      return e;
    }
    case cudaGraphNodeTypeMemFree:
      return cudaGraphAddMemFreeNode(pGraphNode, graph, pDependencies, numDependencies, p.free.dptr);
    case cudaGraphNodeTypeConditional:
      // Only ordinary edges exist, which dependencyData was checked to be.
      if (cudaError_t e = add_conditional_node(pGraphNode, graph, pDependencies, numDependencies, &p.conditional))
        return record(e);
      return cudaSuccess;
    case cudaGraphNodeTypeExtSemaphoreSignal:
    case cudaGraphNodeTypeExtSemaphoreWait:
      return record(cudaErrorNotSupported);
    default:
      return record(cudaErrorInvalidValue);
  }
}

/// The type must be the node's (else cudaErrorInvalidValue). Allocation and
/// free nodes cannot be changed, nor, here, which graph a child graph node
/// embeds or a conditional node's handle and bodies (cudaErrorNotSupported).
inline cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* nodeParams) {
  using namespace weft::surface;
  using weft::detail::record;
  if (!node || !nodeParams || !zero_reserved(*nodeParams)) return record(cudaErrorInvalidValue);
  cudaGraphNodeParams& p = *nodeParams;
  if (p.type != node_type(node->work)) return record(cudaErrorInvalidValue);
  switch (p.type) {
    case cudaGraphNodeTypeKernel: {
      cudaKernelNodeParams k = kernel_parameters(p.kernel);
      return cudaGraphKernelNodeSetParams(node, &k);
    }
    case cudaGraphNodeTypeMemcpy:
      if (!plain_copy(p.memcpy)) return record(cudaErrorInvalidValue);
      return cudaGraphMemcpyNodeSetParams(node, &p.memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
      cudaMemsetParams s = set_parameters(p.memset);
      return cudaGraphMemsetNodeSetParams(node, &s);
    }
    case cudaGraphNodeTypeHost: {
      cudaHostNodeParams h{p.host.fn, p.host.userData};
      return cudaGraphHostNodeSetParams(node, &h);
    }
    case cudaGraphNodeTypeEmpty:
      return cudaSuccess;
    case cudaGraphNodeTypeWaitEvent:
      return cudaGraphEventWaitNodeSetEvent(node, p.eventWait.event);
    case cudaGraphNodeTypeEventRecord:
      return cudaGraphEventRecordNodeSetEvent(node, p.eventRecord.event);
    default:  // child graph, conditional, allocation and free nodes
      return record(cudaErrorNotSupported);
  }
}
