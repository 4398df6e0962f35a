// Streams, events and launches through the driver API: CUstream and
// cudaStream_t are the same handles, cuLaunchKernel launches a registered
// kernel, and loading modules is refused with CUDA_ERROR_NOT_SUPPORTED.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <vector>

#include "primary_context.hpp"
#include "weft/cuda/driver/driver_api.hpp"

namespace {

__global__ void scale(float* data, float factor, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] *= factor;
}

__global__ void not_registered(int*) {}

const bool scale_registered = weft::register_kernel<&scale>();

}  // namespace

TEST_CASE("CUstream and cudaStream_t, CUevent and cudaEvent_t are interchangeable") {
  use_primary_context();
  CUstream driver_stream = nullptr;
  REQUIRE(cuStreamCreate(&driver_stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
  unsigned flags = 0;
  REQUIRE(cudaStreamGetFlags(driver_stream, &flags) == cudaSuccess);
  CHECK(flags == cudaStreamNonBlocking);
  cudaStream_t runtime_stream = nullptr;
  REQUIRE(cudaStreamCreate(&runtime_stream) == cudaSuccess);
  CHECK(cuStreamQuery(runtime_stream) == CUDA_SUCCESS);

  CUevent start = nullptr, stop = nullptr;
  REQUIRE(cuEventCreate(&start, CU_EVENT_DEFAULT) == CUDA_SUCCESS);
  REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
  REQUIRE(cuEventRecord(start, runtime_stream) == CUDA_SUCCESS);
  REQUIRE(cudaEventRecord(stop, driver_stream) == cudaSuccess);
  REQUIRE(cuStreamWaitEvent(driver_stream, start, 0) == CUDA_SUCCESS);
  REQUIRE(cuEventSynchronize(stop) == CUDA_SUCCESS);
  REQUIRE(cuEventSynchronize(start) == CUDA_SUCCESS);
  CHECK(cuEventQuery(stop) == CUDA_SUCCESS);
  float ms = -1;
  CHECK(cuEventElapsedTime(&ms, start, stop) == CUDA_SUCCESS);
  CHECK(cuEventElapsedTime(nullptr, start, stop) == CUDA_ERROR_INVALID_VALUE);

  CHECK(cuStreamSynchronize(driver_stream) == CUDA_SUCCESS);
  CHECK(cudaStreamDestroy(driver_stream) == cudaSuccess);
  CHECK(cuStreamDestroy(runtime_stream) == CUDA_SUCCESS);
  CHECK(cuStreamDestroy(runtime_stream) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuStreamDestroy(nullptr) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuEventDestroy(start) == CUDA_SUCCESS);
  CHECK(cudaEventDestroy(stop) == cudaSuccess);
  CHECK(cuEventDestroy(stop) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuEventDestroy(nullptr) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("cuLaunchKernel launches a registered kernel from cudaGetFuncBySymbol") {
  use_primary_context();
  REQUIRE(scale_registered);
  CUfunction f = nullptr;
  REQUIRE(cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(&scale)) == cudaSuccess);
  CHECK(f != nullptr);

  const int n = 1000;
  std::vector<float> host(n, 2.0f);
  CUdeviceptr data = 0;
  REQUIRE(cuMemAlloc(&data, n * sizeof(float)) == CUDA_SUCCESS);
  REQUIRE(cuMemcpyHtoD(data, host.data(), n * sizeof(float)) == CUDA_SUCCESS);
  CUstream stream = nullptr;
  REQUIRE(cuStreamCreate(&stream, 0) == CUDA_SUCCESS);
  float factor = 1.5f;
  int count = n;
  void* params[] = {&data, &factor, &count};
  REQUIRE(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, stream, params, nullptr) == CUDA_SUCCESS);
  REQUIRE(cuStreamSynchronize(stream) == CUDA_SUCCESS);
  REQUIRE(cuMemcpyDtoH(host.data(), data, n * sizeof(float)) == CUDA_SUCCESS);
  for (float v : host) CHECK(v == 3.0f);
  REQUIRE(cuLaunchCooperativeKernel(f, 2, 1, 1, 32, 1, 1, 0, stream, params) == CUDA_SUCCESS);
  REQUIRE(cuCtxSynchronize() == CUDA_SUCCESS);

  int value = 0;
  REQUIRE(cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) == CUDA_SUCCESS);
  CHECK(value == 1024);
  REQUIRE(cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS);
  CHECK(value == 48 * 1024);

  // A function that is no registered kernel is an invalid handle.
  CHECK(cuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr) == CUDA_ERROR_INVALID_HANDLE);
  auto unknown = reinterpret_cast<CUfunction>(reinterpret_cast<void*>(&not_registered));
  CHECK(cuLaunchKernel(unknown, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_NUM_REGS, unknown) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(&not_registered)) == cudaErrorInvalidDeviceFunction);
  CHECK(cudaGetLastError() == cudaErrorInvalidDeviceFunction);
  // Bad shapes get the driver's code for the runtime's refusal.
  CUfunction g = nullptr;
  REQUIRE(cudaGetFuncBySymbol(&g, reinterpret_cast<const void*>(&scale)) == cudaSuccess);
  CHECK(cuLaunchKernel(g, 1, 1, 1, 2048, 1, 1, 0, stream, params, nullptr) == CUDA_ERROR_INVALID_VALUE);
  void* packed[] = {nullptr};
  CHECK(cuLaunchKernel(g, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, packed) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cudaGetLastError() == cudaSuccess);

  CHECK(cuStreamDestroy(stream) == CUDA_SUCCESS);
  CHECK(cuMemFree(data) == CUDA_SUCCESS);
}

TEST_CASE("loading modules or PTX is refused with CUDA_ERROR_NOT_SUPPORTED") {
  use_primary_context();
  CUmodule module = nullptr;
  CHECK(cuModuleLoad(&module, "kernels.ptx") == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuModuleLoadData(&module, "// PTX") == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuModuleLoadDataEx(&module, "// PTX", 0, nullptr, nullptr) == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuModuleLoadFatBinary(&module, "fatbin") == CUDA_ERROR_NOT_SUPPORTED);
  CHECK(cuModuleLoad(nullptr, "kernels.ptx") == CUDA_ERROR_INVALID_VALUE);
  CUlinkState link = nullptr;
  CHECK(cuLinkCreate(0, nullptr, nullptr, &link) == CUDA_ERROR_NOT_SUPPORTED);
  CUlibrary library = nullptr;
  CHECK(cuLibraryLoadFromFile(&library, "k.cubin", nullptr, nullptr, 0, nullptr, nullptr, 0) ==
        CUDA_ERROR_NOT_SUPPORTED);
  CUfunction f = nullptr;
  CHECK(cuModuleGetFunction(&f, module, "kernel") == CUDA_ERROR_INVALID_HANDLE);
}
