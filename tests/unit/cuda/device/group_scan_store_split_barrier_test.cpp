// Cooperative groups' later additions on fibers: cg::inclusive_scan and
// cg::exclusive_scan over tiles of 64 to 1024 threads (with plus and with an
// operator that does not commute), cg::reduce_store_async into a pointer
// (tiles, multi-warp tiles, coalesced groups), and the block's split
// barrier, thread_block::barrier_arrive and barrier_wait, over several
// phases and with a thread that never arrives.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>
#include <weft/cuda/device/memory/atomic_ref.hpp>

#include "device_buffer.hpp"

#include <string>
#include <vector>

namespace {

namespace cg = cooperative_groups;

// An affine map x -> a*x + b; composing them (left first) is associative
// and does not commute, so a scan that swapped operands would show.
struct scan_test_affine {
  unsigned a = 0, b = 0;
  bool operator==(const scan_test_affine&) const = default;
};
struct scan_test_compose {
  scan_test_affine operator()(scan_test_affine first, scan_test_affine then) const {
    return {first.a * then.a, then.a * first.b + then.b};
  }
};

scan_test_affine scan_test_map_of(unsigned i) { return {2 * i + 1, 7 * i + 3}; }
int scan_test_value_of(unsigned i) { return static_cast<int>(i % 7) + 1; }

template <unsigned Size>
__global__ void multi_warp_scans(int* sums, scan_test_affine* chains) {
  auto tile = cg::tiled_partition<Size>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sums[2 * i] = cg::inclusive_scan(tile, scan_test_value_of(i));
  sums[2 * i + 1] = cg::exclusive_scan(tile, scan_test_value_of(i));
  chains[2 * i] = cg::inclusive_scan(tile, scan_test_map_of(i), scan_test_compose());
  chains[2 * i + 1] = cg::exclusive_scan(tile, scan_test_map_of(i), scan_test_compose());
}

template <unsigned Size>
void check_multi_warp_scans(unsigned threads) {
  CAPTURE(Size);
  constexpr unsigned blocks = 2;
  unsigned total = blocks * threads;
  device_buffer<int> sums(2 * total);
  device_buffer<scan_test_affine> chains(2 * total);
  REQUIRE(weft::launch(blocks, threads, multi_warp_scans<Size>, sums.p, chains.p) == cudaSuccess);
  auto got_sums = sums.to_host();
  auto got_chains = chains.to_host();
  for (unsigned i = 0; i < total; ++i) {
    CAPTURE(i);
    unsigned first = i - i % Size;
    int below = 0;
    scan_test_affine chain_below{};
    for (unsigned k = first; k < i; ++k) {
      below += scan_test_value_of(k);
      chain_below = k == first ? scan_test_map_of(k) : scan_test_compose()(chain_below, scan_test_map_of(k));
    }
    scan_test_affine chain_to_here =
        i == first ? scan_test_map_of(i) : scan_test_compose()(chain_below, scan_test_map_of(i));
    CHECK(got_sums[2 * i] == below + scan_test_value_of(i));
    CHECK(got_sums[2 * i + 1] == below);
    CHECK(got_chains[2 * i] == chain_to_here);
    CHECK(got_chains[2 * i + 1] == chain_below);  // rank 0: a value-initialised map
  }
}

constexpr unsigned stored_threads = 256, stored_blocks = 2;

// Each block: a sum per warp, a maximum per tile of 128, a sum over the odd
// lanes of each warp (a coalesced group), and what thread t reads of its
// warp's sum after the block's sync.
__global__ void stored_reductions(int* warp_sums, int* wide_maxima, int* odd_sums, int* seen) {
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  auto wide = cg::tiled_partition<128>(block);
  int t = static_cast<int>(block.thread_rank());
  int* my_warp_sum = warp_sums + blockIdx.x * 8 + warp.meta_group_rank();
  cg::reduce_store_async(warp, my_warp_sum, t, cg::plus<int>());
  cg::reduce_store_async(wide, wide_maxima + blockIdx.x * 2 + wide.meta_group_rank(), t * 3, cg::greater<int>());
  if (t % 2 == 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    cg::reduce_store_async(odd, odd_sums + blockIdx.x * 8 + t / 32, t, cg::plus<int>());
  }
  block.sync();  // as CUDA asks, before any thread reads what one thread stored
  seen[blockIdx.x * stored_threads + t] = *my_warp_sum;
}

void check_stored_reductions() {
  device_buffer<int> warp_sums(stored_blocks * 8), wide_maxima(stored_blocks * 2), odd_sums(stored_blocks * 8),
      seen(stored_blocks * stored_threads);
  REQUIRE(weft::launch(stored_blocks, stored_threads, stored_reductions, warp_sums.p, wide_maxima.p, odd_sums.p,
                       seen.p) == cudaSuccess);
  auto sums = warp_sums.to_host(), maxima = wide_maxima.to_host(), odd = odd_sums.to_host(), read = seen.to_host();
  for (unsigned b = 0; b < stored_blocks; ++b)
    for (int w = 0; w < 8; ++w) {
      int sum = 0, odd_sum = 0;
      for (int t = 32 * w; t < 32 * w + 32; ++t) {
        sum += t;
        if (t % 2 == 1) odd_sum += t;
      }
      CHECK(sums[b * 8 + w] == sum);
      CHECK(odd[b * 8 + w] == odd_sum);
      for (int t = 32 * w; t < 32 * w + 32; ++t) CHECK(read[b * stored_threads + t] == sum);
      if (w < 2) CHECK(maxima[b * 2 + w] == (128 * w + 127) * 3);
    }
}

constexpr unsigned split_threads = 96, split_phases = 3;

// Each phase, every thread writes its slot, arrives, works on its own, waits,
// then reads its neighbour's slot of the phase: the wait must have waited
// for the neighbour's write. The slots alternate between two rows, so that
// a phase's writes never meet the reads of the phase before.
__global__ void split_barrier_phases(int* out) {
  __shared__ int split_slots[2][split_threads];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = block.thread_rank(), n = block.size();
  int own_work = 0;
  for (unsigned phase = 0; phase < split_phases; ++phase) {
    split_slots[phase % 2][t] = static_cast<int>(1000 * phase + t + 100 * blockIdx.x);
    cg::thread_block::arrival_token token = block.barrier_arrive();
    for (unsigned k = 0; k <= t % 5; ++k) own_work += static_cast<int>(k);
    block.barrier_wait(std::move(token));
    out[(blockIdx.x * split_phases + phase) * n + t] = split_slots[phase % 2][(t + 1) % n];
  }
  out[(gridDim.x * split_phases + blockIdx.x) * n + t] = own_work;
}

// Thread 5 leaves before the second phase's arrival: that phase can never complete.
__global__ void split_barrier_missing_arrival(int* out) {
  cg::thread_block block = cg::this_thread_block();
  block.barrier_wait(block.barrier_arrive());
  if (block.thread_rank() == 5) return;
  auto token = block.barrier_arrive();
  block.barrier_wait(std::move(token));
  out[block.thread_rank()] = 1;
}

}  // namespace

