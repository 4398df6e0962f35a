// Static __shared__ variables and dynamic shared memory: private to each
// running block, 128-byte aligned, and limited as on an H100 (48 KiB of
// dynamic shared memory by default, up to 227 KiB after opting in).
#include <doctest/doctest.h>
#include <weft.hpp>

#include "device_buffer.hpp"
#include "stream_gates.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace {

constexpr unsigned tile_size = 64;

// Fills `tile` with the block's index, then keeps re-reading it for a while:
// another block writing the same memory would show up as a mismatch.
__device__ void fill_wait_and_check(unsigned* tile, unsigned* mismatches, unsigned* echo) {
  unsigned t = threadIdx.x;
  tile[t] = blockIdx.x;
  __syncthreads();
  unsigned wrong = 0;
  for (int round = 0; round < 200; ++round)
    for (unsigned i = 0; i < blockDim.x; ++i) wrong += static_cast<volatile unsigned*>(tile)[i] != blockIdx.x;
  __syncthreads();
  wrong += tile[(t + 1) % blockDim.x] != blockIdx.x;
  if (wrong) atomicAdd(mismatches, wrong);
  echo[blockIdx.x * blockDim.x + t] = tile[(t + 7) % blockDim.x];
}

__global__ void static_shared_kernel(unsigned* mismatches, unsigned* echo) {
  __shared__ unsigned tile[tile_size];
  fill_wait_and_check(tile, mismatches, echo);
}

// __shared__ may also be declared in a __device__ function.
__device__ unsigned* helper_tile() {
  __shared__ unsigned tile[tile_size];
  return tile;
}

__global__ void helper_shared_kernel(unsigned* mismatches, unsigned* echo) {
  fill_wait_and_check(helper_tile(), mismatches, echo);
}

__global__ void dynamic_shared_kernel(unsigned* mismatches, unsigned* echo) {
  fill_wait_and_check(weft::dynamic_shared<unsigned>(), mismatches, echo);
}

// Fills the whole dynamic shared buffer, then checks every byte came back.
__global__ void fill_dynamic_shared(std::size_t bytes, unsigned* mismatches) {
  auto* words = weft::dynamic_shared<std::uint32_t>();
  std::size_t n = bytes / 4;
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) words[i] = static_cast<std::uint32_t>(i * 2654435761u);
  __syncthreads();
  unsigned wrong = 0;
  for (std::size_t i = (threadIdx.x + 1) % blockDim.x; i < n; i += blockDim.x)
    wrong += words[i] != static_cast<std::uint32_t>(i * 2654435761u);
  if (wrong) atomicAdd(mismatches, wrong);
}

template <class Kernel>
void check_isolation(weft::launch_config config, Kernel kernel) {
  device_buffer<unsigned> mismatches(1), echo(config.grid.x * tile_size);
  REQUIRE(weft::launch(config, kernel, mismatches.p, echo.p) == cudaSuccess);
  CHECK(mismatches.to_host()[0] == 0);
  auto host = echo.to_host();
  for (unsigned i = 0; i < host.size(); ++i) CHECK(host[i] == i / tile_size);
}

// A launch that must be refused: the code comes back from the launch and
// once from cudaGetLastError, and the kernel never runs.
template <class Kernel>
void check_refused(std::size_t bytes, Kernel kernel) {
  device_buffer<unsigned> mismatches(1);
  CHECK(weft::launch(weft::launch_config{1, 32, bytes}, kernel, bytes, mismatches.p) == cudaErrorInvalidValue);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
}

template <class Kernel>
void check_accepted(std::size_t bytes, Kernel kernel) {
  device_buffer<unsigned> mismatches(1);
  CHECK(weft::launch(weft::launch_config{2, 64, bytes}, kernel, bytes, mismatches.p) == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(mismatches.to_host()[0] == 0);
}

}  // namespace

TEST_CASE("static __shared__ memory is private to each concurrently running block") {
  exact_workers pool(4);
  check_isolation({256, tile_size}, static_shared_kernel);
  check_isolation({256, tile_size}, helper_shared_kernel);
  check_isolation({256, tile_size}, [](unsigned* mismatches, unsigned* echo) {
    __shared__ unsigned tile[tile_size];
    fill_wait_and_check(tile, mismatches, echo);
  });
}

TEST_CASE("dynamic shared memory is private to each concurrently running block") {
  exact_workers pool(4);
  check_isolation({256, tile_size, tile_size * sizeof(unsigned)}, dynamic_shared_kernel);
}

