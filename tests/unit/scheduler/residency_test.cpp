// Launches that an H100 accepts run on any number of SM workers: the blocks
// of a cluster, or of a cooperative grid, must all be resident at once
// (they meet at cluster.sync() and grid.sync() and read each other's shared
// memory), and the SM pool adds host threads until they are
// (detail/scheduler/sm_pool.hpp). Each test runs with one worker and with
// two, where before a cluster of 4 was refused and a cooperative grid could
// have two blocks. docs/grid-and-clusters.md describes what runs.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>

#include <chrono>
#include <filesystem>
#include <iterator>
#include <string>
#include <thread>

#include "error_checks.hpp"
#include "sanitizer_checks.hpp"
#include "stream_gates.hpp"

namespace cg = cooperative_groups;

namespace {

cudaLaunchConfig_t cluster_launch(unsigned grid, unsigned block, unsigned size, cudaLaunchAttribute* a) {
  cudaLaunchConfig_t config = {0};
  config.gridDim = grid;
  config.blockDim = block;
  a->id = cudaLaunchAttributeClusterDimension;
  a->val.clusterDim.x = size;
  a->val.clusterDim.y = 1;
  a->val.clusterDim.z = 1;
  config.attrs = a;
  config.numAttrs = 1;
  return config;
}

// Every block of a cluster puts its rank into its shared memory; after
// cluster.sync() each block adds up all the cluster's values through
// distributed shared memory, and checks that it has seen every block.
__device__ void sum_cluster_ranks(unsigned* sums) {
  __shared__ unsigned mine;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) mine = cluster.block_rank() + 1;
  cluster.sync();
  if (threadIdx.x == 0) {
    unsigned sum = 0;
    for (unsigned r = 0; r < cluster.num_blocks(); ++r) sum += *cluster.map_shared_rank(&mine, r);
    sums[blockIdx.x] = sum;
  }
  cluster.sync();  // the others' shared memory stays until they have read it
}

__global__ void cluster_sum(unsigned* sums) { sum_cluster_ranks(sums); }

// The same, compiled with __cluster_dims__(4, 1, 1): the registration is
// what the porting step appends for it.
__global__ void fixed_cluster_sum(unsigned* sums) { sum_cluster_ranks(sums); }
[[maybe_unused]] const bool fixed_cluster_registered = weft::detail::register_cluster_dims(fixed_cluster_sum, 4, 1, 1);

// Two rounds of counting in and reading the count across grid.sync(): a
// block sees the whole grid only if every block is resident at once.
__global__ void grid_count(unsigned* counts) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) atomicAdd(&counts[0], 1u);
  grid.sync();
  if (threadIdx.x == 0 && atomicAdd(&counts[0], 0u) == gridDim.x) atomicAdd(&counts[1], 1u);
  grid.sync();
  if (threadIdx.x == 0 && atomicAdd(&counts[1], 0u) == gridDim.x) atomicAdd(&counts[2], 1u);
}

// Block 5 leaves without arriving; the others never get past grid.sync().
__global__ void leaves_early(unsigned* never_written) {
  if (blockIdx.x == 5) return;
  cg::this_grid().sync();
  never_written[0] = 1;
}

// Block 3 leaves without arriving; the cluster's others wait for it.
__global__ void leaves_cluster_early() {
  if (blockIdx.x == 3) return;
  cg::this_cluster().sync();
}

struct managed {
  unsigned* p = nullptr;
  explicit managed(std::size_t n) {
    REQUIRE(cudaMallocManaged(&p, n * sizeof(unsigned)) == cudaSuccess);
    for (std::size_t i = 0; i < n; ++i) p[i] = 0;
  }
  managed(const managed&) = delete;
  managed& operator=(const managed&) = delete;
  ~managed() { cudaFree(p); }
};

}  // namespace

