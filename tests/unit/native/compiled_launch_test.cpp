// A __global__ function named at compile time, `weft::launch<kernel>(...)`,
// and registered kernels launched by address: they must behave exactly as a
// launch through the function's address (arguments converted to the
// parameter types, the function's attributes, its name in reports), only
// faster.
#undef NDEBUG  // release builds pass -DNDEBUG; a test below needs assert live
#include <doctest/doctest.h>
#include <weft.hpp>

#include "device_buffer.hpp"
#include "error_checks.hpp"

#include <string>
#include <vector>

namespace {

__global__ void scale_by(float* values, float factor, int n) {
  int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) values[i] *= factor;
}

__global__ void index_sums(unsigned long long* sums) {
  atomicAdd(&sums[0], 1ull);
  atomicAdd(&sums[1], 1ull * (blockIdx.y * gridDim.x + blockIdx.x) * 1000 + threadIdx.y * blockDim.x + threadIdx.x);
}

__global__ void uses_dynamic_shared(int* out) {
  int* words = weft::dynamic_shared<int>();
  words[threadIdx.x] = 1;
  if (threadIdx.x == 0) out[0] = words[0];
}

__global__ void fails_in_block_one(int* unused) {
  (void)unused;
  assert(blockIdx.x != 1);
}

__global__ void registered_add_one(int* values) { values[threadIdx.x] += 1; }
__global__ void never_registered(int* values) { values[threadIdx.x] += 1; }

std::vector<float> ramp(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

}  // namespace

TEST_CASE("launch<kernel> converts arguments to the kernel's parameter types, as a launch by address does") {
  const int n = 1000;
  device_buffer<float> by_name(ramp(n)), by_address(ramp(n));
  // An int factor and a long count: each converts to the parameter's type.
  CHECK(weft::launch<scale_by>(4, 256, by_name.p, 3, 1000L) == cudaSuccess);
  CHECK(weft::launch(4, 256, scale_by, by_address.p, 3, 1000L) == cudaSuccess);
  CHECK(weft::launch<scale_by>(weft::launch_config{1, 64}, by_name.p, 0.5, 10) == cudaSuccess);
  CHECK(weft::launch(weft::launch_config{1, 64}, scale_by, by_address.p, 0.5, 10) == cudaSuccess);
  auto a = by_name.to_host(), b = by_address.to_host();
  CHECK(a == b);
  CHECK(a[7] == 10.5f);
  CHECK(a[999] == 2997.0f);
}

TEST_CASE("launch<kernel> runs every thread of a 2D grid of 2D blocks once") {
  device_buffer<unsigned long long> sums(2);
  REQUIRE(weft::launch<index_sums>(dim3(3, 2), dim3(8, 4), sums.p) == cudaSuccess);
  unsigned long long expected = 0;
  for (unsigned block = 0; block < 6; ++block)
    for (unsigned thread = 0; thread < 32; ++thread) expected += block * 1000 + thread;
  auto s = sums.to_host();
  CHECK(s[0] == 6 * 32);
  CHECK(s[1] == expected);
}

TEST_CASE("a kernel's attributes apply to launch<kernel> as to a launch by address") {
  // The last-error checks below start from none: take one that an earlier
  // test case may have left when every case runs in this one process (ctest
  // runs each alone).
  cudaGetLastError();
  device_buffer<int> out(1);
  const int bytes = 64 * 1024;  // over the default 48 KiB
  check_failed_with(weft::launch<uses_dynamic_shared>(weft::launch_config{1, 32, bytes}, out.p), cudaErrorInvalidValue);
  REQUIRE(cudaFuncSetAttribute(uses_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) == cudaSuccess);
  check_succeeded(weft::launch<uses_dynamic_shared>(weft::launch_config{1, 32, bytes}, out.p));
  check_succeeded(weft::launch(weft::launch_config{1, 32, bytes}, uses_dynamic_shared, out.p));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(out.to_host()[0] == 1);
  REQUIRE(cudaFuncSetAttribute(uses_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024) ==
          cudaSuccess);
}

TEST_CASE("a failure report names a kernel launched as launch<kernel>") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(weft::launch<fails_in_block_one>(3, 32, nullptr) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorAssert);
  std::string report = weft::fault_message();
  INFO(report);
  // Its symbol's name where the executable exports it; here (internal
  // linkage) its qualified name.
  CHECK(report.starts_with("kernel '"));
  CHECK(report.find("fails_in_block_one' failed in block (1,0,0)") != std::string::npos);
  CHECK(report.find("block (1,0,0), thread (0,0,0)") != std::string::npos);
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorAssert);
}

TEST_CASE("a registered kernel launched by address runs the grid compiled for it") {
  auto registered = [](void (*kernel)(int*)) {
    auto entry = weft::detail::kernel_registry().find(reinterpret_cast<const void*>(kernel));
    return entry.make_grid != nullptr && entry.launch != nullptr;
  };
  CHECK_FALSE(registered(registered_add_one));
  CHECK(weft::register_kernel<&registered_add_one>());
  CHECK(registered(registered_add_one));
  CHECK_FALSE(registered(never_registered));

  device_buffer<int> values(64);
  void (*through_pointer)(int*) = registered_add_one;
  check_succeeded(weft::launch(1, 64, through_pointer, values.p));
  int* p = values.p;
  void* args[] = {&p};
  check_succeeded(cudaLaunchKernel(reinterpret_cast<const void*>(registered_add_one), dim3(1), dim3(64), args));
  check_succeeded(weft::launch(1, 64, never_registered, values.p));
  for (int v : values.to_host()) CHECK(v == 3);
}
