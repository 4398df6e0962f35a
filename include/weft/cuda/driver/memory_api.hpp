// Memory through the driver API: cuMemAlloc*, cuMemFree*, cuMemcpy*,
// cuMemset*, cuMemGetInfo, cuMemGetAddressRange and pointer attributes.
// Each call forwards to the runtime's call of the same meaning, so memory
// from either API may be used with the other (a CUdeviceptr is the address).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>

#include "weft/cuda/driver/context_api.hpp"
#include "weft/cuda/driver/driver_types.hpp"
#include "weft/cuda/runtime/memory/host_memory.hpp"
#include "weft/cuda/runtime/memory/managed_memory.hpp"
#include "weft/cuda/runtime/memory/memory_api.hpp"
#include "weft/cuda/runtime/streams/stream_api.hpp"
#include "weft/detail/graphs/graph_model.hpp"
#include "weft/detail/graphs/stream_capture.hpp"
#include "weft/detail/memory/memory_lookup.hpp"

namespace weft::detail {

inline void* as_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)); }
inline CUdeviceptr as_device_pointer(const void* p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p));
}

/// cuMemsetD16/D32: an element pattern wider than a byte, written by the
/// host in stream order (device memory is host memory).
template <class Element>
CUresult fill_elements(CUdeviceptr dst, Element value, std::size_t count, CUstream stream, bool wait) {
  if (CUresult r = check_current_context()) return r;
  if (dst % sizeof(Element) != 0) return CUDA_ERROR_INVALID_VALUE;
  if (count == 0) return CUDA_SUCCESS;
  if (!is_device_range(as_pointer(dst), count * sizeof(Element))) return CUDA_ERROR_INVALID_VALUE;
  // Captured, the fill is a memset node, which a graph may launch many times.
  if (!wait && any_capture()) {
    std::optional<cudaError_t> captured;
    CUresult r = through_runtime([&] {
      CUstream_st* s = resolve_stream(weft::surface::explicit_stream(stream));
      if (!s) return record(cudaErrorInvalidResourceHandle);
      captured = capture_into(
          *s, [&] { return set_work{as_pointer(dst), count * sizeof(Element), value, sizeof(Element), count, 1}; });
      return captured.value_or(cudaSuccess);
    });
    if (captured || r != CUDA_SUCCESS) return r;
  }
  struct fill {
    Element* first;
    Element value;
    std::size_t count;
    static void run(void* self) {
      std::unique_ptr<fill> f(static_cast<fill*>(self));
      std::fill_n(f->first, f->count, f->value);
    }
  };
  auto* job = new fill{static_cast<Element*>(as_pointer(dst)), value, count};
  CUresult r = through_runtime([&] { return cudaLaunchHostFunc(stream, &fill::run, job); });
  if (r != CUDA_SUCCESS) {
    delete job;
    return r;
  }
  return wait ? through_runtime([&] { return cudaStreamSynchronize(stream); }) : CUDA_SUCCESS;
}

}  // namespace weft::detail

/// Size 0 is CUDA_ERROR_INVALID_VALUE (the runtime's cudaMalloc accepts it).
inline CUresult cuMemAlloc(CUdeviceptr* dptr, std::size_t bytesize) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  if (!dptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  CUresult r = through_runtime([&] { return cudaMalloc(&p, bytesize); });
  *dptr = as_device_pointer(p);
  return r;
}

inline CUresult cuMemFree(CUdeviceptr dptr) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaFree(as_pointer(dptr)); });
}

inline CUresult cuMemAllocManaged(CUdeviceptr* dptr, std::size_t bytesize, unsigned int flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  if (!dptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  CUresult r = through_runtime([&] { return cudaMallocManaged(&p, bytesize, flags); });
  *dptr = as_device_pointer(p);
  return r;
}

inline CUresult cuMemHostAlloc(void** pp, std::size_t bytesize, unsigned int Flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  if (!pp || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  return through_runtime([&] { return cudaHostAlloc(pp, bytesize, Flags); });
}

inline CUresult cuMemAllocHost(void** pp, std::size_t bytesize) { return cuMemHostAlloc(pp, bytesize, 0); }

inline CUresult cuMemFreeHost(void* p) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaFreeHost(p); });
}

