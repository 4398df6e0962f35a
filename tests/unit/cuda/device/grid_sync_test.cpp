// Cooperative launches and this_grid() (CUDA guide, "Grid Synchronization"):
// a grid-wide reduction across grid.sync(), the size limit of a cooperative
// grid and the occupancy figures programs size it from, and the waits that
// can never complete, reported instead of hanging.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>

#include <string>
#include <vector>

#include "error_checks.hpp"
#include "stream_gates.hpp"

namespace cg = cooperative_groups;

namespace {

// Two phases split by grid.sync(): each block writes its partial sum, then
// every block reads all of them. Wrong without the grid-wide barrier.
__global__ void grid_reduce(const int* in, int n, int* partial, int* totals, int rounds) {
  cg::grid_group grid = cg::this_grid();
  for (int round = 0; round < rounds; ++round) {
    __shared__ int block_sum;
    if (threadIdx.x == 0) block_sum = 0;
    __syncthreads();
    for (unsigned long long i = grid.thread_rank(); i < static_cast<unsigned long long>(n); i += grid.size())
      atomicAdd(&block_sum, in[i] * (round + 1));
    __syncthreads();
    if (threadIdx.x == 0) partial[grid.block_rank()] = block_sum;
    grid.sync();
    if (threadIdx.x == 0) {
      int total = 0;
      for (unsigned long long b = 0; b < grid.num_blocks(); ++b) total += partial[b];
      totals[round * grid.num_blocks() + grid.block_rank()] = total;
    }
    grid.sync();  // nobody overwrites a partial sum another block still reads
  }
}

__global__ void report_grid(unsigned long long* out) {
  cg::grid_group grid = cg::this_grid();
  if (grid.thread_rank() == 0) {
    out[0] = grid.is_valid();
    out[1] = grid.num_blocks();
    out[2] = grid.num_threads();
  }
  if (threadIdx.x == 1 && blockIdx.x == 1) out[3] = grid.thread_rank() * 1000 + grid.block_rank();
}

__global__ void sync_in_some_blocks(int* out) {
  if (blockIdx.x != 1) cg::this_grid().sync();
  out[blockIdx.x] = 1;
}

__global__ void plain_grid_sync() { cg::this_grid().sync(); }

}  // namespace

TEST_CASE("a grid-wide reduction across grid.sync() in a cooperative launch") {
  int workers = 0;
  REQUIRE(cudaDeviceGetAttribute(&workers, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
  int per_sm = 0;
  REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_reduce, 128, 0) == cudaSuccess);
  REQUIRE(per_sm == 16);  // an H100 SM holds 16 blocks of 128 threads
  int cooperative = 0;
  REQUIRE(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0) == cudaSuccess);
  CHECK(cooperative == 1);

  const int n = 100000, rounds = 3, blocks = per_sm * workers;
  int *in, *partial, *totals;
  REQUIRE(cudaMallocManaged(&in, n * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&partial, blocks * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMallocManaged(&totals, rounds * blocks * sizeof(int)) == cudaSuccess);
  long long expected = 0;
  for (int i = 0; i < n; ++i) expected += in[i] = i % 13;
  int count = n, r = rounds;
  void* args[] = {&in, &count, &partial, &totals, &r};
  // The usual spelling casts the kernel to void*; the typed form works too.
  SUBCASE("typed") { REQUIRE(cudaLaunchCooperativeKernel(grid_reduce, blocks, 128, args) == cudaSuccess); }
  SUBCASE("through cudaLaunchKernelEx with cudaLaunchAttributeCooperative") {
    cudaLaunchConfig_t config = {0};
    config.gridDim = blocks;
    config.blockDim = 128;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeCooperative;
    attribute[0].val.cooperative = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    REQUIRE(cudaLaunchKernelEx(&config, grid_reduce, in, count, partial, totals, r) == cudaSuccess);
  }
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int round = 0; round < rounds; ++round)
    for (int b = 0; b < blocks; ++b) CHECK(totals[round * blocks + b] == expected * (round + 1));
  cudaFree(in);
  cudaFree(partial);
  cudaFree(totals);
}

TEST_CASE("this_grid() describes the grid; is_valid only in a cooperative launch") {
  unsigned long long* out;
  REQUIRE(cudaMallocManaged(&out, 4 * sizeof(unsigned long long)) == cudaSuccess);
  enough_workers pool(2);
  void* args[] = {&out};
  REQUIRE(cudaLaunchCooperativeKernel(report_grid, 2, 64, args) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(out[0] == 1);
  CHECK(out[1] == 2);
  CHECK(out[2] == 128);
  CHECK(out[3] == 65 * 1000 + 1);
  REQUIRE(weft::launch(2, 64, report_grid, out) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(out[0] == 0);
  cudaFree(out);
}

TEST_CASE("a cooperative grid larger than an H100 holds is refused") {
  int per_sm = 0;
  REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sync_in_some_blocks, 32, 0) == cudaSuccess);
  void* args[] = {nullptr};
  int* out = nullptr;
  args[0] = &out;
  check_failed_with(cudaLaunchCooperativeKernel(sync_in_some_blocks, per_sm * 132 + 1, 32, args),
                    cudaErrorCooperativeLaunchTooLarge);
  // A kernel known only by an address nobody registered is no kernel.
  int not_a_kernel = 0;
  check_failed_with(cudaLaunchCooperativeKernel(static_cast<const void*>(&not_a_kernel), 1, 32, args),
                    cudaErrorInvalidDeviceFunction);
}

TEST_CASE("grid.sync() that can never complete is reported, not a hang") {
  enough_workers pool(3);
  SUBCASE("a block finishes without arriving") {
    int* out;
    REQUIRE(cudaMallocManaged(&out, 3 * sizeof(int)) == cudaSuccess);
    void* args[] = {&out};
    REQUIRE(cudaLaunchCooperativeKernel(sync_in_some_blocks, 3, 32, args) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    std::string report = weft::fault_message();
    CHECK(report.find("grid.sync() can never complete") != std::string::npos);
    CHECK(report.find("block (1,0,0) finished without arriving") != std::string::npos);
    CHECK(report.find("grid_sync_test.cpp") != std::string::npos);
  }
  SUBCASE("a launch that is not cooperative") {
    REQUIRE(weft::launch(2, 32, plain_grid_sync) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    CHECK(weft::fault_message().find("needs a cooperative launch") != std::string::npos);
  }
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset() == cudaSuccess);
}
