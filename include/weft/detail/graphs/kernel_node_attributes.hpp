// The launch attributes of a graph's kernel node
// (cudaGraphKernelNodeSetAttribute): kept as set, to be read back, and the
// ones a launch of the node applies: its cluster shape, cooperative launch
// and priority (the last only in a graph instantiated with
// cudaGraphInstantiateFlagUseNodePriority, as in CUDA).
#pragma once

#include <array>
#include <map>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/commands/command.hpp"

namespace weft::detail {

struct kernel_node_attributes {
  // By attribute ID, the 64 bytes of CUDA's cudaLaunchAttributeValue, which
  // this layer does not know by type.
  std::map<int, std::array<unsigned char, 64>> values;
  dim3 cluster{0, 0, 0};  // 0: the kernel's __cluster_dims__, else none
  bool cooperative = false;
  int priority = command::stream_priority;
};

}  // namespace weft::detail
