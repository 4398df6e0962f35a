// Page-locked host memory: cudaMallocHost, cudaHostAlloc, cudaFreeHost,
// cudaHostRegister, cudaHostUnregister, cudaHostGetDevicePointer.
//
// All memory is host memory in weft, so "pinning" changes nothing; the
// allocations and registrations are recorded (memory_kind::host and
// registered) so that frees, double registrations and pointer attributes get
// CUDA's answers. A mapped allocation's device pointer is its host address.
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/memory_api.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/memory/host_registration.hpp"
#include "weft/detail/memory/memory_lookup.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"

inline constexpr unsigned cudaHostAllocDefault = 0x00;
inline constexpr unsigned cudaHostAllocPortable = 0x01;
inline constexpr unsigned cudaHostAllocMapped = 0x02;
inline constexpr unsigned cudaHostAllocWriteCombined = 0x04;
inline constexpr unsigned cudaHostRegisterDefault = 0x00;
inline constexpr unsigned cudaHostRegisterPortable = 0x01;
inline constexpr unsigned cudaHostRegisterMapped = 0x02;
inline constexpr unsigned cudaHostRegisterIoMemory = 0x04;
inline constexpr unsigned cudaHostRegisterReadOnly = 0x08;

inline cudaError_t cudaHostAlloc(void** pHost, std::size_t size, unsigned int flags) {
  using namespace weft::detail;
  if (pHost) *pHost = nullptr;  // on every path, so that compilers see it set
  if (cudaError_t e = check_unsafe_call()) return e;
  if (cudaError_t e = check_device()) return e;
  if (!pHost) return record(cudaErrorInvalidValue);
  *pHost = nullptr;
  if (flags & ~(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
    return record(cudaErrorInvalidValue);
  if (size == 0) return cudaSuccess;  // as cudaMalloc(0); not yet measured
  *pHost = runtime::get().memory().allocate(size, memory_kind::host, flags);
  return *pHost ? cudaSuccess : record(cudaErrorMemoryAllocation);
}

template <class T>
cudaError_t cudaHostAlloc(T** pHost, std::size_t size, unsigned int flags) {
  return cudaHostAlloc(static_cast<void**>(static_cast<void*>(pHost)), size, flags);
}

inline cudaError_t cudaMallocHost(void** ptr, std::size_t size) {
  return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

template <class T>
cudaError_t cudaMallocHost(T** ptr, std::size_t size) {
  return cudaMallocHost(static_cast<void**>(static_cast<void*>(ptr)), size);
}

/// Frees memory from cudaMallocHost or cudaHostAlloc; anything else is
/// refused with cudaErrorInvalidValue.
inline cudaError_t cudaFreeHost(void* ptr) {
  using namespace weft::detail;
  if (cudaError_t e = check_unsafe_call()) return e;
  if (cudaError_t e = wait_for_device()) return e;
  if (!ptr) return cudaSuccess;
  if (release_on_any_device(ptr, [](memory_kind k) { return k == memory_kind::host; })) return cudaSuccess;
  memory_check::report_repeated_free(ptr, "cudaFreeHost");
  return record(cudaErrorInvalidValue);
}

inline cudaError_t cudaHostRegister(void* ptr, std::size_t size, unsigned int flags) {
  using namespace weft::detail;
  if (cudaError_t e = check_device()) return e;
  if (!ptr || size == 0 || (flags & ~0x0fu)) return record(cudaErrorInvalidValue);
  return record(register_host_range(ptr, size, flags));
}

inline cudaError_t cudaHostUnregister(void* ptr) {
  using namespace weft::detail;
  if (cudaError_t e = check_device()) return e;
  if (!ptr) return record(cudaErrorInvalidValue);
  if (release_on_any_device(ptr, [](memory_kind k) { return k == memory_kind::registered; })) return cudaSuccess;
  return record(cudaErrorHostMemoryNotRegistered);
}

/// The device sees host memory at its host address.
inline cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  using namespace weft::detail;
  if (cudaError_t e = check_device()) return e;
  if (!pDevice || !pHost || flags != 0) return record(cudaErrorInvalidValue);
  auto a = locate(pHost);
  if (!a || (a->info.kind != memory_kind::host && a->info.kind != memory_kind::registered))
    return record(cudaErrorInvalidValue);
  *pDevice = pHost;
  return cudaSuccess;
}

template <class T>
cudaError_t cudaHostGetDevicePointer(T** pDevice, void* pHost, unsigned int flags) {
  return cudaHostGetDevicePointer(static_cast<void**>(static_cast<void*>(pDevice)), pHost, flags);
}
