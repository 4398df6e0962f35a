// Cooperative groups awaited in stackless kernels (weft/stackless_groups.hpp:
// co_await weft::sync(block), weft::shfl_down(tile, v, 1), weft::reduce(tile,
// v, op), ...) give what the same kernel gives on fibers and what CUDA
// documents: block and tile syncs, every tile collective for tiles of 32,
// 16 and 4 and for a partial tile, values of several words, reduce and the
// scans; misuse is reported as on fibers, and a group call that waits but
// is not awaited fails the launch naming itself.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>
#include <weft/stackless_groups.hpp>

#include "device_buffer.hpp"
#include "stackless_scope.hpp"
#include "text_checks.hpp"

#include <string>
#include <vector>

namespace {

namespace cg = cooperative_groups;

// Each thread's results of the tile collectives, in this order.
constexpr unsigned group_tile_results = 14;

template <unsigned Size>
weft::stackless_kernel group_tile_collectives(long long* out) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<Size>(block);
  unsigned t = block.thread_rank(), rank = tile.thread_rank();
  long long* mine = out + (blockIdx.x * blockDim.x + t) * group_tile_results;
  int v = static_cast<int>(3 * t + 1);
  co_await weft::sync(block);
  co_await weft::sync(tile);
  mine[0] = co_await weft::shfl(tile, v, static_cast<int>((rank * 3) % Size));
  mine[1] = co_await weft::shfl_up(tile, v, 1);
  mine[2] = co_await weft::shfl_down(tile, static_cast<short>(v), 2);
  mine[3] = co_await weft::shfl_xor(tile, static_cast<double>(v) + 0.5, 1) * 2;
  mine[4] = co_await weft::any(tile, rank == 1);
  mine[5] = co_await weft::all(tile, t < 40);
  mine[6] = co_await weft::ballot(tile, rank % 2 == 0);
  mine[7] = co_await weft::match_any(tile, rank / 2);
  int pred = 7;
  mine[8] = co_await weft::match_all(tile, static_cast<float>(t / Size), pred);
  mine[9] = pred;
  mine[10] = co_await weft::reduce(tile, v, cg::plus<int>());
  mine[11] = static_cast<long long>(co_await weft::reduce(tile, static_cast<double>(v), cg::greater<double>()));
  mine[12] = co_await weft::inclusive_scan(tile, v);
  mine[13] = co_await weft::exclusive_scan(tile, v, cg::bit_or<int>());
}

// The same on fibers, with CUDA's spelling: the reference.
template <unsigned Size>
__global__ void group_tile_collectives_on_fibers(long long* out) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<Size>(block);
  unsigned t = block.thread_rank(), rank = tile.thread_rank();
  long long* mine = out + (blockIdx.x * blockDim.x + t) * group_tile_results;
  int v = static_cast<int>(3 * t + 1);
  block.sync();
  tile.sync();
  mine[0] = tile.shfl(v, static_cast<int>((rank * 3) % Size));
  mine[1] = tile.shfl_up(v, 1);
  mine[2] = tile.shfl_down(static_cast<short>(v), 2);
  mine[3] = tile.shfl_xor(static_cast<double>(v) + 0.5, 1) * 2;
  mine[4] = tile.any(rank == 1);
  mine[5] = tile.all(t < 40);
  mine[6] = tile.ballot(rank % 2 == 0);
  mine[7] = tile.match_any(rank / 2);
  int pred = 7;
  mine[8] = tile.match_all(static_cast<float>(t / Size), pred);
  mine[9] = pred;
  mine[10] = cg::reduce(tile, v, cg::plus<int>());
  mine[11] = static_cast<long long>(cg::reduce(tile, static_cast<double>(v), cg::greater<double>()));
  mine[12] = cg::inclusive_scan(tile, v);
  mine[13] = cg::exclusive_scan(tile, v, cg::bit_or<int>());
}

template <unsigned Size>
std::vector<long long> group_run(bool awaited, unsigned blocks, unsigned threads) {
  device_buffer<long long> d_out(blocks * threads * group_tile_results);
  if (awaited)
    REQUIRE(weft::launch<group_tile_collectives<Size>>(blocks, threads, d_out.p) == cudaSuccess);
  else
    REQUIRE(weft::launch<group_tile_collectives_on_fibers<Size>>(blocks, threads, d_out.p) == cudaSuccess);
  return d_out.to_host();
}

