// Barriers between blocks awaited in stackless kernels: co_await
// weft::sync(grid) in a cooperative launch and co_await weft::sync(cluster)
// in a cluster launch run on the stackless executor (each block has a worker
// of its own, which waits for the others once the block's threads have all
// arrived) and give what the same kernel gives on fibers: a grid-wide
// reduction, shared memory exchanged between a cluster's blocks, and the
// fiber executor's reports for a grid sync outside a cooperative launch and
// for one that can never complete; and a stackless kernel's compiled
// cluster shape (weft-port's registration of its __cluster_dims__).
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>
#include <weft/stackless_groups.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"

#include <string>
#include <vector>

namespace {

namespace cg = cooperative_groups;

constexpr unsigned block_set_blocks = 4, block_set_threads = 64, block_set_rounds = 3;

// Each round, every block adds its threads' values into its slot; after
// grid.sync() each block reads every slot. Wrong without the grid barrier.
// Slot 0 of `executor_seen` per block: 1 if it ran on the stackless executor.
weft::stackless_kernel block_set_grid_sum(int* slots, int* totals, int* executor_seen) {
  cg::grid_group grid = cg::this_grid();
  unsigned block = static_cast<unsigned>(grid.block_rank());
  if (threadIdx.x == 0) executor_seen[block] = weft::detail::running_stackless_block != nullptr;
  for (unsigned round = 0; round < block_set_rounds; ++round) {
    atomicAdd(&slots[round * block_set_blocks + block], static_cast<int>(grid.thread_rank() * (round + 1)));
    co_await weft::sync(grid);
    int total = 0;
    for (unsigned b = 0; b < block_set_blocks; ++b) total += slots[round * block_set_blocks + b];
    if (threadIdx.x == block % blockDim.x) totals[round * block_set_blocks + block] = total;
    co_await weft::sync(grid);
  }
}

std::vector<int> block_set_grid_run() {
  device_buffer<int> slots(block_set_rounds * block_set_blocks), totals(block_set_rounds * block_set_blocks),
      seen(block_set_blocks);
  weft::detail::launch_options cooperative;
  cooperative.cooperative = true;
  REQUIRE(weft::detail::launch_with(weft::launch_config{block_set_blocks, block_set_threads}, cooperative,
                                    block_set_grid_sum, slots.p, totals.p, seen.p) == cudaSuccess);
  std::vector<int> out = totals.to_host();
  for (int s : seen.to_host()) out.push_back(s);
  return out;
}

// Each block of a cluster of two writes its shared word, and after
// cluster.sync() reads its partner's through distributed shared memory; the
// second sync keeps the partner's word in place until it has been read.
weft::stackless_kernel block_set_cluster_swap(int* out) {
  __shared__ int word;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) word = static_cast<int>(100 * blockIdx.x + 7);
  co_await weft::sync(cluster);
  int* partner = cluster.map_shared_rank(&word, cluster.block_rank() ^ 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = *partner + static_cast<int>(threadIdx.x);
  co_await weft::sync(cluster);
  if (threadIdx.x == 0) out[gridDim.x * blockDim.x + blockIdx.x] = weft::detail::running_stackless_block != nullptr;
}

std::vector<int> block_set_cluster_run(unsigned cluster_blocks) {
  constexpr unsigned blocks = 4, threads = 32;
  device_buffer<int> out(blocks * threads + blocks);
  weft::detail::launch_options clustered;
  clustered.cluster = {cluster_blocks, 1, 1};
  REQUIRE(weft::detail::launch_with(weft::launch_config{blocks, threads}, clustered, block_set_cluster_swap, out.p) ==
          cudaSuccess);
  return out.to_host();
}

// A cluster of one block (a launch without clusters): the sync is a block
// barrier, as in CUDA.
weft::stackless_kernel block_set_lone_cluster(int* out) {
  __shared__ int words[32];
  words[threadIdx.x] = static_cast<int>(threadIdx.x * threadIdx.x);
  co_await weft::sync(cg::this_cluster());
  out[blockIdx.x * 32 + threadIdx.x] = words[31 - threadIdx.x];
}

// What weft-port writes for a converted kernel that a program launches by
// address, as cooperative launches usually are: cudaLaunchCooperativeKernel((void*)k, ...).
[[maybe_unused]] const bool block_set_grid_sum_registered = weft::register_kernel<&block_set_grid_sum>();

// What weft-port writes for a converted kernel's __cluster_dims__(2, 1, 1).
weft::stackless_kernel block_set_compiled_clusters(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  co_await weft::sync(cluster);
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<int>(cluster.num_blocks() * 10 + cluster.block_rank());
}
[[maybe_unused]] const bool block_set_compiled_clusters_registered =
    weft::detail::register_cluster_dims(&block_set_compiled_clusters, 2, 1, 1);

weft::stackless_kernel block_set_plain_grid_sync() { co_await weft::sync(cg::this_grid()); }

weft::stackless_kernel block_set_sync_in_some_blocks(int* out) {
  if (blockIdx.x != 1) co_await weft::sync(cg::this_grid());
  out[blockIdx.x] = 1;
}

}  // namespace

