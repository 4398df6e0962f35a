// Devices: how many there are, which one a host thread uses, what they are
// (cudaDeviceProp, cudaDeviceGetAttribute), versions, memory information and
// peer access.
//
// WEFT_DEVICES sets the number of simulated devices (default 1). Each has its
// own memory registry, limits, kernel attributes, sticky fault and SM worker
// pool; all of them share the host's memory, so every device can reach every
// other's memory and a peer copy is a plain copy.
//
// Properties describe what weft runs: an sm_90 device whose SMs are the
// worker threads (multiProcessorCount = worker_count()) and whose global
// memory is the host's. Values that describe GPU hardware weft does not have
// (clocks, bus width, L2 size) are an H100 SXM's, so that programs that print
// or compute with them see plausible numbers.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/host_task.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/cuda/runtime/device_api.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory_api.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"

// cudaSetDeviceFlags' flags (CUDA's driver_types.h values).
inline constexpr unsigned cudaDeviceScheduleAuto = 0x00;
inline constexpr unsigned cudaDeviceScheduleSpin = 0x01;
inline constexpr unsigned cudaDeviceScheduleYield = 0x02;
inline constexpr unsigned cudaDeviceScheduleBlockingSync = 0x04;
inline constexpr unsigned cudaDeviceBlockingSync = 0x04;
inline constexpr unsigned cudaDeviceScheduleMask = 0x07;
inline constexpr unsigned cudaDeviceMapHost = 0x08;
inline constexpr unsigned cudaDeviceLmemResizeToMax = 0x10;
inline constexpr unsigned cudaDeviceSyncMemops = 0x80;
inline constexpr unsigned cudaDeviceMask = 0xff;
inline constexpr unsigned cudaInitDeviceFlagsAreValid = 0x01;

struct CUuuid_st {
  char bytes[16];
};
using cudaUUID_t = CUuuid_st;

/// CUDA 13's cudaDeviceProp fields, plus clockRate, memoryClockRate,
/// deviceOverlap, kernelExecTimeoutEnabled and computeMode, which CUDA 13
/// removed but which older teaching programs still print.
struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  std::size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  std::size_t totalConstMem;
  int major;
  int minor;
  std::size_t textureAlignment;
  std::size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  std::size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  std::size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  std::size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  std::size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int memoryPoolsSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  // Removed in CUDA 13 (see above).
  int clockRate;
  int memoryClockRate;
  int deviceOverlap;
  int kernelExecTimeoutEnabled;
  int computeMode;
};

/// CUDA's numeric values. The attributes weft answers are listed; another
/// value is refused with cudaErrorInvalidValue, as CUDA refuses an unknown one.
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14,
  cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrSurfaceAlignment = 30,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrTccDriver = 35,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrPciDomainId = 50,
  cudaDevAttrTexturePitchAlignment = 51,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrStreamPrioritiesSupported = 78,
  cudaDevAttrGlobalL1CacheSupported = 79,
  cudaDevAttrLocalL1CacheSupported = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrIsMultiGpuBoard = 84,
  cudaDevAttrMultiGpuBoardGroupID = 85,
  cudaDevAttrHostNativeAtomicSupported = 86,
  cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
  cudaDevAttrPageableMemoryAccess = 88,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90,
  cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrHostRegisterSupported = 99,
  cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
  cudaDevAttrDirectManagedMemAccessFromHost = 101,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108,
  cudaDevAttrMaxAccessPolicyWindowSize = 109,
  cudaDevAttrReservedSharedMemoryPerBlock = 111,
  cudaDevAttrMemoryPoolsSupported = 115,
  cudaDevAttrClusterLaunch = 120,
};

namespace weft::detail {

inline bool valid_device(int d) { return d >= 0 && d < device_count(); }

/// The host's physical memory, which is the device's global memory.
inline std::size_t physical_memory_bytes() {
  return static_cast<std::size_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

inline std::size_t available_memory_bytes() {
  return static_cast<std::size_t>(::sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

/// The host CPU's model name, where /proc/cpuinfo gives one.
inline std::string host_cpu_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) break;
    auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return {};
}

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

inline cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return weft::detail::record(cudaErrorInvalidValue);
  *count = weft::detail::device_count();
  return cudaSuccess;
}

/// Sets the calling host thread's current device; later calls on this thread
/// use its memory, limits and sticky fault.
inline cudaError_t cudaSetDevice(int device) {
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  weft::detail::current_device = device;
  return cudaSuccess;
}

inline cudaError_t cudaGetDevice(int* device) {
  if (!device) return weft::detail::record(cudaErrorInvalidValue);
  *device = weft::detail::current_device;
  return cudaSuccess;
}

/// Devices need no initialisation; the arguments are checked as CUDA does.
inline cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  if (flags & ~cudaInitDeviceFlagsAreValid) return weft::detail::record(cudaErrorInvalidValue);
  if ((flags & cudaInitDeviceFlagsAreValid) && (deviceFlags & ~cudaDeviceMask))
    return weft::detail::record(cudaErrorInvalidValue);
  if (flags & cudaInitDeviceFlagsAreValid) weft::detail::runtime::get(device).flags = deviceFlags;
  return cudaSuccess;
}

