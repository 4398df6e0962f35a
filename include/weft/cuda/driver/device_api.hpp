// Devices through the driver API: cuDeviceGet*, cuDeviceGetAttribute,
// cuDeviceTotalMem, ... They answer from the same table as the runtime's
// cudaDeviceGetAttribute and cudaGetDeviceProperties
// (detail/runtime/device_properties.hpp), so both APIs describe the same
// H100-like device.
#pragma once

#include <algorithm>
#include <cstring>

#include "weft/cuda/driver/context_api.hpp"
#include "weft/cuda/driver/driver_types.hpp"
#include "weft/cuda/runtime/device_management.hpp"
#include "weft/detail/runtime/device_properties.hpp"

namespace weft::detail {

/// Attributes only the driver API has (the runtime's cudaDeviceAttr skips
/// their numbers), with what weft supports: virtual memory management and
/// generic compression as on an H100 (the sample cudaCompressibleMemory
/// chooses compressed buffers from this), no shareable handles, RDMA or
/// decompression engine.
inline bool driver_only_attribute(CUdevice_attribute a, int& v) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED:
      v = 1;
      return true;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK:
    case CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH:
    case CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED:
      v = 0;
      return true;
    default:
      return false;
  }
}

}  // namespace weft::detail

inline CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

/// WEFT_DEVICES (default 1).
inline CUresult cuDeviceGetCount(int* count) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = device_count();
  return CUDA_SUCCESS;
}

/// At most len - 1 characters and a terminating zero; nothing for len <= 0.
inline CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  if (len <= 0) return CUDA_SUCCESS;
  const char* full = fixed_properties(dev).name;
  std::size_t n = std::min(std::strlen(full), static_cast<std::size_t>(len) - 1);
  std::memcpy(name, full, n);
  name[n] = '\0';
  return CUDA_SUCCESS;
}

/// The same bytes as cudaDeviceProp::uuid.
inline CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  if (!uuid) return CUDA_ERROR_INVALID_VALUE;
  *uuid = fixed_properties(dev).uuid;
  return CUDA_SUCCESS;
}

inline CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) { return cuDeviceGetUuid(uuid, dev); }

/// The host's physical memory, as cudaDeviceProp::totalGlobalMem.
inline CUresult cuDeviceTotalMem(std::size_t* bytes, CUdevice dev) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  *bytes = fixed_properties(dev).totalGlobalMem;
  return CUDA_SUCCESS;
}

inline CUresult cuDeviceTotalMem_v2(std::size_t* bytes, CUdevice dev) { return cuDeviceTotalMem(bytes, dev); }

/// CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT is the number of SM workers, as
/// cudaDevAttrMultiProcessorCount; an attribute CUDA 13 does not define is
/// CUDA_ERROR_INVALID_VALUE.
inline CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  if (driver_only_attribute(attrib, *pi)) return CUDA_SUCCESS;
  return device_attribute(static_cast<cudaDeviceAttr>(attrib), dev, *pi) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/// 9.0: an H100's.
inline CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
  *major = fixed_properties(dev).major;
  *minor = fixed_properties(dev).minor;
  return CUDA_SUCCESS;
}

/// All simulated devices share the host's memory, so every pair can.
inline CUresult cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev) {
  using namespace weft::detail;
  if (CUresult r = check_driver_device(dev)) return r;
  if (!valid_device(peerDev)) return CUDA_ERROR_INVALID_DEVICE;
  return through_runtime([&] { return cudaDeviceCanAccessPeer(canAccessPeer, dev, peerDev); });
}
