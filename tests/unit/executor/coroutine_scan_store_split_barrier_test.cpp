// Cooperative groups' later additions in stackless kernels: co_await
// weft::inclusive_scan and weft::exclusive_scan over tiles of 64 to 1024
// threads, weft::reduce_store_async, and the block's split barrier
// (weft::barrier_arrive, weft::barrier_wait) give what CUDA documents and
// what the same kernel gives on fibers; a phase that a thread never arrives
// in is the fibers' deadlock report.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>
#include <weft/stackless_groups.hpp>

#include "device_buffer.hpp"
#include "stackless_failure.hpp"
#include "stackless_scope.hpp"

#include <string>
#include <utility>
#include <vector>

namespace {

namespace cg = cooperative_groups;

// Composing affine maps (left first) is associative and does not commute.
struct coroutine_scan_affine {
  unsigned a = 0, b = 0;
  bool operator==(const coroutine_scan_affine&) const = default;
};
struct coroutine_scan_compose {
  coroutine_scan_affine operator()(coroutine_scan_affine first, coroutine_scan_affine then) const {
    return {first.a * then.a, then.a * first.b + then.b};
  }
};

coroutine_scan_affine coroutine_scan_map_of(unsigned i) { return {2 * i + 1, 7 * i + 3}; }
int coroutine_scan_value_of(unsigned i) { return static_cast<int>(i % 7) + 1; }

template <unsigned Size>
weft::stackless_kernel coroutine_multi_warp_scans(int* sums, coroutine_scan_affine* chains) {
  auto tile = cg::tiled_partition<Size>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sums[2 * i] = co_await weft::inclusive_scan(tile, coroutine_scan_value_of(i));
  sums[2 * i + 1] = co_await weft::exclusive_scan(tile, coroutine_scan_value_of(i));
  chains[2 * i] = co_await weft::inclusive_scan(tile, coroutine_scan_map_of(i), coroutine_scan_compose());
  chains[2 * i + 1] = co_await weft::exclusive_scan(tile, coroutine_scan_map_of(i), coroutine_scan_compose());
}

template <unsigned Size>
auto coroutine_scans_run(unsigned threads) {
  constexpr unsigned blocks = 2;
  device_buffer<int> sums(2 * blocks * threads);
  device_buffer<coroutine_scan_affine> chains(2 * blocks * threads);
  REQUIRE(weft::launch<coroutine_multi_warp_scans<Size>>(blocks, threads, sums.p, chains.p) == cudaSuccess);
  return std::pair{sums.to_host(), chains.to_host()};
}

template <unsigned Size>
void check_coroutine_scans(unsigned threads) {
  CAPTURE(Size);
  auto [on_coroutines, on_fibers] = on_both_executors([&] { return coroutine_scans_run<Size>(threads); });
  CHECK(on_coroutines == on_fibers);
  auto& [sums, chains] = on_coroutines;
  for (unsigned i = 0; i < sums.size() / 2; ++i) {
    CAPTURE(i);
    unsigned first = i - i % Size;
    int below = 0;
    coroutine_scan_affine chain_below{};
    for (unsigned k = first; k < i; ++k) {
      below += coroutine_scan_value_of(k);
      chain_below =
          k == first ? coroutine_scan_map_of(k) : coroutine_scan_compose()(chain_below, coroutine_scan_map_of(k));
    }
    CHECK(sums[2 * i] == below + coroutine_scan_value_of(i));
    CHECK(sums[2 * i + 1] == below);
    CHECK(chains[2 * i] ==
          (i == first ? coroutine_scan_map_of(i) : coroutine_scan_compose()(chain_below, coroutine_scan_map_of(i))));
    CHECK(chains[2 * i + 1] == chain_below);
  }
}

constexpr unsigned coroutine_stored_threads = 256, coroutine_stored_blocks = 2;

// Per block: a sum per warp, a maximum per tile of 128, a sum over each
// warp's odd lanes (a coalesced group); then what each thread reads of its
// warp's sum after the block's sync.
weft::stackless_kernel coroutine_stored_reductions(int* warp_sums, int* wide_maxima, int* odd_sums, int* seen) {
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  auto wide = cg::tiled_partition<128>(block);
  int t = static_cast<int>(block.thread_rank());
  int* my_warp_sum = warp_sums + blockIdx.x * 8 + warp.meta_group_rank();
  co_await weft::reduce_store_async(warp, my_warp_sum, t, cg::plus<int>());
  co_await weft::reduce_store_async(wide, wide_maxima + blockIdx.x * 2 + wide.meta_group_rank(), t * 3,
                                    cg::greater<int>());
  if (t % 2 == 1) {
    cg::coalesced_group odd = co_await weft::coalesced_threads();
    co_await weft::reduce_store_async(odd, odd_sums + blockIdx.x * 8 + t / 32, t, cg::plus<int>());
  }
  co_await weft::sync(block);
  seen[blockIdx.x * coroutine_stored_threads + t] = *my_warp_sum;
}

std::vector<int> coroutine_stored_run() {
  device_buffer<int> warp_sums(coroutine_stored_blocks * 8), wide_maxima(coroutine_stored_blocks * 2),
      odd_sums(coroutine_stored_blocks * 8), seen(coroutine_stored_blocks * coroutine_stored_threads);
  REQUIRE(weft::launch<coroutine_stored_reductions>(coroutine_stored_blocks, coroutine_stored_threads, warp_sums.p,
                                                    wide_maxima.p, odd_sums.p, seen.p) == cudaSuccess);
  std::vector<int> all = warp_sums.to_host();
  for (const auto* part : {&wide_maxima, &odd_sums, &seen}) {
    auto host = part->to_host();
    all.insert(all.end(), host.begin(), host.end());
  }
  return all;
}

constexpr unsigned coroutine_split_threads = 96, coroutine_split_phases = 3;

// Each phase: write a slot, arrive, work alone, wait, read the neighbour's
// slot of the phase (two rows, alternating, as in the fiber test).
weft::stackless_kernel coroutine_split_barrier_phases(int* out) {
  __shared__ int coroutine_split_slots[2][coroutine_split_threads];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = block.thread_rank(), n = block.size();
  int own_work = 0;
  for (unsigned phase = 0; phase < coroutine_split_phases; ++phase) {
    coroutine_split_slots[phase % 2][t] = static_cast<int>(1000 * phase + t + 100 * blockIdx.x);
    cg::thread_block::arrival_token token =
        phase == 1 ? block.barrier_arrive() : co_await weft::barrier_arrive(block);  // both spellings
    for (unsigned k = 0; k <= t % 5; ++k) own_work += static_cast<int>(k);
    co_await weft::barrier_wait(block, std::move(token));
    out[(blockIdx.x * coroutine_split_phases + phase) * n + t] = coroutine_split_slots[phase % 2][(t + 1) % n];
  }
  out[(gridDim.x * coroutine_split_phases + blockIdx.x) * n + t] = own_work;
}

std::vector<int> coroutine_split_run() {
  constexpr unsigned blocks = 2;
  device_buffer<int> out((blocks * coroutine_split_phases + blocks) * coroutine_split_threads);
  REQUIRE(weft::launch<coroutine_split_barrier_phases>(blocks, coroutine_split_threads, out.p) == cudaSuccess);
  return out.to_host();
}

// Thread 5 leaves before the second phase's arrival.
weft::stackless_kernel coroutine_split_missing_arrival(int* out) {
  cg::thread_block block = cg::this_thread_block();
  co_await weft::barrier_wait(block, co_await weft::barrier_arrive(block));
  if (block.thread_rank() == 5) co_return;
  auto token = co_await weft::barrier_arrive(block);
  co_await weft::barrier_wait(block, std::move(token));
  out[block.thread_rank()] = 1;
}

}  // namespace

