// A graph kernel node's launch attributes (cudaGraphKernelNodeSetAttribute,
// cudaGraphKernelNodeGetAttribute, cudaGraphKernelNodeCopyAttributes): the
// attributes CUDA 13 takes for graph nodes, checked as for a launch and
// read back as set. A launch of the node runs with its cluster shape and
// cooperative launch, and with its priority when the graph was instantiated
// with cudaGraphInstantiateFlagUseNodePriority; the others are stored only
// (detail/graphs/kernel_node_attributes.hpp). Instantiation snapshots them,
// as it does the node's parameters.
#pragma once

#include <cstring>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_api.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/cuda/runtime/launch_attributes.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/runtime/occupancy.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/launch.hpp"

namespace weft::surface {

/// The node's work with attribute `id` set to `v`, or the code CUDA refuses
/// it with: a cluster shape is checked against the node's grid as a launch
/// checks it, a cooperative node against what an H100 holds at once.
inline cudaError_t set_node_attribute(weft::detail::kernel_work& k, cudaLaunchAttributeID id,
                                      const cudaLaunchAttributeValue& v) {
  using namespace weft::detail;
  if (cudaError_t e = check_attribute(id, v, attribute_place::kernel_node)) return e;
  kernel_node_attributes& a = k.attributes;
  if (id == cudaLaunchAttributeClusterDimension) {
    launch_options requested;
    requested.cluster = dim3(v.clusterDim.x, v.clusterDim.y, v.clusterDim.z);
    kernel_attributes compiled = runtime::get().attributes(k.func);
    dim3 cluster;
    if (cudaError_t e = cluster_shape(launch_config{k.grid, k.block, k.shared_bytes}, requested,
                                      compiled_cluster_dims().find(k.func, dim3(0, 0, 0)),
                                      compiled.non_portable_cluster_size, cluster))
      return e;
    a.cluster = requested.cluster;
    k.cluster = cluster;
  } else if (id == cudaLaunchAttributeCooperative) {
    auto threads = static_cast<int>(volume(k.block));
    if (v.cooperative != 0 && (volume(k.grid) > max_cooperative_blocks(k.func, threads, k.shared_bytes) ||
                               !host_holds_resident(volume(k.grid), volume(k.block))))
      return cudaErrorCooperativeLaunchTooLarge;
    a.cooperative = v.cooperative != 0;
  } else if (id == cudaLaunchAttributePriority) {
    a.priority = clamped_priority(v.priority);
  }
  std::memcpy(a.values[id].data(), &v, sizeof v);
  return cudaSuccess;
}

}  // namespace weft::surface

inline cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                                   const cudaKernelNodeAttrValue* value) {
  auto* k = weft::surface::work_of<weft::detail::kernel_work>(hNode);
  if (!k || !value) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = weft::surface::set_node_attribute(*k, attr, *value)) return weft::detail::record(e);
  return cudaSuccess;
}

/// What was set, or zero (CUDA's defaults: no access policy window, no
/// cluster given, priority 0, domain 0).
inline cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                                   cudaKernelNodeAttrValue* value_out) {
  using namespace weft::surface;
  auto* k = work_of<weft::detail::kernel_work>(hNode);
  if (!k || !value_out || !attribute_valid_in(attr, attribute_place::kernel_node))
    return weft::detail::record(cudaErrorInvalidValue);
  std::memset(static_cast<void*>(value_out), 0, sizeof *value_out);
  auto stored = k->attributes.values.find(attr);
  if (stored != k->attributes.values.end()) std::memcpy(static_cast<void*>(value_out), stored->second.data(), 64);
  return cudaSuccess;
}

/// The destination takes all of the source's attributes, each checked
/// against the destination's launch shape.
inline cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc) {
  using namespace weft::detail;
  auto* dst = weft::surface::work_of<kernel_work>(hDst);
  auto* src = weft::surface::work_of<kernel_work>(hSrc);
  if (!dst || !src) return record(cudaErrorInvalidValue);
  kernel_work copy = *dst;
  copy.attributes = kernel_node_attributes{};
  copy.cluster = dim3(1, 1, 1);
  // The kernel's own __cluster_dims__, unless the source gives a shape.
  cudaLaunchAttributeValue none{};
  if (cudaError_t e = weft::surface::set_node_attribute(copy, cudaLaunchAttributeClusterDimension, none))
    return record(e);
  copy.attributes.values.clear();
  for (const auto& [id, bytes] : src->attributes.values) {
    cudaLaunchAttributeValue v;
    std::memcpy(static_cast<void*>(&v), bytes.data(), sizeof v);
    if (cudaError_t e = weft::surface::set_node_attribute(copy, static_cast<cudaLaunchAttributeID>(id), v))
      return record(e);
  }
  *dst = std::move(copy);
  return cudaSuccess;
}
