// Memory nodes (CUDA guide, "Graph Memory Nodes"): cudaGraphAddMemAllocNode,
// cudaGraphAddMemFreeNode and their parameters, and each device's graph
// memory pool (cudaDeviceGraphMemTrim, cudaDeviceGet/SetGraphMemAttribute).
//
// An allocation node's address is fixed when the node is added and stays
// so for the graph's life. The memory exists from the node on, in each
// launch, until it is freed: by a free node of the same graph, else by
// cudaFree or cudaFreeAsync, a free node of another graph, or the next
// launch of an executable graph instantiated with
// cudaGraphInstantiateFlagAutoFreeOnLaunch. Freed memory goes back to the
// device's pool, which reuses it for the allocations of any graph and keeps
// it until cudaDeviceGraphMemTrim (detail/graphs/graph_memory.hpp).
//
// A graph with memory nodes cannot be cloned, nor have nodes or edges
// deleted, nor be embedded by copy as a child graph (cudaErrorNotSupported),
// and it has one executable graph at a time (a second instantiation is
// cudaErrorNotSupported, as an H100 answers: graph_exec_api.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "weft/cuda/runtime/driver_enums.hpp"
#include "weft/cuda/runtime/driver_types.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/graphs/graph_api.hpp"
#include "weft/cuda/runtime/graphs/graph_types.hpp"
#include "weft/cuda/runtime/memory/memory_pools.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/graph_memory.hpp"
#include "weft/detail/graphs/graph_model.hpp"

struct cudaMemAllocNodeParams {
  cudaMemPoolProps poolProps;
  const cudaMemAccessDesc* accessDescs;
  std::size_t accessDescCount;
  std::size_t bytesize;
  void* dptr;
};

namespace weft::surface {

/// An allocation node's parameters as the program gave them, with the node's
/// own copy of the access descriptors (cudaGraphMemAllocNodeGetParams points
/// into it).
struct alloc_node_parameters {
  cudaMemAllocNodeParams given;
  std::vector<cudaMemAccessDesc> access;
};

inline bool device_location(const cudaMemLocation& where) {
  return where.type == cudaMemLocationTypeDevice && weft::detail::valid_device(where.id);
}

/// What CUDA 13 requires of cudaMemAllocNodeParams: pinned device memory
/// on a device that exists, no shareable handles (graph memory has no IPC),
/// a size, and at most one access descriptor per device, each for a device.
inline cudaError_t check_alloc_parameters(const cudaMemAllocNodeParams* p) {
  if (!p || p->bytesize == 0) return cudaErrorInvalidValue;
  const cudaMemPoolProps& props = p->poolProps;
  if (props.allocType != cudaMemAllocationTypePinned || props.handleTypes != cudaMemHandleTypeNone ||
      !device_location(props.location))
    return cudaErrorInvalidValue;
  if (p->accessDescCount > static_cast<std::size_t>(weft::detail::device_count())) return cudaErrorInvalidValue;
  if (p->accessDescCount > 0 && !p->accessDescs) return cudaErrorInvalidValue;
  for (std::size_t i = 0; i < p->accessDescCount; ++i) {
    const cudaMemAccessDesc& d = p->accessDescs[i];
    if (!device_location(d.location)) return cudaErrorInvalidValue;
    if (d.flags != cudaMemAccessFlagsProtNone && d.flags != cudaMemAccessFlagsProtRead &&
        d.flags != cudaMemAccessFlagsProtReadWrite)
      return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

/// A new allocation node's work: its address reserved now, for good, or
/// taken from an allocation of the graph freed before the node (CUDA's
/// address reuse within a graph).
inline cudaError_t alloc_work_of(cudaGraph_t graph, std::span<cudaGraphNode_t const> dependencies,
                                 cudaMemAllocNodeParams* p, weft::detail::alloc_work& work) {
  if (cudaError_t e = check_alloc_parameters(p)) return e;
  int device = p->poolProps.location.id;
  auto& pool = weft::detail::graph_memory::of(device);
  auto previous = weft::detail::reusable_allocation(*graph, dependencies, device, p->bytesize);
  auto allocation = previous ? pool.reserve_reusing(previous, p->bytesize) : pool.reserve(p->bytesize);
  if (!allocation) return cudaErrorMemoryAllocation;
  allocation->owner = graph->serial;
  auto kept = std::make_shared<alloc_node_parameters>();
  kept->given = *p;
  kept->access.assign(p->accessDescs, p->accessDescs + p->accessDescCount);
  kept->given.accessDescs = kept->access.empty() ? nullptr : kept->access.data();
  kept->given.dptr = allocation->address;
  p->dptr = allocation->address;
  work = {p->bytesize, device, std::move(allocation), std::move(kept)};
  return cudaSuccess;
}

/// A free node's work, or cudaErrorInvalidValue for an address no
/// allocation node returned, or one freed already by a free node of this
/// graph, or, as CUDA 13 has it, freed in its own graph and another.
inline cudaError_t free_work_of(cudaGraph_t graph, void* dptr, weft::detail::free_work& work) {
  auto allocation = weft::detail::graph_allocation_at(dptr);
  if (!dptr || !allocation) return cudaErrorInvalidValue;
  if (cudaError_t e = weft::detail::claim_free(*graph, allocation)) return e;
  work = {dptr, std::move(allocation)};
  return cudaSuccess;
}

}  // namespace weft::surface

/// Returns the allocation's address in nodeParams->dptr; it stays the
/// allocation's address for the graph's life, in every launch.
inline cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                            cudaMemAllocNodeParams* nodeParams) {
  using namespace weft::surface;
  // A graph moved into a child graph node takes no more memory nodes.
  if (!pGraphNode || !graph || graph->moved_into_parent) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return weft::detail::record(e);
  weft::detail::alloc_work work;
  if (cudaError_t e = alloc_work_of(graph, {pDependencies, numDependencies}, nodeParams, work))
    return weft::detail::record(e);
  *pGraphNode = add_node(graph, pDependencies, numDependencies, std::move(work));
  return cudaSuccess;
}

/// accessDescs points to the node's own copy, valid while the node lives.
inline cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params_out) {
  auto* a = weft::surface::work_of<weft::detail::alloc_work>(node);
  if (!a || !params_out) return weft::detail::record(cudaErrorInvalidValue);
  if (a->parameters) {
    *params_out = static_cast<const weft::surface::alloc_node_parameters*>(a->parameters.get())->given;
    return cudaSuccess;
  }
  // Captured from cudaMallocAsync: the defaults, on the stream's device.
  *params_out = cudaMemAllocNodeParams{};
  params_out->poolProps.allocType = cudaMemAllocationTypePinned;
  params_out->poolProps.location = {cudaMemLocationTypeDevice, a->device};
  params_out->bytesize = a->bytes;
  params_out->dptr = a->allocation->address;
  return cudaSuccess;
}