TEST_CASE("dynamic shared memory holds what the block writes, reversed through it") {
  device_buffer<int> out(3 * 100);
  auto reverse = [](int* result) {
    int* s = weft::dynamic_shared<int>();
    unsigned t = threadIdx.x, n = blockDim.x;
    s[t] = static_cast<int>(blockIdx.x * 1000 + t);
    __syncthreads();
    result[blockIdx.x * n + t] = s[n - 1 - t];
  };
  REQUIRE(weft::launch(weft::launch_config{3, 100, 100 * sizeof(int)}, reverse, out.p) == cudaSuccess);
  auto host = out.to_host();
  for (unsigned b = 0; b < 3; ++b)
    for (unsigned t = 0; t < 100; ++t) CHECK(host[b * 100 + t] == static_cast<int>(b * 1000 + 99 - t));
}

TEST_CASE("dynamic shared memory is aligned to 128 bytes") {
  device_buffer<std::uint64_t> misalignment(8);
  auto kernel = [](std::uint64_t* out) {
    out[blockIdx.x] = reinterpret_cast<std::uintptr_t>(weft::dynamic_shared<char>()) % 128 + 1;
  };
  for (std::size_t bytes : {std::size_t{4}, std::size_t{100}, std::size_t{4096}, std::size_t{48 * 1024}}) {
    REQUIRE(weft::launch(weft::launch_config{8, 1, bytes}, kernel, misalignment.p) == cudaSuccess);
    for (auto m : misalignment.to_host()) CHECK(m == 1);  // written, and a multiple of 128
  }
}

TEST_CASE("dynamic shared memory is limited to 48 KiB without opting in") {
  check_accepted(48 * 1024, fill_dynamic_shared);
  check_refused(48 * 1024 + 4, fill_dynamic_shared);
  check_refused(100 * 1024, fill_dynamic_shared);
  check_refused(1 << 20, fill_dynamic_shared);
}

TEST_CASE("cudaFuncSetAttribute raises a __global__ function's dynamic shared memory limit") {
  check_refused(100 * 1024, fill_dynamic_shared);
  CHECK(cudaFuncSetAttribute(fill_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024) ==
        cudaSuccess);
  check_accepted(100 * 1024, fill_dynamic_shared);
  check_refused(100 * 1024 + 4, fill_dynamic_shared);
  // 227 KiB is an H100's maximum; 228 KiB is refused and leaves the limit as it was.
  CHECK(cudaFuncSetAttribute(fill_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 228 * 1024) ==
        cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  check_refused(101 * 1024, fill_dynamic_shared);
  CHECK(cudaFuncSetAttribute(fill_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024) ==
        cudaSuccess);
  check_accepted(227 * 1024, fill_dynamic_shared);
  check_refused(227 * 1024 + 4, fill_dynamic_shared);
  // cudaDeviceReset restores the default.
  CHECK(cudaDeviceReset() == cudaSuccess);
  check_refused(48 * 1024 + 4, fill_dynamic_shared);
}

TEST_CASE("cudaFuncSetAttribute raises a lambda kernel's dynamic shared memory limit") {
  auto kernel = [](std::size_t bytes, unsigned* mismatches) { fill_dynamic_shared(bytes, mismatches); };
  auto other = [](std::size_t bytes, unsigned* mismatches) { fill_dynamic_shared(bytes, mismatches); };
  check_refused(100 * 1024, kernel);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024) == cudaSuccess);
  check_accepted(100 * 1024, kernel);
  check_refused(100 * 1024, other);  // the attribute belongs to that one kernel
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 228 * 1024) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024) == cudaSuccess);
  check_accepted(227 * 1024, kernel);
  CHECK(cudaDeviceReset() == cudaSuccess);
}

TEST_CASE("weft::dynamic_shared outside a kernel throws std::logic_error") {
  CHECK_THROWS_AS(weft::dynamic_shared<int>(), std::logic_error);
}

TEST_CASE("`static __shared__` is accepted as in CUDA, and is shared by the block") {
  device_buffer<int> out(4 * 64);
  auto kernel = [](int* o) {
    static __shared__ int total;
    if (threadIdx.x == 0) total = 0;
    __syncthreads();
    atomicAdd(&total, 1);
    __syncthreads();
    o[blockIdx.x * blockDim.x + threadIdx.x] = total;
  };
  REQUIRE(weft::launch(4, 64, kernel, out.p) == cudaSuccess);
  for (int v : out.to_host()) CHECK(v == 64);
}

TEST_CASE("a launch_config takes its shared memory size as an int, as CUDA code writes it") {
  int bytes = 256;  // an int, not a size_t: no narrowing error in the braces
  device_buffer<int> out(1);
  auto kernel = [](int* o) {
    int* scratch = weft::dynamic_shared<int>();
    scratch[threadIdx.x] = 1;
    __syncthreads();
    if (threadIdx.x == 0) {
      int sum = 0;
      for (unsigned i = 0; i < blockDim.x; ++i) sum += scratch[i];
      *o = sum;
    }
  };
  REQUIRE(weft::launch(weft::launch_config{1, 64, bytes}, kernel, out.p) == cudaSuccess);
  CHECK(out.to_host()[0] == 64);
  CHECK(weft::launch(weft::launch_config{1, 64, -1}, kernel, out.p) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
}