inline CUresult cuMemHostGetDevicePointer(CUdeviceptr* pdptr, void* p, unsigned int Flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  if (!pdptr) return CUDA_ERROR_INVALID_VALUE;
  void* d = nullptr;
  CUresult r = through_runtime([&] { return cudaHostGetDevicePointer(&d, p, Flags); });
  *pdptr = as_device_pointer(d);
  return r;
}

inline CUresult cuMemHostRegister(void* p, std::size_t bytesize, unsigned int Flags) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaHostRegister(p, bytesize, Flags); });
}

inline CUresult cuMemHostUnregister(void* p) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaHostUnregister(p); });
}

/// The free and total bytes the runtime's cudaMemGetInfo reports.
inline CUresult cuMemGetInfo(std::size_t* free, std::size_t* total) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  if (!free || !total) return CUDA_ERROR_INVALID_VALUE;
  return through_runtime([&] { return cudaMemGetInfo(free, total); });
}

/// The allocation that holds dptr (any kind weft records); CUDA_ERROR_NOT_FOUND
/// for an address in none. Either output may be null.
inline CUresult cuMemGetAddressRange(CUdeviceptr* pbase, std::size_t* psize, CUdeviceptr dptr) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  auto a = locate(as_pointer(dptr));
  if (!a) return CUDA_ERROR_NOT_FOUND;
  if (pbase) *pbase = as_device_pointer(a->info.base);
  if (psize) *psize = a->info.bytes;
  return CUDA_SUCCESS;
}

// Copies. With unified addressing the kind of each side is known from the
// address, so the driver's typed copies all are cudaMemcpyDefault copies.
inline CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, std::size_t ByteCount) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaMemcpy(as_pointer(dst), as_pointer(src), ByteCount, cudaMemcpyDefault); });
}

inline CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t ByteCount, CUstream hStream) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime(
      [&] { return cudaMemcpyAsync(as_pointer(dst), as_pointer(src), ByteCount, cudaMemcpyDefault, hStream); });
}

inline CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void* srcHost, std::size_t ByteCount) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaMemcpy(as_pointer(dstDevice), srcHost, ByteCount, cudaMemcpyHostToDevice); });
}

inline CUresult cuMemcpyDtoH(void* dstHost, CUdeviceptr srcDevice, std::size_t ByteCount) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaMemcpy(dstHost, as_pointer(srcDevice), ByteCount, cudaMemcpyDeviceToHost); });
}

inline CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, std::size_t ByteCount) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime(
      [&] { return cudaMemcpy(as_pointer(dstDevice), as_pointer(srcDevice), ByteCount, cudaMemcpyDeviceToDevice); });
}

inline CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void* srcHost, std::size_t ByteCount, CUstream hStream) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime(
      [&] { return cudaMemcpyAsync(as_pointer(dstDevice), srcHost, ByteCount, cudaMemcpyHostToDevice, hStream); });
}

inline CUresult cuMemcpyDtoHAsync(void* dstHost, CUdeviceptr srcDevice, std::size_t ByteCount, CUstream hStream) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime(
      [&] { return cudaMemcpyAsync(dstHost, as_pointer(srcDevice), ByteCount, cudaMemcpyDeviceToHost, hStream); });
}

inline CUresult cuMemcpyDtoDAsync(CUdeviceptr dstDevice, CUdeviceptr srcDevice, std::size_t ByteCount,
                                  CUstream hStream) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] {
    return cudaMemcpyAsync(as_pointer(dstDevice), as_pointer(srcDevice), ByteCount, cudaMemcpyDeviceToDevice, hStream);
  });
}

// Sets: N elements of 1, 2 or 4 bytes.
inline CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, std::size_t N) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaMemset(as_pointer(dstDevice), uc, N); });
}

