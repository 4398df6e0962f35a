// Thread block clusters and distributed shared memory (CUDA guide, "Thread
// Block Clusters", "Distributed Shared Memory"): cluster indices, remote
// reads, writes and atomics, cudaLaunchKernelEx's errors (with the codes an H100 returned:
// tests/differential/cluster_probe.expected), and the waits that can never
// complete, reported instead of hanging. The guide's cluster histogram is
// examples/cluster_histogram.cu, run by ctest as example.cluster_histogram.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>

#include <string>
#include <vector>

#include "error_checks.hpp"
#include "stream_gates.hpp"

namespace cg = cooperative_groups;

namespace {

cudaLaunchConfig_t cluster_config(dim3 grid, dim3 block, dim3 cluster, std::size_t shared, cudaLaunchAttribute* a) {
  cudaLaunchConfig_t config = {0};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  a[0].id = cudaLaunchAttributeClusterDimension;
  a[0].val.clusterDim.x = cluster.x;
  a[0].val.clusterDim.y = cluster.y;
  a[0].val.clusterDim.z = cluster.z;
  config.attrs = a;
  config.numAttrs = 1;
  return config;
}

__global__ void cluster_indices(unsigned* out) {
  cg::cluster_group cluster = cg::this_cluster();
  unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    out[b * 8 + 0] = cluster.block_rank();
    out[b * 8 + 1] = cluster.num_blocks();
    out[b * 8 + 2] = cluster.block_index().x;
    out[b * 8 + 3] = cluster.block_index().y;
    out[b * 8 + 4] = cluster.dim_blocks().y;
    out[b * 8 + 5] = cluster.num_threads();
  }
  if (threadIdx.x == 1 && threadIdx.y == 1) out[b * 8 + 6] = cluster.thread_rank();
}

// Each block fills its own shared array, then reads the next block's through
// distributed shared memory and adds it up in the previous block's with
// atomics.
__global__ void ring(int* out) {
  __shared__ int mine[32];
  __shared__ int received;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
  mine[threadIdx.x] = static_cast<int>(rank * 100 + threadIdx.x);
  if (threadIdx.x == 0) received = 0;
  cluster.sync();
  // Reads the next block's values and adds them up in the previous block.
  int* next = cluster.map_shared_rank(mine, (rank + 1) % size);
  int& previous_received = cluster.map_shared_rank(received, (rank + size - 1) % size);
  atomicAdd(&previous_received, next[threadIdx.x]);
  cluster.sync();
  if (threadIdx.x == 0) out[blockIdx.x] = received;
}

__global__ void sync_in_rank_zero_only() {
  if (cg::this_cluster().block_rank() == 0) cg::this_cluster().sync();
}

__global__ void split_arrive_wait(int* out) {
  __shared__ int value;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) value = static_cast<int>(cluster.block_rank()) + 1;
  auto token = cluster.barrier_arrive();
  int local = threadIdx.x * 2;  // work that overlaps the wait
  cluster.barrier_wait(std::move(token));
  int* other = cluster.map_shared_rank(&value, cluster.block_rank() ^ 1);
  if (threadIdx.x == 0) out[blockIdx.x] = *other + local;
  cluster.sync();
}

__global__ void bad_rank() {
  int x = 0;
  (void)cg::this_cluster().map_shared_rank(&x, 2);
}

}  // namespace