/// dptr must be an address an allocation node returned.
inline cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t* pDependencies, std::size_t numDependencies,
                                           void* dptr) {
  using namespace weft::surface;
  // A graph moved into a child graph node takes no more memory nodes.
  if (!pGraphNode || !graph || graph->moved_into_parent) return weft::detail::record(cudaErrorInvalidValue);
  if (cudaError_t e = check_dependencies(graph, pDependencies, numDependencies)) return weft::detail::record(e);
  weft::detail::free_work work;
  if (cudaError_t e = free_work_of(graph, dptr, work)) return weft::detail::record(e);
  *pGraphNode = add_node(graph, pDependencies, numDependencies, std::move(work));
  return cudaSuccess;
}

/// dptr_out points to a void*, which receives the address (CUDA's signature).
inline cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out) {
  auto* f = weft::surface::work_of<weft::detail::free_work>(node);
  if (!f || !dptr_out) return weft::detail::record(cudaErrorInvalidValue);
  *static_cast<void**>(dptr_out) = f->address;
  return cudaSuccess;
}

/// Gives back to the system the pool's memory no allocation holds now.
inline cudaError_t cudaDeviceGraphMemTrim(int device) {
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  weft::detail::graph_memory::of(device).trim();
  return cudaSuccess;
}

/// Values are 64-bit unsigned integers (cuuint64_t), in bytes: the memory
/// allocations hold now (UsedMemCurrent) and the pool holds (ReservedMem),
/// in whole 2 MiB blocks, and the highest of each since it was last reset.
inline cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void* value) {
  using weft::detail::record;
  if (!weft::detail::valid_device(device)) return record(cudaErrorInvalidDevice);
  if (!value) return record(cudaErrorInvalidValue);
  auto usage = weft::detail::graph_memory::of(device).read();
  auto* out = static_cast<std::uint64_t*>(value);
  switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent:
      *out = usage.used;
      return cudaSuccess;
    case cudaGraphMemAttrUsedMemHigh:
      *out = usage.used_high;
      return cudaSuccess;
    case cudaGraphMemAttrReservedMemCurrent:
      *out = usage.reserved;
      return cudaSuccess;
    case cudaGraphMemAttrReservedMemHigh:
      *out = usage.reserved_high;
      return cudaSuccess;
    default:
      return record(cudaErrorInvalidValue);
  }
}

/// Only the high watermarks can be set, and only to 0, which resets them
/// (to what is in use, or held, now).
inline cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr, void* value) {
  using weft::detail::record;
  if (!weft::detail::valid_device(device)) return record(cudaErrorInvalidDevice);
  if (!value || *static_cast<const std::uint64_t*>(value) != 0) return record(cudaErrorInvalidValue);
  auto& pool = weft::detail::graph_memory::of(device);
  if (attr == cudaGraphMemAttrUsedMemHigh) {
    pool.reset_used_high();
    return cudaSuccess;
  }
  if (attr == cudaGraphMemAttrReservedMemHigh) {
    pool.reset_reserved_high();
    return cudaSuccess;
  }
  return record(cudaErrorInvalidValue);
}
