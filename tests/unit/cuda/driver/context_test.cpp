// Contexts through the driver API: primary contexts, cuCtxCreate and the
// thread's stack of current contexts, and the codes for bad handles.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <thread>

#include "weft/cuda/driver/driver_api.hpp"

TEST_CASE("primary contexts: retain, release, state and flags") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUcontext primary = nullptr, again = nullptr;
  REQUIRE(cuDevicePrimaryCtxRetain(&primary, 0) == CUDA_SUCCESS);
  REQUIRE(cuDevicePrimaryCtxRetain(&again, 0) == CUDA_SUCCESS);
  CHECK(primary != nullptr);
  CHECK(primary == again);  // one per device
  unsigned flags = 99;
  int active = 0;
  REQUIRE(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS);
  CHECK(active == 1);
  REQUIRE(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC) == CUDA_SUCCESS);
  REQUIRE(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS);
  CHECK(flags == CU_CTX_SCHED_BLOCKING_SYNC);
  CHECK(cuDevicePrimaryCtxSetFlags(0, 0x1000) == CUDA_ERROR_INVALID_VALUE);
  REQUIRE(cuDevicePrimaryCtxSetFlags(0, 0) == CUDA_SUCCESS);
  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
  CHECK(cuDevicePrimaryCtxRelease(0) == CUDA_ERROR_INVALID_CONTEXT);  // more releases than retains
  CHECK(cuDevicePrimaryCtxRetain(&primary, 9) == CUDA_ERROR_INVALID_DEVICE);
  CHECK(cuDevicePrimaryCtxRetain(nullptr, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuDevicePrimaryCtxGetState(0, nullptr, &active) == CUDA_ERROR_INVALID_VALUE);
  // A primary context is not destroyed by cuCtxDestroy.
  CHECK(cuCtxDestroy(primary) == CUDA_ERROR_INVALID_CONTEXT);
  CHECK(cuCtxDestroy(nullptr) == CUDA_ERROR_INVALID_VALUE);
}

TEST_CASE("cuCtxCreate pushes a context; push, pop, set and destroy follow CUDA's stack rules") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  REQUIRE(cudaFree(nullptr) == cudaSuccess);  // the runtime in use: its primary context is current
  CUcontext runtime_context = nullptr;
  REQUIRE(cuCtxGetCurrent(&runtime_context) == CUDA_SUCCESS);
  REQUIRE(runtime_context != nullptr);

  CUcontext created = nullptr;
  REQUIRE(cuCtxCreate(&created, nullptr, 0, 0) == CUDA_SUCCESS);
  CHECK(created != nullptr);
  CHECK(created != runtime_context);
  CUcontext current = nullptr;
  REQUIRE(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
  CHECK(current == created);
  CUdevice dev = -1;
  REQUIRE(cuCtxGetDevice(&dev) == CUDA_SUCCESS);
  CHECK(dev == 0);
  unsigned version = 0;
  REQUIRE(cuCtxGetApiVersion(created, &version) == CUDA_SUCCESS);
  CHECK(version == 3020);
  CHECK(cuCtxSynchronize() == CUDA_SUCCESS);

  CUcontext popped = nullptr;
  REQUIRE(cuCtxPopCurrent(&popped) == CUDA_SUCCESS);
  CHECK(popped == created);
  REQUIRE(cuCtxPushCurrent(created) == CUDA_SUCCESS);
  REQUIRE(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
  CHECK(current == created);
  CHECK(cuCtxPushCurrent(nullptr) == CUDA_ERROR_INVALID_VALUE);

  // Memory and streams are the device's, whichever context made them.
  CUdeviceptr p = 0;
  REQUIRE(cuMemAlloc(&p, 64) == CUDA_SUCCESS);
  REQUIRE(cuCtxDestroy(created) == CUDA_SUCCESS);
  CHECK(cuCtxDestroy(created) == CUDA_ERROR_INVALID_CONTEXT);
  CHECK(cuCtxPushCurrent(created) == CUDA_ERROR_INVALID_CONTEXT);
  CHECK(cuCtxSetCurrent(created) == CUDA_ERROR_INVALID_CONTEXT);
  CHECK(cuCtxGetApiVersion(created, &version) == CUDA_ERROR_INVALID_CONTEXT);
  REQUIRE(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
  CHECK(current == runtime_context);  // the runtime's primary context again
  CHECK(cuMemFree(p) == CUDA_SUCCESS);

  CHECK(cuCtxCreate(nullptr, nullptr, 0, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuCtxCreate(&created, nullptr, 0, 5) == CUDA_ERROR_INVALID_DEVICE);
  CHECK(cuCtxCreate(&created, nullptr, 0x1000, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuCtxPopCurrent(nullptr) == CUDA_ERROR_INVALID_CONTEXT);  // the stack is empty
}

TEST_CASE("each host thread has its own stack of current contexts") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUcontext created = nullptr;
  REQUIRE(cuCtxCreate(&created, nullptr, 0, 0) == CUDA_SUCCESS);
  CUcontext seen_elsewhere = created;
  std::thread([&] { cuCtxGetCurrent(&seen_elsewhere); }).join();
  CHECK(seen_elsewhere != created);
  std::thread([&] {
    cuCtxSetCurrent(created);
    cuCtxGetCurrent(&seen_elsewhere);
  }).join();
  CHECK(seen_elsewhere == created);
  CHECK(cuCtxDestroy(created) == CUDA_SUCCESS);
}

TEST_CASE("multi_device: a context makes its device the runtime's current device" *
          doctest::test_suite("multi_device")) {
  if (weft::detail::device_count() < 2) return;  // ctest runs this suite with WEFT_DEVICES=3
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  CUcontext on_one = nullptr;
  REQUIRE(cuCtxCreate(&on_one, nullptr, 0, 1) == CUDA_SUCCESS);
  int device = -1;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  CHECK(device == 1);
  CUdeviceptr p = 0;
  REQUIRE(cuMemAlloc(&p, 64) == CUDA_SUCCESS);
  int ordinal = -1;
  REQUIRE(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p) == CUDA_SUCCESS);
  CHECK(ordinal == 1);
  // cudaSetDevice makes the other device's primary context current.
  REQUIRE(cudaSetDevice(2) == cudaSuccess);
  CUdevice current = -1;
  REQUIRE(cuCtxGetDevice(&current) == CUDA_SUCCESS);
  CHECK(current == 2);
  CUcontext primary_two = nullptr, now = nullptr;
  REQUIRE(cuDevicePrimaryCtxRetain(&primary_two, 2) == CUDA_SUCCESS);
  REQUIRE(cuCtxGetCurrent(&now) == CUDA_SUCCESS);
  CHECK(now == primary_two);
  REQUIRE(cuDevicePrimaryCtxRelease(2) == CUDA_SUCCESS);
  REQUIRE(cuCtxSetCurrent(on_one) == CUDA_SUCCESS);
  REQUIRE(cuCtxGetDevice(&current) == CUDA_SUCCESS);
  CHECK(current == 1);
  CHECK(cuMemFree(p) == CUDA_SUCCESS);
  CHECK(cuCtxDestroy(on_one) == CUDA_SUCCESS);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
}
