// Launching kernels through the driver API, without modules. A CUfunction
// is the address of a __global__ function the porting step registered
// (every non-template kernel of a ported .cu file): cudaGetFuncBySymbol
// turns `(void*)kernel` into one, and cuLaunchKernel launches it exactly as
// cudaLaunchKernel launches `(void*)kernel`.
#pragma once

#include "weft/cuda/driver/context_api.hpp"
#include "weft/cuda/driver/driver_types.hpp"
#include "weft/cuda/runtime/kernel_api.hpp"
#include "weft/detail/runtime/kernel_registry.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/launch_by_address.hpp"

namespace weft::detail {

inline bool registered_function(CUfunction f) { return f && kernel_registry().find(f).launch != nullptr; }

inline CUresult launch_function(CUfunction f, dim3 grid, dim3 block, unsigned shared_bytes, CUstream stream,
                                void** kernelParams, void** extra, bool cooperative) {
  if (CUresult r = check_current_context()) return r;
  if (!registered_function(f)) return CUDA_ERROR_INVALID_HANDLE;
  // Arguments packed in one buffer (CU_LAUNCH_PARAM_BUFFER_POINTER) need
  // the kernel's parameter offsets, which only a compiled module knows.
  if (extra) return CUDA_ERROR_NOT_SUPPORTED;
  return through_runtime([&] {
    return cooperative ? cudaLaunchCooperativeKernel(static_cast<const void*>(f), grid, block, kernelParams,
                                                     shared_bytes, stream)
                       : cudaLaunchKernel(static_cast<const void*>(f), grid, block, kernelParams, shared_bytes, stream);
  });
}

}  // namespace weft::detail

/// The runtime's way to a CUfunction: cudaErrorInvalidDeviceFunction for an
/// address that is no registered kernel.
inline cudaError_t cudaGetFuncBySymbol(cudaFunction_t* functionPtr, const void* symbolPtr) {
  using namespace weft::detail;
  if (!functionPtr) return record(cudaErrorInvalidValue);
  if (!registered_function(static_cast<CUfunction>(const_cast<void*>(symbolPtr))))
    return record(cudaErrorInvalidDeviceFunction);
  *functionPtr = static_cast<cudaFunction_t>(const_cast<void*>(symbolPtr));
  return cudaSuccess;
}

/// kernelParams[i] points to the i-th argument, as for cudaLaunchKernel;
/// `extra` (arguments packed in one buffer) is CUDA_ERROR_NOT_SUPPORTED.
inline CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                               unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                               unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
  return weft::detail::launch_function(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ),
                                       sharedMemBytes, hStream, kernelParams, extra, false);
}

/// All blocks resident at once, as cudaLaunchCooperativeKernel.
inline CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                          unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                          unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                          void** kernelParams) {
  return weft::detail::launch_function(f, dim3(gridDimX, gridDimY, gridDimZ), dim3(blockDimX, blockDimY, blockDimZ),
                                       sharedMemBytes, hStream, kernelParams, nullptr, true);
}

/// What weft knows of a kernel, as cudaFuncGetAttributes reports it: 1024
/// threads, the dynamic shared memory limit, sm_90 binaries, and no static
/// shared, constant, local memory or registers counted.
inline CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
  using namespace weft::detail;
  if (!driver_initialised()) return CUDA_ERROR_NOT_INITIALIZED;
  if (!pi) return CUDA_ERROR_INVALID_VALUE;
  if (!registered_function(hfunc)) return CUDA_ERROR_INVALID_HANDLE;
  kernel_attributes a = runtime::get().attributes(static_cast<const void*>(hfunc));
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *pi = 1024;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      *pi = 0;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *pi = 90;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *pi = static_cast<int>(a.max_dynamic_shared_bytes);
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      *pi = -1;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      *pi = a.non_portable_cluster_size ? 1 : 0;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
}
