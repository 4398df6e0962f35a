// The driver API's initialisation, devices and error names: cuInit's rule,
// cuDeviceGet*, cuDeviceGetAttribute answering as cudaDeviceGetAttribute
// does, and CUDA's names and texts for CUresult codes.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstring>
#include <string>

#include "weft/cuda/driver/driver_api.hpp"

namespace {

// Runs `check` as a process in which neither cuInit nor the runtime has
// initialised the driver yet, then restores both.
template <class Check>
void before_initialisation(Check check) {
  auto& runtime_flag = weft::detail::runtime_initialised();
  auto& driver_flag = weft::detail::driver_contexts::get().initialised;
  bool runtime_was = runtime_flag.exchange(false), driver_was = driver_flag.exchange(false);
  check();
  runtime_flag = runtime_was;
  driver_flag = driver_was;
}

}  // namespace

TEST_CASE("driver calls before cuInit return CUDA_ERROR_NOT_INITIALIZED; cuInit takes flags 0 only") {
  before_initialisation([] {
    int count = -1;
    CUdevice dev = -1;
    CUcontext ctx = nullptr;
    CHECK(cuDeviceGetCount(&count) == CUDA_ERROR_NOT_INITIALIZED);
    CHECK(cuDeviceGet(&dev, 0) == CUDA_ERROR_NOT_INITIALIZED);
    CHECK(cuCtxGetCurrent(&ctx) == CUDA_ERROR_NOT_INITIALIZED);
    CUdeviceptr p = 0;
    CHECK(cuMemAlloc(&p, 16) == CUDA_ERROR_NOT_INITIALIZED);
    int version = 0;
    CHECK(cuDriverGetVersion(&version) == CUDA_SUCCESS);  // needs no cuInit
    CHECK(version == 13000);
    CHECK(cuInit(1) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuDeviceGetCount(&count) == CUDA_ERROR_NOT_INITIALIZED);
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS);
    CHECK(count == weft::detail::device_count());
    // Initialised but no context is current: calls that need one say so.
    CHECK(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS);
    CHECK(ctx == nullptr);
    CHECK(cuCtxGetDevice(&dev) == CUDA_ERROR_INVALID_CONTEXT);
    CHECK(cuCtxSynchronize() == CUDA_ERROR_INVALID_CONTEXT);
    CHECK(cuMemAlloc(&p, 16) == CUDA_ERROR_INVALID_CONTEXT);
  });
  // Once the runtime has been used, the driver is initialised and the
  // primary context of the thread's device is current.
  CHECK(cudaFree(nullptr) == cudaSuccess);
  CUcontext ctx = nullptr;
  CUdevice dev = -1;
  REQUIRE(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS);
  CHECK(ctx != nullptr);
  CHECK(cuCtxGetDevice(&dev) == CUDA_SUCCESS);
  CHECK(dev == 0);
}

