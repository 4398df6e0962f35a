// Kernel parameters up to CUDA's 32764-byte limit (CUDA 12.1 and later) are
// passed by value to every CUDA thread, with the per-thread stack size left
// to the program: a GPU keeps them in constant memory, off the stack.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <numeric>

namespace {

struct large_parameter {
  int values[8000];  // 32000 bytes, as cuda-samples' LargeKernelParameter passes
};

__global__ void sum_large_parameter(const large_parameter p, int* sums) {
  __syncthreads();  // every thread then runs on a fiber of its own
  int sum = 0;
  for (int v : p.values) sum += v;
  sums[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

}  // namespace

TEST_CASE("a kernel with 32000 bytes of by-value parameters runs on the default stack size") {
  static large_parameter p;
  std::iota(std::begin(p.values), std::end(p.values), 1);
  int expected = 8000 * 8001 / 2;
  int* sums = nullptr;
  REQUIRE(cudaMallocManaged(&sums, 2 * 64 * sizeof(int)) == cudaSuccess);
  CHECK(weft::launch(2, 64, sum_large_parameter, p, sums) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < 2 * 64; ++i) CHECK(sums[i] == expected);
  CHECK(cudaFree(sums) == cudaSuccess);
}

TEST_CASE("the same parameters through the kernel-as-template-argument launch") {
  static large_parameter p;
  std::iota(std::begin(p.values), std::end(p.values), 2);
  int* sums = nullptr;
  REQUIRE(cudaMallocManaged(&sums, 32 * sizeof(int)) == cudaSuccess);
  CHECK(weft::launch<sum_large_parameter>(1, 32, p, sums) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int i = 0; i < 32; ++i) CHECK(sums[i] == 8000 * 8001 / 2 + 8000);
  CHECK(cudaFree(sums) == cudaSuccess);
}
