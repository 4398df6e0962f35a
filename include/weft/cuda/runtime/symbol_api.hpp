// Copies to and from `__device__` and `__constant__` variables, and their
// addresses and sizes.
//
// In weft such a variable is an ordinary global in host memory, so the
// symbol is taken by reference, as CUDA's C++ overloads take it: its type
// gives its size, against which offset + count is checked. The copies wait
// for launched kernels, as cudaMemcpy does.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "weft/detail/base/error_state.hpp"
#include "weft/cuda/runtime/device_api.hpp"
#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory_api.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"

namespace weft::detail {

/// `count` bytes at `offset` into a symbol of `size` bytes.
inline bool within_symbol(std::size_t size, std::size_t count, std::size_t offset) {
  return offset <= size && count <= size - offset;
}

/// Copies between `other` and the symbol at `symbol` (of `size` bytes); the
/// offset is applied only once it is known to lie within the symbol.
inline cudaError_t copy_symbol(void* symbol, void* other_dst, const void* other_src, std::size_t count,
                               cudaMemcpyKind kind, bool to_symbol, std::size_t size, std::size_t offset,
                               placement where = synchronous) {
  if (cudaError_t e = check_device()) return e;
  // The symbol is device memory, so the other side is the host or the device.
  bool allowed = kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault ||
                 kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  if (!allowed) return record(cudaErrorInvalidMemcpyDirection);
  if (!within_symbol(size, count, offset)) return record(cudaErrorInvalidValue);
  if (count == 0) return cudaSuccess;
  const void* other = to_symbol ? other_src : other_dst;
  if (!other) return record(cudaErrorInvalidValue);
  bool other_on_device = kind == cudaMemcpyDeviceToDevice;
  if (other_on_device ? !is_device_range(other, count) : !is_plausible_range(other, count))
    return record(cudaErrorInvalidValue);
  char* at = static_cast<char*>(symbol) + offset;
  void* dst = to_symbol ? at : other_dst;
  const void* src = to_symbol ? other_src : at;
  return perform(where, "symbol copy of " + std::to_string(count) + " bytes", [=] { std::memmove(dst, src, count); });
}

}  // namespace weft::detail

template <class T>
cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  void* at = const_cast<std::remove_cv_t<T>*>(&symbol);
  return weft::detail::copy_symbol(at, nullptr, src, count, kind, true, sizeof(T), offset);
}

template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  void* at = const_cast<std::remove_cv_t<T>*>(&symbol);
  return weft::detail::copy_symbol(at, dst, nullptr, count, kind, false, sizeof(T), offset);
}

template <class T>
cudaError_t cudaMemcpyToSymbolAsync(T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = nullptr) {
  void* at = const_cast<std::remove_cv_t<T>*>(&symbol);
  return weft::detail::copy_symbol(at, nullptr, src, count, kind, true, sizeof(T), offset,
                                   weft::detail::asynchronous_on(stream));
}

template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = nullptr) {
  void* at = const_cast<std::remove_cv_t<T>*>(&symbol);
  return weft::detail::copy_symbol(at, dst, nullptr, count, kind, false, sizeof(T), offset,
                                   weft::detail::asynchronous_on(stream));
}

/// The variable's own address: device globals are host globals in weft.
template <class T>
cudaError_t cudaGetSymbolAddress(void** devPtr, const T& symbol) {
  if (!devPtr) return weft::detail::record(cudaErrorInvalidValue);
  *devPtr = const_cast<void*>(static_cast<const void*>(&symbol));
  return cudaSuccess;
}

template <class T>
cudaError_t cudaGetSymbolSize(std::size_t* size, const T&) {
  if (!size) return weft::detail::record(cudaErrorInvalidValue);
  *size = sizeof(T);
  return cudaSuccess;
}
