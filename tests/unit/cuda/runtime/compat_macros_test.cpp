// The headers named as CUDA's define the version and include-guard macros
// that CUDA 13's define, because programs test them: cuda-samples'
// helper_cuda.h declares checkCudaErrors, findCudaDevice and
// getLastCudaError only when __DRIVER_TYPES_H__ and __CUDA_RUNTIME_H__ are
// defined, and course code selects paths with `#if CUDART_VERSION >= ...`.
#include <doctest/doctest.h>

#include <weft/compat/cuda_runtime.h>

#ifndef __CUDA_RUNTIME_H__
#error "cuda_runtime.h must define __CUDA_RUNTIME_H__"
#endif
#ifndef __CUDA_RUNTIME_API_H__
#error "cuda_runtime.h must bring cuda_runtime_api.h, which defines __CUDA_RUNTIME_API_H__"
#endif
#ifndef __DRIVER_TYPES_H__
#error "cuda_runtime.h must bring driver_types.h, which defines __DRIVER_TYPES_H__"
#endif
#ifndef __VECTOR_TYPES_H__
#error "cuda_runtime.h must bring vector_types.h, which defines __VECTOR_TYPES_H__"
#endif
#ifndef __VECTOR_FUNCTIONS_H__
#error "cuda_runtime.h must bring vector_functions.h, which defines __VECTOR_FUNCTIONS_H__"
#endif
#if CUDART_VERSION < 13000
#error "CUDART_VERSION must be CUDA 13's"
#endif

TEST_CASE("CUDART_VERSION and __CUDART_API_VERSION are CUDA 13.0's, as cudaRuntimeGetVersion reports") {
  CHECK(CUDART_VERSION == 13000);
  CHECK(__CUDART_API_VERSION == 13000);
  int runtime = 0, driver = 0;
  REQUIRE(cudaRuntimeGetVersion(&runtime) == cudaSuccess);
  REQUIRE(cudaDriverGetVersion(&driver) == cudaSuccess);
  CHECK(runtime == CUDART_VERSION);
  CHECK(driver >= CUDART_VERSION);
  // threadFenceReduction and simpleZeroCopy print the version so.
  CHECK(CUDART_VERSION / 1000 == 13);
  CHECK((CUDART_VERSION % 100) / 10 == 0);
}
