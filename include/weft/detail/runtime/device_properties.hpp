// What a simulated device is, in CUDA's terms (cudaGetDeviceProperties,
// cudaDeviceGetAttribute): an sm_90 device whose SMs are the worker threads
// (multiProcessorCount = worker_count()) and whose global memory is the
// host's. Values that describe GPU hardware weft does not have (clocks, bus
// width, L2 size) are an H100 SXM's, so that programs that print or compute
// with them see plausible numbers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>

#include "weft/detail/base/cuda_device_properties.hpp"
#include "weft/detail/base/host_machine.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail {

inline cudaDeviceProp device_properties(int d) {
  cudaDeviceProp p{};
  std::string cpu = host_cpu_name();
  std::string name = "weft CPU device" + (cpu.empty() ? std::string() : " (" + cpu + ")");
  std::snprintf(p.name, sizeof p.name, "%s", name.c_str());
  std::snprintf(p.uuid.bytes, sizeof p.uuid.bytes, "weft-device-%03d", d);
  p.totalGlobalMem = physical_memory_bytes();
  p.sharedMemPerBlock = 48 * 1024;
  p.regsPerBlock = 65536;
  p.warpSize = 32;
  p.memPitch = 2147483647;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsDim[0] = 1024;
  p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = 65535;
  p.maxGridSize[2] = 65535;
  p.totalConstMem = 64 * 1024;
  p.major = 9;
  p.minor = 0;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.multiProcessorCount = static_cast<int>(runtime::get(d).worker_count());
  p.integrated = 0;
  p.canMapHostMemory = 1;
  p.surfaceAlignment = 512;
  p.concurrentKernels = 1;
  p.pciBusID = d + 1;  // distinct per device, as on a multi-GPU host
  // Asynchronous copies overlap kernels of other streams (they run on the
  // host thread or a worker, not on the SM pool's blocks): an H100's count.
  p.asyncEngineCount = 2;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = 5120;
  p.l2CacheSize = 50 * 1024 * 1024;
  p.persistingL2CacheMaxSize = 0;
  p.maxThreadsPerMultiProcessor = 2048;
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = 228 * 1024;
  p.regsPerMultiprocessor = 65536;
  p.managedMemory = 1;
  // The device is the host: kernels reach any host memory coherently.
  p.hostNativeAtomicSupported = 1;
  p.pageableMemoryAccess = 1;
  p.concurrentManagedAccess = 1;
  p.computePreemptionSupported = 1;
  p.canUseHostPointerForRegisteredMem = 1;
  p.cooperativeLaunch = 1;
  p.sharedMemPerBlockOptin = 227 * 1024;
  p.pageableMemoryAccessUsesHostPageTables = 1;
  p.directManagedMemAccessFromHost = 1;
  p.maxBlocksPerMultiProcessor = 32;
  p.accessPolicyMaxWindowSize = 0;
  p.reservedSharedMemPerBlock = 1024;
  p.hostRegisterSupported = 1;
  p.memoryPoolsSupported = 1;
  p.clusterLaunch = 1;
  p.unifiedFunctionPointers = 1;
  p.clockRate = 1980000;  // kHz
  p.memoryClockRate = 2619000;
  p.deviceOverlap = 1;  // as asyncEngineCount
  return p;
}

