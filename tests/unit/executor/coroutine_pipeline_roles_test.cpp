// Pipelines in stackless kernels made in the other forms CUDA has: a
// block's pipeline whose threads name their roles (cuda::pipeline_role)
// and a tile's unified pipeline, co_await weft::make_pipeline(group,
// &state[, role]). Both give what the same kernels give on fibers and what
// the host computes.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>
#include <weft/stackless_pipeline.hpp>

#include "device_buffer.hpp"
#include "stackless_scope.hpp"

#include <vector>

namespace {

namespace cg = cooperative_groups;

constexpr unsigned role_pipeline_threads = 64, role_pipeline_batches = 4;

// Even threads produce their word, odd threads consume their left neighbour's.
weft::stackless_kernel role_pipeline_kernel(const int* in, int* out) {
  __shared__ int role_staged[2][role_pipeline_threads];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> role_state;
  unsigned t = threadIdx.x;
  auto role = t % 2 == 0 ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
  cuda::pipeline<cuda::thread_scope_block> pipe =
      co_await weft::make_pipeline(cg::this_thread_block(), &role_state, role);
  int sum = 0;
  for (unsigned b = 0; b < role_pipeline_batches; ++b) {
    if (role == cuda::pipeline_role::producer) {
      co_await weft::producer_acquire(pipe);
      role_staged[b % 2][t] = in[b * role_pipeline_threads + t] * 3;
      pipe.producer_commit();
    } else {
      co_await weft::consumer_wait(pipe);
      sum += role_staged[b % 2][t - 1];
      pipe.consumer_release();
    }
  }
  out[blockIdx.x * role_pipeline_threads + t] = sum;
}

// Each tile of 32 stages through a pipeline of its own.
weft::stackless_kernel tile_pipeline_kernel(const int* in, int* out) {
  __shared__ int tile_staged[2][role_pipeline_threads];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> tile_states[role_pipeline_threads / 32];
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  cuda::pipeline<cuda::thread_scope_block> pipe =
      co_await weft::make_pipeline(tile, &tile_states[tile.meta_group_rank()]);
  unsigned t = threadIdx.x, base = t - tile.thread_rank();
  int sum = 0;
  for (unsigned b = 0; b < role_pipeline_batches; ++b) {
    co_await weft::producer_acquire(pipe);
    tile_staged[b % 2][t] = in[b * role_pipeline_threads + t];
    pipe.producer_commit();
    co_await weft::consumer_wait(pipe);
    sum += tile_staged[b % 2][base + 31 - tile.thread_rank()] * static_cast<int>(b + 1);
    pipe.consumer_release();
  }
  out[blockIdx.x * role_pipeline_threads + t] = sum;
}

std::vector<int> role_pipeline_input() {
  std::vector<int> in(role_pipeline_batches * role_pipeline_threads);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = static_cast<int>(11 * i % 89) - 20;
  return in;
}

template <auto Kernel>
std::vector<int> role_pipeline_run() {
  device_buffer<int> in(role_pipeline_input()), out(2 * role_pipeline_threads);
  REQUIRE(weft::launch<Kernel>(2, role_pipeline_threads, in.p, out.p) == cudaSuccess);
  return out.to_host();
}

}  // namespace

TEST_CASE("a block pipeline made with each thread's cuda::pipeline_role, stackless, gives what fibers give") {
  auto [on_coroutines, on_fibers] = on_both_executors(role_pipeline_run<role_pipeline_kernel>);
  CHECK(on_coroutines == on_fibers);
  auto in = role_pipeline_input();
  for (unsigned i = 0; i < on_coroutines.size(); ++i) {
    unsigned t = i % role_pipeline_threads;
    int expected = 0;
    if (t % 2 == 1)
      for (unsigned b = 0; b < role_pipeline_batches; ++b) expected += in[b * role_pipeline_threads + t - 1] * 3;
    CHECK(on_coroutines[i] == expected);
  }
}

TEST_CASE("a tile's unified pipeline, stackless, gives what fibers give") {
  auto [on_coroutines, on_fibers] = on_both_executors(role_pipeline_run<tile_pipeline_kernel>);
  CHECK(on_coroutines == on_fibers);
  auto in = role_pipeline_input();
  for (unsigned i = 0; i < on_coroutines.size(); ++i) {
    unsigned t = i % role_pipeline_threads, base = t - t % 32;
    int expected = 0;
    for (unsigned b = 0; b < role_pipeline_batches; ++b)
      expected += in[b * role_pipeline_threads + base + 31 - t % 32] * static_cast<int>(b + 1);
    CHECK(on_coroutines[i] == expected);
  }
}
