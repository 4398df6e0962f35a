// Helpers for the graph tests: add a kernel node in one call, and a host
// node's log of the values it was given.
#pragma once

#include <doctest/doctest.h>
#include <weft.hpp>

#include <vector>

// Appends the value a host node was given to the log it points into.
struct log_entry {
  std::vector<int>* log;
  int value;
};
inline void append_to_log(void* entry) {
  auto* e = static_cast<log_entry*>(entry);
  e->log->push_back(e->value);
}

inline cudaGraphNode_t add_kernel(cudaGraph_t g, std::vector<cudaGraphNode_t> deps, const void* func, void** args,
                                  unsigned blocks, unsigned threads) {
  cudaKernelNodeParams p{};
  p.func = const_cast<void*>(func);
  p.gridDim = dim3(blocks);
  p.blockDim = dim3(threads);
  p.kernelParams = args;
  cudaGraphNode_t n = nullptr;
  REQUIRE(cudaGraphAddKernelNode(&n, g, deps.data(), deps.size(), &p) == cudaSuccess);
  return n;
}

// The parameters of a node of the given type, everything else zero.
inline cudaGraphNodeParams node_params(cudaGraphNodeType type) {
  cudaGraphNodeParams p{};
  p.type = type;
  return p;
}
