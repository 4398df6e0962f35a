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
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "weft/detail/base/cuda_device_properties.hpp"
#include "weft/detail/base/devices.hpp"
#include "weft/detail/base/host_machine.hpp"
#include "weft/detail/runtime/runtime.hpp"

namespace weft::detail {

// The fields CUDA 13 removed from cudaDeviceProp, with the values CUDA 12
// reported for an H100 SXM; cudaDeviceGetAttribute still answers them.
inline constexpr int clock_rate_khz = 1980000;
inline constexpr int memory_clock_rate_khz = 2619000;
inline constexpr int device_overlap = 1;       // as asyncEngineCount
inline constexpr int kernel_exec_timeout = 0;  // no watchdog on kernels
inline constexpr int compute_mode = 0;         // cudaComputeModeDefault

/// Writes the removed fields, which warn wherever a program names them; this
/// is the one place weft names them, so the warning is silenced here only.
inline void fill_removed_fields(cudaDeviceProp& p) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  p.clockRate = clock_rate_khz;
  p.memoryClockRate = memory_clock_rate_khz;
  p.deviceOverlap = device_overlap;
  p.kernelExecTimeoutEnabled = kernel_exec_timeout;
  p.computeMode = compute_mode;
#pragma GCC diagnostic pop
}

/// The largest textures and surfaces of each shape, an H100's (measured on an
/// H100 80GB HBM3 with CUDA 13.0), which texture programs check their sizes
/// against.
inline void fill_texture_limits(cudaDeviceProp& p) {
  auto set = [](int* field, std::initializer_list<int> values) { std::copy(values.begin(), values.end(), field); };
  p.maxTexture1D = 131072;
  p.maxTexture1DMipmap = 32768;
  set(p.maxTexture2D, {131072, 65536});
  set(p.maxTexture2DMipmap, {32768, 32768});
  set(p.maxTexture2DLinear, {131072, 65000, 2097120});
  set(p.maxTexture2DGather, {32768, 32768});
  set(p.maxTexture3D, {16384, 16384, 16384});
  set(p.maxTexture3DAlt, {8192, 8192, 32768});
  p.maxTextureCubemap = 32768;
  set(p.maxTexture1DLayered, {32768, 2048});
  set(p.maxTexture2DLayered, {32768, 32768, 2048});
  set(p.maxTextureCubemapLayered, {32768, 2046});
  p.maxSurface1D = 32768;
  set(p.maxSurface2D, {131072, 65536});
  set(p.maxSurface3D, {16384, 16384, 16384});
  set(p.maxSurface1DLayered, {32768, 2048});
  set(p.maxSurface2DLayered, {32768, 32768, 2048});
  p.maxSurfaceCubemap = 32768;
  set(p.maxSurfaceCubemapLayered, {32768, 2046});
}

/// What device `d` is, but for its multiprocessor count: built from the
/// host's description, which is read once (host_machine.hpp).
inline cudaDeviceProp describe_device(int d) {
  cudaDeviceProp p{};
  const std::string& cpu = this_host().cpu_name;
  std::string name = "weft CPU device" + (cpu.empty() ? std::string() : " (" + cpu + ")");
  std::snprintf(p.name, sizeof p.name, "%s", name.c_str());
  std::snprintf(p.uuid.bytes, sizeof p.uuid.bytes, "weft-device-%03d", d);
  p.totalGlobalMem = this_host().physical_memory;
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
  p.multiProcessorCount = 0;  // live: see device_properties
  p.integrated = 0;
  p.canMapHostMemory = 1;
  fill_texture_limits(p);
  p.surfaceAlignment = 512;
  p.concurrentKernels = 1;
  p.pciBusID = d + 1;  // distinct per device, as on a multi-GPU host
  // Asynchronous copies overlap kernels of other streams (they run on the
  // host thread or a worker, not on the SM pool's blocks): an H100's count.
  p.asyncEngineCount = 3;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = 5120;
  p.l2CacheSize = 50 * 1024 * 1024;
  // Access policy windows are accepted and kept, with no effect on a CPU;
  // the sizes are an H100's, so programs that size a window from them run.
  p.persistingL2CacheMaxSize = 32768000;
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
  p.accessPolicyMaxWindowSize = 128 << 20;
  p.reservedSharedMemPerBlock = 1024;
  p.hostRegisterSupported = 1;
  p.hostRegisterReadOnlySupported = 1;  // cudaHostRegisterReadOnly is accepted
  p.memoryPoolsSupported = 1;
  p.clusterLaunch = 1;
  p.unifiedFunctionPointers = 1;
  // Sparse and deferred-mapping arrays, interop, RDMA, IPC handles and NUMA
  // placement are not offered: 0 (and deviceNumaId -1, as for a GPU that is
  // not a NUMA node).
  p.deviceNumaId = -1;
  fill_removed_fields(p);
  return p;
}