TEST_CASE("cg::inclusive_scan and exclusive_scan over tiles of 64 to 1024 threads, in rank order") {
  check_multi_warp_scans<64>(256);
  check_multi_warp_scans<128>(256);
  check_multi_warp_scans<256>(512);
  check_multi_warp_scans<1024>(1024);
}

TEST_CASE("cg::reduce_store_async stores a tile's, a multi-warp tile's and a coalesced group's reduction") {
  check_stored_reductions();
}

TEST_CASE("thread_block::barrier_arrive and barrier_wait: a wait returns once every thread of the block arrived") {
  constexpr unsigned blocks = 2;
  device_buffer<int> out((blocks * split_phases + blocks) * split_threads);
  REQUIRE(weft::launch(blocks, split_threads, split_barrier_phases, out.p) == cudaSuccess);
  auto got = out.to_host();
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned phase = 0; phase < split_phases; ++phase)
      for (unsigned t = 0; t < split_threads; ++t) {
        CAPTURE(b);
        CAPTURE(phase);
        CAPTURE(t);
        CHECK(got[(b * split_phases + phase) * split_threads + t] ==
              static_cast<int>(1000 * phase + (t + 1) % split_threads + 100 * b));
      }
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < split_threads; ++t) {
      int work = 0;
      for (unsigned k = 0; k <= t % 5; ++k) work += static_cast<int>(k);
      CHECK(got[(blocks * split_phases + b) * split_threads + t] == work * static_cast<int>(split_phases));
    }
}

