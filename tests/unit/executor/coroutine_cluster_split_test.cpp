// A cluster's split barrier awaited in stackless kernels: co_await
// weft::barrier_arrive(cluster) gives a token, co_await
// weft::barrier_wait(cluster, std::move(token)) (or without a token) waits
// for the cluster's other blocks. In a cluster launch each block runs on
// the stackless executor and gives what the same kernel gives on fibers:
// shared memory exchanged between a cluster's blocks with work between the
// arrival and the wait, a cluster of one block (a launch without
// clusters), and the fiber executor's report for a barrier that a block
// finished without arriving at.
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

constexpr unsigned split_blocks = 4, split_threads = 32;

// Each block writes its shared word and arrives; before waiting, its
// threads do work of their own (the split's point); after the wait each
// reads its partner's word through distributed shared memory, and a
// second split barrier keeps the partner's word in place until it is read.
// The last word per block: 1 if it ran on the stackless executor.
weft::stackless_kernel split_cluster_swap(int* out) {
  __shared__ int split_word;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) split_word = static_cast<int>(100 * blockIdx.x + 7);
  auto token = co_await weft::barrier_arrive(cluster);
  int own = static_cast<int>(threadIdx.x * threadIdx.x);
  co_await weft::barrier_wait(cluster, std::move(token));
  int* partner = cluster.map_shared_rank(&split_word, cluster.block_rank() ^ 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = *partner + own;
  (void)co_await weft::barrier_arrive(cluster);
  co_await weft::barrier_wait(cluster);
  if (threadIdx.x == 0) out[gridDim.x * blockDim.x + blockIdx.x] = weft::detail::running_stackless_block != nullptr;
}

std::vector<int> split_cluster_run(unsigned cluster_blocks) {
  device_buffer<int> out(split_blocks * split_threads + split_blocks);
  weft::detail::launch_options clustered;
  clustered.cluster = {cluster_blocks, 1, 1};
  REQUIRE(weft::detail::launch_with(weft::launch_config{split_blocks, split_threads}, clustered, split_cluster_swap,
                                    out.p) == cudaSuccess);
  return out.to_host();
}

// A cluster of one block: the arrival and the wait are block barriers.
weft::stackless_kernel split_lone_cluster(int* out) {
  __shared__ int split_words[32];
  split_words[threadIdx.x] = static_cast<int>(threadIdx.x * 3);
  auto token = co_await weft::barrier_arrive(cg::this_cluster());
  co_await weft::barrier_wait(cg::this_cluster(), std::move(token));
  out[threadIdx.x] = split_words[31 - threadIdx.x];
}

// Block 1 never arrives: the other block of its cluster can never pass.
weft::stackless_kernel split_never_arrives(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  if (blockIdx.x == 1) co_return;
  auto token = co_await weft::barrier_arrive(cluster);
  co_await weft::barrier_wait(cluster, std::move(token));
  out[blockIdx.x] = 1;
}

}  // namespace

TEST_CASE("a cluster's split barrier awaited in a stackless kernel runs stackless and gives what fibers give") {
  auto [on_coroutines, on_fibers] = on_both_executors([] { return split_cluster_run(2); });
  auto results = [](const std::vector<int>& out) { return std::vector(out.begin(), out.end() - split_blocks); };
  CHECK(results(on_coroutines) == results(on_fibers));
  for (unsigned b = 0; b < split_blocks; ++b)
    for (unsigned t = 0; t < split_threads; ++t)
      CHECK(on_coroutines[b * split_threads + t] == static_cast<int>(100 * (b ^ 1) + 7 + t * t));
  for (unsigned b = 0; b < split_blocks; ++b) {
    CHECK(on_coroutines[split_blocks * split_threads + b] == 1);
    CHECK(on_fibers[split_blocks * split_threads + b] == 0);
  }
}

TEST_CASE("a split barrier of a cluster of one block is a block barrier, stackless as on fibers") {
  auto [on_coroutines, on_fibers] = on_both_executors([] {
    device_buffer<int> out(32);
    REQUIRE(weft::launch(1, 32, split_lone_cluster, out.p) == cudaSuccess);
    return out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned t = 0; t < 32; ++t) CHECK(on_coroutines[t] == static_cast<int>((31 - t) * 3));
}

TEST_CASE("a stackless split cluster barrier that can never complete is reported as on fibers, not a hang") {
  auto run = [] {
    device_buffer<int> out(2);
    return stackless_failure_of([&] {
      weft::detail::launch_options clustered;
      clustered.cluster = {2, 1, 1};
      return weft::detail::launch_with(weft::launch_config{2, 32}, clustered, split_never_arrives, out.p);
    });
  };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.code == cudaErrorLaunchFailure);
  CHECK(on_coroutines.report.find("block (1,0,0) finished without arriving") != std::string::npos);
  CHECK(on_coroutines.report.find("coroutine_cluster_split_test.cpp") != std::string::npos);
}
