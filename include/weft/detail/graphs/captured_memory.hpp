// Stream-ordered allocation in a capturing stream (CUDA guide, "Graph Memory
// Nodes": stream capture): cudaMallocAsync becomes an allocation node of the
// capture's graph and returns the node's address at once, as in CUDA;
// cudaFreeAsync of a graph allocation becomes a free node, by the rules of
// cudaGraphAddMemFreeNode. Other stream-ordered frees stay refused during a
// capture (stream_capture.hpp's refuse_capture).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/stream.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/graphs/stream_capture.hpp"

namespace weft::detail {

/// The graph stream `s` captures into; null when it does not capture, or
/// when its capture is invalidated (the caller's usual path answers then).
inline CUgraph_st* capturing_graph(CUstream_st& s) {
  if (!any_capture()) return nullptr;
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  auto c = registry.of(&s);
  return c && !c->invalidated ? c->graph : nullptr;
}

/// The nodes that the next node captured from `s` will depend on.
inline std::vector<CUgraphNode_st*> capture_dependencies(CUstream_st& s) {
  auto& registry = capture_registry::get();
  std::lock_guard lock(registry.mutex);
  auto c = registry.of(&s);
  if (!c) return {};
  auto found = c->dependencies.find(&s);
  return found == c->dependencies.end() ? std::vector<CUgraphNode_st*>{} : found->second;
}

/// cudaMallocAsync of `bytes` (nonzero) into `s`, which captures into `g`;
/// nullopt if the capture ended meanwhile. After a captured cudaFreeAsync
/// of an allocation of the same capture, in stream order, it may take that
/// allocation's address, as an allocation node may (graph_memory.hpp).
inline std::optional<cudaError_t> capture_allocation(CUstream_st& s, CUgraph_st& g, std::size_t bytes, void** out) {
  auto& pool = graph_memory::of(s.device);
  auto previous = reusable_allocation(g, capture_dependencies(s), s.device, bytes);
  auto allocation = previous ? pool.reserve_reusing(previous, bytes) : pool.reserve(bytes);
  if (!allocation) return record(cudaErrorMemoryAllocation);
  allocation->owner = g.serial;
  void* address = allocation->address;
  auto result = capture_into(s, [&] { return alloc_work{bytes, s.device, std::move(allocation), nullptr}; });
  if (result == cudaSuccess) *out = address;
  return result;
}

/// cudaFreeAsync of graph allocation `a` (at `p`) into `s`, which captures
/// into `g`; nullopt if the capture ended meanwhile.
inline std::optional<cudaError_t> capture_free(CUstream_st& s, CUgraph_st& g, void* p,
                                               std::shared_ptr<graph_allocation> a) {
  if (cudaError_t e = claim_free(g, a)) return record(e);
  return capture_into(s, [&] { return free_work{p, std::move(a)}; });
}

}  // namespace weft::detail
