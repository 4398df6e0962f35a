// CUDA 13's driver_types.h vocabulary that host code names and that no
// other header of this folder owns: compute modes, L2 access policy
// windows, synchronisation and cluster scheduling policies, peer-to-peer
// attributes, and the memory pool types. The values are CUDA's, so that a
// program comparing against numbers, or storing them, behaves as on a GPU.
// The enums a runtime call of their own area needs stay with that call
// (cudaLimit in device_api.hpp, cudaMemoryAdvise in managed_memory.hpp, ...).
// The enums of features weft does not run (graphs, textures, interop, ...)
// are in driver_enums.hpp; their structures and calls are not declared.
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/driver_enums.hpp"

/// cudaDeviceProp::computeMode and cudaDevAttrComputeMode. weft's devices
/// are always in the default mode: any number of host threads may use one.
enum cudaComputeMode : int {
  cudaComputeModeDefault = 0,
  cudaComputeModeExclusive = 1,
  cudaComputeModeProhibited = 2,
  cudaComputeModeExclusiveProcess = 3,
};

/// How an access policy window asks the L2 cache to treat its lines. A CPU
/// has no such control: windows are stored and reported, with no effect.
enum cudaAccessProperty : int {
  cudaAccessPropertyNormal = 0,
  cudaAccessPropertyStreaming = 1,
  cudaAccessPropertyPersisting = 2,
};

struct cudaAccessPolicyWindow {
  void* base_ptr;
  std::size_t num_bytes;
  float hitRatio;
  cudaAccessProperty hitProp;
  cudaAccessProperty missProp;
};

enum cudaSynchronizationPolicy : int {
  cudaSyncPolicyAuto = 1,
  cudaSyncPolicySpin = 2,
  cudaSyncPolicyYield = 3,
  cudaSyncPolicyBlockingSync = 4,
};

enum cudaClusterSchedulingPolicy : int {
  cudaClusterSchedulingPolicyDefault = 0,
  cudaClusterSchedulingPolicySpread = 1,
  cudaClusterSchedulingPolicyLoadBalancing = 2,
};

enum cudaLaunchMemSyncDomain : int {
  cudaLaunchMemSyncDomainDefault = 0,
  cudaLaunchMemSyncDomainRemote = 1,
};

struct cudaLaunchMemSyncDomainMap {
  unsigned char default_;
  unsigned char remote;
};

/// cudaDeviceGetP2PAttribute's questions.
enum cudaDeviceP2PAttr : int {
  cudaDevP2PAttrPerformanceRank = 1,
  cudaDevP2PAttrAccessSupported = 2,
  cudaDevP2PAttrNativeAtomicSupported = 3,
  cudaDevP2PAttrCudaArrayAccessSupported = 4,
  cudaDevP2PAttrOnlyPartialNativeAtomicSupported = 5,
};

/// The scope of a cooperative launch (cudaFuncAttributes and CUDA's
/// cooperative groups internals).
enum cudaCGScope : int {
  cudaCGScopeInvalid = 0,
  cudaCGScopeGrid = 1,
  cudaCGScopeMultiGrid = 2,
  cudaCGScopeReserved = 2,
};

enum cudaRoundMode : int {
  cudaRoundNearest = 0,
  cudaRoundZero = 1,
  cudaRoundPosInf = 2,
  cudaRoundMinInf = 3,
};

// ---- Memory pools (stream-ordered allocation) ----

struct CUmemPoolHandle_st;
using cudaMemPool_t = CUmemPoolHandle_st*;

enum cudaMemPoolAttr : int {
  cudaMemPoolReuseFollowEventDependencies = 0x1,
  cudaMemPoolReuseAllowOpportunistic = 0x2,
  cudaMemPoolReuseAllowInternalDependencies = 0x3,
  cudaMemPoolAttrReleaseThreshold = 0x4,
  cudaMemPoolAttrReservedMemCurrent = 0x5,
  cudaMemPoolAttrReservedMemHigh = 0x6,
  cudaMemPoolAttrUsedMemCurrent = 0x7,
  cudaMemPoolAttrUsedMemHigh = 0x8,
};

enum cudaMemAllocationType : int {
  cudaMemAllocationTypeInvalid = 0x0,
  cudaMemAllocationTypePinned = 0x1,
  cudaMemAllocationTypeManaged = 0x2,
  cudaMemAllocationTypeMax = 0x7fffffff,
};

enum cudaMemAllocationHandleType : int {
  cudaMemHandleTypeNone = 0x0,
  cudaMemHandleTypePosixFileDescriptor = 0x1,
  cudaMemHandleTypeWin32 = 0x2,
  cudaMemHandleTypeWin32Kmt = 0x4,
  cudaMemHandleTypeFabric = 0x8,
};

enum cudaMemAccessFlags : int {
  cudaMemAccessFlagsProtNone = 0,
  cudaMemAccessFlagsProtRead = 1,
  cudaMemAccessFlagsProtReadWrite = 3,
};

// cudaMemAccessDesc and cudaMemPoolProps, which hold a cudaMemLocation, are
// memory_pools.hpp's.