TEST_CASE("stackless scans over tiles of 64 to 1024 threads give CUDA's results and the fibers'") {
  check_coroutine_scans<64>(256);
  check_coroutine_scans<128>(256);
  check_coroutine_scans<1024>(1024);
}

TEST_CASE("stackless reduce_store_async stores what the fibers store, where they store it") {
  auto [on_coroutines, on_fibers] = on_both_executors(coroutine_stored_run);
  CHECK(on_coroutines == on_fibers);
  const int* sums = on_coroutines.data();
  const int* maxima = sums + coroutine_stored_blocks * 8;
  const int* odd = maxima + coroutine_stored_blocks * 2;
  const int* seen = odd + coroutine_stored_blocks * 8;
  for (unsigned b = 0; b < coroutine_stored_blocks; ++b)
    for (int w = 0; w < 8; ++w) {
      int sum = 0, odd_sum = 0;
      for (int t = 32 * w; t < 32 * w + 32; ++t) {
        sum += t;
        if (t % 2 == 1) odd_sum += t;
      }
      CHECK(sums[b * 8 + w] == sum);
      CHECK(odd[b * 8 + w] == odd_sum);
      for (int t = 32 * w; t < 32 * w + 32; ++t) CHECK(seen[b * coroutine_stored_threads + t] == sum);
      if (w < 2) CHECK(maxima[b * 2 + w] == (128 * w + 127) * 3);
    }
}

