// Copies to and from `__device__` and `__constant__` variables, and their
// addresses and sizes.
//
// In weft such a variable is an ordinary global in host memory, so the
// symbol is taken by reference, as CUDA's C++ overloads take it: its type
// gives its size, against which offset + count is checked. The copies wait
// for launched kernels, as cudaMemcpy does.
#pragma once

#include <cstddef>
#include <type_traits>

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/cuda/runtime/memory/memory_api.hpp"
#include "weft/cuda/runtime/streams/default_stream.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/graphs/captured_copies.hpp"
#include "weft/detail/memory/memory_copies.hpp"
#include "weft/detail/streams/host_task.hpp"

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
inline namespace weft_per_thread_default_stream {
#else
inline namespace weft_legacy_default_stream {
#endif

template <class T>
cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  void* at = const_cast<std::remove_cv_t<T>*>(&symbol);
  return weft::detail::copy_symbol_or_capture(at, nullptr, src, count, kind, true, sizeof(T), offset,
                                              weft::surface::synchronously());
}

template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  void* at = const_cast<std::remove_cv_t<T>*>(&symbol);
  return weft::detail::copy_symbol_or_capture(at, dst, nullptr, count, kind, false, sizeof(T), offset,
                                              weft::surface::synchronously());
}

template <class T>
cudaError_t cudaMemcpyToSymbolAsync(T& symbol, const void* src, std::size_t count, std::size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = nullptr) {
  void* at = const_cast<std::remove_cv_t<T>*>(&symbol);
  return weft::detail::copy_symbol_or_capture(at, nullptr, src, count, kind, true, sizeof(T), offset,
                                              weft::surface::asynchronously_on(stream));
}

template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, std::size_t count, std::size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = nullptr) {
  void* at = const_cast<std::remove_cv_t<T>*>(&symbol);
  return weft::detail::copy_symbol_or_capture(at, dst, nullptr, count, kind, false, sizeof(T), offset,
                                              weft::surface::asynchronously_on(stream));
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

}  // inline namespace weft_per_thread_default_stream or weft_legacy_default_stream