TEST_CASE("co_await weft::sync(grid) in a cooperative launch runs stackless and gives what fibers give") {
  auto [on_coroutines, on_fibers] = on_both_executors(block_set_grid_run);
  // The totals, not where the blocks ran (the last block_set_blocks words).
  CHECK(std::vector(on_coroutines.begin(), on_coroutines.end() - block_set_blocks) ==
        std::vector(on_fibers.begin(), on_fibers.end() - block_set_blocks));
  unsigned threads = block_set_blocks * block_set_threads;
  for (unsigned round = 0; round < block_set_rounds; ++round)
    for (unsigned b = 0; b < block_set_blocks; ++b)
      CHECK(on_coroutines[round * block_set_blocks + b] == static_cast<int>(threads * (threads - 1) / 2 * (round + 1)));
  for (unsigned b = 0; b < block_set_blocks; ++b) {
    CHECK(on_coroutines[block_set_rounds * block_set_blocks + b] == 1);
    CHECK(on_fibers[block_set_rounds * block_set_blocks + b] == 0);
  }
}

TEST_CASE("a registered stackless kernel launched by address with cudaLaunchCooperativeKernel runs stackless") {
  auto run = [] {
    device_buffer<int> slots(block_set_rounds * block_set_blocks), totals(block_set_rounds * block_set_blocks),
        seen(block_set_blocks);
    void* args[] = {&slots.p, &totals.p, &seen.p};
    REQUIRE(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&block_set_grid_sum), block_set_blocks,
                                        block_set_threads, args) == cudaSuccess);
    std::vector<int> out = totals.to_host();
    for (int s : seen.to_host()) out.push_back(s);
    return out;
  };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  auto [by_name, unused] = on_both_executors(block_set_grid_run);
  CHECK(on_coroutines == by_name);
  CHECK(std::vector(on_coroutines.begin(), on_coroutines.end() - block_set_blocks) ==
        std::vector(on_fibers.begin(), on_fibers.end() - block_set_blocks));
  for (unsigned b = 0; b < block_set_blocks; ++b) CHECK(on_coroutines[block_set_rounds * block_set_blocks + b] == 1);
}

TEST_CASE("co_await weft::sync(cluster) runs stackless, exchanging shared memory as on fibers") {
  auto [on_coroutines, on_fibers] = on_both_executors([] { return block_set_cluster_run(2); });
  CHECK(std::vector(on_coroutines.begin(), on_coroutines.end() - 4) ==
        std::vector(on_fibers.begin(), on_fibers.end() - 4));
  for (unsigned b = 0; b < 4; ++b) {
    for (unsigned t = 0; t < 32; ++t) CHECK(on_coroutines[b * 32 + t] == static_cast<int>(100 * (b ^ 1) + 7 + t));
    CHECK(on_coroutines[4 * 32 + b] == 1);
    CHECK(on_fibers[4 * 32 + b] == 0);
  }
}

TEST_CASE("co_await weft::sync(cluster) without clusters is a block barrier, as on fibers") {
  auto run = [] {
    device_buffer<int> out(2 * 32);
    REQUIRE(weft::launch(2, 32, block_set_lone_cluster, out.p) == cudaSuccess);
    return out.to_host();
  };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  CHECK(on_coroutines == on_fibers);
  for (unsigned t = 0; t < 2 * 32; ++t) CHECK(on_coroutines[t] == static_cast<int>((31 - t % 32) * (31 - t % 32)));
}

TEST_CASE("a stackless kernel's registered __cluster_dims__ shape its launches by name") {
  auto run = [] {
    device_buffer<int> out(4);
    REQUIRE(weft::launch<block_set_compiled_clusters>(4, 32, out.p) == cudaSuccess);
    return out.to_host();
  };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines == std::vector<int>{20, 21, 20, 21});
}

// One block: with more, which fails first is up to the workers' timing.
TEST_CASE("a stackless grid sync outside a cooperative launch fails as on fibers") {
  auto run = [] { return stackless_failure_of([] { return weft::launch(1, 32, block_set_plain_grid_sync); }); };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.code == cudaErrorLaunchFailure);
  CHECK(on_coroutines.report.find("thread (0,0,0): this_grid().sync() needs a cooperative launch") !=
        std::string::npos);
}

TEST_CASE("a stackless grid sync that can never complete is reported as on fibers, not a hang") {
  auto run = [] {
    device_buffer<int> out(3);
    return stackless_failure_of([&] {
      weft::detail::launch_options cooperative;
      cooperative.cooperative = true;
      return weft::detail::launch_with(weft::launch_config{3, 32}, cooperative, block_set_sync_in_some_blocks, out.p);
    });
  };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  for (const stackless_failure& failure : {on_coroutines, on_fibers}) {
    CHECK(failure.code == cudaErrorLaunchFailure);
    CHECK(failure.report.find("deadlock: grid.sync() can never complete") != std::string::npos);
    CHECK(failure.report.find("block (1,0,0) finished without arriving") != std::string::npos);
    CHECK(failure.report.find("coroutine_block_set_test.cpp") != std::string::npos);
  }
  // Which block waits when the barrier breaks is timing; the report's form is the same.
  CHECK(on_coroutines.guards_balanced == on_fibers.guards_balanced);
}