TEST_CASE("a stackless block split barrier: every wait sees the whole block's arrivals, as on fibers") {
  auto [on_coroutines, on_fibers] = on_both_executors(coroutine_split_run);
  CHECK(on_coroutines == on_fibers);
  constexpr unsigned blocks = 2, n = coroutine_split_threads;
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned phase = 0; phase < coroutine_split_phases; ++phase)
      for (unsigned t = 0; t < n; ++t)
        CHECK(on_coroutines[(b * coroutine_split_phases + phase) * n + t] ==
              static_cast<int>(1000 * phase + (t + 1) % n + 100 * b));
}

TEST_CASE("a stackless block split barrier phase a thread never arrives in is the fibers' deadlock report") {
  auto run = [] {
    device_buffer<int> out(64);
    return stackless_failure_of([&] { return weft::launch(1, 64, coroutine_split_missing_arrival, out.p); });
  };
  auto [on_coroutines, on_fibers] = on_both_executors(run);
  CHECK(on_coroutines.code == on_fibers.code);
  CHECK(on_coroutines.code == cudaErrorLaunchFailure);
  CHECK(report_without_addresses(on_coroutines.report) == report_without_addresses(on_fibers.report));
  CHECK(on_coroutines.report.find("this_thread_block().barrier_wait()") != std::string::npos);
  CHECK(on_coroutines.report.find("1 of 64 threads have not arrived") != std::string::npos);
}