// What CUDA documents thread t of a block gets, for a whole tile.
std::vector<long long> group_expected(unsigned t, unsigned size) {
  unsigned rank = t % size, first = t - rank;
  auto value = [&](unsigned r) { return static_cast<long long>(3 * (first + r) + 1); };
  long long sum = 0, max = 0, inclusive = 0, exclusive = 0;
  for (unsigned r = 0; r < size; ++r) {
    sum += value(r);
    max = std::max(max, value(r));
    if (r <= rank) inclusive += value(r);
    if (r < rank) exclusive |= value(r);
  }
  unsigned all_ranks = size == 32 ? ~0u : (1u << size) - 1;
  bool tile_below_40 = first + size <= 40;
  unsigned even = 0, pair = 3u << (rank & ~1u);
  for (unsigned r = 0; r < size; r += 2) even |= 1u << r;
  return {value((rank * 3) % size),
          value(rank >= 1 ? rank - 1 : rank),
          static_cast<short>(value(rank + 2 < size ? rank + 2 : rank)),
          2 * value(rank ^ 1) + 1,
          size > 1,
          tile_below_40,
          even,
          pair & all_ranks,
          all_ranks,
          1,
          sum,
          max,
          inclusive,
          exclusive};
}

}  // namespace

TEST_CASE("stackless cooperative groups: tiles of 32, 16 and 4 give what CUDA documents and what fibers give") {
  constexpr unsigned blocks = 3, threads = 64;
  auto check = [&](auto size_constant) {
    constexpr unsigned size = decltype(size_constant)::value;
    INFO("tiles of " << size);
    auto [on_coroutines, awaited_on_fibers] = on_both_executors([&] { return group_run<size>(true, blocks, threads); });
    auto plain = [&] {
      stackless_scope scope(stackless_executor::fibers);
      return group_run<size>(false, blocks, threads);
    }();
    CHECK(on_coroutines == awaited_on_fibers);
    CHECK(on_coroutines == plain);
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned t = 0; t < threads; ++t) {
        auto expected = group_expected(t, size);
        for (unsigned k = 0; k < group_tile_results; ++k) {
          INFO("block " << b << " thread " << t << " result " << k);
          CHECK(on_coroutines[(b * threads + t) * group_tile_results + k] == expected[k]);
        }
      }
  };
  check(std::integral_constant<unsigned, 32>{});
  check(std::integral_constant<unsigned, 16>{});
  check(std::integral_constant<unsigned, 4>{});
}

TEST_CASE("a stackless partial tile (past the block's end) gives what fibers give") {
  auto [on_coroutines, awaited_on_fibers] = on_both_executors([&] { return group_run<32>(true, 2, 48); });
  auto plain = [&] {
    stackless_scope scope(stackless_executor::fibers);
    return group_run<32>(false, 2, 48);
  }();
  CHECK(on_coroutines == awaited_on_fibers);
  CHECK(on_coroutines == plain);
}

namespace {

struct group_wide_value {
  double a;
  long long b;
  int c;
};

weft::stackless_kernel group_wide_shuffle(group_wide_value* out) {
  auto tile = cg::tiled_partition<8>(cg::this_thread_block());
  group_wide_value mine{threadIdx.x + 0.5, 1000LL * threadIdx.x, -static_cast<int>(threadIdx.x)};
  out[threadIdx.x] = co_await weft::shfl_down(tile, mine, 3);
}

// A run-time tile and its sync, beside the block's, through cg's generic group.
weft::stackless_kernel group_runtime_tile(int* out) {
  __shared__ int seen[64];
  auto block = cg::this_thread_block();
  cg::thread_group tile = cg::tiled_partition(block, 16);
  seen[threadIdx.x] = static_cast<int>(threadIdx.x);
  co_await weft::sync(tile);
  out[threadIdx.x] = seen[threadIdx.x ^ 15];
  co_await weft::sync(cg::thread_group(block));
  out[threadIdx.x] += 100 * seen[63 - threadIdx.x];
}

}  // namespace

