// The fiber executor's short cut for a converged warp (block_executor_warps.hpp):
// a lane calling with the full mask joins the whole-warp group at its warp's
// first place without the general search. These kernels make a warp go back
// and forth between that path and the general one from step to step (a group
// of some lanes open first, lanes of other branches and call sites, a partial
// warp, lanes that exit), under every schedule, and check each lane's results
// against the same steps computed on the host.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "device_buffer.hpp"
#include "schedule_scope.hpp"
#include "stream_gates.hpp"

#include <cstdint>
#include <vector>

namespace {

constexpr int rounds = 6;
constexpr unsigned sub_mask = 0x8000ffffu;  // lanes 0-15 and 31

// Per round: a full-warp reduction step; lanes 0-15 and 31 meet in a group of
// their own while lanes 16-30 already wait in a full-mask shuffle (which must
// not join the smaller group, open first at the warp's first place); the
// full-mask shuffle called from two call sites, odd lanes at one and even
// lanes at the other; then the full mask again.
__global__ void switching_paths_kernel(int* out) {
  unsigned lane = threadIdx.x % 32;
  unsigned v = threadIdx.x;  // unsigned: the mix wraps, as signed arithmetic must not
  for (int r = 0; r < rounds; ++r) {
    v += __shfl_down_sync(0xffffffff, v, 1 + r % 4);
    if (lane < 16 || lane == 31) v += __shfl_xor_sync(sub_mask, v, 1) * 3u;
    int from = static_cast<int>((lane + 7 + r) % 32);
    if (lane % 2)
      v += __shfl_sync(0xffffffff, v, from) * 5u;
    else
      v -= __shfl_sync(0xffffffff, v, from) * 2u;
    v ^= __shfl_up_sync(0xffffffff, v, 3);
  }
  out[threadIdx.x] = static_cast<int>(v);
}

// The same steps for one warp of `lanes` lanes (all of them, or a partial
// last warp), lane by lane, as CUDA defines them.
std::vector<int> switching_paths_expected(unsigned first, unsigned lanes) {
  std::vector<unsigned> v(lanes);
  for (unsigned l = 0; l < lanes; ++l) v[l] = first + l;
  for (int r = 0; r < rounds; ++r) {
    std::vector<unsigned> w = v;
    unsigned delta = 1 + r % 4;
    // Past the warp's end a lane reads its own value; past the block's end
    // (in a partial warp) a lane outside the mask, which gives 0.
    for (unsigned l = 0; l < lanes; ++l) w[l] = v[l] + (l + delta >= 32 ? v[l] : l + delta < lanes ? v[l + delta] : 0);
    v = w;
    for (unsigned l = 0; l < lanes; ++l)
      if (sub_mask >> l & 1) w[l] = v[l] + (sub_mask >> (l ^ 1) & 1 && (l ^ 1) < lanes ? v[l ^ 1] : 0) * 3u;
    v = w;
    for (unsigned l = 0; l < lanes; ++l) {
      unsigned from = (l + 7 + r) % 32;
      unsigned source = from < lanes ? v[from] : 0;  // a lane past the block's end reads as outside the mask: 0
      w[l] = l % 2 ? v[l] + source * 5u : v[l] - source * 2u;
    }
    v = w;
    for (unsigned l = 0; l < lanes; ++l) w[l] = v[l] ^ (l >= 3 ? v[l - 3] : v[l]);
    v = w;
  }
  return {v.begin(), v.end()};
}

void check_switching_paths(unsigned threads) {
  device_buffer<int> out(threads);
  REQUIRE(weft::launch(1, threads, switching_paths_kernel, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto got = out.to_host();
  for (unsigned first = 0; first < threads; first += 32) {
    unsigned lanes = threads - first < 32 ? threads - first : 32;
    auto want = switching_paths_expected(first, lanes);
    for (unsigned l = 0; l < lanes; ++l) {
      INFO("thread " << first + l);
      CHECK(got[first + l] == want[l]);
    }
  }
}

// Odd lanes leave after one full-warp shuffle; the even lanes go on among
// themselves (a mask without the exited lanes), then all but one of them
// leave and the last one shuffles alone.
__global__ void lanes_leave_kernel(int* out) {
  unsigned lane = threadIdx.x % 32;
  int v = __shfl_down_sync(0xffffffff, static_cast<int>(threadIdx.x), 1);
  if (lane % 2) {
    out[threadIdx.x] = v;
    return;
  }
  for (int r = 0; r < rounds; ++r) v += __shfl_xor_sync(0x55555555, v, 2);
  if (lane != 0) {
    out[threadIdx.x] = v;
    return;
  }
  out[threadIdx.x] = __shfl_sync(1, v, 0) + 1;
}

}  // namespace

TEST_CASE("a warp that goes back and forth between the converged path and the general one") {
  exact_workers pool(1);
  SUBCASE("forward") {
    auto pinned = forward_schedule();
    check_switching_paths(64);
    check_switching_paths(48);  // the second warp partial: the full mask names 16 lanes
  }
  SUBCASE("reverse") {
    schedule_scope reverse({weft::detail::schedule_order::reverse, 0});
    check_switching_paths(64);
    check_switching_paths(48);
  }
  SUBCASE("random") {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      schedule_scope random({weft::detail::schedule_order::random, seed});
      check_switching_paths(64);
      check_switching_paths(48);
    }
  }
}

TEST_CASE("lanes that leave after a converged shuffle, and those that go on without them") {
  exact_workers pool(1);
  device_buffer<int> out(64);
  REQUIRE(weft::launch(1, 64, lanes_leave_kernel, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto got = out.to_host();
  for (unsigned first = 0; first < 64; first += 32) {
    std::vector<int> v(32);
    for (unsigned l = 0; l < 32; ++l) v[l] = static_cast<int>(first + (l < 31 ? l + 1 : l));
    for (unsigned l = 1; l < 32; l += 2) CHECK(got[first + l] == v[l]);
    for (int r = 0; r < rounds; ++r) {
      std::vector<int> w = v;
      for (unsigned l = 0; l < 32; l += 2) w[l] = v[l] + v[l ^ 2];
      v = w;
    }
    for (unsigned l = 2; l < 32; l += 2) CHECK(got[first + l] == v[l]);
    CHECK(got[first] == v[0] + 1);
  }
}