inline CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, std::size_t N, CUstream hStream) {
  using namespace weft::detail;
  if (CUresult r = check_current_context()) return r;
  return through_runtime([&] { return cudaMemsetAsync(as_pointer(dstDevice), uc, N, hStream); });
}

inline CUresult cuMemsetD16(CUdeviceptr dstDevice, unsigned short us, std::size_t N) {
  return weft::detail::fill_elements(dstDevice, us, N, nullptr, true);
}
inline CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, std::size_t N, CUstream hStream) {
  return weft::detail::fill_elements(dstDevice, us, N, hStream, false);
}
inline CUresult cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, std::size_t N) {
  return weft::detail::fill_elements(dstDevice, ui, N, nullptr, true);
}
inline CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, std::size_t N, CUstream hStream) {
  return weft::detail::fill_elements(dstDevice, ui, N, hStream, false);
}

namespace weft::detail {

/// One pointer attribute of an address weft knows; false for one it cannot
/// answer.
inline bool pointer_attribute(void* data, CUpointer_attribute attribute, const located_allocation& a, void* p) {
  bool device_side = a.info.kind == memory_kind::device || a.info.kind == memory_kind::managed;
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      *static_cast<CUcontext*>(data) = driver_contexts::get().primary(a.device);
      return true;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:  // managed memory is device memory here, as in CUDA
      *static_cast<unsigned*>(data) = device_side ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
      return true;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
      *static_cast<CUdeviceptr*>(data) = as_device_pointer(p);
      return true;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      *static_cast<void**>(data) = a.info.kind == memory_kind::device ? nullptr : p;
      return true;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    case CU_POINTER_ATTRIBUTE_MAPPED:
      *static_cast<bool*>(data) = true;
      return true;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      *static_cast<bool*>(data) = a.info.kind == memory_kind::managed;
      return true;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:  // unique while the allocation lives
      *static_cast<unsigned long long*>(data) = as_device_pointer(a.info.base);
      return true;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      *static_cast<int*>(data) = a.device;
      return true;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      *static_cast<CUdeviceptr*>(data) = as_device_pointer(a.info.base);
      return true;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      *static_cast<std::size_t*>(data) = a.info.bytes;
      return true;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
      *static_cast<unsigned*>(data) = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      return true;
    default:
      return false;
  }
}

}  // namespace weft::detail

/// Context, memory type, device and host pointers, managed or not, device
/// ordinal, range, buffer id; CUDA_ERROR_INVALID_VALUE for an address in no
/// allocation, and CUDA_ERROR_NOT_SUPPORTED for attributes weft does not
/// keep (P2P tokens, handle types, memory pools, ...).
inline CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!data) return CUDA_ERROR_INVALID_VALUE;
  auto a = locate(as_pointer(ptr));
  if (!a) return CUDA_ERROR_INVALID_VALUE;
  return pointer_attribute(data, attribute, *a, as_pointer(ptr)) ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
}

/// As CUDA: for an address in no allocation every attribute reads as zero
/// (memory type 0, null context) and the call succeeds.
inline CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute* attributes, void** data,
                                       CUdeviceptr ptr) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (numAttributes == 0 || !attributes || !data) return CUDA_ERROR_INVALID_VALUE;
  auto a = locate(as_pointer(ptr));
  for (unsigned i = 0; i < numAttributes; ++i) {
    if (!data[i]) return CUDA_ERROR_INVALID_VALUE;
    if (a) {
      if (!pointer_attribute(data[i], attributes[i], *a, as_pointer(ptr))) return CUDA_ERROR_NOT_SUPPORTED;
    } else if (attributes[i] == CU_POINTER_ATTRIBUTE_CONTEXT) {
      *static_cast<CUcontext*>(data[i]) = nullptr;
    } else if (attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) {
      *static_cast<unsigned*>(data[i]) = 0;
    } else if (attributes[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) {
      *static_cast<int*>(data[i]) = -2;
    }
  }
  return CUDA_SUCCESS;
}
