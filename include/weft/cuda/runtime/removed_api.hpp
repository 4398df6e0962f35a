// Runtime calls that CUDA 13 removed but that course code older than it
// still makes. Each is accepted and does what the last CUDA that had it
// did, which is what its replacement does (CUDA had made them aliases of
// the cudaDevice* calls since CUDA 4.0), and warns at compile time, naming
// the replacement, so that the program can be brought up to date. The
// cudaDeviceProp fields CUDA 13 removed are kept in the same way
// (detail/base/cuda_device_properties.hpp). docs/porting.md lists both.
#pragma once

#include <cstddef>

#include "weft/cuda/runtime/device_api.hpp"
#include "weft/cuda/runtime/function_attributes.hpp"

[[deprecated("cudaThreadSynchronize was removed in CUDA 13: use cudaDeviceSynchronize")]] inline cudaError_t
cudaThreadSynchronize() {
  return cudaDeviceSynchronize();
}

[[deprecated("cudaThreadExit was removed in CUDA 13: use cudaDeviceReset")]] inline cudaError_t cudaThreadExit() {
  return cudaDeviceReset();
}

[[deprecated("cudaThreadSetLimit was removed in CUDA 13: use cudaDeviceSetLimit")]] inline cudaError_t
cudaThreadSetLimit(cudaLimit limit, std::size_t value) {
  return cudaDeviceSetLimit(limit, value);
}

[[deprecated("cudaThreadGetLimit was removed in CUDA 13: use cudaDeviceGetLimit")]] inline cudaError_t
cudaThreadGetLimit(std::size_t* value, cudaLimit limit) {
  return cudaDeviceGetLimit(value, limit);
}

[[deprecated("cudaThreadSetCacheConfig was removed in CUDA 13: use cudaDeviceSetCacheConfig")]] inline cudaError_t
cudaThreadSetCacheConfig(cudaFuncCache cacheConfig) {
  return cudaDeviceSetCacheConfig(cacheConfig);
}

[[deprecated("cudaThreadGetCacheConfig was removed in CUDA 13: use cudaDeviceGetCacheConfig")]] inline cudaError_t
cudaThreadGetCacheConfig(cudaFuncCache* cacheConfig) {
  return cudaDeviceGetCacheConfig(cacheConfig);
}
