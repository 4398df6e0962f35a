// CUDA graphs' vocabulary (CUDA 13's driver_types.h): the handles, the
// parameter structs of the node kinds weft runs, and an edge's data. The
// enums (cudaGraphNodeType, cudaGraphInstantiateFlags, ...) are
// driver_enums.hpp's.
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/driver_enums.hpp"
#include "weft/cuda/runtime/streams/stream_api.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"

struct CUgraph_st;
struct CUgraphNode_st;
struct CUgraphExec_st;

using cudaGraph_t = CUgraph_st*;
using cudaGraphNode_t = CUgraphNode_st*;
using cudaGraphExec_t = CUgraphExec_st*;

using cudaGraphDependencyType = cudaGraphDependencyType_enum;

struct cudaKernelNodeParams {
  void* func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void** kernelParams;
  void** extra;
};

struct cudaMemsetParams {
  void* dst;
  std::size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  std::size_t width;
  std::size_t height;
};

struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void* userData;
};

/// All zero is an ordinary edge; type cudaGraphDependencyTypeProgrammatic
/// with a from_port is a programmatic one.
struct cudaGraphEdgeData_st {
  unsigned char from_port;
  unsigned char to_port;
  unsigned char type;
  unsigned char reserved[5];
};
using cudaGraphEdgeData = cudaGraphEdgeData_st;

// A kernel node's outgoing ports (CUDA spells them as macros): its
// completion, every block triggered or exited, every block begun.
inline constexpr unsigned char cudaGraphKernelNodePortDefault = 0;
inline constexpr unsigned char cudaGraphKernelNodePortProgrammatic = 1;
inline constexpr unsigned char cudaGraphKernelNodePortLaunchCompletion = 2;

struct cudaGraphInstantiateParams_st {
  unsigned long long flags;
  cudaStream_t uploadStream;
  cudaGraphNode_t errNode_out;
  cudaGraphInstantiateResult result_out;
};
using cudaGraphInstantiateParams = cudaGraphInstantiateParams_st;

struct cudaGraphExecUpdateResultInfo_st {
  cudaGraphExecUpdateResult result;
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
};
using cudaGraphExecUpdateResultInfo = cudaGraphExecUpdateResultInfo_st;

/// A conditional node's value lives at this address (a weft::detail::
/// conditional_handle), which device code sets with cudaGraphSetConditional.
using cudaGraphConditionalHandle = unsigned long long;

struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  cudaGraphConditionalNodeType type;
  unsigned int size;
  cudaGraph_t* phGraph_out;
};