/// The properties that do not change while the program runs, built once per
/// device on first use: cudaDeviceGetAttribute is called in loops, and
/// building them reads /proc/cpuinfo.
inline const cudaDeviceProp& fixed_properties(int d) {
  static const std::vector<cudaDeviceProp> all = [] {
    std::vector<cudaDeviceProp> devices;
    for (int i = 0; i < device_count(); ++i) devices.push_back(describe_device(i));
    return devices;
  }();
  return all[static_cast<std::size_t>(d)];
}

/// multiProcessorCount is the device's SM worker count, which
/// weft::set_worker_count changes while the program runs.
inline int multiprocessor_count(int d) { return static_cast<int>(runtime::get(d).worker_count()); }

/// cudaGetDeviceProperties' answer.
inline cudaDeviceProp device_properties(int d) {
  cudaDeviceProp p = fixed_properties(d);
  p.multiProcessorCount = multiprocessor_count(d);
  return p;
}

/// A size as cudaDeviceGetAttribute's int, saturating.
constexpr int as_int(std::size_t n) { return static_cast<int>(std::min<std::size_t>(n, 2147483647)); }

/// How cudaDeviceGetAttribute reads each attribute it knows from the fixed
/// properties, sorted by attribute for a binary search. The multiprocessor
/// count is live, so not here.
struct attribute_reader {
  cudaDeviceAttr attribute;
  int (*read)(const cudaDeviceProp&);
};
inline constexpr attribute_reader attribute_readers[] = {
    {cudaDevAttrMaxThreadsPerBlock, [](const cudaDeviceProp& p) { return p.maxThreadsPerBlock; }},
    {cudaDevAttrMaxBlockDimX, [](const cudaDeviceProp& p) { return p.maxThreadsDim[0]; }},
    {cudaDevAttrMaxBlockDimY, [](const cudaDeviceProp& p) { return p.maxThreadsDim[1]; }},
    {cudaDevAttrMaxBlockDimZ, [](const cudaDeviceProp& p) { return p.maxThreadsDim[2]; }},
    {cudaDevAttrMaxGridDimX, [](const cudaDeviceProp& p) { return p.maxGridSize[0]; }},
    {cudaDevAttrMaxGridDimY, [](const cudaDeviceProp& p) { return p.maxGridSize[1]; }},
    {cudaDevAttrMaxGridDimZ, [](const cudaDeviceProp& p) { return p.maxGridSize[2]; }},
    {cudaDevAttrMaxSharedMemoryPerBlock, [](const cudaDeviceProp& p) { return as_int(p.sharedMemPerBlock); }},
    {cudaDevAttrTotalConstantMemory, [](const cudaDeviceProp& p) { return as_int(p.totalConstMem); }},
    {cudaDevAttrWarpSize, [](const cudaDeviceProp& p) { return p.warpSize; }},
    {cudaDevAttrMaxPitch, [](const cudaDeviceProp& p) { return as_int(p.memPitch); }},
    {cudaDevAttrMaxRegistersPerBlock, [](const cudaDeviceProp& p) { return p.regsPerBlock; }},
    {cudaDevAttrClockRate, [](const cudaDeviceProp&) { return clock_rate_khz; }},
    {cudaDevAttrTextureAlignment, [](const cudaDeviceProp& p) { return as_int(p.textureAlignment); }},
    {cudaDevAttrGpuOverlap, [](const cudaDeviceProp&) { return device_overlap; }},
    {cudaDevAttrKernelExecTimeout, [](const cudaDeviceProp&) { return kernel_exec_timeout; }},
    {cudaDevAttrIntegrated, [](const cudaDeviceProp& p) { return p.integrated; }},
    {cudaDevAttrCanMapHostMemory, [](const cudaDeviceProp& p) { return p.canMapHostMemory; }},
    {cudaDevAttrComputeMode, [](const cudaDeviceProp&) { return compute_mode; }},
    {cudaDevAttrMaxTexture1DWidth, [](const cudaDeviceProp& p) { return p.maxTexture1D; }},
    {cudaDevAttrMaxTexture2DWidth, [](const cudaDeviceProp& p) { return p.maxTexture2D[0]; }},
    {cudaDevAttrMaxTexture2DHeight, [](const cudaDeviceProp& p) { return p.maxTexture2D[1]; }},
    {cudaDevAttrMaxTexture3DWidth, [](const cudaDeviceProp& p) { return p.maxTexture3D[0]; }},
    {cudaDevAttrMaxTexture3DHeight, [](const cudaDeviceProp& p) { return p.maxTexture3D[1]; }},
    {cudaDevAttrMaxTexture3DDepth, [](const cudaDeviceProp& p) { return p.maxTexture3D[2]; }},
    {cudaDevAttrMaxTexture2DLayeredWidth, [](const cudaDeviceProp& p) { return p.maxTexture2DLayered[0]; }},
    {cudaDevAttrMaxTexture2DLayeredHeight, [](const cudaDeviceProp& p) { return p.maxTexture2DLayered[1]; }},
    {cudaDevAttrMaxTexture2DLayeredLayers, [](const cudaDeviceProp& p) { return p.maxTexture2DLayered[2]; }},
    {cudaDevAttrSurfaceAlignment, [](const cudaDeviceProp& p) { return as_int(p.surfaceAlignment); }},
    {cudaDevAttrConcurrentKernels, [](const cudaDeviceProp& p) { return p.concurrentKernels; }},
    {cudaDevAttrEccEnabled, [](const cudaDeviceProp& p) { return p.ECCEnabled; }},
    {cudaDevAttrPciBusId, [](const cudaDeviceProp& p) { return p.pciBusID; }},
    {cudaDevAttrPciDeviceId, [](const cudaDeviceProp& p) { return p.pciDeviceID; }},
    {cudaDevAttrTccDriver, [](const cudaDeviceProp& p) { return p.tccDriver; }},
    {cudaDevAttrMemoryClockRate, [](const cudaDeviceProp&) { return memory_clock_rate_khz; }},
    {cudaDevAttrGlobalMemoryBusWidth, [](const cudaDeviceProp& p) { return p.memoryBusWidth; }},
    {cudaDevAttrL2CacheSize, [](const cudaDeviceProp& p) { return p.l2CacheSize; }},
    {cudaDevAttrMaxThreadsPerMultiProcessor, [](const cudaDeviceProp& p) { return p.maxThreadsPerMultiProcessor; }},
    {cudaDevAttrAsyncEngineCount, [](const cudaDeviceProp& p) { return p.asyncEngineCount; }},
    {cudaDevAttrUnifiedAddressing, [](const cudaDeviceProp& p) { return p.unifiedAddressing; }},
    {cudaDevAttrMaxTexture1DLayeredWidth, [](const cudaDeviceProp& p) { return p.maxTexture1DLayered[0]; }},
    {cudaDevAttrMaxTexture1DLayeredLayers, [](const cudaDeviceProp& p) { return p.maxTexture1DLayered[1]; }},
    {cudaDevAttrMaxTexture2DGatherWidth, [](const cudaDeviceProp& p) { return p.maxTexture2DGather[0]; }},
    {cudaDevAttrMaxTexture2DGatherHeight, [](const cudaDeviceProp& p) { return p.maxTexture2DGather[1]; }},
    {cudaDevAttrMaxTexture3DWidthAlt, [](const cudaDeviceProp& p) { return p.maxTexture3DAlt[0]; }},
    {cudaDevAttrMaxTexture3DHeightAlt, [](const cudaDeviceProp& p) { return p.maxTexture3DAlt[1]; }},
    {cudaDevAttrMaxTexture3DDepthAlt, [](const cudaDeviceProp& p) { return p.maxTexture3DAlt[2]; }},
    {cudaDevAttrPciDomainId, [](const cudaDeviceProp& p) { return p.pciDomainID; }},
    {cudaDevAttrTexturePitchAlignment, [](const cudaDeviceProp& p) { return as_int(p.texturePitchAlignment); }},
    {cudaDevAttrMaxTextureCubemapWidth, [](const cudaDeviceProp& p) { return p.maxTextureCubemap; }},
    {cudaDevAttrMaxTextureCubemapLayeredWidth, [](const cudaDeviceProp& p) { return p.maxTextureCubemapLayered[0]; }},
    {cudaDevAttrMaxTextureCubemapLayeredLayers, [](const cudaDeviceProp& p) { return p.maxTextureCubemapLayered[1]; }},
    {cudaDevAttrMaxSurface1DWidth, [](const cudaDeviceProp& p) { return p.maxSurface1D; }},
    {cudaDevAttrMaxSurface2DWidth, [](const cudaDeviceProp& p) { return p.maxSurface2D[0]; }},
    {cudaDevAttrMaxSurface2DHeight, [](const cudaDeviceProp& p) { return p.maxSurface2D[1]; }},
    {cudaDevAttrMaxSurface3DWidth, [](const cudaDeviceProp& p) { return p.maxSurface3D[0]; }},
    {cudaDevAttrMaxSurface3DHeight, [](const cudaDeviceProp& p) { return p.maxSurface3D[1]; }},
    {cudaDevAttrMaxSurface3DDepth, [](const cudaDeviceProp& p) { return p.maxSurface3D[2]; }},
    {cudaDevAttrMaxSurface1DLayeredWidth, [](const cudaDeviceProp& p) { return p.maxSurface1DLayered[0]; }},
    {cudaDevAttrMaxSurface1DLayeredLayers, [](const cudaDeviceProp& p) { return p.maxSurface1DLayered[1]; }},
    {cudaDevAttrMaxSurface2DLayeredWidth, [](const cudaDeviceProp& p) { return p.maxSurface2DLayered[0]; }},
    {cudaDevAttrMaxSurface2DLayeredHeight, [](const cudaDeviceProp& p) { return p.maxSurface2DLayered[1]; }},
    {cudaDevAttrMaxSurface2DLayeredLayers, [](const cudaDeviceProp& p) { return p.maxSurface2DLayered[2]; }},
    {cudaDevAttrMaxSurfaceCubemapWidth, [](const cudaDeviceProp& p) { return p.maxSurfaceCubemap; }},
    {cudaDevAttrMaxSurfaceCubemapLayeredWidth, [](const cudaDeviceProp& p) { return p.maxSurfaceCubemapLayered[0]; }},
    {cudaDevAttrMaxSurfaceCubemapLayeredLayers, [](const cudaDeviceProp& p) { return p.maxSurfaceCubemapLayered[1]; }},
    {cudaDevAttrMaxTexture1DLinearWidth, [](const cudaDeviceProp&) { return 268435456 /* an H100's */; }},
    {cudaDevAttrMaxTexture2DLinearWidth, [](const cudaDeviceProp& p) { return p.maxTexture2DLinear[0]; }},
    {cudaDevAttrMaxTexture2DLinearHeight, [](const cudaDeviceProp& p) { return p.maxTexture2DLinear[1]; }},
    {cudaDevAttrMaxTexture2DLinearPitch, [](const cudaDeviceProp& p) { return p.maxTexture2DLinear[2]; }},
    {cudaDevAttrMaxTexture2DMipmappedWidth, [](const cudaDeviceProp& p) { return p.maxTexture2DMipmap[0]; }},
    {cudaDevAttrMaxTexture2DMipmappedHeight, [](const cudaDeviceProp& p) { return p.maxTexture2DMipmap[1]; }},
    {cudaDevAttrComputeCapabilityMajor, [](const cudaDeviceProp& p) { return p.major; }},
    {cudaDevAttrComputeCapabilityMinor, [](const cudaDeviceProp& p) { return p.minor; }},
    {cudaDevAttrMaxTexture1DMipmappedWidth, [](const cudaDeviceProp& p) { return p.maxTexture1DMipmap; }},
    {cudaDevAttrStreamPrioritiesSupported, [](const cudaDeviceProp& p) { return p.streamPrioritiesSupported; }},
    {cudaDevAttrGlobalL1CacheSupported, [](const cudaDeviceProp& p) { return p.globalL1CacheSupported; }},
    {cudaDevAttrLocalL1CacheSupported, [](const cudaDeviceProp& p) { return p.localL1CacheSupported; }},
    {cudaDevAttrMaxSharedMemoryPerMultiprocessor,
     [](const cudaDeviceProp& p) { return as_int(p.sharedMemPerMultiprocessor); }},
    {cudaDevAttrMaxRegistersPerMultiprocessor, [](const cudaDeviceProp& p) { return p.regsPerMultiprocessor; }},
    {cudaDevAttrManagedMemory, [](const cudaDeviceProp& p) { return p.managedMemory; }},
    {cudaDevAttrIsMultiGpuBoard, [](const cudaDeviceProp& p) { return p.isMultiGpuBoard; }},
    {cudaDevAttrMultiGpuBoardGroupID, [](const cudaDeviceProp& p) { return p.multiGpuBoardGroupID; }},
    {cudaDevAttrHostNativeAtomicSupported, [](const cudaDeviceProp& p) { return p.hostNativeAtomicSupported; }},
    {cudaDevAttrSingleToDoublePrecisionPerfRatio, [](const cudaDeviceProp&) { return 2; }},
    {cudaDevAttrPageableMemoryAccess, [](const cudaDeviceProp& p) { return p.pageableMemoryAccess; }},
    {cudaDevAttrConcurrentManagedAccess, [](const cudaDeviceProp& p) { return p.concurrentManagedAccess; }},
    {cudaDevAttrComputePreemptionSupported, [](const cudaDeviceProp& p) { return p.computePreemptionSupported; }},
    {cudaDevAttrCanUseHostPointerForRegisteredMem,
     [](const cudaDeviceProp& p) { return p.canUseHostPointerForRegisteredMem; }},
    {cudaDevAttrReserved92, [](const cudaDeviceProp&) { return 0; }},  // reserved: what an H100 answers
    {cudaDevAttrReserved93, [](const cudaDeviceProp&) { return 0; }},  // reserved: what an H100 answers
    {cudaDevAttrReserved94, [](const cudaDeviceProp&) { return 0; }},  // reserved: what an H100 answers
    {cudaDevAttrCooperativeLaunch, [](const cudaDeviceProp& p) { return p.cooperativeLaunch; }},
    {cudaDevAttrReserved96, [](const cudaDeviceProp&) { return 1; }},  // reserved: what an H100 answers
    {cudaDevAttrMaxSharedMemoryPerBlockOptin, [](const cudaDeviceProp& p) { return as_int(p.sharedMemPerBlockOptin); }},
    {cudaDevAttrCanFlushRemoteWrites, [](const cudaDeviceProp&) { return 0; }},
    {cudaDevAttrHostRegisterSupported, [](const cudaDeviceProp& p) { return p.hostRegisterSupported; }},
    {cudaDevAttrPageableMemoryAccessUsesHostPageTables,
     [](const cudaDeviceProp& p) { return p.pageableMemoryAccessUsesHostPageTables; }},
    {cudaDevAttrDirectManagedMemAccessFromHost,
     [](const cudaDeviceProp& p) { return p.directManagedMemAccessFromHost; }},
    {cudaDevAttrMaxBlocksPerMultiprocessor, [](const cudaDeviceProp& p) { return p.maxBlocksPerMultiProcessor; }},
    {cudaDevAttrMaxPersistingL2CacheSize, [](const cudaDeviceProp& p) { return p.persistingL2CacheMaxSize; }},
    {cudaDevAttrMaxAccessPolicyWindowSize, [](const cudaDeviceProp& p) { return p.accessPolicyMaxWindowSize; }},
    {cudaDevAttrReservedSharedMemoryPerBlock,
     [](const cudaDeviceProp& p) { return as_int(p.reservedSharedMemPerBlock); }},
    {cudaDevAttrSparseCudaArraySupported, [](const cudaDeviceProp& p) { return p.sparseCudaArraySupported; }},
    {cudaDevAttrHostRegisterReadOnlySupported, [](const cudaDeviceProp& p) { return p.hostRegisterReadOnlySupported; }},
    {cudaDevAttrTimelineSemaphoreInteropSupported,
     [](const cudaDeviceProp& p) { return p.timelineSemaphoreInteropSupported; }},
    {cudaDevAttrMemoryPoolsSupported, [](const cudaDeviceProp& p) { return p.memoryPoolsSupported; }},
    {cudaDevAttrGPUDirectRDMASupported, [](const cudaDeviceProp& p) { return p.gpuDirectRDMASupported; }},
    {cudaDevAttrGPUDirectRDMAFlushWritesOptions,
     [](const cudaDeviceProp& p) { return static_cast<int>(p.gpuDirectRDMAFlushWritesOptions); }},
    {cudaDevAttrGPUDirectRDMAWritesOrdering, [](const cudaDeviceProp& p) { return p.gpuDirectRDMAWritesOrdering; }},
    {cudaDevAttrMemoryPoolSupportedHandleTypes,
     [](const cudaDeviceProp& p) { return static_cast<int>(p.memoryPoolSupportedHandleTypes); }},
    {cudaDevAttrClusterLaunch, [](const cudaDeviceProp& p) { return p.clusterLaunch; }},
    {cudaDevAttrDeferredMappingCudaArraySupported,
     [](const cudaDeviceProp& p) { return p.deferredMappingCudaArraySupported; }},
    {cudaDevAttrReserved122, [](const cudaDeviceProp&) { return 1; }},  // reserved: what an H100 answers
    {cudaDevAttrReserved123, [](const cudaDeviceProp&) { return 1; }},  // reserved: what an H100 answers
    {cudaDevAttrReserved124, [](const cudaDeviceProp&) { return 1; }},  // reserved: what an H100 answers
    {cudaDevAttrIpcEventSupport, [](const cudaDeviceProp& p) { return p.ipcEventSupported; }},
    {cudaDevAttrMemSyncDomainCount, [](const cudaDeviceProp&) { return 4 /* an H100's */; }},
    {cudaDevAttrReserved127, [](const cudaDeviceProp&) { return 1; }},  // reserved: what an H100 answers
    {cudaDevAttrReserved128, [](const cudaDeviceProp&) { return 1; }},  // reserved: what an H100 answers
    {cudaDevAttrReserved129, [](const cudaDeviceProp&) { return 1; }},  // reserved: what an H100 answers
    {cudaDevAttrNumaConfig, [](const cudaDeviceProp& p) { return p.deviceNumaConfig; }},
    {cudaDevAttrNumaId, [](const cudaDeviceProp& p) { return p.deviceNumaId; }},
    {cudaDevAttrReserved132, [](const cudaDeviceProp&) { return 0; }},  // reserved: what an H100 answers
    {cudaDevAttrMpsEnabled, [](const cudaDeviceProp& p) { return p.mpsEnabled; }},
    {cudaDevAttrHostNumaId, [](const cudaDeviceProp& p) { return p.hostNumaId; }},
    {cudaDevAttrD3D12CigSupported, [](const cudaDeviceProp&) { return 0; }},
    {cudaDevAttrVulkanCigSupported, [](const cudaDeviceProp&) { return 0; }},
    {cudaDevAttrGpuPciDeviceId, [](const cudaDeviceProp& p) { return static_cast<int>(p.gpuPciDeviceID); }},
    {cudaDevAttrGpuPciSubsystemId, [](const cudaDeviceProp& p) { return static_cast<int>(p.gpuPciSubsystemID); }},
    {cudaDevAttrReserved141, [](const cudaDeviceProp&) { return 1; }},  // reserved: what an H100 answers
    {cudaDevAttrHostNumaMemoryPoolsSupported, [](const cudaDeviceProp&) { return 0; }},
    {cudaDevAttrHostNumaMultinodeIpcSupported, [](const cudaDeviceProp& p) { return p.hostNumaMultinodeIpcSupported; }},
    {cudaDevAttrHostMemoryPoolsSupported, [](const cudaDeviceProp&) { return 0; }},
    {cudaDevAttrReserved145, [](const cudaDeviceProp&) { return 0; }},  // reserved: what an H100 answers
    {cudaDevAttrOnlyPartialHostNativeAtomicSupported, [](const cudaDeviceProp&) { return 0; }},
};

static_assert(std::is_sorted(std::begin(attribute_readers), std::end(attribute_readers),
                             [](const attribute_reader& a, const attribute_reader& b) {
                               return a.attribute < b.attribute;
                             }));

/// The attribute's value, if weft knows the attribute.
inline bool device_attribute(cudaDeviceAttr a, int d, int& v) {
  if (a == cudaDevAttrMultiProcessorCount) {
    v = multiprocessor_count(d);
    return true;
  }
  auto reader = std::lower_bound(std::begin(attribute_readers), std::end(attribute_readers), a,
                                 [](const attribute_reader& r, cudaDeviceAttr key) { return r.attribute < key; });
  if (reader == std::end(attribute_readers) || reader->attribute != a) return false;
  v = reader->read(fixed_properties(d));
  return true;
}

}  // namespace weft::detail