TEST_CASE("a stackless tile shuffles a value of several words, as on fibers") {
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<group_wide_value> d_out(32);
    REQUIRE(weft::launch<group_wide_shuffle>(1, 32, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  for (unsigned t = 0; t < 32; ++t) {
    unsigned source = t % 8 + 3 < 8 ? t + 3 : t;
    INFO("thread " << t);
    CHECK(on_coroutines[t].a == source + 0.5);
    CHECK(on_coroutines[t].b == 1000LL * source);
    CHECK(on_coroutines[t].c == -static_cast<int>(source));
    CHECK(on_fibers[t].a == on_coroutines[t].a);
    CHECK(on_fibers[t].b == on_coroutines[t].b);
    CHECK(on_fibers[t].c == on_coroutines[t].c);
  }
}

TEST_CASE("co_await weft::sync on a run-time tile and on the block as a thread_group, as on fibers") {
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_out(64);
    REQUIRE(weft::launch<group_runtime_tile>(1, 64, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned t = 0; t < 64; ++t)
    CHECK(on_coroutines[t] == static_cast<int>(t ^ 15) + 100 * static_cast<int>(63 - t));
}

namespace {

struct group_failure {
  cudaError_t code;
  std::string report;
  bool operator==(const group_failure&) const = default;
};

template <class Kernel>
group_failure group_failure_of(Kernel kernel, unsigned threads) {
  REQUIRE(weft::launch(1, threads, kernel) == cudaSuccess);
  group_failure failure{cudaDeviceSynchronize(), weft::fault_message()};
  CHECK(cudaDeviceReset() == cudaSuccess);
  return failure;
}

}  // namespace

TEST_CASE("stackless tile lanes that leave a tile collective waiting fail as on fibers, naming the line") {
  auto kernel = []() -> weft::stackless_kernel {
    auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    if (tile.thread_rank() >= 4) co_return;
    co_await weft::reduce(tile, 1, cg::plus<int>());
  };
  constexpr int line = __LINE__ - 2;
  auto [on_coroutines, on_fibers] = on_both_executors([&] { return group_failure_of(kernel, 32); });
  INFO("coroutines: " << on_coroutines.report);
  INFO("fibers:     " << on_fibers.report);
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines.code == cudaErrorLaunchFailure);
  CHECK(contains(on_coroutines.report, "__reduce_add_sync (" + std::string(__FILE__) + ":" + std::to_string(line)));
  CHECK(contains(on_coroutines.report, "which have exited"));
}

TEST_CASE("a stackless block sync divergent from a tile sync is a deadlock, as on fibers") {
  auto kernel = []() -> weft::stackless_kernel {
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<32>(block);
    if (block.thread_rank() == 0)
      co_await weft::sync(tile);
    else
      co_await weft::sync(block);
  };
  auto [on_coroutines, on_fibers] = on_both_executors([&] { return group_failure_of(kernel, 64); });
  INFO("coroutines: " << on_coroutines.report);
  CHECK(on_coroutines == on_fibers);
  CHECK(contains(on_coroutines.report, "deadlock: no thread of the block can make progress"));
}

TEST_CASE("a group call that waits, not awaited, fails a stackless kernel and names itself") {
  stackless_scope scope(stackless_executor::coroutines);
  auto plain_sync = []() -> weft::stackless_kernel {
    cg::this_thread_block().sync();
    co_return;
  };
  auto plain_shuffle = [](int* out) -> weft::stackless_kernel {
    *out = cg::tiled_partition<32>(cg::this_thread_block()).shfl_down(1, 1);
    co_return;
  };
  auto plain_reduce = [](int* out) -> weft::stackless_kernel {
    *out = cg::reduce(cg::tiled_partition<8>(cg::this_thread_block()), 1, cg::plus<int>());
    co_return;
  };
  int out = 0;
  auto sync = group_failure_of(plain_sync, 32);
  auto shuffle = group_failure_of([&out, plain_shuffle] { return plain_shuffle(&out); }, 32);
  auto reduce = group_failure_of([&out, plain_reduce] { return plain_reduce(&out); }, 32);
  CHECK(sync.code == cudaErrorLaunchFailure);
  CHECK(contains(sync.report, "thread (0,0,0): __syncthreads: called without co_await in a stackless kernel"));
  CHECK(contains(shuffle.report, "thread (0,0,0): warp collectives: called without co_await in a stackless kernel"));
  CHECK(contains(reduce.report, "thread (0,0,0): warp collectives: called without co_await in a stackless kernel"));
}