TEST_CASE("cluster indices in a two-dimensional grid of (2,2) clusters") {
  enough_workers workers(4);
  unsigned* out;
  REQUIRE(cudaMallocManaged(&out, 16 * 8 * sizeof(unsigned)) == cudaSuccess);
  cudaLaunchAttribute a[1];
  cudaLaunchConfig_t config = cluster_config(dim3(4, 4), dim3(4, 4), dim3(2, 2, 1), 0, a);
  REQUIRE(cudaLaunchKernelEx(&config, cluster_indices, out) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (unsigned y = 0; y < 4; ++y)
    for (unsigned x = 0; x < 4; ++x) {
      unsigned* o = out + (x + 4 * y) * 8;
      CAPTURE(x);
      CAPTURE(y);
      CHECK(o[0] == x % 2 + 2 * (y % 2));
      CHECK(o[1] == 4);
      CHECK(o[2] == x % 2);
      CHECK(o[3] == y % 2);
      CHECK(o[4] == 2);
      CHECK(o[5] == 64);
      CHECK(o[6] == o[0] * 16 + 5);
    }
  cudaFree(out);
}

TEST_CASE("distributed shared memory: remote reads and atomics around a ring of blocks") {
  for (unsigned size : {2u, 4u, 8u}) {
    enough_workers workers(size);
    int* out;
    REQUIRE(cudaMallocManaged(&out, 2 * size * sizeof(int)) == cudaSuccess);
    cudaLaunchAttribute a[1];
    cudaLaunchConfig_t config = cluster_config(2 * size, 32, dim3(size, 1, 1), 0, a);
    REQUIRE(cudaLaunchKernelEx(&config, ring, out) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    for (unsigned b = 0; b < 2 * size; ++b) {
      // Block r receives block r + 2's values (through block r + 1): the
      // sum of ((r + 2) * 100 + t) over 32 threads.
      int from = static_cast<int>((b % size + 2) % size);
      CHECK(out[b] == from * 100 * 32 + 31 * 32 / 2);
    }
    cudaFree(out);
  }
}

TEST_CASE("barrier_arrive and barrier_wait split a cluster barrier") {
  enough_workers workers(2);
  int* out;
  REQUIRE(cudaMallocManaged(&out, 4 * sizeof(int)) == cudaSuccess);
  cudaLaunchAttribute a[1];
  cudaLaunchConfig_t config = cluster_config(4, 32, dim3(2, 1, 1), 0, a);
  REQUIRE(cudaLaunchKernelEx(&config, split_arrive_wait, out) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int b = 0; b < 4; ++b) CHECK(out[b] == ((b % 2) ^ 1) + 1);
  cudaFree(out);
}

TEST_CASE("cluster launches refused with CUDA's codes") {
  enough_workers workers(8);
  cudaLaunchAttribute a[1];
  int* out;
  REQUIRE(cudaMallocManaged(&out, 32 * sizeof(int)) == cudaSuccess);
  auto launch = [&](dim3 grid, dim3 cluster) {
    cudaLaunchConfig_t config = cluster_config(grid, 32, cluster, 0, a);
    return cudaLaunchKernelEx(&config, ring, out);
  };
  check_failed_with(launch(4, dim3(3, 1, 1)), cudaErrorInvalidClusterSize);    // grid not a multiple
  check_failed_with(launch(4, dim3(0, 1, 1)), cudaErrorInvalidClusterSize);    // a zero dimension
  check_failed_with(launch(9, dim3(9, 1, 1)), cudaErrorInvalidClusterSize);    // more than 8, portable
  check_failed_with(launch(16, dim3(16, 1, 1)), cudaErrorInvalidClusterSize);  // more than 8, portable
  int size = 0;
  cudaLaunchConfig_t config = cluster_config(16, 32, dim3(2, 1, 1), 0, a);
  CHECK(cudaOccupancyMaxPotentialClusterSize(&size, (void*)ring, &config) == cudaSuccess);
  CHECK(size == 8);
  int active = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&active, ring, &config) == cudaSuccess);
  CHECK(active == 8 * 66);  // an H100: 8 blocks of 32 threads per SM in cluster launches, 132 SMs
  REQUIRE(cudaFuncSetAttribute(ring, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess);
  CHECK(cudaOccupancyMaxPotentialClusterSize(&size, (void*)ring, &config) == cudaSuccess);
  CHECK(size == 16);
  check_succeeded(launch(16, dim3(16, 1, 1)));
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  check_failed_with(launch(32, dim3(32, 1, 1)), cudaErrorInvalidClusterSize);  // more than 16
  REQUIRE(cudaFuncSetAttribute(ring, cudaFuncAttributeNonPortableClusterSizeAllowed, 0) == cudaSuccess);
  cudaFree(out);
}

TEST_CASE("a launch without clusters is a cluster of one block") {
  unsigned* out;
  REQUIRE(cudaMallocManaged(&out, 2 * 8 * sizeof(unsigned)) == cudaSuccess);
  REQUIRE(weft::launch(dim3(2), dim3(4, 4), cluster_indices, out) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(out[0] == 0);
  CHECK(out[1] == 1);
  CHECK(out[8 + 0] == 0);
  CHECK(out[8 + 5] == 16);
  cudaFree(out);
}

TEST_CASE("cluster waits that can never complete, and bad ranks, are reported") {
  enough_workers workers(2);
  cudaLaunchAttribute a[1];
  SUBCASE("a block of the cluster never reaches cluster.sync()") {
    cudaLaunchConfig_t config = cluster_config(2, 32, dim3(2, 1, 1), 0, a);
    REQUIRE(cudaLaunchKernelEx(&config, sync_in_rank_zero_only) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    std::string report = weft::fault_message();
    CHECK(report.find("cluster.sync() can never complete") != std::string::npos);
    CHECK(report.find("block (1,0,0) finished without arriving") != std::string::npos);
  }
  SUBCASE("map_shared_rank with a rank outside the cluster") {
    cudaLaunchConfig_t config = cluster_config(2, 32, dim3(2, 1, 1), 0, a);
    REQUIRE(cudaLaunchKernelEx(&config, bad_rank) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    CHECK(weft::fault_message().find("rank 2 is not a block of the cluster") != std::string::npos);
  }
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset() == cudaSuccess);
}
