// Launch attributes (CUDA 13's cudaLaunchAttributeID and its value union),
// shared by cudaLaunchKernelEx, streams (cudaStreamSetAttribute) and graph
// kernel nodes (cudaGraphKernelNodeSetAttribute), each of which takes only
// some of them; and the checks CUDA makes of their values. What weft does
// with each is in docs/graphs.md, "Launch and stream attributes": cluster
// shape, cooperative launch, priority and programmatic dependent launch take
// effect; the L2 access policy, synchronisation policy, memory
// synchronisation domains and scheduling hints are checked and stored, with
// nothing on a CPU to apply them to.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "weft/cuda/runtime/driver_types.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/runtime/device_properties.hpp"
#include "weft/detail/streams/stream_control.hpp"
#include "weft/detail/streams/stream_registry.hpp"

struct CUgraphDeviceUpdatableNode_st;
using cudaGraphDeviceNode_t = CUgraphDeviceUpdatableNode_st*;

enum cudaLaunchAttributeID : int {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8,
  cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10,
  cudaLaunchAttributePreferredClusterDimension = 11,
  cudaLaunchAttributeLaunchCompletionEvent = 12,
  cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
  cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
  cudaLaunchAttributeNvlinkUtilCentricScheduling = 16,
};

/// CUDA 13's layout: 64 bytes.
union cudaLaunchAttributeValue {
  char pad[64];
  cudaAccessPolicyWindow accessPolicyWindow;
  int cooperative;
  cudaSynchronizationPolicy syncPolicy;
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } clusterDim;
  cudaClusterSchedulingPolicy clusterSchedulingPolicyPreference;
  int programmaticStreamSerializationAllowed;
  struct {
    cudaEvent_t event;
    int flags;
    int triggerAtBlockStart;
  } programmaticEvent;
  int priority;
  cudaLaunchMemSyncDomainMap memSyncDomainMap;
  cudaLaunchMemSyncDomain memSyncDomain;
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } preferredClusterDim;
  struct {
    cudaEvent_t event;
    int flags;
  } launchCompletionEvent;
  struct {
    int deviceUpdatable;
    cudaGraphDeviceNode_t devNode;
  } deviceUpdatableKernelNode;
  unsigned int sharedMemCarveout;
  unsigned int nvlinkUtilCentricScheduling;
};
static_assert(sizeof(cudaLaunchAttributeValue) == 64);

// A stream's and a kernel node's attributes are launch attributes under
// other names, as in CUDA 12 and 13 (which spell the IDs as macros;
// constants here).
using cudaStreamAttrID = cudaLaunchAttributeID;
using cudaStreamAttrValue = cudaLaunchAttributeValue;
inline constexpr cudaStreamAttrID cudaStreamAttributeAccessPolicyWindow = cudaLaunchAttributeAccessPolicyWindow;
inline constexpr cudaStreamAttrID cudaStreamAttributeSynchronizationPolicy = cudaLaunchAttributeSynchronizationPolicy;
inline constexpr cudaStreamAttrID cudaStreamAttributeMemSyncDomainMap = cudaLaunchAttributeMemSyncDomainMap;
inline constexpr cudaStreamAttrID cudaStreamAttributeMemSyncDomain = cudaLaunchAttributeMemSyncDomain;
inline constexpr cudaStreamAttrID cudaStreamAttributePriority = cudaLaunchAttributePriority;

using cudaKernelNodeAttrID = cudaLaunchAttributeID;
using cudaKernelNodeAttrValue = cudaLaunchAttributeValue;
inline constexpr cudaKernelNodeAttrID cudaKernelNodeAttributeAccessPolicyWindow = cudaLaunchAttributeAccessPolicyWindow;
inline constexpr cudaKernelNodeAttrID cudaKernelNodeAttributeCooperative = cudaLaunchAttributeCooperative;
inline constexpr cudaKernelNodeAttrID cudaKernelNodeAttributePriority = cudaLaunchAttributePriority;
inline constexpr cudaKernelNodeAttrID cudaKernelNodeAttributeClusterDimension = cudaLaunchAttributeClusterDimension;
inline constexpr cudaKernelNodeAttrID cudaKernelNodeAttributeClusterSchedulingPolicyPreference =
    cudaLaunchAttributeClusterSchedulingPolicyPreference;
