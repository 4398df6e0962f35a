// Warp collectives awaited in stackless kernels (co_await weft::shfl_sync,
// ..., weft/stackless_kernel.hpp) give what the same kernels give on fibers
// and what CUDA documents: the five-step shuffle reduction, each shuffle
// with a width, votes, matches and reductions, lanes in different branches
// with disjoint masks, partial warps, and warp collectives between block
// barriers.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/stackless_kernel.hpp>

#include "device_buffer.hpp"
#include "stackless_scope.hpp"

#include <vector>

namespace {

weft::stackless_kernel coroutine_warp_shuffle_sum(const int* in, int* out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (unsigned offset = 16; offset > 0; offset /= 2) v += co_await weft::shfl_down_sync(~0u, v, offset);
  if (threadIdx.x % 32 == 0) out[i / 32] = v;
}

// Each thread's results of eight shuffles of its value 3t+1 (t its linear id
// in the block), widths included.
constexpr unsigned coroutine_shuffle_results = 8;

weft::stackless_kernel coroutine_every_shuffle(double* out) {
  unsigned t = threadIdx.x, lane = t % 32;
  int v = static_cast<int>(3 * t + 1);
  double* mine = out + (blockIdx.x * blockDim.x + t) * coroutine_shuffle_results;
  mine[0] = co_await weft::shfl_sync(~0u, v, static_cast<int>((lane * 7) % 32));
  mine[1] = co_await weft::shfl_sync(~0u, v, 3, 8);
  mine[2] = co_await weft::shfl_up_sync(~0u, v, 3, 16);
  mine[3] = co_await weft::shfl_down_sync(~0u, v, 5, 8);
  mine[4] = co_await weft::shfl_xor_sync(~0u, v, 6);
  mine[5] = co_await weft::shfl_xor_sync(~0u, v, 5, 8);
  mine[6] = co_await weft::shfl_down_sync(~0u, v + 0.5, 1);
  mine[7] = co_await weft::shfl_up_sync(~0u, static_cast<float>(v) + 0.25f, 2, 4);
}

// What CUDA documents each of those to give lane `lane` of a warp whose
// first thread is `base` ("Warp Shuffle Functions": segments of `width`
// lanes; up and down past a segment's edge give the caller's own value).
std::vector<double> coroutine_expected_shuffles(unsigned base, unsigned lane) {
  auto value = [&](unsigned l) { return static_cast<double>(3 * (base + l) + 1); };
  auto segment = [](unsigned l, unsigned width) { return l & ~(width - 1); };
  auto up = [&](unsigned delta, unsigned width) { return lane - segment(lane, width) >= delta ? lane - delta : lane; };
  auto down = [&](unsigned delta, unsigned width) {
    return lane + delta < segment(lane, width) + width ? lane + delta : lane;
  };
  return {
      value((lane * 7) % 32), value(segment(lane, 8) + 3), value(up(3, 16)),      value(down(5, 8)), value(lane ^ 6),
      value(lane ^ 5),        value(down(1, 32)) + 0.5,    value(up(2, 4)) + 0.25};
}

// Votes, matches and reductions: each thread's results, in this order.
constexpr unsigned coroutine_vote_results = 13;

weft::stackless_kernel coroutine_votes(long long* out) {
  unsigned t = threadIdx.x, lane = t % 32;
  long long* mine = out + t * coroutine_vote_results;
  mine[0] = co_await weft::ballot_sync(~0u, lane % 3 == 0);
  mine[1] = co_await weft::any_sync(~0u, lane == 17);
  mine[2] = co_await weft::all_sync(~0u, t < 50);
  mine[3] = co_await weft::match_any_sync(~0u, lane % 4);
  int uniform = 0, mixed = 1;
  mine[4] = co_await weft::match_all_sync(~0u, static_cast<double>(t / 32), &uniform);
  mine[5] = uniform;
  mine[6] = co_await weft::match_all_sync(~0u, lane % 2, &mixed);
  mine[7] = mixed;
  co_await weft::syncwarp();
  mine[8] = co_await weft::reduce_add_sync(~0u, static_cast<int>(lane) - 10);
  mine[9] = co_await weft::reduce_min_sync(~0u, static_cast<int>(lane) - 10);
  mine[10] = co_await weft::reduce_max_sync(~0u, lane);
  mine[11] = co_await weft::reduce_or_sync(~0u, 1u << lane);
  mine[12] = (co_await weft::reduce_and_sync(~0u, lane | 0x100u)) + 1000 * (co_await weft::reduce_xor_sync(~0u, lane));
}

// Even and odd lanes shuffle in different branches, each half among
// itself (independent thread scheduling): lane l reads lane l ^ 2.
weft::stackless_kernel coroutine_split_warp(int* out) {
  unsigned lane = threadIdx.x % 32;
  int v = static_cast<int>(threadIdx.x) * 10;
  if (lane % 2 == 0)
    v = co_await weft::shfl_xor_sync(0x55555555u, v, 2);
  else
    v = co_await weft::shfl_xor_sync(0xaaaaaaaau, v, 2);
  out[threadIdx.x] = v;
}

// Halves of a warp that shuffle in groups open at the same time: after the
// whole warp's __syncwarp, lane 31 opens its half's first group before the
// lower half's lanes open theirs; lane 30 then closes it while a lower
// half's group is open, which takes the closed group's place as the warp's
// first, and lane 30 goes on to its half's next shuffle. So the arrival's
// test of the first open group (its mask and collective in one word) must
// follow the group that took that place. Each lane ends with its half's sum.
weft::stackless_kernel coroutine_halves_in_turn(int* out) {
  unsigned lane = threadIdx.x % 32, half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  int v = static_cast<int>(threadIdx.x);
  co_await weft::syncwarp();
  for (int b = 1; b < 16; b *= 2) v += co_await weft::shfl_xor_sync(half, v, b);
  out[threadIdx.x] = v;
}

// A block of 48 threads: its second warp has 16 lanes, which the full mask
// means. Warp sums meet in shared memory across a block barrier.
weft::stackless_kernel coroutine_partial_warp_sum(int* out) {
  __shared__ int warp_sums[2];
  unsigned t = threadIdx.x;
  int sum = co_await weft::reduce_add_sync(~0u, static_cast<int>(t) + 1);
  if (t % 32 == 0) warp_sums[t / 32] = sum;
  co_await weft::syncthreads();
  if (t == 0) out[blockIdx.x] = warp_sums[0] + warp_sums[1];
  if (t % 32 < 16) co_await weft::syncwarp(0xffffu);  // lanes 0-15 of each warp, after the barrier
}

// Two awaits in one expression, each with its own result: 32 threads, 3
// of them passing the second barrier's predicate; the warp's lanes sum to
// 496 and their and is 0.
weft::stackless_kernel coroutine_two_awaits_in_one_expression(int* out) {
  unsigned t = threadIdx.x;
  int barriers = (co_await weft::syncthreads_count(1)) + 1000 * (co_await weft::syncthreads_count(t < 3));
  unsigned warps = (co_await weft::reduce_add_sync(~0u, t)) + 1000 * (co_await weft::reduce_and_sync(~0u, t | 4u));
  out[2 * t] = barriers;
  out[2 * t + 1] = static_cast<int>(warps);
}

// A block of 8 x 3 x 2 threads: a full warp and a partial one of 16 lanes,
// whose lanes resume with their three-dimensional index. Each thread's
// results: its xor-1 partner's value, its warp's sum, and its index as it
// reads it after both awaits.
constexpr unsigned coroutine_3d_results = 3;

weft::stackless_kernel coroutine_warp_in_3d_block(unsigned* out) {
  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned partner = co_await weft::shfl_xor_sync(~0u, t * 10, 1);
  unsigned sum = co_await weft::reduce_add_sync(~0u, t * 10);
  unsigned* mine = out + t * coroutine_3d_results;
  mine[0] = partner;
  mine[1] = sum;
  mine[2] = threadIdx.x + 100 * threadIdx.y + 10000 * threadIdx.z;
}

// Many whole-warp shuffles in a block of 1024 threads, each lane reading
// another lane every step: each thread's sum of what it read, and how often
// it resumed with another thread's index. Whatever resumes a released lane
// (the executor's loop; or, in a design tried and dropped, the lane before
// it by symmetric transfer: docs/performance.md, log, 2026-11-30, h-S3)
// must give it its own identity and result.
constexpr unsigned coroutine_many_steps = 200;

weft::stackless_kernel coroutine_many_shuffle_steps(long long* out) {
  unsigned t = threadIdx.x, lane = t % 32;
  long long sum = 0, wrong_index = 0;
  for (unsigned step = 0; step < coroutine_many_steps; ++step) {
    int source = static_cast<int>((lane * 5 + step) % 32);
    sum += co_await weft::shfl_sync(~0u, static_cast<int>(t * 3 + step), source);
    wrong_index += threadIdx.x != t;
  }
  out[2 * t] = sum;
  out[2 * t + 1] = wrong_index;
}

// One warp passing values round 10000 times: resuming its lanes must not
// grow the native stack with the number of shuffles. A lane handing over to
// the next by symmetric transfer is a native call where the compiler makes
// no tail call (GCC below -O2), about 64 bytes at -O0: a chain of such
// hand-overs running through later groups reached 310000 calls and
// overflowed a worker's 8 MiB stack at -O0 (the same log entry).
constexpr unsigned coroutine_long_run_steps = 10000;

weft::stackless_kernel coroutine_long_shuffle_run(int* out) {
  int v = static_cast<int>(threadIdx.x);
  for (unsigned step = 0; step < coroutine_long_run_steps; ++step)
    v = co_await weft::shfl_sync(~0u, v, static_cast<int>((threadIdx.x + 1) % 32));
  out[threadIdx.x] = v;
}

}  // namespace

