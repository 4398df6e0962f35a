// Memcpy nodes in the form of cudaMemcpy3D (CUDA 13's cudaGraphAddMemcpyNode
// and cudaGraphMemcpyNodeSetParams), 2D copies among them, and copies to and
// from `__device__` and `__constant__` variables (the *ToSymbol and
// *FromSymbol forms). The 1D form is graph_api.hpp's.
//
// A node's copy is checked when it is added or set, as cudaMemcpy3D (or
// cudaMemcpyToSymbol) checks it, with the same codes; it runs at each launch.
// Pointers may name the memory of allocation nodes, which exists only while
// their graph runs (graph_memory_api.hpp). CUDA arrays (srcArray, dstArray)
// are copied as cudaMemcpy3D copies them, and read back as themselves.
//
// Symbols are taken by reference, as CUDA's C++ overloads take them and as
// weft's cudaMemcpyToSymbol does (symbol_api.hpp): the type gives the size.
#pragma once

#include <cstddef>
#include <type_traits>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_api.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/cuda/runtime/memory/pitched_memory.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/memory/memory_copies.hpp"

namespace weft::surface {

/// A memcpy node's work from cudaMemcpy3DParms, or the code cudaMemcpy3D
/// refuses them with.
inline cudaError_t copy_work_of(const cudaMemcpy3DParms* p, weft::detail::copy_work& work) {
  weft::detail::copy_work made;
  if (cudaError_t e = copy_of(p, made)) return e;
  if (cudaError_t e = weft::detail::check_copy(made.box(), p->kind, weft::detail::is_device_or_graph_range)) return e;
  work = made;
  return cudaSuccess;
}

/// A 1D copy between `other` and `count` bytes at `offset` into a symbol
/// of `size` bytes at `symbol`, or the code cudaMemcpyToSymbol (or
/// FromSymbol) refuses it with.
inline cudaError_t symbol_copy_work(const void* symbol, std::size_t size, void* other_dst, const void* other_src,
                                    std::size_t count, std::size_t offset, cudaMemcpyKind kind, bool to_symbol,
                                    weft::detail::copy_work& work) {
  void* dst = nullptr;
  const void* src = nullptr;
  if (cudaError_t e =
          weft::detail::check_symbol_copy(const_cast<void*>(symbol), other_dst, other_src, count, kind, to_symbol, size,
                                          offset, dst, src, weft::detail::is_device_or_graph_range))
    return e;
  work = weft::detail::copy_work::linear(dst, src, count, kind);
  return cudaSuccess;
}

/// Adds a memcpy node doing `work` unless `made` is an error.
inline cudaError_t add_copy_node(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                 std::size_t numDependencies, cudaError_t made, weft::detail::copy_work work) {
  if (made) return weft::detail::record(made);
  *pGraphNode = add_node(graph, pDependencies, numDependencies, std::move(work));
  return cudaSuccess;
}

/// Sets a memcpy node's copy to `work` unless `made` is an error.
inline cudaError_t set_copy(cudaGraphNode_t node, cudaError_t made, weft::detail::copy_work work) {
  auto* c = work_of<weft::detail::copy_work>(node);
  if (!c) return weft::detail::record(cudaErrorInvalidValue);
  if (made) return weft::detail::record(made);
  *c = std::move(work);
  return cudaSuccess;
}

/// The checks every node-adding call starts with.
inline cudaError_t check_add(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                             std::size_t numDependencies) {
  if (!pGraphNode || !graph) return cudaErrorInvalidValue;
  return check_dependencies(graph, pDependencies, numDependencies);
}

}  // namespace weft::surface

/// The copy cudaMemcpy3D(pCopyParams) would do, at each launch; a 2D copy
/// is one slice (extent.depth 1).
inline cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                          const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                          const cudaMemcpy3DParms* pCopyParams) {
  using namespace weft::surface;
  if (cudaError_t e = check_add(pGraphNode, graph, pDependencies, numDependencies)) return weft::detail::record(e);
  weft::detail::copy_work work;
  cudaError_t made = copy_work_of(pCopyParams, work);
  return add_copy_node(pGraphNode, graph, pDependencies, numDependencies, made, std::move(work));
}

/// Any memcpy node (1D, 3D, symbol) may be given any copy.
inline cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* pNodeParams) {
  weft::detail::copy_work work;
  cudaError_t made = weft::surface::copy_work_of(pNodeParams, work);
  return weft::surface::set_copy(node, made, std::move(work));
}

template <class T>
cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                           const T& symbol, const void* src, std::size_t count, std::size_t offset,
                                           cudaMemcpyKind kind) {
  using namespace weft::surface;
  if (cudaError_t e = check_add(pGraphNode, graph, pDependencies, numDependencies)) return weft::detail::record(e);
  weft::detail::copy_work work;
  cudaError_t made = symbol_copy_work(&symbol, sizeof(T), nullptr, src, count, offset, kind, true, work);
  return add_copy_node(pGraphNode, graph, pDependencies, numDependencies, made, std::move(work));
}

template <class T>
cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                             void* dst, const T& symbol, std::size_t count, std::size_t offset,
                                             cudaMemcpyKind kind) {
  using namespace weft::surface;
  if (cudaError_t e = check_add(pGraphNode, graph, pDependencies, numDependencies)) return weft::detail::record(e);
  weft::detail::copy_work work;
  cudaError_t made = symbol_copy_work(&symbol, sizeof(T), dst, nullptr, count, offset, kind, false, work);
  return add_copy_node(pGraphNode, graph, pDependencies, numDependencies, made, std::move(work));
}

template <class T>
cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const T& symbol, const void* src,
                                                 std::size_t count, std::size_t offset, cudaMemcpyKind kind) {
  weft::detail::copy_work work;
  cudaError_t made = weft::surface::symbol_copy_work(&symbol, sizeof(T), nullptr, src, count, offset, kind, true, work);
  return weft::surface::set_copy(node, made, std::move(work));
}

template <class T>
cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void* dst, const T& symbol, std::size_t count,
                                                   std::size_t offset, cudaMemcpyKind kind) {
  weft::detail::copy_work work;
  cudaError_t made =
      weft::surface::symbol_copy_work(&symbol, sizeof(T), dst, nullptr, count, offset, kind, false, work);
  return weft::surface::set_copy(node, made, std::move(work));
}
