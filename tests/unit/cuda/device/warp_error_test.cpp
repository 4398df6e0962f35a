// Warp collectives that can never complete, or that lanes call
// inconsistently: the launch fails (sticky cudaErrorLaunchFailure) with a
// report naming the kernel, block, warp, lanes and line. Nothing hangs.
//
// The kernels have external linkage so that the report can name them.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <string>

#include "schedule_scope.hpp"
#include "text_checks.hpp"

__device__ int shuffle_site(unsigned mask, int v) { return __shfl_sync(mask, v, 0); }
constexpr int shuffle_line = __LINE__ - 1;
__device__ unsigned ballot_site(unsigned mask, int p) { return __ballot_sync(mask, p); }
constexpr int ballot_line = __LINE__ - 1;
__device__ void syncwarp_site(unsigned mask) { __syncwarp(mask); }
constexpr int syncwarp_line = __LINE__ - 1;
__device__ void syncthreads_site() { __syncthreads(); }
constexpr int syncthreads_line = __LINE__ - 1;

__global__ void warp_mask_omits_caller_kernel() { shuffle_site(0x2, 1); }

// 40 threads: warp 1 has lanes 0-7 only, and names all 32.
__global__ void warp_mask_past_end_kernel(int* out) {
  unsigned t = threadIdx.x;
  if (t >= 32) syncwarp_site(0xffffffff);
  int v = static_cast<int>(t) + 1;
  out[t * 4 + 0] = __shfl_up_sync(0xffffffff, v, 1);
  out[t * 4 + 1] = __shfl_down_sync(0xffffffff, v, 4);  // lanes 4-7 read lanes that do not exist
  out[t * 4 + 2] = static_cast<int>(__ballot_sync(0xffffffff, 1));
  out[t * 4 + 3] = __all_sync(0xffffffff, t < 40);
}

// Lanes 0-15 exit at once; lanes 16-31 then name them.
__global__ void warp_names_exited_kernel() {
  if (threadIdx.x % 32 < 16) return;
  syncwarp_site(0xffffffff);
}

// Lanes 0-15 wait for lanes 16-31, which exit later.
__global__ void warp_exits_while_waited_for_kernel() {
  if (threadIdx.x % 32 >= 16) return;
  syncwarp_site(0xffffffff);
}

// All lanes meet once (lane 31 completes the group and runs on); then lane
// 31 exits, and lane 0 opens the next group naming it: the lane's slot, not
// the cursor, says it exited.
__global__ void warp_parked_lane_exits_kernel() {
  syncwarp_site(0xffffffff);
  if (threadIdx.x == 31) return;
  syncwarp_site(0xffffffff);
}

__global__ void warp_different_collectives_kernel() {
  if (threadIdx.x < 16)
    shuffle_site(0xffffffff, 1);
  else
    ballot_site(0xffffffff, 1);
}

// Lane 0 waits with lanes {0,1}; lane 1 arrives with {0,1,2}.
__global__ void warp_overlapping_masks_kernel() {
  if (threadIdx.x == 0)
    syncwarp_site(0x3);
  else if (threadIdx.x == 1)
    syncwarp_site(0x7);
}

// Lanes 0-15 wait at __syncwarp for lanes 16-31, which wait at __syncthreads.
__global__ void warp_and_block_deadlock_kernel() {
  if (threadIdx.x < 16)
    syncwarp_site(0xffffffff);
  else
    syncthreads_site();
}

__global__ void warp_bad_width_kernel() { __shfl_down_sync(0xffffffff, 1, 1, 12); }

namespace {

std::string site(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }

// Launches, expects the sticky failure, returns the report, resets the device.
template <class Kernel>
std::string failure_of(Kernel kernel, unsigned threads) {
  CHECK(weft::launch(1, threads, kernel) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);  // sticky
  std::string report = weft::fault_message();
  CHECK(cudaDeviceReset() == cudaSuccess);
  cudaGetLastError();  // the second synchronisation's code: the next test starts clean
  return report;
}

}  // namespace

TEST_CASE("a mask that omits the calling lane") {
  // Pinned to the forward schedule: the report names the first lane to call, which depends on the order
  // (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  std::string r = failure_of(warp_mask_omits_caller_kernel, 32);
  INFO(r);
  CHECK(contains(r, "warp_mask_omits_caller_kernel"));
  CHECK(contains(r, "block (0,0,0)"));
  CHECK(contains(r, "thread (0,0,0)"));
  CHECK(contains(r, "__shfl_sync (" + site(shuffle_line)));
  CHECK(contains(r, "warp 0"));
  CHECK(contains(r, "omits the calling lane 0"));
}

