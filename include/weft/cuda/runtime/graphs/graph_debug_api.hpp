// cudaGraphDebugDotPrint: a graph written as a Graphviz DOT file, for people
// to look at (`dot -Tsvg graph.dot -o graph.svg`). The text is
// detail/graphs/graph_dot.hpp's; the flags (cudaGraphDebugDotFlags) choose
// which parameters the node labels carry, Verbose all of them.
#pragma once

#include <fstream>
#include <string>

#include "weft/cuda/runtime/driver_enums.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/graph_dot.hpp"

/// A null graph or path is cudaErrorInvalidValue; a file that cannot be
/// written, cudaErrorOperatingSystem (CUDA's code for a failed OS call).
/// Flag bits CUDA does not define are ignored, as they only ask for detail.
inline cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned int flags) {
  if (!graph || !path) return weft::detail::record(cudaErrorInvalidValue);
  std::string text = weft::detail::graph_dot(*graph, flags);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return weft::detail::record(cudaErrorOperatingSystem);
  file << text;
  file.flush();
  if (!file) return weft::detail::record(cudaErrorOperatingSystem);
  return cudaSuccess;
}
