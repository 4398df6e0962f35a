// Modules, linking and libraries: not supported. weft compiles CUDA C++
// with the host's compiler, so a program has no PTX or cubin to load; its
// kernels are ordinary functions, launched by address (launch_api.hpp).
// Each loading call returns CUDA_ERROR_NOT_SUPPORTED and says why on stderr,
// once per process; calls on a module or link state (which can therefore
// not exist) return CUDA_ERROR_INVALID_HANDLE.
#pragma once

#include <cstdio>
#include <mutex>

#include "weft/cuda/driver/context_api.hpp"
#include "weft/cuda/driver/driver_types.hpp"

enum CUlibraryOption_enum : int {
  CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE = 0,
  CU_LIBRARY_BINARY_IS_PRESERVED = 1,
  CU_LIBRARY_NUM_OPTIONS
};
using CUlibraryOption = CUlibraryOption_enum;

namespace weft::detail {

inline CUresult refuse_module(const char* call) {
  static std::once_flag said;
  std::call_once(said, [call] {
    std::fprintf(stderr,
                 "weft: %s: loading modules, PTX, cubins or libraries is not supported (weft compiles CUDA C++ with "
                 "the host compiler, so there is no device code to load); launch kernels by address with "
                 "cudaLaunchKernel, or cuLaunchKernel with a CUfunction from cudaGetFuncBySymbol\n",
                 call);
  });
  return CUDA_ERROR_NOT_SUPPORTED;
}

/// Checks a loading call's context and arguments as CUDA does (the context
/// first, as measured on an H100) before refusing it.
inline CUresult refuse_load(const char* call, const void* out, const void* image) {
  if (CUresult r = check_current_context()) return r;
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  return refuse_module(call);
}

}  // namespace weft::detail

inline CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  return weft::detail::refuse_load("cuModuleLoad", module, fname);
}

inline CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  return weft::detail::refuse_load("cuModuleLoadData", module, image);
}

inline CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int, CUjit_option*, void**) {
  return weft::detail::refuse_load("cuModuleLoadDataEx", module, image);
}

inline CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin) {
  return weft::detail::refuse_load("cuModuleLoadFatBinary", module, fatCubin);
}

inline CUresult cuModuleUnload(CUmodule) { return CUDA_ERROR_INVALID_HANDLE; }

inline CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule, const char* name) {
  if (!hfunc || !name) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_ERROR_INVALID_HANDLE;
}

inline CUresult cuModuleGetGlobal(CUdeviceptr* dptr, std::size_t* bytes, CUmodule, const char* name) {
  (void)dptr;
  (void)bytes;
  if (!name) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_ERROR_INVALID_HANDLE;
}

inline CUresult cuLinkCreate(unsigned int, CUjit_option*, void**, CUlinkState* stateOut) {
  return weft::detail::refuse_load("cuLinkCreate", stateOut, stateOut);
}

inline CUresult cuLinkAddData(CUlinkState, CUjitInputType, void*, std::size_t, const char*, unsigned int, CUjit_option*,
                              void**) {
  return CUDA_ERROR_INVALID_HANDLE;
}

inline CUresult cuLinkAddFile(CUlinkState, CUjitInputType, const char*, unsigned int, CUjit_option*, void**) {
  return CUDA_ERROR_INVALID_HANDLE;
}

inline CUresult cuLinkComplete(CUlinkState, void**, std::size_t*) { return CUDA_ERROR_INVALID_HANDLE; }

inline CUresult cuLinkDestroy(CUlinkState) { return CUDA_ERROR_INVALID_HANDLE; }

inline CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*, void**, unsigned int,
                                  CUlibraryOption*, void**, unsigned int) {
  return weft::detail::refuse_load("cuLibraryLoadData", library, code);
}

inline CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* fileName, CUjit_option*, void**, unsigned int,
                                      CUlibraryOption*, void**, unsigned int) {
  return weft::detail::refuse_load("cuLibraryLoadFromFile", library, fileName);
}

inline CUresult cuLibraryUnload(CUlibrary) { return CUDA_ERROR_INVALID_HANDLE; }

inline CUresult cuLibraryGetKernel(CUkernel* pKernel, CUlibrary, const char* name) {
  if (!pKernel || !name) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_ERROR_INVALID_HANDLE;
}
