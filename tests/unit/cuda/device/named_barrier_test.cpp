// PTX's named barriers as weft::ptx runs them (what weft-port turns
// `asm volatile("bar.sync 1, 64;")` and `bar.arrive` into): producer and
// consumer warps handing data over through two barriers, barriers of
// different ids in flight at once, arrivals counted by warp as an H200
// counts them, and each misuse reported as a launch failure instead of a
// hang.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/stackless_kernel.hpp>
#include <weft/stackless_named_barriers.hpp>

#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "stackless_scope.hpp"
#include "text_checks.hpp"

namespace {

constexpr unsigned handover_rounds = 8;
constexpr unsigned buffer_full = 1, buffer_empty = 2;

// Warp 0 produces a row per round, warp 1 copies it out: the producer
// announces a full buffer with bar.arrive (it does not wait), and waits
// with bar.sync until the consumer announces it empty, as warp-specialised
// kernels do. Any round the consumer read early or late shows in `out`.
__global__ void named_handover_kernel(int* out) {
  __shared__ int row[32];
  unsigned lane = threadIdx.x % 32;
  for (unsigned round = 0; round < handover_rounds; ++round) {
    if (threadIdx.x < 32) {
      if (round > 0) weft::ptx::bar_sync(buffer_empty, 64);
      row[lane] = static_cast<int>(round * 100 + lane);
      weft::ptx::bar_arrive(buffer_full, 64);
    } else {
      weft::ptx::bar_sync(buffer_full, 64);
      out[(blockIdx.x * handover_rounds + round) * 32 + lane] = row[lane];
      weft::ptx::bar_arrive(buffer_empty, 64);
    }
  }
}

// Each of the 3 blocks' consumer warp received every round's row.
void check_handover(const std::vector<int>& got) {
  for (unsigned block = 0; block < 3; ++block)
    for (unsigned round = 0; round < handover_rounds; ++round)
      for (unsigned lane = 0; lane < 32; ++lane)
        CHECK(got[(block * handover_rounds + round) * 32 + lane] == static_cast<int>(round * 100 + lane));
}

// Warps 0-1 and warps 2-3 each swap values through barrier 1 and 2, in
// the same rounds; then the whole block meets at barrier 3 without a count.
__global__ void named_pairs_kernel(int* out) {
  __shared__ int value[128];
  unsigned pair = threadIdx.x / 64, mine = threadIdx.x, partner = pair * 64 + (threadIdx.x + 32) % 64;
  int sum = 0;
  for (int round = 1; round <= 4; ++round) {
    value[mine] = round * 1000 + static_cast<int>(mine);
    weft::ptx::bar_sync(1 + pair, 64);
    sum += value[partner];
    weft::ptx::bar_sync(1 + pair, 64);  // the partner has read before the next write
  }
  value[mine] = sum;
  weft::ptx::bar_sync(3);
  out[blockIdx.x * 128 + mine] = value[127 - mine];
}

__global__ void named_misuse_kernel(unsigned id, unsigned threads, bool arrive) {
  if (arrive)
    weft::ptx::bar_arrive(id, threads);
  else
    weft::ptx::bar_sync(id, threads);
}

// Warp 0 expects 64 threads, the other three 128: whichever arrives first,
// the other count arrives before its phase can complete.
__global__ void named_count_disagreement_kernel() { weft::ptx::bar_sync(5, threadIdx.x < 32 ? 64 : 128); }

// Only warp 0 ever arrives at barrier 7, which waits for 64 threads.
__global__ void named_never_completes_kernel() {
  if (threadIdx.x < 32) weft::ptx::bar_sync(7, 64);
}

// bar.red on named barriers: popc over the whole block on barrier 4; and,
// or over warps 0-1 on barrier 5 while warps 2-3 reduce on barrier 6.
struct named_reductions {
  unsigned popc;
  bool all_of_pair, any_of_pair;
};
__global__ void named_reduction_kernel(named_reductions* out) {
  named_reductions& mine = out[threadIdx.x];
  mine.popc = weft::ptx::bar_red_popc(4, 128, threadIdx.x % 3 == 0);
  unsigned pair = threadIdx.x / 64;
  // Pair 0: every thread passes true to `and`; pair 1: thread 100 passes false.
  mine.all_of_pair = weft::ptx::bar_red_and(5 + pair, 64, threadIdx.x != 100);
  // Pair 0: nobody passes true to `or`; pair 1: thread 70 does.
  mine.any_of_pair = weft::ptx::bar_red_or(5 + pair, 64, threadIdx.x == 70);
}

// Warp 0 waits at barrier 8 with bar.sync, warp 1 reduces there.
__global__ void named_mixed_kernel() {
  if (threadIdx.x < 32)
    weft::ptx::bar_sync(8, 64);
  else
    weft::ptx::bar_red_popc(8, 64, true);
}

std::string named_failure_of(cudaError_t launched) {
  CHECK(launched == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  // Taken, so that no later test in this process finds it as its last error.
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaDeviceReset() == cudaSuccess);
  return report;
}

}  // namespace