/// Kept and reported back; scheduling is weft's own (host threads block on a
/// condition variable), so the flags change nothing.
inline cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  unsigned schedule = flags & cudaDeviceScheduleMask;
  // At most one scheduling policy (Spin, Yield or BlockingSync) may be named.
  if ((flags & ~cudaDeviceMask) || (schedule & (schedule - 1))) return weft::detail::record(cudaErrorInvalidValue);
  weft::detail::runtime::get().flags = flags;
  return cudaSuccess;
}

/// Mapped host memory is always available, so cudaDeviceMapHost is always
/// reported, as CUDA does on a device with unified addressing.
inline cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (!flags) return weft::detail::record(cudaErrorInvalidValue);
  *flags = weft::detail::runtime::get().flags | cudaDeviceMapHost;
  return cudaSuccess;
}

inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return weft::detail::record(cudaErrorInvalidValue);
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  *prop = weft::detail::device_properties(device);
  return cudaSuccess;
}

inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return weft::detail::record(cudaErrorInvalidValue);
  if (!weft::detail::valid_device(device)) return weft::detail::record(cudaErrorInvalidDevice);
  if (!weft::detail::device_attribute(attr, device, *value)) return weft::detail::record(cudaErrorInvalidValue);
  return cudaSuccess;
}

/// weft implements CUDA 13.0's runtime API, and is its own driver.
inline constexpr int weft_cuda_version = 13000;

inline cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return weft::detail::record(cudaErrorInvalidValue);
  *version = weft_cuda_version;
  return cudaSuccess;
}

inline cudaError_t cudaRuntimeGetVersion(int* version) {
  if (!version) return weft::detail::record(cudaErrorInvalidValue);
  *version = weft_cuda_version;
  return cudaSuccess;
}

/// The host's available and physical memory: device memory is host memory.
inline cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (!free || !total) return weft::detail::record(cudaErrorInvalidValue);
  *total = weft::detail::physical_memory_bytes();
  *free = std::min(*total, weft::detail::available_memory_bytes());
  return cudaSuccess;
}

/// Every device reaches every other's memory (it is all host memory), but
/// not itself as a peer, as in CUDA.
inline cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  if (!canAccessPeer) return weft::detail::record(cudaErrorInvalidValue);
  if (!weft::detail::valid_device(device) || !weft::detail::valid_device(peerDevice))
    return weft::detail::record(cudaErrorInvalidDevice);
  *canAccessPeer = device != peerDevice ? 1 : 0;
  return cudaSuccess;
}

/// Recorded so that enabling twice or disabling what is not enabled gets
/// CUDA's codes; access itself needs nothing.
inline cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  using weft::detail::record;
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (!weft::detail::valid_device(peerDevice)) return record(cudaErrorInvalidDevice);
  // A device is not its own peer (cudaErrorPeerAccessUnsupported, measured
  // on an H100).
  if (peerDevice == weft::detail::current_device) return record(cudaErrorPeerAccessUnsupported);
  if (flags != 0) return record(cudaErrorInvalidValue);
  std::uint64_t bit = std::uint64_t{1} << peerDevice;
  if (weft::detail::runtime::get().peers.fetch_or(bit) & bit) return record(cudaErrorPeerAccessAlreadyEnabled);
  return cudaSuccess;
}

inline cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  using weft::detail::record;
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (!weft::detail::valid_device(peerDevice)) return record(cudaErrorInvalidDevice);
  std::uint64_t bit = std::uint64_t{1} << peerDevice;
  // Never enabled for the device itself (cudaErrorPeerAccessNotEnabled,
  // measured on an H100).
  if (!(weft::detail::runtime::get().peers.fetch_and(~bit) & bit)) return record(cudaErrorPeerAccessNotEnabled);
  return cudaSuccess;
}

namespace weft::detail {

inline cudaError_t check_peer_copy(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count) {
  if (cudaError_t e = check_device()) return e;
  if (!valid_device(dstDevice) || !valid_device(srcDevice)) return record(cudaErrorInvalidDevice);
  if (count == 0) return cudaSuccess;
  auto on = [](const void* p, std::size_t n, int d) {
    auto a = locate(p, n);
    return a && a->device == d && (a->info.kind == memory_kind::device || a->info.kind == memory_kind::managed);
  };
  if (!dst || !src || !on(dst, count, dstDevice) || !on(src, count, srcDevice)) return record(cudaErrorInvalidValue);
  return cudaSuccess;
}

}  // namespace weft::detail

/// Copies between two devices' memory, after the work launched on both.
inline cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count) {
  using namespace weft::detail;
  if (cudaError_t e = check_peer_copy(dst, dstDevice, src, srcDevice, count)) return e;
  if (count == 0) return cudaSuccess;
  if (cudaError_t e = check_caller(true)) return e;
  runtime::get(srcDevice).synchronize();
  runtime::get(dstDevice).synchronize();
  if (cudaError_t e = record(fault(srcDevice).code())) return e;
  if (cudaError_t e = record(fault(dstDevice).code())) return e;
  std::memmove(dst, src, count);
  return cudaSuccess;
}

/// Ordered in `stream` only: work launched on the other device meanwhile is
/// not waited for (use an event for that, as with CUDA).
inline cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, std::size_t count,
                                       cudaStream_t stream = nullptr) {
  using namespace weft::detail;
  if (cudaError_t e = check_peer_copy(dst, dstDevice, src, srcDevice, count)) return e;
  if (count == 0) return cudaSuccess;
  return perform(asynchronous_on(stream), "peer copy of " + std::to_string(count) + " bytes",
                 [=] { std::memmove(dst, src, count); });
}