TEST_CASE("a block split barrier's phase that a thread never arrives in is reported, not a hang") {
  device_buffer<int> out(64);
  REQUIRE(weft::launch(1, 64, split_barrier_missing_arrival, out.p) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  CAPTURE(report);
  CHECK(report.find("this_thread_block().barrier_wait()") != std::string::npos);
  CHECK(report.find("the block's split barrier (barrier_arrive) in phase 1: 1 of 64 threads have not arrived") !=
        std::string::npos);
  CHECK(cudaDeviceReset() == cudaSuccess);
}

namespace {

constexpr unsigned atomic_test_threads = 256;

// Per block (256 threads): warp sums added to one atomic_ref, each tile of
// 128's maximum kept in one, the odd lanes' sum stored into a float one per
// warp, each warp's inclusive_scan_update of a counter of its own (starting
// at 100 * warp) and exclusive_scan_update of the tile of 128's counter,
// and the CUDA guide's buffer allocation from a __shared__ cuda::atomic.
__global__ void atomic_reductions(int* sum, int* maximum, float* odd_halves, int* warp_counters, int* wide_counters,
                                  int* scanned, int* offsets, int* used_after) {
  __shared__ cuda::atomic<int, cuda::thread_scope_block> atomic_test_used;
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  auto wide = cg::tiled_partition<128>(block);
  int t = static_cast<int>(block.thread_rank());
  unsigned w = warp.meta_group_rank();
  cg::reduce_update_async(warp, cuda::atomic_ref<int, cuda::thread_scope_device>(*sum), t, cg::plus<int>());
  cg::reduce_update_async(wide, cuda::atomic_ref<int, cuda::thread_scope_device>(*maximum), t * 3, cg::greater<int>());
  if (t % 2 == 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    cg::reduce_store_async(odd, cuda::atomic_ref<float>(odd_halves[w]), 0.5f, cg::plus<float>());
  }
  scanned[2 * t] = cg::inclusive_scan_update(warp, cuda::atomic_ref<int>(warp_counters[w]), t % 5);
  scanned[2 * t + 1] =
      cg::exclusive_scan_update(wide, cuda::atomic_ref<int>(wide_counters[wide.meta_group_rank()]), 2, cg::plus<int>());
  atomic_test_used = 0;
  block.sync();
  int need = t % 2 + 1;
  offsets[t] = cg::exclusive_scan_update(warp, atomic_test_used, need);
  block.sync();
  if (t == 0) *used_after = atomic_test_used.load();
}

}  // namespace

TEST_CASE("cg::reduce_update_async, reduce_store_async into an atomic, and the scans' update variants") {
  device_buffer<int> sum(1), maximum(1), warp_counters(8), wide_counters(2), scanned(2 * atomic_test_threads),
      offsets(atomic_test_threads), used_after(1);
  device_buffer<float> odd_halves(8);
  std::vector<int> counters(8);
  for (int w = 0; w < 8; ++w) counters[w] = 100 * w;
  REQUIRE(cudaMemcpy(warp_counters.p, counters.data(), 8 * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(weft::launch(1, atomic_test_threads, atomic_reductions, sum.p, maximum.p, odd_halves.p, warp_counters.p,
                       wide_counters.p, scanned.p, offsets.p, used_after.p) == cudaSuccess);
  CHECK(sum.to_host()[0] == 255 * 256 / 2);
  CHECK(maximum.to_host()[0] == 255 * 3);
  for (float half : odd_halves.to_host()) CHECK(half == 8.0f);
  auto after = warp_counters.to_host();
  auto got = scanned.to_host();
  for (int w = 0; w < 8; ++w) {
    int running = 100 * w;
    for (int t = 32 * w; t < 32 * w + 32; ++t) {
      running += t % 5;
      CHECK(got[2 * t] == running);  // the counter's old value, then the inclusive scan
    }
    CHECK(after[w] == running);
  }
  for (int t = 0; t < 256; ++t) CHECK(got[2 * t + 1] == 2 * (t % 128));
  CHECK(wide_counters.to_host() == std::vector<int>{256, 256});
  // Every thread got its own `need` slots of one buffer of 384, none shared.
  auto offset = offsets.to_host();
  std::vector<int> owner(384, -1);
  for (int t = 0; t < 256; ++t)
    for (int k = 0; k < t % 2 + 1; ++k) {
      REQUIRE(offset[t] + k < 384);
      CHECK(owner[offset[t] + k] == -1);
      owner[offset[t] + k] = t;
    }
  CHECK(used_after.to_host()[0] == 384);
}