TEST_CASE("a stackless warp shuffle reduction equals the fibers' and the host's") {
  constexpr unsigned blocks = 40, threads = 256;
  std::vector<int> in(blocks * threads);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i % 101) - 50;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_in(in), d_out(in.size() / 32);
    REQUIRE(weft::launch<coroutine_warp_shuffle_sum>(blocks, threads, d_in.p, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned w = 0; w < in.size() / 32; ++w) {
    int expected = 0;
    for (unsigned l = 0; l < 32; ++l) expected += in[w * 32 + l];
    CHECK(on_coroutines[w] == expected);
  }
}

TEST_CASE("co_await weft::shfl_sync, _up, _down and _xor with widths give what CUDA documents, as on fibers") {
  constexpr unsigned blocks = 3, threads = 64;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<double> d_out(blocks * threads * coroutine_shuffle_results);
    REQUIRE(weft::launch<coroutine_every_shuffle>(blocks, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < threads; ++t) {
      auto expected = coroutine_expected_shuffles(t - t % 32, t % 32);
      for (unsigned k = 0; k < coroutine_shuffle_results; ++k) {
        INFO("block " << b << " thread " << t << " shuffle " << k);
        CHECK(on_coroutines[(b * threads + t) * coroutine_shuffle_results + k] == expected[k]);
      }
    }
}

TEST_CASE("co_await weft votes, matches and reductions give what CUDA documents, as on fibers") {
  constexpr unsigned threads = 64;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<long long> d_out(threads * coroutine_vote_results);
    REQUIRE(weft::launch<coroutine_votes>(1, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned t = 0; t < threads; ++t) {
    unsigned lane = t % 32;
    const long long* r = on_coroutines.data() + t * coroutine_vote_results;
    INFO("thread " << t);
    CHECK(r[0] == 0x49249249LL);      // lanes 0, 3, ..., 30
    CHECK(r[1] == 1);                 // lane 17 of every warp
    CHECK(r[2] == (t < 32 ? 1 : 0));  // warp 1 has lanes 50-63 false
    CHECK(r[3] == static_cast<long long>(0x11111111u << (lane % 4)));
    CHECK(r[4] == 0xffffffffLL);
    CHECK(r[5] == 1);
    CHECK(r[6] == 0);
    CHECK(r[7] == 0);
    CHECK(r[8] == 31 * 32 / 2 - 320);
    CHECK(r[9] == -10);
    CHECK(r[10] == 31);
    CHECK(r[11] == 0xffffffffLL);
    CHECK(r[12] == 0x100 + 1000 * 0);  // and of lane|0x100 is 0x100; xor of 0..31 is 0
  }
}

TEST_CASE("stackless lanes in different branches shuffle among their own masks, as on fibers") {
  constexpr unsigned threads = 64;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_out(threads);
    REQUIRE(weft::launch<coroutine_split_warp>(1, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned t = 0; t < threads; ++t) CHECK(on_coroutines[t] == static_cast<int>(t ^ 2) * 10);
}

TEST_CASE("stackless halves of a warp whose shuffle groups open and close in turn each meet their own, as on fibers") {
  constexpr unsigned threads = 64;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_out(threads);
    REQUIRE(weft::launch<coroutine_halves_in_turn>(1, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned t = 0; t < threads; ++t) {
    unsigned first = t / 16 * 16;
    CHECK(on_coroutines[t] == static_cast<int>(16 * first + 120));  // first + (first + 1) + ... + (first + 15)
  }
}

TEST_CASE("a stackless partial warp's full mask means the lanes that exist; warp and block syncs mix") {
  constexpr unsigned blocks = 5, threads = 48;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_out(blocks);
    REQUIRE(weft::launch<coroutine_partial_warp_sum>(blocks, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned b = 0; b < blocks; ++b) CHECK(on_coroutines[b] == 48 * 49 / 2);
}

TEST_CASE("two co_awaits in one expression give each its own result, as on fibers") {
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_out(64);
    REQUIRE(weft::launch<coroutine_two_awaits_in_one_expression>(1, 32, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned t = 0; t < 32; ++t) {
    CHECK(on_coroutines[2 * t] == 32 + 1000 * 3);
    CHECK(on_coroutines[2 * t + 1] == 496 + 1000 * 4);
  }
}

TEST_CASE("stackless lanes of a three-dimensional block resume with their own index and results, as on fibers") {
  const dim3 block(8, 3, 2);
  constexpr unsigned threads = 48;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<unsigned> d_out(threads * coroutine_3d_results);
    REQUIRE(weft::launch<coroutine_warp_in_3d_block>(1, block, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned t = 0; t < threads; ++t) {
    const unsigned* r = on_coroutines.data() + t * coroutine_3d_results;
    INFO("thread " << t);
    CHECK(r[0] == (t ^ 1) * 10);
    CHECK(r[1] == (t < 32 ? 31 * 32 / 2 * 10 : (32 + 47) * 16 / 2 * 10));
    CHECK(r[2] == t % 8 + 100 * (t / 8 % 3) + 10000 * (t / 24));
  }
}

TEST_CASE(
    "a 1024-thread stackless block's lanes shuffle 200 times, each with its own index and results, as on fibers") {
  constexpr unsigned threads = 1024;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<long long> d_out(2 * threads);
    REQUIRE(weft::launch<coroutine_many_shuffle_steps>(1, threads, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned t = 0; t < threads; ++t) {
    long long expected = 0;
    for (unsigned step = 0; step < coroutine_many_steps; ++step)
      expected += (t - t % 32 + (t % 32 * 5 + step) % 32) * 3 + step;
    INFO("thread " << t);
    CHECK(on_coroutines[2 * t] == expected);
    CHECK(on_coroutines[2 * t + 1] == 0);
  }
}

TEST_CASE("a stackless warp passes values round 10000 times without its resumes growing the native stack") {
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_out(32);
    REQUIRE(weft::launch<coroutine_long_shuffle_run>(1, 32, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned t = 0; t < 32; ++t) CHECK(on_coroutines[t] == static_cast<int>((t + coroutine_long_run_steps) % 32));
}