TEST_CASE("a mask naming lanes past the block's end means the lanes that exist, as on an H100") {
  // tests/differential/partial_warp_probe.expected has the H100's answers:
  // the missing lanes are inactive, and reading one gives 0.
  int* out = nullptr;
  REQUIRE(cudaMallocManaged(&out, 40 * 4 * sizeof(int)) == cudaSuccess);
  CHECK(weft::launch(1, 40, warp_mask_past_end_kernel, out) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int t = 32; t < 40; ++t) {
    int lane = t - 32;
    CAPTURE(t);
    CHECK(out[t * 4 + 0] == (lane == 0 ? t + 1 : t));
    CHECK(out[t * 4 + 1] == (lane < 4 ? t + 5 : 0));
    CHECK(out[t * 4 + 2] == 0xff);
    CHECK(out[t * 4 + 3] == 1);
  }
  CHECK(out[0 * 4 + 2] == -1);  // the whole first warp
  CHECK(cudaFree(out) == cudaSuccess);
}

TEST_CASE("a lane arrives naming lanes that have exited") {
  // Pinned to the forward schedule: which lanes have exited when the first lane calls depends on the order
  // (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  std::string r = failure_of(warp_names_exited_kernel, 32);
  INFO(r);
  CHECK(contains(r, "warp_names_exited_kernel"));
  CHECK(contains(r, "thread (16,0,0)"));
  CHECK(contains(r, "lanes 0-15, which have exited"));
  CHECK(contains(r, site(syncwarp_line)));
}

TEST_CASE("lanes exit while others wait for them") {
  // Pinned to the forward schedule: under another order the lanes that exit may run first, and the mask is refused as
  // naming exited lanes (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  std::string r = failure_of(warp_exits_while_waited_for_kernel, 64);
  INFO(r);
  CHECK(contains(r, "warp_exits_while_waited_for_kernel"));
  CHECK(contains(r, "warp 0"));
  CHECK(contains(r, "lanes 0-15 wait for lanes 16-31, which have exited"));
  CHECK(contains(r, site(syncwarp_line)));
}

TEST_CASE("a lane that met its warp before exits, and is named afterwards") {
  // Pinned to the forward schedule: which lanes wait and which exit first depends on the order (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  std::string r = failure_of(warp_parked_lane_exits_kernel, 32);
  INFO(r);
  CHECK(contains(r, "thread (0,0,0)"));
  CHECK(contains(r, "the mask names lane 31, which has exited"));
}

TEST_CASE("lanes of one group call different collectives") {
  // Pinned to the forward schedule: the report names the first lane to call the other collective, which depends on the
  // order (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  std::string r = failure_of(warp_different_collectives_kernel, 32);
  INFO(r);
  CHECK(contains(r, "warp_different_collectives_kernel"));
  CHECK(contains(r, "thread (16,0,0)"));
  CHECK(contains(r, "__ballot_sync (" + site(ballot_line)));
  CHECK(contains(r, "lanes 0-15 wait at __shfl_sync (" + site(shuffle_line)));
  CHECK(contains(r, "different collectives"));
}

TEST_CASE("lanes of one group call with overlapping but different masks") {
  // Pinned to the forward schedule: which mask opens the group first depends on the order (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  std::string r = failure_of(warp_overlapping_masks_kernel, 32);
  INFO(r);
  CHECK(contains(r, "warp_overlapping_masks_kernel"));
  CHECK(contains(r, "lane 1 calls __syncwarp"));
  CHECK(contains(r, "lane 0 waits at __syncwarp"));
  CHECK(contains(r, "mask 0x00000007"));
  CHECK(contains(r, "mask 0x00000003"));
  CHECK(contains(r, "overlapping masks"));
}

TEST_CASE("a deadlock between a warp collective and a block barrier names both") {
  std::string r = failure_of(warp_and_block_deadlock_kernel, 32);
  INFO(r);
  CHECK(contains(r, "warp_and_block_deadlock_kernel"));
  CHECK(contains(r, "deadlock"));
  CHECK(contains(r, "thread (16,0,0) to thread (31,0,0) wait at __syncthreads (" + site(syncthreads_line)));
  CHECK(contains(r, "warp 0 lanes 0-15"));
  CHECK(contains(r, "wait at __syncwarp (" + site(syncwarp_line)));
}

TEST_CASE("a shuffle width that is not a power of two") {
  std::string r = failure_of(warp_bad_width_kernel, 32);
  INFO(r);
  CHECK(contains(r, "width 12"));
}

TEST_CASE("warp collectives outside a kernel are refused") { CHECK_THROWS(__syncwarp()); }