TEST_CASE("bar.arrive and bar.sync hand a buffer from a producer warp to a consumer warp") {
  device_buffer<int> out(3 * handover_rounds * 32);
  REQUIRE(weft::launch<named_handover_kernel>(3, 64, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  check_handover(out.to_host());
}

TEST_CASE("named barriers of different ids complete independently, and one without a count waits for the block") {
  device_buffer<int> out(2 * 128);
  REQUIRE(weft::launch<named_pairs_kernel>(2, 128, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<int> got = out.to_host();
  for (unsigned t = 0; t < 2 * 128; ++t) {
    unsigned other = 127 - t % 128, partner = other / 64 * 64 + (other + 32) % 64;
    CHECK(got[t] == static_cast<int>((1 + 2 + 3 + 4) * 1000 + 4 * partner));
  }
}

TEST_CASE("bar.red's popc, and, or reduce the predicates of a named barrier's arrivals") {
  device_buffer<named_reductions> out(128);
  REQUIRE(weft::launch<named_reduction_kernel>(1, 128, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<named_reductions> got = out.to_host();
  for (unsigned t = 0; t < 128; ++t) {
    INFO(t);
    CHECK(got[t].popc == 43);  // 0, 3, ..., 126
    CHECK(got[t].all_of_pair == (t < 64));
    CHECK(got[t].any_of_pair == (t >= 64));
  }
}

TEST_CASE("a misused named barrier fails the launch with a report, never a hang") {
  struct misuse {
    unsigned id, threads;
    bool arrive;
    const char* said;
  };
  for (misuse m : {misuse{16, 64, false, "a block has 16 named barriers, 0 to 15"},
                   misuse{1, 48, false, "must be a multiple of the warp size"},
                   misuse{1, 96, true, "at most the 64 threads"}, misuse{1, 0, true, "bar.arrive needs one"}}) {
    INFO(m.said);
    std::string report = named_failure_of(weft::launch<named_misuse_kernel>(1, 64, m.id, m.threads, m.arrive));
    INFO(report);
    CHECK(contains(report, m.said));
  }
  std::string report = named_failure_of(weft::launch<named_count_disagreement_kernel>(1, 128));
  INFO(report);
  CHECK(contains(report, "bar.sync on barrier 5 expects"));
  CHECK(contains(report, "but the threads that arrived before it expect"));
  report = named_failure_of(weft::launch<named_mixed_kernel>(1, 64));
  INFO(report);
  CHECK(contains(report, "on barrier 8 in a phase that threads entered with another"));
}

TEST_CASE("a named barrier that can never complete ends in a deadlock report naming it and its waiters") {
  std::string report = named_failure_of(weft::launch<named_never_completes_kernel>(1, 64));
  INFO(report);
  CHECK(contains(report, "named_never_completes_kernel"));
  CHECK(contains(report, "bar.sync"));
  CHECK(contains(report, "named barrier 7: 32 of its 64 threads arrived"));
  CHECK(contains(report, "(0,0,0)"));
  CHECK(contains(report, "(31,0,0)"));
}

namespace {

// ---- Counting by warp, as an H200 counts ----
// Each kernel below is a case of the GPU probe
// tests/differential/named_barrier_counting_probe.cu
// (docs/semantics.md, "Named barriers", 2026-11-29), built with
// nvcc -arch=sm_90 and run on an H200; the expected values are what the
// H200 gave.

// Warp 0's lanes 16-31 exit; its lanes 0-15 and warp 1 reduce at barrier 1
// for 64 threads. H200: completes, every thread gets 48.
__global__ void named_lanes_exited_kernel(unsigned* out) {
  if (threadIdx.x < 32 && threadIdx.x >= 16) return;
  out[threadIdx.x] = weft::ptx::bar_red_popc(1, 64, true);
}

// A block of 48 (its second warp partial) at barrier 1 for 64, with a
// count and without. H200: both complete, every thread gets 48.
__global__ void named_partial_warp_kernel(unsigned* out, unsigned threads) {
  out[threadIdx.x] = weft::ptx::bar_red_popc(1, threads, true);
}

// Warp 0's lanes 16-31 exit, its lanes 0-15 bar.arrive; warp 1 waits for
// 64. H200: completes.
__global__ void named_half_warp_arrives_kernel(unsigned* out) {
  if (threadIdx.x < 32 && threadIdx.x >= 16) return;
  if (threadIdx.x < 32)
    weft::ptx::bar_arrive(1, 64);
  else
    weft::ptx::bar_sync(1, 64);
  out[threadIdx.x] = 1;
}

// Warp 0's lanes 16-31 skip the barrier, write, and exit later. H200:
// completes (warp 1 went on before those lanes exited).
__global__ void named_lanes_skip_kernel(unsigned* out) {
  if (threadIdx.x < 32 && threadIdx.x >= 16) {
    out[threadIdx.x] = 2;
    return;
  }
  weft::ptx::bar_sync(1, 64);
  out[threadIdx.x] = 1;
}

// Warp 0's lanes 16-31 neither arrive nor exit: they spin until warp 1,
// past the barrier, sets a flag. The H200 counted warp 0 at its lanes 0-15
// (probe case 5: warp 1 went on while lanes 16-31 still ran); weft counts it
// once no thread can run but the spinners.
__global__ void named_lanes_spin_kernel(unsigned* out) {
  __shared__ unsigned flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x < 32 && threadIdx.x >= 16) {
    while (atomicCAS(&flag, 1u, 1u) != 1) {  // a failing CAS yields (semantics.md, "Warps")
    }
    out[threadIdx.x] = 2;
    return;
  }
  weft::ptx::bar_sync(1, 64);
  if (threadIdx.x == 32) atomicExch(&flag, 1);
  out[threadIdx.x] = 1;
}

// Four warps at barrier 1 for 64: two phases of two warps. H200: every
// thread gets 64.
__global__ void named_two_phases_kernel(unsigned* out) { out[threadIdx.x] = weft::ptx::bar_red_popc(1, 64, true); }

// Barrier 1 without a count, after warp 1 exits whole (`whole_warp`) or
// after warp 0's lanes 16-31 exit. H200: completes, with 32 and 48.
__global__ void named_countless_after_exits_kernel(unsigned* out, bool whole_warp) {
  bool exits = whole_warp ? threadIdx.x >= 32 : threadIdx.x >= 16 && threadIdx.x < 32;
  if (exits) return;
  out[threadIdx.x] = weft::ptx::bar_red_popc(1, 0, true);
}

// A warp split across two call sites (even lanes, odd lanes) arrives once:
// with `threads` 32 the barrier completes and the even lanes get 32 (H200;
// the odd lanes' result was garbage there); with 64, warp 1 having exited,
// it never completes (H200: hangs).
__global__ void named_split_warp_kernel(unsigned* out, unsigned threads) {
  if (threadIdx.x >= 32) return;
  if (threadIdx.x % 2 == 0)
    out[threadIdx.x] = weft::ptx::bar_red_popc(1, threads, true);
  else
    out[threadIdx.x] = 1000 + weft::ptx::bar_red_popc(1, threads, true);
}

// Lanes 0-15 of each warp at barrier 1, lanes 16-31 at barrier 2. H200:
// cudaErrorIllegalInstruction.
__global__ void named_warp_at_two_barriers_kernel() {
  if (threadIdx.x % 32 < 16)
    weft::ptx::bar_sync(1, 64);
  else
    weft::ptx::bar_sync(2, 64);
}

// Three warps at barrier 1 for 64: the third warp's phase never fills.
// H200: hangs.
__global__ void named_third_warp_kernel() { weft::ptx::bar_sync(1, 64); }

std::vector<unsigned> named_run(void (*kernel)(unsigned*), unsigned threads) {
  device_buffer<unsigned> out(threads);
  REQUIRE(weft::launch(1, threads, kernel, out.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  return out.to_host();
}

}  // namespace

TEST_CASE("a warp's arrival at a named barrier counts 32 threads, exited and missing lanes included (H200)") {
  std::vector<unsigned> got = named_run(named_lanes_exited_kernel, 64);
  for (unsigned t = 0; t < 64; ++t)
    if (t < 16 || t >= 32) CHECK(got[t] == 48);
  for (unsigned threads : {64u, 0u}) {
    INFO(threads);
    device_buffer<unsigned> out(48);
    REQUIRE(weft::launch(1, 48, named_partial_warp_kernel, out.p, threads) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    for (unsigned v : out.to_host()) CHECK(v == 48);
  }
  got = named_run(named_half_warp_arrives_kernel, 64);
  for (unsigned t = 0; t < 64; ++t)
    if (t < 16 || t >= 32) CHECK(got[t] == 1);
  got = named_run(named_lanes_skip_kernel, 64);
  for (unsigned t = 0; t < 64; ++t) CHECK(got[t] == (t >= 16 && t < 32 ? 2u : 1u));
  for (unsigned v : named_run(named_two_phases_kernel, 128)) CHECK(v == 64);
}

TEST_CASE("lanes that spin elsewhere do not hold their warp's arrival once nothing else can run") {
  std::vector<unsigned> got = named_run(named_lanes_spin_kernel, 64);
  for (unsigned t = 0; t < 64; ++t) CHECK(got[t] == (t >= 16 && t < 32 ? 2u : 1u));
}

TEST_CASE("a named barrier without a count waits for the warps that have lanes left (H200)") {
  for (bool whole_warp : {true, false}) {
    INFO(whole_warp);
    device_buffer<unsigned> out(64);
    REQUIRE(weft::launch(1, 64, named_countless_after_exits_kernel, out.p, whole_warp) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<unsigned> got = out.to_host();
    for (unsigned t = 0; t < 32; ++t)
      if (whole_warp || t < 16) CHECK(got[t] == (whole_warp ? 32u : 48u));
  }
}

TEST_CASE("a warp whose lanes reach a named barrier from two call sites arrives once (H200)") {
  device_buffer<unsigned> out(64);
  REQUIRE(weft::launch(1, 32, named_split_warp_kernel, out.p, 32u) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<unsigned> got = out.to_host();
  for (unsigned t = 0; t < 32; t += 2) CHECK(got[t] == 32);
  std::string report = named_failure_of(weft::launch(1, 64, named_split_warp_kernel, out.p, 64u));
  INFO(report);
  CHECK(contains(report, "named barrier 1: 32 of its 64 threads arrived"));
}

TEST_CASE("named barriers that an H200 never completes, or faults on, end in weft's reports") {
  std::string report = named_failure_of(weft::launch<named_third_warp_kernel>(1, 96));
  INFO(report);
  CHECK(contains(report, "deadlock"));
  CHECK(contains(report, "named barrier 1: 32 of its 64 threads arrived"));
  CHECK(contains(report, "64 of 96 threads exited"));
  CHECK(weft::launch<named_warp_at_two_barriers_kernel>(1, 64) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalInstruction);
  report = weft::fault_message();
  INFO(report);
  CHECK(contains(report, "while other lanes of its warp wait at barrier"));
  CHECK(cudaGetLastError() == cudaErrorIllegalInstruction);
  CHECK(cudaDeviceReset() == cudaSuccess);
}

namespace {
weft::stackless_kernel named_barrier_in_stackless_kernel() {
  weft::ptx::bar_sync(1, 32);
  co_await weft::syncthreads();
}
}  // namespace

TEST_CASE("a named barrier in a stackless kernel fails the launch, naming the call, unless it runs on fibers") {
  {
    stackless_scope on(stackless_executor::coroutines);
    std::string report = named_failure_of(weft::launch<named_barrier_in_stackless_kernel>(1, 32));
    INFO(report);
    CHECK(contains(report, "bar.sync: called without co_await in a stackless kernel"));
  }
  stackless_scope on(stackless_executor::fibers);
  CHECK(weft::launch<named_barrier_in_stackless_kernel>(1, 32) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

// ---- Stackless kernels: co_await weft::bar_sync and its kin ----

namespace {

// The handover above, awaited.
weft::stackless_kernel named_handover_stackless(int* out) {
  __shared__ int row[32];
  unsigned lane = threadIdx.x % 32;
  for (unsigned round = 0; round < handover_rounds; ++round) {
    if (threadIdx.x < 32) {
      if (round > 0) co_await weft::bar_sync(buffer_empty, 64);
      row[lane] = static_cast<int>(round * 100 + lane);
      co_await weft::bar_arrive(buffer_full, 64);
    } else {
      co_await weft::bar_sync(buffer_full, 64);
      out[(blockIdx.x * handover_rounds + round) * 32 + lane] = row[lane];
      co_await weft::bar_arrive(buffer_empty, 64);
    }
  }
}

// Counting by warp (the H200's cases above): warp 0's lanes 16-31 exit, the
// rest reduce at barrier 1 for 64 (48); then, with warp 0 whole again in the
// next launch's terms, barrier 0 without a count is the block barrier, and
// barrier 2 without a count waits for the warps left.
weft::stackless_kernel named_counting_stackless(unsigned* out) {
  unsigned t = threadIdx.x;
  out += blockIdx.x * 192;                                 // each block its own slots
  out[t] = co_await weft::bar_red_popc(0, 0, t % 2 == 0);  // __syncthreads_count: 32 of 64
  co_await weft::bar_sync(0);
  if (t < 32 && t >= 16) co_return;
  out[64 + t] = co_await weft::bar_red_popc(1, 64, true);
  out[128 + t] = co_await weft::bar_red_or(2, 0, t == 40);
}

weft::stackless_kernel named_never_completes_stackless() {
  if (threadIdx.x < 32) co_await weft::bar_sync(7, 64);
}

weft::stackless_kernel named_two_barriers_stackless() {
  if (threadIdx.x % 32 < 16)
    co_await weft::bar_sync(1, 64);
  else
    co_await weft::bar_sync(2, 64);
}

}  // namespace

TEST_CASE("co_await weft::bar_sync and bar_arrive hand a buffer over in a stackless kernel, on both executors") {
  for (auto executor : {stackless_executor::coroutines, stackless_executor::fibers}) {
    stackless_scope on(executor);
    device_buffer<int> out(3 * handover_rounds * 32);
    REQUIRE(weft::launch<named_handover_stackless>(3, 64, out.p) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    check_handover(out.to_host());
  }
}

TEST_CASE("awaited named barriers count by warp and reduce as on fibers, on both executors") {
  for (auto executor : {stackless_executor::coroutines, stackless_executor::fibers}) {
    stackless_scope on(executor);
    device_buffer<unsigned> out(2 * 192);
    REQUIRE(weft::launch<named_counting_stackless>(2, 64, out.p) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<unsigned> got = out.to_host();
    for (unsigned block = 0; block < 2; ++block)
      for (unsigned t = 0; t < 64; ++t) {
        INFO(block);
        INFO(t);
        const unsigned* mine = got.data() + block * 192;
        CHECK(mine[t] == 32);
        if (t < 32 && t >= 16) continue;
        CHECK(mine[64 + t] == 48);
        CHECK(mine[128 + t] == 1);
      }
  }
}

TEST_CASE("an awaited named barrier that can never complete, or a warp at two, fails as on fibers") {
  for (auto executor : {stackless_executor::coroutines, stackless_executor::fibers}) {
    stackless_scope on(executor);
    std::string report = named_failure_of(weft::launch<named_never_completes_stackless>(1, 64));
    INFO(report);
    CHECK(contains(report, "deadlock"));
    CHECK(contains(report, "named barrier 7: 32 of its 64 threads arrived"));
    CHECK(weft::launch<named_two_barriers_stackless>(1, 64) == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaErrorIllegalInstruction);
    CHECK(contains(weft::fault_message(), "while other lanes of its warp wait at barrier"));
    CHECK(cudaGetLastError() == cudaErrorIllegalInstruction);
    CHECK(cudaDeviceReset() == cudaSuccess);
  }
}