TEST_CASE("cuDeviceGet, cuDeviceGetName, cuDeviceGetUuid and cuDeviceTotalMem describe the runtime's device") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  CUdevice dev = -1;
  REQUIRE(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
  CHECK(dev == 0);
  CHECK(cuDeviceGet(&dev, weft::detail::device_count()) == CUDA_ERROR_INVALID_DEVICE);
  CHECK(cuDeviceGet(&dev, -1) == CUDA_ERROR_INVALID_DEVICE);
  CHECK(cuDeviceGet(nullptr, 0) == CUDA_ERROR_INVALID_VALUE);

  cudaDeviceProp prop{};
  REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
  char name[256];
  REQUIRE(cuDeviceGetName(name, sizeof name, 0) == CUDA_SUCCESS);
  CHECK(std::string(name) == prop.name);
  char short_name[5] = {'x', 'x', 'x', 'x', 'x'};
  REQUIRE(cuDeviceGetName(short_name, 4, 0) == CUDA_SUCCESS);
  CHECK(std::string(short_name) == std::string(prop.name).substr(0, 3));
  CHECK(short_name[4] == 'x');
  CHECK(cuDeviceGetName(nullptr, 10, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuDeviceGetName(name, 10, 7) == CUDA_ERROR_INVALID_DEVICE);

  CUuuid uuid{};
  REQUIRE(cuDeviceGetUuid(&uuid, 0) == CUDA_SUCCESS);
  CHECK(std::memcmp(uuid.bytes, prop.uuid.bytes, sizeof uuid.bytes) == 0);
  CHECK(cuDeviceGetUuid_v2(nullptr, 0) == CUDA_ERROR_INVALID_VALUE);

  std::size_t total = 0;
  REQUIRE(cuDeviceTotalMem(&total, 0) == CUDA_SUCCESS);
  CHECK(total == prop.totalGlobalMem);

  int major = 0, minor = -1;
  REQUIRE(cuDeviceComputeCapability(&major, &minor, 0) == CUDA_SUCCESS);
  CHECK(major == 9);
  CHECK(minor == 0);
}

TEST_CASE("cuDeviceGetAttribute answers every runtime attribute as cudaDeviceGetAttribute does") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  int compared = 0;
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
    int runtime_value = -7, driver_value = -7;
    cudaError_t e = cudaDeviceGetAttribute(&runtime_value, static_cast<cudaDeviceAttr>(a), 0);
    (void)cudaGetLastError();
    CUresult r = cuDeviceGetAttribute(&driver_value, static_cast<CUdevice_attribute>(a), 0);
    CAPTURE(a);
    if (e == cudaSuccess) {
      CHECK(r == CUDA_SUCCESS);
      CHECK(driver_value == runtime_value);
      ++compared;
    }
  }
  CHECK(compared > 120);
  int v = 0;
  CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 7) == CUDA_ERROR_INVALID_DEVICE);
  CHECK(cuDeviceGetAttribute(nullptr, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0) == CUDA_ERROR_INVALID_VALUE);
  // The driver-only attributes: virtual memory management and compression
  // as on an H100.
  REQUIRE(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0) == CUDA_SUCCESS);
  CHECK(v == 1);
  REQUIRE(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, 0) == CUDA_SUCCESS);
  CHECK(v == 1);
  REQUIRE(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0) == CUDA_SUCCESS);
  CHECK(v == 0);
  REQUIRE(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0) == CUDA_SUCCESS);
  CHECK(v == 9);
  int peer = -1;
  REQUIRE(cuDeviceCanAccessPeer(&peer, 0, 0) == CUDA_SUCCESS);
  CHECK(peer == 0);  // a device is not its own peer
}

TEST_CASE("cuGetErrorName and cuGetErrorString give CUDA's names and texts") {
  const char* s = nullptr;
  REQUIRE(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s) == CUDA_SUCCESS);
  CHECK(std::string(s) == "CUDA_ERROR_INVALID_VALUE");
  REQUIRE(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s) == CUDA_SUCCESS);
  CHECK(std::string(s) == "invalid argument");
  REQUIRE(cuGetErrorString(CUDA_ERROR_NOT_INITIALIZED, &s) == CUDA_SUCCESS);
  CHECK(std::string(s) == "initialization error");
  REQUIRE(cuGetErrorName(CUDA_ERROR_NOT_SUPPORTED, &s) == CUDA_SUCCESS);
  CHECK(std::string(s) == "CUDA_ERROR_NOT_SUPPORTED");
  REQUIRE(cuGetErrorString(CUDA_ERROR_INVALID_CONTEXT, &s) == CUDA_SUCCESS);
  CHECK(std::string(s) == "invalid device context");
  REQUIRE(cuGetErrorName(CUDA_SUCCESS, &s) == CUDA_SUCCESS);
  CHECK(std::string(s) == "CUDA_SUCCESS");
  CHECK(cuGetErrorName(static_cast<CUresult>(12345), &s) == CUDA_ERROR_INVALID_VALUE);
  CHECK(s == nullptr);
  CHECK(cuGetErrorString(static_cast<CUresult>(37), &s) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuGetErrorName(CUDA_SUCCESS, nullptr) == CUDA_ERROR_INVALID_VALUE);
  // Every code has a name that spells its enumerator.
  for (const auto& d : weft::detail::driver_error_descriptions) {
    REQUIRE(cuGetErrorName(d.code, &s) == CUDA_SUCCESS);
    CHECK(std::string(s).rfind("CUDA_", 0) == 0);
  }
}
