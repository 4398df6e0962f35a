// cudaGraphSetConditional, the device side of conditional graph nodes
// (cuda/runtime/graph_conditional_api.hpp): a kernel of a graph launch sets
// the value that a conditional node after it decides by. The handle is the
// address of the value's cell, so setting it is one store; the node reads it
// once the kernel has completed, which orders the two.
#pragma once

#include <atomic>

#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/detail/graphs/conditional_nodes.hpp"

/// As in CUDA, concurrent calls for one handle race (the last store wins);
/// a null handle is ignored.
inline void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value) {
  if (handle == 0) return;
  reinterpret_cast<weft::detail::conditional_handle*>(handle)->value.store(value, std::memory_order_relaxed);
}