TEST_CASE("clusters of 4, 8 and 16 blocks run with one worker and with two") {
  for (unsigned workers : {1u, 2u}) {
    exact_workers pool(workers);
    REQUIRE(cudaFuncSetAttribute(cluster_sum, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess);
    for (unsigned size : {4u, 8u, 16u}) {
      CAPTURE(workers);
      CAPTURE(size);
      managed sums(3 * size);
      cudaLaunchAttribute a;
      cudaLaunchConfig_t config = cluster_launch(3 * size, 64, size, &a);
      check_succeeded(cudaLaunchKernelEx(&config, cluster_sum, sums.p));
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      for (unsigned b = 0; b < 3 * size; ++b) CHECK(sums.p[b] == size * (size + 1) / 2);
    }
    REQUIRE(cudaFuncSetAttribute(cluster_sum, cudaFuncAttributeNonPortableClusterSizeAllowed, 0) == cudaSuccess);
  }
}

TEST_CASE("issue 13: a __cluster_dims__(4,1,1) kernel launched with 8 blocks runs on one worker and on two") {
  for (unsigned workers : {1u, 2u}) {
    exact_workers pool(workers);
    CAPTURE(workers);
    managed sums(8);
    // <<<8, 32>>>, as the porting step writes it.
    check_succeeded(weft::launch(8, 32, fixed_cluster_sum, sums.p));
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    for (unsigned b = 0; b < 8; ++b) CHECK(sums.p[b] == 10u);
  }
}

TEST_CASE("a cluster of 8 blocks of 1024 threads runs with one worker" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  exact_workers pool(1);
  managed sums(16);
  cudaLaunchAttribute a;
  cudaLaunchConfig_t config = cluster_launch(16, 1024, 8, &a);
  check_succeeded(cudaLaunchKernelEx(&config, cluster_sum, sums.p));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (unsigned b = 0; b < 16; ++b) CHECK(sums.p[b] == 36u);
}

TEST_CASE("cooperative grids of 132 x k blocks run with grid.sync() on one worker and on two" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  // k blocks on each of an H100's 132 SMs; an H100 holds 32 blocks of 32
  // threads per SM, so each of these grids is one it accepts.
  for (unsigned workers : {1u, 2u}) {
    exact_workers pool(workers);
    for (unsigned k : {1u, 2u, 4u}) {
      CAPTURE(workers);
      CAPTURE(k);
      managed counts(3);
      void* args[] = {&counts.p};
      check_succeeded(cudaLaunchCooperativeKernel(grid_count, 132 * k, 32, args));
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK(counts.p[1] == 132 * k);
      CHECK(counts.p[2] == 132 * k);
    }
  }
}

TEST_CASE("the largest cooperative grid of a shape runs, and one block more is refused" *
          doctest::skip(weft_test::under_thread_sanitizer)) {
  // 100 KiB of dynamic shared memory: an H100 SM holds two such blocks, so
  // 264 is the most a cooperative launch may have.
  const std::size_t shared = 100 * 1024;
  REQUIRE(cudaFuncSetAttribute(grid_count, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)) == cudaSuccess);
  int per_sm = 0;
  check_succeeded(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_count, 64, shared));
  CHECK(per_sm == 2);
  for (unsigned workers : {1u, 2u}) {
    exact_workers pool(workers);
    CAPTURE(workers);
    managed counts(3);
    void* args[] = {&counts.p};
    check_succeeded(cudaLaunchCooperativeKernel(grid_count, 264, 64, args, shared));
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(counts.p[2] == 264u);
    check_failed_with(cudaLaunchCooperativeKernel(grid_count, 265, 64, args, shared),
                      cudaErrorCooperativeLaunchTooLarge);
    // The same through cudaLaunchKernelEx's cooperative attribute.
    cudaLaunchAttribute a;
    a.id = cudaLaunchAttributeCooperative;
    a.val.cooperative = 1;
    cudaLaunchConfig_t config = {0};
    config.gridDim = 265;
    config.blockDim = 64;
    config.dynamicSmemBytes = shared;
    config.attrs = &a;
    config.numAttrs = 1;
    check_failed_with(cudaLaunchKernelEx(&config, grid_count, counts.p), cudaErrorCooperativeLaunchTooLarge);
  }
  REQUIRE(cudaFuncSetAttribute(grid_count, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024) == cudaSuccess);
}

TEST_CASE("an H100-sized cooperative grid beyond the host's fiber budget is refused, never half run") {
  // 4224 blocks of 32 threads is what an H100 holds; weft accepts it where
  // the process may map a stack for each of its 135168 threads
  // (vm.max_map_count), and refuses it with CUDA's code elsewhere.
  exact_workers pool(2);
  managed counts(3);
  void* args[] = {&counts.p};
  bool fits = weft::detail::host_holds_resident(4224, 32);
  cudaError_t launched = cudaLaunchCooperativeKernel(grid_count, 4224, 32, args);
  if (fits) {
    check_succeeded(launched);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(counts.p[2] == 4224u);
  } else {
    check_failed_with(launched, cudaErrorCooperativeLaunchTooLarge);
  }
  // What an H100 refuses is refused wherever weft runs.
  check_failed_with(cudaLaunchCooperativeKernel(grid_count, 4225, 32, args), cudaErrorCooperativeLaunchTooLarge);
}

