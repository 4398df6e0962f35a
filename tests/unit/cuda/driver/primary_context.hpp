// What a driver-API program does before it allocates or launches: cuInit,
// then make device 0's primary context current on this thread. Each test
// does it itself, since ctest runs each test case in a process of its own,
// where no earlier test has made a context current. The context stays
// retained for the rest of the process, as a program's would.
#pragma once

#include <doctest/doctest.h>

#include "weft/cuda/driver/driver_api.hpp"

inline void use_primary_context() {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUdevice device = 0;
  REQUIRE(cuDeviceGet(&device, 0) == CUDA_SUCCESS);
  CUcontext context = nullptr;
  REQUIRE(cuDevicePrimaryCtxRetain(&context, device) == CUDA_SUCCESS);
  REQUIRE(cuCtxSetCurrent(context) == CUDA_SUCCESS);
}
