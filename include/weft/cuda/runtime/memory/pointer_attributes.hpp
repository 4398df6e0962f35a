// cudaPointerGetAttributes: what kind of memory a pointer is in, and on
// which device, from the allocation registries of all devices.
#pragma once

#include <optional>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/memory_api.hpp"
#include "weft/detail/base/error_state.hpp"

enum cudaMemoryType : int {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};

struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};

/// A pointer into no recorded allocation is ordinary host memory: CUDA 13
/// answers cudaSuccess with cudaMemoryTypeUnregistered, device -2
/// (cudaInvalidDeviceId), no device pointer and the pointer itself as the host
/// pointer (measured on an H100, null included).
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  using namespace weft::detail;
  if (cudaError_t e = check_not_forked()) return e;
  if (!attributes) return record(cudaErrorInvalidValue);
  void* p = const_cast<void*>(ptr);
  auto a = ptr ? locate(ptr) : std::nullopt;
  if (!a) {
    *attributes = {cudaMemoryTypeUnregistered, -2, nullptr, p};
    return cudaSuccess;
  }
  switch (a->info.kind) {
    case memory_kind::device:
      *attributes = {cudaMemoryTypeDevice, a->device, p, nullptr};
      break;
    case memory_kind::managed:
      *attributes = {cudaMemoryTypeManaged, a->device, p, p};
      break;
    case memory_kind::host:
    case memory_kind::registered:
      *attributes = {cudaMemoryTypeHost, a->device, p, p};
      break;
  }
  return cudaSuccess;
}