inline constexpr cudaKernelNodeAttrID cudaKernelNodeAttributeMemSyncDomainMap = cudaLaunchAttributeMemSyncDomainMap;
inline constexpr cudaKernelNodeAttrID cudaKernelNodeAttributeMemSyncDomain = cudaLaunchAttributeMemSyncDomain;
inline constexpr cudaKernelNodeAttrID cudaKernelNodeAttributePreferredSharedMemoryCarveout =
    cudaLaunchAttributePreferredSharedMemoryCarveout;
inline constexpr cudaKernelNodeAttrID cudaKernelNodeAttributeDeviceUpdatableKernelNode =
    cudaLaunchAttributeDeviceUpdatableKernelNode;
inline constexpr cudaKernelNodeAttrID cudaKernelNodeAttributeNvlinkUtilCentricScheduling =
    cudaLaunchAttributeNvlinkUtilCentricScheduling;

struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
};

namespace weft::surface {

/// Where an attribute is given: CUDA 13's driver_types.h says, for each ID,
/// whether it is "valid for streams, graph nodes, launches".
enum class attribute_place { launch, stream, kernel_node };

inline bool attribute_valid_in(cudaLaunchAttributeID id, attribute_place place) {
  bool launch = place == attribute_place::launch, stream = place == attribute_place::stream,
       node = place == attribute_place::kernel_node;
  switch (id) {
    case cudaLaunchAttributeIgnore:
    case cudaLaunchAttributeProgrammaticStreamSerialization:
    case cudaLaunchAttributeProgrammaticEvent:
    case cudaLaunchAttributeLaunchCompletionEvent:
      return launch;
    case cudaLaunchAttributeAccessPolicyWindow:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
      return true;
    case cudaLaunchAttributeNvlinkUtilCentricScheduling:
      return !stream;  // an H100 refuses it on a stream
    case cudaLaunchAttributeSynchronizationPolicy:
      return stream;
    case cudaLaunchAttributeCooperative:
    case cudaLaunchAttributeClusterDimension:
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
    case cudaLaunchAttributePreferredClusterDimension:
    case cudaLaunchAttributeDeviceUpdatableKernelNode:
    case cudaLaunchAttributePreferredSharedMemoryCarveout:
      return launch || node;
  }
  return false;
}

/// A window of at most cudaDevAttrMaxAccessPolicyWindowSize bytes (128 MiB
/// on an H100), a hit ratio in [0, 1], and a miss property that is not
/// persisting (CUDA: "must be either NORMAL or STREAMING"). The hit
/// property is not checked: an H100 takes 3 (pdl_probe.expected).
inline cudaError_t check_access_policy(const cudaAccessPolicyWindow& w) {
  auto most =
      static_cast<std::size_t>(weft::detail::fixed_properties(weft::detail::current_device).accessPolicyMaxWindowSize);
  if (w.num_bytes > most) return cudaErrorInvalidValue;
  if (!(w.hitRatio >= 0.0f && w.hitRatio <= 1.0f)) return cudaErrorInvalidValue;
  if (w.missProp != cudaAccessPropertyNormal && w.missProp != cudaAccessPropertyStreaming) return cudaErrorInvalidValue;
  return cudaSuccess;
}

/// An event a launch records: live, without timing (CUDA requires
/// cudaEventDisableTiming), with no record flags. The codes are an H100's
/// (pdl_probe.expected): a timed event is cudaErrorNotSupported, record
/// flags cudaErrorIllegalState.
inline cudaError_t check_launch_event(cudaEvent_t event, int flags) {
  CUevent_st* e = weft::detail::live_event(event);
  if (!e) return cudaErrorInvalidResourceHandle;
  if (!(e->flags & cudaEventDisableTiming)) return cudaErrorNotSupported;
  if (flags != 0) return cudaErrorIllegalState;
  return cudaSuccess;
}

/// The checks of one attribute's value that need nothing but the value
/// (the cluster shapes are checked against the grid at the launch).
inline cudaError_t check_attribute(cudaLaunchAttributeID id, const cudaLaunchAttributeValue& v, attribute_place place) {
  if (!attribute_valid_in(id, place)) return cudaErrorInvalidValue;
  // Hopper's four physical domains (cudaDevAttrMemSyncDomainCount).
  constexpr unsigned domains = 4;
  switch (id) {
    case cudaLaunchAttributeAccessPolicyWindow:
      return check_access_policy(v.accessPolicyWindow);
    case cudaLaunchAttributeSynchronizationPolicy:
      return v.syncPolicy >= cudaSyncPolicyAuto && v.syncPolicy <= cudaSyncPolicyBlockingSync ? cudaSuccess
                                                                                              : cudaErrorInvalidValue;
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
      return v.clusterSchedulingPolicyPreference >= cudaClusterSchedulingPolicyDefault &&
                     v.clusterSchedulingPolicyPreference <= cudaClusterSchedulingPolicyLoadBalancing
                 ? cudaSuccess
                 : cudaErrorInvalidValue;
    case cudaLaunchAttributeProgrammaticEvent:
      return check_launch_event(v.programmaticEvent.event, v.programmaticEvent.flags);
    case cudaLaunchAttributeLaunchCompletionEvent:
      return check_launch_event(v.launchCompletionEvent.event, v.launchCompletionEvent.flags);
    case cudaLaunchAttributeMemSyncDomainMap:
      return v.memSyncDomainMap.default_ < domains && v.memSyncDomainMap.remote < domains ? cudaSuccess
                                                                                          : cudaErrorInvalidValue;
    case cudaLaunchAttributeMemSyncDomain:
      return v.memSyncDomain == cudaLaunchMemSyncDomainDefault || v.memSyncDomain == cudaLaunchMemSyncDomainRemote
                 ? cudaSuccess
                 : cudaErrorInvalidValue;
    case cudaLaunchAttributePreferredClusterDimension:
      return v.preferredClusterDim.x && v.preferredClusterDim.y && v.preferredClusterDim.z
                 ? cudaSuccess
                 : cudaErrorInvalidClusterSize;
    case cudaLaunchAttributeDeviceUpdatableKernelNode:
      // Graphs only: an H100 refuses it on a launch into a stream that is
      // not capturing with cudaErrorNotSupported; a node may opt in (0 or
      // 1) but has no device-side update.
      if (place == attribute_place::launch) return cudaErrorNotSupported;
      return v.deviceUpdatableKernelNode.deviceUpdatable == 0 ? cudaSuccess : cudaErrorNotSupported;
    case cudaLaunchAttributePreferredSharedMemoryCarveout:
      return v.sharedMemCarveout <= 100 || v.sharedMemCarveout == static_cast<unsigned>(cudaSharedmemCarveoutDefault)
                 ? cudaSuccess
                 : cudaErrorInvalidValue;
    case cudaLaunchAttributeNvlinkUtilCentricScheduling:
      return v.nvlinkUtilCentricScheduling <= 1 ? cudaSuccess : cudaErrorInvalidValue;
    default:
      return cudaSuccess;
  }
}

/// A priority as CUDA takes it: clamped to the device's range, as
/// cudaStreamCreateWithPriority clamps.
inline int clamped_priority(int priority) {
  return std::clamp(priority, weft::detail::greatest_stream_priority, weft::detail::least_stream_priority);
}

}  // namespace weft::surface