namespace {

constexpr unsigned coroutine_atomic_threads = 256;

// As the fiber test's atomic_reductions: sums, maxima and stores into
// atomic_refs, each warp's and each tile of 128's scan updates, and the CUDA
// guide's buffer allocation from a __shared__ cuda::atomic.
weft::stackless_kernel coroutine_atomic_reductions(int* sum, int* maximum, float* odd_halves, int* warp_counters,
                                                   int* wide_counters, int* scanned, int* offsets, int* used_after) {
  __shared__ cuda::atomic<int, cuda::thread_scope_block> coroutine_atomic_used;
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  auto wide = cg::tiled_partition<128>(block);
  int t = static_cast<int>(block.thread_rank());
  unsigned w = warp.meta_group_rank();
  co_await weft::reduce_update_async(warp, cuda::atomic_ref<int, cuda::thread_scope_device>(*sum), t, cg::plus<int>());
  co_await weft::reduce_update_async(wide, cuda::atomic_ref<int, cuda::thread_scope_device>(*maximum), t * 3,
                                     cg::greater<int>());
  if (t % 2 == 1) {
    cg::coalesced_group odd = co_await weft::coalesced_threads();
    co_await weft::reduce_store_async(odd, cuda::atomic_ref<float>(odd_halves[w]), 0.5f, cg::plus<float>());
  }
  scanned[2 * t] = co_await weft::inclusive_scan_update(warp, cuda::atomic_ref<int>(warp_counters[w]), t % 5);
  scanned[2 * t + 1] = co_await weft::exclusive_scan_update(
      wide, cuda::atomic_ref<int>(wide_counters[wide.meta_group_rank()]), 2, cg::plus<int>());
  coroutine_atomic_used = 0;
  co_await weft::sync(block);
  offsets[t] = co_await weft::exclusive_scan_update(warp, coroutine_atomic_used, t % 2 + 1);
  co_await weft::sync(block);
  if (t == 0) *used_after = coroutine_atomic_used.load();
}

std::vector<int> coroutine_atomic_run() {
  device_buffer<int> sum(1), maximum(1), warp_counters(8), wide_counters(2), scanned(2 * coroutine_atomic_threads),
      offsets(coroutine_atomic_threads), used_after(1);
  device_buffer<float> odd_halves(8);
  std::vector<int> counters(8);
  for (int w = 0; w < 8; ++w) counters[w] = 100 * w;
  REQUIRE(cudaMemcpy(warp_counters.p, counters.data(), 8 * sizeof(int), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(weft::launch<coroutine_atomic_reductions>(1, coroutine_atomic_threads, sum.p, maximum.p, odd_halves.p,
                                                    warp_counters.p, wide_counters.p, scanned.p, offsets.p,
                                                    used_after.p) == cudaSuccess);
  // sum, maximum, the odd halves (as ints), the counters after, the scans,
  // the offsets and the buffer's use, one after the other.
  std::vector<int> all{sum.to_host()[0], maximum.to_host()[0]};
  for (float half : odd_halves.to_host()) all.push_back(static_cast<int>(half * 2));
  for (const auto* part : {&warp_counters, &wide_counters, &scanned, &offsets, &used_after}) {
    auto host = part->to_host();
    all.insert(all.end(), host.begin(), host.end());
  }
  return all;
}

}  // namespace

TEST_CASE("stackless reduce_update_async, reduce_store_async into an atomic and the scan updates, as on fibers") {
  auto [on_coroutines, on_fibers] = on_both_executors(coroutine_atomic_run);
  CHECK(on_coroutines == on_fibers);
  const int* got = on_coroutines.data();
  CHECK(got[0] == 255 * 256 / 2);
  CHECK(got[1] == 255 * 3);
  for (int w = 0; w < 8; ++w) CHECK(got[2 + w] == 16);  // 16 halves, twice
  const int* counters = got + 10;
  const int* wide_counters = counters + 8;
  const int* scanned = wide_counters + 2;
  const int* offsets = scanned + 2 * coroutine_atomic_threads;
  for (int w = 0; w < 8; ++w) {
    int running = 100 * w;
    for (int t = 32 * w; t < 32 * w + 32; ++t) {
      running += t % 5;
      CHECK(scanned[2 * t] == running);
    }
    CHECK(counters[w] == running);
  }
  for (int t = 0; t < 256; ++t) CHECK(scanned[2 * t + 1] == 2 * (t % 128));
  CHECK(wide_counters[0] == 256);
  CHECK(wide_counters[1] == 256);
  std::vector<int> owner(384, -1);
  for (int t = 0; t < 256; ++t)
    for (int k = 0; k < t % 2 + 1; ++k) {
      REQUIRE(offsets[t] + k < 384);
      CHECK(owner[offsets[t] + k] == -1);
      owner[offsets[t] + k] = t;
    }
  CHECK(offsets[coroutine_atomic_threads] == 384);
}
