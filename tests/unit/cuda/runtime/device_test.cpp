// Devices: count, current device, properties and attributes, versions,
// memory information, peer access and peer copies. The tests in the
// "multi_device" suite need several devices: ctest runs them again with
// WEFT_DEVICES=3 (tests/CMakeLists.txt); with one device they check only
// what one device allows.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "error_checks.hpp"
#include "stream_gates.hpp"

#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

int devices() {
  int n = 0;
  REQUIRE(cudaGetDeviceCount(&n) == cudaSuccess);
  return n;
}

}  // namespace

TEST_CASE("cudaGetDeviceCount, cudaSetDevice, cudaGetDevice") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  int n = devices();
  CHECK(n >= 1);
  int d = -1;
  check_succeeded(cudaGetDevice(&d));
  CHECK(d == 0);
  check_succeeded(cudaSetDevice(0));
  check_failed_with(cudaGetDeviceCount(nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaGetDevice(nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaSetDevice(-1), cudaErrorInvalidDevice);
  check_failed_with(cudaSetDevice(n), cudaErrorInvalidDevice);
  check_succeeded(cudaGetDevice(&d));
  CHECK(d == 0);  // a refused cudaSetDevice changes nothing
}

TEST_CASE("cudaInitDevice, cudaSetDeviceFlags, cudaGetDeviceFlags") {
  check_succeeded(cudaInitDevice(0, 0, 0));
  check_failed_with(cudaInitDevice(-1, 0, 0), cudaErrorInvalidDevice);
  check_failed_with(cudaInitDevice(0, 0, 2), cudaErrorInvalidValue);
  check_failed_with(cudaInitDevice(0, 0x100, cudaInitDeviceFlagsAreValid), cudaErrorInvalidValue);
  unsigned flags = 0;
  check_succeeded(cudaGetDeviceFlags(&flags));
  CHECK(flags == cudaDeviceMapHost);
  check_succeeded(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
  check_succeeded(cudaGetDeviceFlags(&flags));
  CHECK(flags == (cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
  check_failed_with(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield), cudaErrorInvalidValue);
  check_failed_with(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
  check_failed_with(cudaGetDeviceFlags(nullptr), cudaErrorInvalidValue);
  check_succeeded(cudaSetDeviceFlags(cudaDeviceScheduleAuto));
}

TEST_CASE("cudaGetDeviceProperties describes an sm_90 device run by the SM workers") {
  cudaDeviceProp p{};
  check_succeeded(cudaGetDeviceProperties(&p, 0));
  CHECK(std::string(p.name).rfind("weft CPU device", 0) == 0);
  CHECK(p.totalGlobalMem > 0);
  CHECK(p.sharedMemPerBlock == 48 * 1024);
  CHECK(p.sharedMemPerBlockOptin == 227 * 1024);
  CHECK(p.sharedMemPerMultiprocessor == 228 * 1024);
  CHECK(p.regsPerBlock == 65536);
  CHECK(p.warpSize == 32);
  CHECK(p.maxThreadsPerBlock == 1024);
  CHECK(p.maxThreadsDim[0] == 1024);
  CHECK(p.maxThreadsDim[1] == 1024);
  CHECK(p.maxThreadsDim[2] == 64);
  CHECK(p.maxGridSize[0] == 2147483647);
  CHECK(p.maxGridSize[1] == 65535);
  CHECK(p.maxGridSize[2] == 65535);
  CHECK(p.multiProcessorCount == static_cast<int>(weft::worker_count()));
  CHECK(p.maxThreadsPerMultiProcessor == 2048);
  CHECK(p.major == 9);
  CHECK(p.minor == 0);
  CHECK(p.totalConstMem == 64 * 1024);
  CHECK(p.concurrentKernels == 1);
  CHECK(p.canMapHostMemory == 1);
  CHECK(p.unifiedAddressing == 1);
  CHECK(p.managedMemory == 1);
  CHECK(p.cooperativeLaunch == 1);
  CHECK(p.l2CacheSize > 0);
  check_failed_with(cudaGetDeviceProperties(nullptr, 0), cudaErrorInvalidValue);
  check_failed_with(cudaGetDeviceProperties(&p, -1), cudaErrorInvalidDevice);
  check_failed_with(cudaGetDeviceProperties(&p, devices()), cudaErrorInvalidDevice);
}

TEST_CASE("texture, surface and L2 limits are an H100's, as texture programs and deviceQuery read them") {
  // Measured on an H100 80GB HBM3 with CUDA 13.0 (cudaGetDeviceProperties
  // and cudaDeviceGetAttribute for every attribute).
  cudaDeviceProp p{};
  REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  CHECK(p.maxTexture1D == 131072);
  CHECK(p.maxTexture2D[0] == 131072);
  CHECK(p.maxTexture2D[1] == 65536);
  CHECK(p.maxTexture2DLinear[2] == 2097120);
  CHECK(p.maxTexture3DAlt[2] == 32768);
  CHECK(p.maxTextureCubemapLayered[1] == 2046);
  CHECK(p.maxSurface2DLayered[2] == 2048);
  CHECK(p.asyncEngineCount == 3);
  CHECK(p.persistingL2CacheMaxSize == 32768000);
  CHECK(p.accessPolicyMaxWindowSize == 134217728);
  CHECK(p.deviceNumaId == -1);
  struct {
    cudaDeviceAttr attr;
    int expected;
  } cases[] = {
      {cudaDevAttrMaxTexture1DWidth, 131072},
      {cudaDevAttrMaxTexture2DLayeredLayers, 2048},
      {cudaDevAttrMaxTexture2DGatherWidth, 32768},
      {cudaDevAttrMaxTexture3DDepthAlt, 32768},
      {cudaDevAttrMaxSurfaceCubemapWidth, 32768},
      {cudaDevAttrMaxTexture1DLinearWidth, 268435456},
      {cudaDevAttrMaxTexture2DLinearPitch, 2097120},
      {cudaDevAttrMaxTexture1DMipmappedWidth, 32768},
      {cudaDevAttrMaxPersistingL2CacheSize, 32768000},
      {cudaDevAttrMaxAccessPolicyWindowSize, 134217728},
      {cudaDevAttrMemSyncDomainCount, 4},
      {cudaDevAttrNumaId, -1},
  };
  for (auto c : cases) {
    int v = 0;
    CAPTURE(static_cast<int>(c.attr));
    check_succeeded(cudaDeviceGetAttribute(&v, c.attr, 0));
    CHECK(v == c.expected);
  }
  std::size_t limit = 0;
  check_succeeded(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  CHECK(limit == 9830400);
}

TEST_CASE("cudaDeviceGetAttribute agrees with the properties") {
  cudaDeviceProp p{};
  REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  struct {
    cudaDeviceAttr attr;
    long long expected;
  } cases[] = {
      {cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock},
      {cudaDevAttrMaxBlockDimZ, 64},
      {cudaDevAttrMaxGridDimX, 2147483647},
      {cudaDevAttrMaxSharedMemoryPerBlock, 48 * 1024},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, 227 * 1024},
      {cudaDevAttrMaxSharedMemoryPerMultiprocessor, 228 * 1024},
      {cudaDevAttrWarpSize, 32},
      {cudaDevAttrMultiProcessorCount, p.multiProcessorCount},
      {cudaDevAttrComputeCapabilityMajor, 9},
      {cudaDevAttrComputeCapabilityMinor, 0},
      {cudaDevAttrClockRate, 1980000},  // an H100 SXM's, in kHz (removed_api_test checks the fields)
      {cudaDevAttrMemoryClockRate, 2619000},
      {cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth},
      {cudaDevAttrL2CacheSize, p.l2CacheSize},
      {cudaDevAttrTotalConstantMemory, 64 * 1024},
      {cudaDevAttrManagedMemory, 1},
      {cudaDevAttrUnifiedAddressing, 1},
      {cudaDevAttrCooperativeLaunch, 1},
  };
  for (auto c : cases) {
    int v = -1;
    CAPTURE(static_cast<int>(c.attr));
    check_succeeded(cudaDeviceGetAttribute(&v, c.attr, 0));
    CHECK(v == c.expected);
  }
  int v = 0;
  check_failed_with(cudaDeviceGetAttribute(nullptr, cudaDevAttrWarpSize, 0), cudaErrorInvalidValue);
  check_failed_with(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, -1), cudaErrorInvalidDevice);
  check_failed_with(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(0), 0), cudaErrorInvalidValue);
  check_failed_with(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(100000), 0), cudaErrorInvalidValue);
}

TEST_CASE("every attribute answers as the properties do, and the multiprocessor count follows the worker count") {
  cudaDeviceProp p{};
  REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  // Every attribute weft knows, read from the table, against the same field of
  // the properties, which are built once.
  for (const auto& reader : weft::detail::attribute_readers) {
    int v = -1;
    CAPTURE(static_cast<int>(reader.attribute));
    check_succeeded(cudaDeviceGetAttribute(&v, reader.attribute, 0));
    CHECK(v == reader.read(p));
  }
  // The workers are the multiprocessors, and set_worker_count changes them
  // while the program runs: both answers follow.
  for (unsigned workers : {3u, 5u}) {
    exact_workers pool(workers);
    int v = 0;
    check_succeeded(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    CHECK(v == static_cast<int>(workers));
    REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
    CHECK(p.multiProcessorCount == static_cast<int>(workers));
  }
}

TEST_CASE("versions and memory information") {
  int version = 0;
  check_succeeded(cudaDriverGetVersion(&version));
  CHECK(version == 13000);
  check_succeeded(cudaRuntimeGetVersion(&version));
  CHECK(version == 13000);
  check_failed_with(cudaDriverGetVersion(nullptr), cudaErrorInvalidValue);
  check_failed_with(cudaRuntimeGetVersion(nullptr), cudaErrorInvalidValue);
  std::size_t free = 0, total = 0;
  check_succeeded(cudaMemGetInfo(&free, &total));
  cudaDeviceProp p{};
  REQUIRE(cudaGetDeviceProperties(&p, 0) == cudaSuccess);
  CHECK(total == p.totalGlobalMem);
  CHECK(free > 0);
  CHECK(free <= total);
  check_failed_with(cudaMemGetInfo(nullptr, &total), cudaErrorInvalidValue);
  check_failed_with(cudaMemGetInfo(&free, nullptr), cudaErrorInvalidValue);
}

TEST_CASE("peer access on one device: a device is not its own peer") {
  int can = -1;
  check_succeeded(cudaDeviceCanAccessPeer(&can, 0, 0));
  CHECK(can == 0);
  check_failed_with(cudaDeviceCanAccessPeer(nullptr, 0, 0), cudaErrorInvalidValue);
  check_failed_with(cudaDeviceCanAccessPeer(&can, 0, -1), cudaErrorInvalidDevice);
  check_failed_with(cudaDeviceCanAccessPeer(&can, devices(), 0), cudaErrorInvalidDevice);
  // Measured on an H100 (tests/differential/runtime_api_probe.expected).
  check_failed_with(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessUnsupported);
  check_failed_with(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
  check_failed_with(cudaDeviceEnablePeerAccess(devices(), 0), cudaErrorInvalidDevice);
  check_failed_with(cudaDeviceDisablePeerAccess(-1), cudaErrorInvalidDevice);
}

TEST_CASE("cudaMemcpyPeer on one device copies within it") {
  std::vector<int> host(64), back(64, 0);
  for (int i = 0; i < 64; ++i) host[i] = i * 3;
  int *a = nullptr, *b = nullptr;
  REQUIRE(cudaMalloc(&a, 64 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&b, 64 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMemcpy(a, host.data(), 64 * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  check_succeeded(cudaMemcpyPeer(b, 0, a, 0, 64 * sizeof(int)));
  check_succeeded(cudaMemcpyPeerAsync(b, 0, a, 0, 64 * sizeof(int), cudaStreamPerThread));
  REQUIRE(cudaMemcpy(back.data(), b, 64 * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back == host);
  check_succeeded(cudaMemcpyPeer(b, 0, a, 0, 0));
  check_failed_with(cudaMemcpyPeer(b, 0, a, devices(), 4), cudaErrorInvalidDevice);
  check_failed_with(cudaMemcpyPeer(b, -1, a, 0, 4), cudaErrorInvalidDevice);
  check_failed_with(cudaMemcpyPeer(host.data(), 0, a, 0, 4), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpyPeer(b, 0, a, 0, 65 * sizeof(int)), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpyPeer(nullptr, 0, a, 0, 4), cudaErrorInvalidValue);
  check_failed_with(cudaMemcpyPeerAsync(b, 0, a, 0, 4, reinterpret_cast<cudaStream_t>(0x1234)),
                    cudaErrorInvalidResourceHandle);
  cudaFree(a);
  cudaFree(b);
}

__global__ void fill_with(int* out, int value) { out[threadIdx.x] = value; }

__global__ void throw_on_device() { throw 42; }

TEST_CASE("multi_device: each device has its own memory, fault and reset" * doctest::test_suite("multi_device")) {
  int n = devices();
  if (n < 2) return;  // run by the WEFT_DEVICES=3 ctest test
  CHECK(n == 3);
  int* on0 = nullptr;
  int* on1 = nullptr;
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  REQUIRE(cudaMalloc(&on0, 32 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  REQUIRE(cudaMalloc(&on1, 32 * sizeof(int)) == cudaSuccess);
  int d = -1;
  REQUIRE(cudaGetDevice(&d) == cudaSuccess);
  CHECK(d == 1);

  // Peer access between distinct devices.
  int can = 0;
  check_succeeded(cudaDeviceCanAccessPeer(&can, 1, 0));
  CHECK(can == 1);
  check_failed_with(cudaDeviceDisablePeerAccess(0), cudaErrorPeerAccessNotEnabled);
  check_succeeded(cudaDeviceEnablePeerAccess(0, 0));
  check_failed_with(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessAlreadyEnabled);
  check_failed_with(cudaDeviceEnablePeerAccess(2, 1), cudaErrorInvalidValue);
  check_succeeded(cudaDeviceDisablePeerAccess(0));

  // A kernel on device 1, a peer copy to device 0.
  REQUIRE(weft::launch(1, 32, fill_with, on1, 7) == cudaSuccess);
  check_succeeded(cudaMemcpyPeer(on0, 0, on1, 1, 32 * sizeof(int)));
  check_failed_with(cudaMemcpyPeer(on0, 1, on1, 1, 32 * sizeof(int)), cudaErrorInvalidValue);  // wrong device
  std::vector<int> back(32);
  check_succeeded(cudaMemcpy(back.data(), on0, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(back == std::vector<int>(32, 7));

  // A fault on device 2 poisons device 2 only.
  REQUIRE(cudaSetDevice(2) == cudaSuccess);
  REQUIRE(weft::launch(1, 1, throw_on_device) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() != cudaSuccess);
  cudaError_t sticky = cudaGetLastError();
  CHECK(sticky != cudaSuccess);
  void* p = nullptr;
  CHECK(cudaMalloc(&p, 16) == sticky);
  REQUIRE(cudaGetLastError() == sticky);
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  check_succeeded(cudaDeviceSynchronize());
  check_succeeded(cudaMemset(on1, 0, 32 * sizeof(int)));

  // cudaDeviceReset resets only the current device.
  REQUIRE(cudaSetDevice(2) == cudaSuccess);
  check_succeeded(cudaDeviceReset());
  check_succeeded(cudaDeviceSynchronize());
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  check_succeeded(cudaMemset(on0, 0, 32 * sizeof(int)));  // still allocated
  check_succeeded(cudaDeviceReset());
  check_failed_with(cudaFree(on0), cudaErrorInvalidValue);  // reset freed it
  check_succeeded(cudaFree(on1));                           // any device's memory can be freed
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
}

TEST_CASE("multi_device: the current device is per host thread" * doctest::test_suite("multi_device")) {
  if (devices() < 2) return;
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  int seen = -1;
  std::thread([&] { cudaGetDevice(&seen); }).join();
  CHECK(seen == 0);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
}