/// The attribute's value, if weft knows the attribute.
inline bool device_attribute(cudaDeviceAttr a, int d, int& v) {
  const cudaDeviceProp p = device_properties(d);
  auto i = [](std::size_t n) { return static_cast<int>(std::min<std::size_t>(n, 2147483647)); };
  switch (a) {
    case cudaDevAttrMaxThreadsPerBlock:
      v = p.maxThreadsPerBlock;
      return true;
    case cudaDevAttrMaxBlockDimX:
      v = p.maxThreadsDim[0];
      return true;
    case cudaDevAttrMaxBlockDimY:
      v = p.maxThreadsDim[1];
      return true;
    case cudaDevAttrMaxBlockDimZ:
      v = p.maxThreadsDim[2];
      return true;
    case cudaDevAttrMaxGridDimX:
      v = p.maxGridSize[0];
      return true;
    case cudaDevAttrMaxGridDimY:
      v = p.maxGridSize[1];
      return true;
    case cudaDevAttrMaxGridDimZ:
      v = p.maxGridSize[2];
      return true;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      v = i(p.sharedMemPerBlock);
      return true;
    case cudaDevAttrTotalConstantMemory:
      v = i(p.totalConstMem);
      return true;
    case cudaDevAttrWarpSize:
      v = p.warpSize;
      return true;
    case cudaDevAttrMaxPitch:
      v = i(p.memPitch);
      return true;
    case cudaDevAttrMaxRegistersPerBlock:
      v = p.regsPerBlock;
      return true;
    case cudaDevAttrClockRate:
      v = p.clockRate;
      return true;
    case cudaDevAttrTextureAlignment:
      v = i(p.textureAlignment);
      return true;
    case cudaDevAttrGpuOverlap:
      v = p.deviceOverlap;
      return true;
    case cudaDevAttrMultiProcessorCount:
      v = p.multiProcessorCount;
      return true;
    case cudaDevAttrKernelExecTimeout:
      v = p.kernelExecTimeoutEnabled;
      return true;
    case cudaDevAttrIntegrated:
      v = p.integrated;
      return true;
    case cudaDevAttrCanMapHostMemory:
      v = p.canMapHostMemory;
      return true;
    case cudaDevAttrComputeMode:
      v = p.computeMode;
      return true;
    case cudaDevAttrSurfaceAlignment:
      v = i(p.surfaceAlignment);
      return true;
    case cudaDevAttrConcurrentKernels:
      v = p.concurrentKernels;
      return true;
    case cudaDevAttrEccEnabled:
      v = p.ECCEnabled;
      return true;
    case cudaDevAttrPciBusId:
      v = p.pciBusID;
      return true;
    case cudaDevAttrPciDeviceId:
      v = p.pciDeviceID;
      return true;
    case cudaDevAttrTccDriver:
      v = p.tccDriver;
      return true;
    case cudaDevAttrMemoryClockRate:
      v = p.memoryClockRate;
      return true;
    case cudaDevAttrGlobalMemoryBusWidth:
      v = p.memoryBusWidth;
      return true;
    case cudaDevAttrL2CacheSize:
      v = p.l2CacheSize;
      return true;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      v = p.maxThreadsPerMultiProcessor;
      return true;
    case cudaDevAttrAsyncEngineCount:
      v = p.asyncEngineCount;
      return true;
    case cudaDevAttrUnifiedAddressing:
      v = p.unifiedAddressing;
      return true;
    case cudaDevAttrPciDomainId:
      v = p.pciDomainID;
      return true;
    case cudaDevAttrTexturePitchAlignment:
      v = i(p.texturePitchAlignment);
      return true;
    case cudaDevAttrComputeCapabilityMajor:
      v = p.major;
      return true;
    case cudaDevAttrComputeCapabilityMinor:
      v = p.minor;
      return true;
    case cudaDevAttrStreamPrioritiesSupported:
      v = p.streamPrioritiesSupported;
      return true;
    case cudaDevAttrGlobalL1CacheSupported:
      v = p.globalL1CacheSupported;
      return true;
    case cudaDevAttrLocalL1CacheSupported:
      v = p.localL1CacheSupported;
      return true;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      v = i(p.sharedMemPerMultiprocessor);
      return true;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      v = p.regsPerMultiprocessor;
      return true;
    case cudaDevAttrManagedMemory:
      v = p.managedMemory;
      return true;
    case cudaDevAttrIsMultiGpuBoard:
      v = p.isMultiGpuBoard;
      return true;
    case cudaDevAttrMultiGpuBoardGroupID:
      v = p.multiGpuBoardGroupID;
      return true;
    case cudaDevAttrHostNativeAtomicSupported:
      v = p.hostNativeAtomicSupported;
      return true;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio:
      v = 2;
      return true;  // an H100's
    case cudaDevAttrPageableMemoryAccess:
      v = p.pageableMemoryAccess;
      return true;
    case cudaDevAttrConcurrentManagedAccess:
      v = p.concurrentManagedAccess;
      return true;
    case cudaDevAttrComputePreemptionSupported:
      v = p.computePreemptionSupported;
      return true;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
      v = p.canUseHostPointerForRegisteredMem;
      return true;
    case cudaDevAttrCooperativeLaunch:
      v = p.cooperativeLaunch;
      return true;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      v = i(p.sharedMemPerBlockOptin);
      return true;
    case cudaDevAttrHostRegisterSupported:
      v = p.hostRegisterSupported;
      return true;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
      v = p.pageableMemoryAccessUsesHostPageTables;
      return true;
    case cudaDevAttrDirectManagedMemAccessFromHost:
      v = p.directManagedMemAccessFromHost;
      return true;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      v = p.maxBlocksPerMultiProcessor;
      return true;
    case cudaDevAttrMaxPersistingL2CacheSize:
      v = p.persistingL2CacheMaxSize;
      return true;
    case cudaDevAttrMaxAccessPolicyWindowSize:
      v = p.accessPolicyMaxWindowSize;
      return true;
    case cudaDevAttrReservedSharedMemoryPerBlock:
      v = i(p.reservedSharedMemPerBlock);
      return true;
    case cudaDevAttrMemoryPoolsSupported:
      v = p.memoryPoolsSupported;
      return true;
    case cudaDevAttrClusterLaunch:
      v = p.clusterLaunch;
      return true;
  }
  return false;
}

}  // namespace weft::detail