TEST_CASE("the threads added for a gang leave afterwards") {
  exact_workers pool(1);
  REQUIRE(weft::launch(1, 1, [] {}) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  long before = host_thread_count();
  managed counts(3);
  void* args[] = {&counts.p};
  check_succeeded(cudaLaunchCooperativeKernel(grid_count, 64, 32, args));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(counts.p[2] == 64u);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (host_thread_count() > before && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(host_thread_count() == before);
}

TEST_CASE("a block that leaves a cooperative grid early is still reported on one worker, not a hang") {
  exact_workers pool(1);
  unsigned* counts = nullptr;
  void* args[] = {&counts};
  check_succeeded(cudaLaunchCooperativeKernel(leaves_early, 16, 32, args));
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(weft::fault_message().find("block (5,0,0) finished without arriving") != std::string::npos);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset() == cudaSuccess);
}

TEST_CASE("a block that leaves a cluster of 8 without cluster.sync() is reported on one worker, not a hang") {
  exact_workers pool(1);
  cudaLaunchAttribute a;
  cudaLaunchConfig_t config = cluster_launch(8, 32, 8, &a);
  check_succeeded(cudaLaunchKernelEx(&config, leaves_cluster_early));
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(weft::fault_message().find("cluster.sync() can never complete") != std::string::npos);
  CHECK(weft::fault_message().find("block (3,0,0) finished without arriving") != std::string::npos);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset() == cudaSuccess);
}

TEST_CASE("occupancy answers are an H100's, and agree with the launch checks") {
  int per_sm = -1;
  const int expected[][2] = {{32, 32}, {64, 32}, {128, 16}, {256, 8}, {512, 4}, {1024, 2}};
  for (auto [threads, blocks] : expected) {
    check_succeeded(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_count, threads, 0));
    CHECK(per_sm == blocks);
  }
  // Dynamic shared memory, with the 1 KiB an H100 reserves per block:
  // residency_probe.expected.
  const int by_shared[][2] = {{1024, 16}, {16 * 1024, 13}, {40 * 1024, 5}, {48 * 1024, 4}};
  for (auto [bytes, blocks] : by_shared) {
    check_succeeded(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_count, 128, bytes));
    CHECK(per_sm == blocks);
  }
  // Clusters an H100 holds at once, for 1024-thread blocks.
  cudaLaunchAttribute a;
  REQUIRE(cudaFuncSetAttribute(cluster_sum, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess);
  const int clusters[][2] = {{1, 264}, {2, 132}, {4, 62}, {8, 30}, {16, 14}};
  for (auto [size, active] : clusters) {
    cudaLaunchConfig_t config = cluster_launch(16, 1024, size, &a);
    int n = -1;
    check_succeeded(cudaOccupancyMaxActiveClusters(&n, cluster_sum, &config));
    CHECK(n == active);
  }
  REQUIRE(cudaFuncSetAttribute(cluster_sum, cudaFuncAttributeNonPortableClusterSizeAllowed, 0) == cudaSuccess);
  cudaLaunchConfig_t config = cluster_launch(16, 1024, 16, &a);
  int n = -1;
  // As an H100 answers: 16 without the non-portable attribute is refused,
  // 32 with it fits nowhere.
  check_failed_with(cudaOccupancyMaxActiveClusters(&n, cluster_sum, &config), cudaErrorInvalidClusterSize);
  REQUIRE(cudaFuncSetAttribute(cluster_sum, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess);
  config = cluster_launch(32, 1024, 32, &a);
  check_succeeded(cudaOccupancyMaxActiveClusters(&n, cluster_sum, &config));
  CHECK(n == 0);
  REQUIRE(cudaFuncSetAttribute(cluster_sum, cudaFuncAttributeNonPortableClusterSizeAllowed, 0) == cudaSuccess);
  config = cluster_launch(16, 1024, 16, &a);
  // Refusals are CUDA's, whatever the worker count.
  exact_workers pool(1);
  check_failed_with(cudaLaunchKernelEx(&config, cluster_sum, nullptr), cudaErrorInvalidClusterSize);
  config = cluster_launch(18, 64, 9, &a);
  check_failed_with(cudaLaunchKernelEx(&config, cluster_sum, nullptr), cudaErrorInvalidClusterSize);
}
