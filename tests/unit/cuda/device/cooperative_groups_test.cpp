// Cooperative groups (namespace cooperative_groups): the thread block, tiles
// of every size, coalesced groups in divergent branches, partitions,
// reduce and the scans, memcpy_async; misuse is a reported failure.
//
// Each kernel writes what the groups told each thread; the host computes
// what CUDA's definitions say and compares.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/cuda/device/async/memcpy_async.hpp>
#include <weft/cuda/device/cooperative_groups.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "schedule_scope.hpp"
#include "text_checks.hpp"

namespace cg = cooperative_groups;

namespace {

constexpr int value_of(unsigned t) { return static_cast<int>((t * 37 + 11) % 101) - 50; }

std::string site(int line) { return std::string(__FILE__) + ":" + std::to_string(line); }

// Launches, expects the sticky failure, returns the report, resets the device.
template <class Kernel, class... Arguments>
std::string failure_of(Kernel kernel, unsigned threads, Arguments... arguments) {
  CHECK(weft::launch(1, threads, kernel, arguments...) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  CHECK(cudaDeviceReset() == cudaSuccess);
  return report;
}

template <class Kernel, class... Arguments>
void run(dim3 grid, dim3 block, Kernel kernel, Arguments... arguments) {
  REQUIRE(weft::launch(grid, block, kernel, arguments...) == cudaSuccess);
  cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    MESSAGE(weft::fault_message());
    cudaDeviceReset();  // so that the next tests start afresh
  }
  REQUIRE(status == cudaSuccess);
}

}  // namespace

// ---- thread_block ----------------------------------------------------------

__global__ void block_3d_kernel(unsigned* out) {
  cg::thread_block b = cg::this_thread_block();
  unsigned r = b.thread_rank();
  unsigned block_linear = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned* o = out + (block_linear * b.size() + r) * 16;
  dim3 gi = b.group_index(), ti = b.thread_index(), dt = b.dim_threads(), gd = b.group_dim();
  o[0] = r;
  o[1] = b.size();
  o[2] = b.num_threads();
  o[3] = gi.x, o[4] = gi.y, o[5] = gi.z;
  o[6] = ti.x, o[7] = ti.y, o[8] = ti.z;
  o[9] = dt.x, o[10] = dt.y, o[11] = dt.z;
  o[12] = gd.x, o[13] = gd.y, o[14] = gd.z;
  __shared__ unsigned s[64];
  s[r] = r * 3 + blockIdx.x;
  b.sync();
  o[15] = s[(r + 1) % b.size()];
}

TEST_CASE("cooperative_groups: thread_block: ranks, indices and sizes of a 3-D block, and sync") {
  dim3 grid(2, 1, 2), block(4, 3, 2);
  device_buffer<unsigned> out(4 * 24 * 16);
  run(grid, block, block_3d_kernel, out.p);
  auto h = out.to_host();
  for (unsigned bz = 0; bz < 2; ++bz)
    for (unsigned bx = 0; bx < 2; ++bx)
      for (unsigned z = 0; z < 2; ++z)
        for (unsigned y = 0; y < 3; ++y)
          for (unsigned x = 0; x < 4; ++x) {
            unsigned r = x + 4 * (y + 3 * z), b = bx + 2 * bz;
            const unsigned* o = &h[(b * 24 + r) * 16];
            INFO("block " << b << " thread " << r);
            CHECK(o[0] == r);
            CHECK(o[1] == 24);
            CHECK(o[2] == 24);
            CHECK((o[3] == bx && o[4] == 0 && o[5] == bz));
            CHECK((o[6] == x && o[7] == y && o[8] == z));
            CHECK((o[9] == 4 && o[10] == 3 && o[11] == 2));
            CHECK((o[12] == 4 && o[13] == 3 && o[14] == 2));
            CHECK(o[15] == (r + 1) % 24 * 3 + bx);
          }
}

// ---- thread_block_tile -----------------------------------------------------

template <unsigned N>
__global__ void tile_members_kernel(unsigned* out) {
  auto tile = cg::tiled_partition<N>(cg::this_thread_block());
  unsigned t = threadIdx.x, v = t * 7 + 3;
  unsigned* o = out + t * 16;
  o[0] = tile.thread_rank();
  o[1] = tile.num_threads();
  o[2] = cg::thread_block_tile<N>::size();
  o[3] = tile.meta_group_rank();
  o[4] = tile.meta_group_size();
  o[5] = tile.shfl(v, 1);
  o[6] = tile.shfl_up(v, 1);
  o[7] = tile.shfl_down(v, 1);
  o[8] = tile.shfl_xor(v, N / 2);
  o[9] = tile.any(t % 5 == 0);
  o[10] = tile.all(t % 2 == 0);
  o[11] = tile.ballot(t % 3 == 0);
  o[12] = tile.match_any(t / 3);
  int pred = -1;
  o[13] = tile.match_all(t / N, pred);
  o[14] = static_cast<unsigned>(pred);
  o[15] = tile.match_all(t, pred) + (static_cast<unsigned>(pred) << 8);
}

template <unsigned N>
void check_tile_members() {
  INFO("tile size " << N);
  const unsigned threads = 96;
  device_buffer<unsigned> out(threads * 16);
  run(1, threads, tile_members_kernel<N>, out.p);
  auto h = out.to_host();
  auto v = [](unsigned t) { return t * 7 + 3; };
  unsigned full = N == 32 ? ~0u : (1u << N) - 1;
  for (unsigned t = 0; t < threads; ++t) {
    INFO("thread " << t);
    const unsigned* o = &h[t * 16];
    unsigned r = t % N, base = t - r;
    unsigned ballot = 0, same = 0;
    bool any = false, all = true;
    for (unsigned k = 0; k < N; ++k) {
      any |= (base + k) % 5 == 0;
      all &= (base + k) % 2 == 0;
      if ((base + k) % 3 == 0) ballot |= 1u << k;
      if ((base + k) / 3 == t / 3) same |= 1u << k;
    }
    CHECK(o[0] == r);
    CHECK(o[1] == N);
    CHECK(o[2] == N);
    CHECK(o[3] == t / N);
    CHECK(o[4] == (threads + N - 1) / N);
    CHECK(o[5] == v(base + 1 % N));
    CHECK(o[6] == (r >= 1 ? v(t - 1) : v(t)));
    CHECK(o[7] == (r + 1 < N ? v(t + 1) : v(t)));
    CHECK(o[8] == v(base + (r ^ N / 2)));
    CHECK(o[9] == unsigned{any});
    CHECK(o[10] == unsigned{all});
    CHECK(o[11] == ballot);
    CHECK(o[12] == same);
    CHECK(o[13] == full);
    CHECK(o[14] == 1);
    CHECK(o[15] == (N == 1 ? 1u + (1u << 8) : 0u));
  }
}

TEST_CASE("cooperative_groups: thread_block_tile of every size: ranks, meta groups, shuffles, votes, matches") {
  check_tile_members<1>();
  check_tile_members<2>();
  check_tile_members<4>();
  check_tile_members<8>();
  check_tile_members<16>();
  check_tile_members<32>();
}

__global__ void tile_of_tile_kernel(unsigned* out) {
  auto block = cg::this_thread_block();
  auto t16 = cg::tiled_partition<16>(block);
  auto t4 = cg::tiled_partition<4>(t16);
  cg::thread_block_tile<4> plain = t4;  // the parent's type forgotten
  unsigned t = block.thread_rank();
  out[t * 6 + 0] = t4.thread_rank();
  out[t * 6 + 1] = t4.meta_group_rank();
  out[t * 6 + 2] = t4.meta_group_size();
  out[t * 6 + 3] = plain.meta_group_rank();
  // Lanes of a 16-tile wait in its sync while the next 4-tiles, not yet
  // started, meet among themselves first: groups that overlap, as on a GPU.
  int quarter = cg::reduce(t4, static_cast<int>(t), cg::plus<int>());
  t16.sync();
  out[t * 6 + 4] = static_cast<unsigned>(cg::reduce(t16, quarter, cg::plus<int>()));
  out[t * 6 + 5] = t4.shfl(t, 3);
}

TEST_CASE("cooperative_groups: tiled_partition of a tile: ranks and meta groups within the parent tile") {
  device_buffer<unsigned> out(64 * 6);
  run(1, 64, tile_of_tile_kernel, out.p);
  auto h = out.to_host();
  for (unsigned t = 0; t < 64; ++t) {
    INFO("thread " << t);
    unsigned sixteen = t / 16 * 16, sum = 0;
    for (unsigned k = 0; k < 16; ++k) sum += sixteen + k;
    CHECK(h[t * 6 + 0] == t % 4);
    CHECK(h[t * 6 + 1] == t % 16 / 4);
    CHECK(h[t * 6 + 2] == 4);
    CHECK(h[t * 6 + 3] == t % 16 / 4);
    CHECK(h[t * 6 + 4] == 4 * sum);
    CHECK(h[t * 6 + 5] == t / 4 * 4 + 3);
  }
}

struct triple {
  int a;
  double b;
  char c;
};

__global__ void tile_typed_shuffle_kernel(int* a, double* b, char* c, double* sums) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  unsigned t = threadIdx.x;
  triple mine{static_cast<int>(t) - 20, t * 0.5 - 3.25, static_cast<char>('a' + t % 26)};
  triple got = tile.shfl(mine, 15 - static_cast<int>(tile.thread_rank()));
  a[t] = got.a;
  b[t] = got.b;
  c[t] = got.c;
  sums[t] = cg::reduce(tile, t * 0.25, cg::plus<double>());
}

TEST_CASE("cooperative_groups: a tile shuffles any trivially copyable value") {
  device_buffer<int> a(32);
  device_buffer<double> b(32), sums(32);
  device_buffer<char> c(32);
  run(1, 32, tile_typed_shuffle_kernel, a.p, b.p, c.p, sums.p);
  auto ha = a.to_host();
  auto hb = b.to_host();
  auto hc = c.to_host();
  auto hs = sums.to_host();
  for (unsigned t = 0; t < 32; ++t) {
    unsigned from = t / 16 * 16 + 15 - t % 16;
    double sum = 0;
    for (unsigned k = 0; k < 16; ++k) sum += (t / 16 * 16 + k) * 0.25;
    CHECK(ha[t] == static_cast<int>(from) - 20);
    CHECK(hb[t] == from * 0.5 - 3.25);
    CHECK(hc[t] == static_cast<char>('a' + from % 26));
    CHECK(hs[t] == sum);
  }
}

// ---- reduce and scans over tiles ------------------------------------------

template <unsigned N>
__global__ void tile_reduce_kernel(int* out) {
  auto tile = cg::tiled_partition<N>(cg::this_thread_block());
  unsigned t = threadIdx.x, n = blockDim.x;
  int v = value_of(t);
  out[0 * n + t] = cg::reduce(tile, v, cg::plus<int>());
  out[1 * n + t] = cg::reduce(tile, v, cg::less<int>());
  out[2 * n + t] = cg::reduce(tile, v, cg::greater<int>());
  out[3 * n + t] = cg::reduce(tile, v, cg::bit_and<int>());
  out[4 * n + t] = cg::reduce(tile, v, cg::bit_or<int>());
  out[5 * n + t] = cg::reduce(tile, v, cg::bit_xor<int>());
  out[6 * n + t] = cg::reduce(tile, v, [](int a, int b) { return std::max(std::abs(a), std::abs(b)); });
}

template <unsigned N>
void check_tile_reduce() {
  INFO("tile size " << N);
  const unsigned threads = 64;
  device_buffer<int> out(7 * threads);
  run(1, threads, tile_reduce_kernel<N>, out.p);
  auto h = out.to_host();
  for (unsigned t = 0; t < threads; ++t) {
    INFO("thread " << t);
    unsigned base = t / N * N;
    int sum = 0, lo = value_of(base), hi = lo, all = -1, any = 0, odd = 0, magnitude = value_of(base);
    for (unsigned k = base; k < base + N; ++k) {
      int v = value_of(k);
      sum += v, lo = std::min(lo, v), hi = std::max(hi, v), all &= v, any |= v, odd ^= v;
      if (k > base) magnitude = std::max(std::abs(magnitude), std::abs(v));
    }
    CHECK(h[0 * threads + t] == sum);
    CHECK(h[1 * threads + t] == lo);
    CHECK(h[2 * threads + t] == hi);
    CHECK(h[3 * threads + t] == all);
    CHECK(h[4 * threads + t] == any);
    CHECK(h[5 * threads + t] == odd);
    CHECK(h[6 * threads + t] == magnitude);
  }
}

TEST_CASE("cooperative_groups: cg::reduce over tiles of every size with each operator and a lambda") {
  check_tile_reduce<1>();
  check_tile_reduce<2>();
  check_tile_reduce<4>();
  check_tile_reduce<8>();
  check_tile_reduce<16>();
  check_tile_reduce<32>();
}

template <unsigned N>
__global__ void tile_scan_kernel(int* out) {
  auto tile = cg::tiled_partition<N>(cg::this_thread_block());
  unsigned t = threadIdx.x, n = blockDim.x;
  int v = value_of(t);
  out[0 * n + t] = cg::inclusive_scan(tile, v);
  out[1 * n + t] = cg::exclusive_scan(tile, v);
  out[2 * n + t] = cg::inclusive_scan(tile, v, cg::greater<int>());
  out[3 * n + t] = cg::exclusive_scan(tile, v, cg::less<int>());
  // Associative but not commutative: lower ranks are the left operand.
  out[4 * n + t] = cg::inclusive_scan(tile, v, [](int first, int) { return first; });
}

template <unsigned N>
void check_tile_scan() {
  INFO("tile size " << N);
  const unsigned threads = 64;
  device_buffer<int> out(5 * threads);
  run(1, threads, tile_scan_kernel<N>, out.p);
  auto h = out.to_host();
  for (unsigned t = 0; t < threads; ++t) {
    INFO("thread " << t);
    unsigned base = t / N * N;
    int inclusive = 0, exclusive = 0, hi = value_of(base), lo = 0;
    for (unsigned k = base; k <= t; ++k) {
      inclusive += value_of(k);
      hi = std::max(hi, value_of(k));
      if (k < t) exclusive += value_of(k), lo = k == base ? value_of(k) : std::min(lo, value_of(k));
    }
    CHECK(h[0 * threads + t] == inclusive);
    CHECK(h[1 * threads + t] == exclusive);
    CHECK(h[2 * threads + t] == hi);
    CHECK(h[3 * threads + t] == lo);
    CHECK(h[4 * threads + t] == value_of(base));
  }
}

TEST_CASE("cooperative_groups: cg::inclusive_scan and cg::exclusive_scan over tiles of every size") {
  check_tile_scan<1>();
  check_tile_scan<2>();
  check_tile_scan<4>();
  check_tile_scan<8>();
  check_tile_scan<16>();
  check_tile_scan<32>();
}

// ---- coalesced groups ------------------------------------------------------

constexpr unsigned coalesced_slots = 20;

__device__ void describe_coalesced(const cg::coalesced_group& g, int v, int* o) {
  unsigned lane = threadIdx.x % 32;
  o[0] = static_cast<int>(g.size());
  o[1] = static_cast<int>(g.thread_rank());
  o[2] = static_cast<int>(g.meta_group_rank() * 10 + g.meta_group_size());
  o[3] = g.shfl(v, 0);
  o[4] = g.shfl(v, static_cast<int>(g.size()) - 1);
  o[5] = g.shfl_down(v, 1);
  o[6] = g.shfl_up(v, 2);
  o[7] = static_cast<int>(g.ballot(g.thread_rank() % 2));
  o[8] = g.any(lane == 31);
  o[9] = g.all(lane != 31);
  o[10] = cg::reduce(g, v, cg::plus<int>());
  o[11] = cg::reduce(g, v, cg::greater<int>());
  o[12] = cg::inclusive_scan(g, v);
  o[13] = cg::exclusive_scan(g, v);
  o[14] = static_cast<int>(g.match_any(lane / 8));
  o[15] = static_cast<int>(g.num_threads());
  cg::coalesced_group quarter = cg::tiled_partition(g, 4);
  o[16] = static_cast<int>(quarter.size());
  o[17] = static_cast<int>(quarter.thread_rank());
  o[18] = static_cast<int>(quarter.meta_group_rank() * 10 + quarter.meta_group_size());
  o[19] = cg::reduce(quarter, v, cg::plus<int>());
}

__global__ void coalesced_kernel(int* out) {
  unsigned t = threadIdx.x, lane = t % 32;
  int v = static_cast<int>(t * 5 + 1);
  int* o = out + t * coalesced_slots;
  if (lane % 3 == 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    describe_coalesced(g, v, o);
  } else {
    describe_coalesced(cg::coalesced_threads(), v, o);
  }
}

void check_coalesced(unsigned threads) {
  INFO(threads << " threads");
  device_buffer<int> out(threads * coalesced_slots);
  run(1, threads, coalesced_kernel, out.p);
  auto h = out.to_host();
  for (unsigned t = 0; t < threads; ++t) {
    INFO("thread " << t);
    unsigned lane = t % 32, first = t - lane;
    bool branch = lane % 3 == 1;
    std::vector<unsigned> members;  // block ranks of the group, in rank order
    for (unsigned u = first; u < std::min(first + 32, threads); ++u)
      if ((u % 32 % 3 == 1) == branch) members.push_back(u);
    unsigned size = static_cast<unsigned>(members.size());
    unsigned rank = static_cast<unsigned>(std::find(members.begin(), members.end(), t) - members.begin());
    auto v = [](unsigned u) { return static_cast<int>(u * 5 + 1); };
    int sum = 0, hi = v(members[0]), inclusive = 0, exclusive = 0, ballot = 0, same = 0;
    bool any = false, all = true;
    for (unsigned k = 0; k < size; ++k) {
      unsigned u = members[k];
      sum += v(u), hi = std::max(hi, v(u));
      if (k <= rank) inclusive += v(u);
      if (k < rank) exclusive += v(u);
      if (k % 2) ballot |= 1 << k;
      if (u % 32 / 8 == lane / 8) same |= 1 << k;
      any |= u % 32 == 31;
      all &= u % 32 != 31;
    }
    unsigned q_first = rank / 4 * 4, q_size = std::min(size - q_first, 4u);
    int q_sum = 0;
    for (unsigned k = q_first; k < q_first + q_size; ++k) q_sum += v(members[k]);
    const int* o = &h[t * coalesced_slots];
    CHECK(o[0] == static_cast<int>(size));
    CHECK(o[1] == static_cast<int>(rank));
    CHECK(o[2] == 1);
    CHECK(o[3] == v(members[0]));
    CHECK(o[4] == v(members[size - 1]));
    CHECK(o[5] == (rank + 1 < size ? v(members[rank + 1]) : v(t)));
    CHECK(o[6] == (rank >= 2 ? v(members[rank - 2]) : v(t)));
    CHECK(o[7] == ballot);
    CHECK(o[8] == int{any});
    CHECK(o[9] == int{all});
    CHECK(o[10] == sum);
    CHECK(o[11] == hi);
    CHECK(o[12] == inclusive);
    CHECK(o[13] == exclusive);
    CHECK(o[14] == same);
    CHECK(o[15] == static_cast<int>(size));
    CHECK(o[16] == static_cast<int>(q_size));
    CHECK(o[17] == static_cast<int>(rank % 4));
    CHECK(o[18] == static_cast<int>(rank / 4 * 10 + (size + 3) / 4));
    CHECK(o[19] == q_sum);
  }
}

TEST_CASE(
    "cooperative_groups: coalesced_threads in divergent branches: compacted ranks, sizes, shuffles by rank, reduce and "
    "scans") {
  check_coalesced(64);
  check_coalesced(40);  // a partial last warp
}

// A lane of the group returns before the group's sync.
__device__ void coalesced_sync_site(const cg::coalesced_group& g) { g.sync(); }
constexpr int coalesced_sync_line = __LINE__ - 1;
__global__ void coalesced_lane_leaves_kernel() {
  if (threadIdx.x % 2) {
    cg::coalesced_group g = cg::coalesced_threads();
    if (g.thread_rank() == 0) return;
    coalesced_sync_site(g);
  }
}

TEST_CASE("cooperative_groups: a coalesced group whose lane leaves is reported") {
  std::string r = failure_of(coalesced_lane_leaves_kernel, 32);
  INFO(r);
  CHECK(contains(r, "coalesced_lane_leaves_kernel"));
  CHECK(contains(r, "__syncwarp (" + site(coalesced_sync_line)));
  CHECK(contains(r, "mask 0xaaaaaaaa"));
  CHECK(contains(r, "lane 1, which has exited"));
}

// ---- partitions ------------------------------------------------------------

__global__ void partition_kernel(int* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned t = threadIdx.x, lane = t % 32;
  int* o = out + t * 12;
  int label = static_cast<int>(lane * 7 % 5);
  cg::coalesced_group lp = cg::labeled_partition(tile, label);
  o[0] = static_cast<int>(lp.size());
  o[1] = static_cast<int>(lp.thread_rank());
  o[2] = static_cast<int>(lp.meta_group_rank());
  o[3] = static_cast<int>(lp.meta_group_size());
  o[4] = cg::reduce(lp, static_cast<int>(lane), cg::plus<int>());
  cg::coalesced_group bp = cg::binary_partition(tile, lane % 4 == 0);
  o[5] = static_cast<int>(bp.size());
  o[6] = static_cast<int>(bp.thread_rank());
  o[7] = static_cast<int>(bp.meta_group_rank() * 10 + bp.meta_group_size());
  cg::coalesced_group whole = cg::binary_partition(tile, true);
  o[8] = static_cast<int>(whole.size() * 100 + whole.meta_group_rank() * 10 + whole.meta_group_size());
  // Partitions of a coalesced group: by parity, with a label of another type.
  cg::coalesced_group sub = cg::labeled_partition(lp, static_cast<unsigned char>(lane % 2));
  o[9] = static_cast<int>(sub.size());
  o[10] = static_cast<int>(sub.thread_rank());
  o[11] = static_cast<int>(sub.meta_group_rank() * 10 + sub.meta_group_size());
}

TEST_CASE("cooperative_groups: labeled_partition and binary_partition: sizes, ranks, meta groups") {
  device_buffer<int> out(64 * 12);
  run(1, 64, partition_kernel, out.p);
  auto h = out.to_host();
  auto label = [](unsigned lane) { return lane * 7 % 5; };
  for (unsigned t = 0; t < 64; ++t) {
    INFO("thread " << t);
    unsigned lane = t % 32;
    const int* o = &h[t * 12];
    // Labels in order of their first lane: 0 (lane 0), 2 (lane 1), 4, 1, 3.
    std::vector<unsigned> order;
    for (unsigned l = 0; l < 32; ++l)
      if (std::find(order.begin(), order.end(), label(l)) == order.end()) order.push_back(label(l));
    std::vector<unsigned> same;
    for (unsigned l = 0; l < 32; ++l)
      if (label(l) == label(lane)) same.push_back(l);
    int rank = static_cast<int>(std::find(same.begin(), same.end(), lane) - same.begin()), sum = 0;
    for (unsigned l : same) sum += static_cast<int>(l);
    CHECK(o[0] == static_cast<int>(same.size()));
    CHECK(o[1] == rank);
    CHECK(o[2] == static_cast<int>(std::find(order.begin(), order.end(), label(lane)) - order.begin()));
    CHECK(o[3] == 5);
    CHECK(o[4] == sum);
    bool quad = lane % 4 == 0;
    CHECK(o[5] == (quad ? 8 : 24));
    CHECK(o[6] == static_cast<int>(quad ? lane / 4 : lane - lane / 4 - 1));
    CHECK(o[7] == (quad ? 12 : 2));
    CHECK(o[8] == 3201);
    std::vector<unsigned> parity, parities;
    for (unsigned l : same) {
      if (l % 2 == lane % 2) parity.push_back(l);
      if (std::find(parities.begin(), parities.end(), l % 2) == parities.end()) parities.push_back(l % 2);
    }
    CHECK(o[9] == static_cast<int>(parity.size()));
    CHECK(o[10] == static_cast<int>(std::find(parity.begin(), parity.end(), lane) - parity.begin()));
    CHECK(o[11] == static_cast<int>((std::find(parities.begin(), parities.end(), lane % 2) - parities.begin()) * 10 +
                                    parities.size()));
  }
}

// ---- tiled_partition at run time, thread_group, free functions ------------

__global__ void dynamic_tile_kernel(unsigned tile_size, unsigned* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group g = cg::tiled_partition(block, tile_size);
  unsigned t = block.thread_rank();
  unsigned* o = out + t * 8;
  o[0] = static_cast<unsigned>(g.thread_rank());
  o[1] = static_cast<unsigned>(g.size());
  o[2] = static_cast<unsigned>(cg::group_size(g));
  g.sync();
  cg::thread_group h = cg::tiled_partition(g, std::max(tile_size / 2, 1u));
  o[3] = static_cast<unsigned>(cg::thread_rank(h));
  o[4] = static_cast<unsigned>(h.num_threads());
  cg::sync(h);
  cg::thread_group whole = block;
  o[5] = static_cast<unsigned>(whole.thread_rank() + 1000 * whole.size());
  cg::sync(whole);
  cg::thread_group tile8 = cg::tiled_partition<8>(block);
  o[6] = static_cast<unsigned>(tile8.thread_rank() + 100 * tile8.size());
  tile8.sync();
  cg::sync(block);
  o[7] = static_cast<unsigned>(cg::num_threads(block));
}

TEST_CASE(
    "cooperative_groups: tiled_partition(g, n) at run time: ranks and sizes, a short last tile, and thread_group") {
  const unsigned threads = 40;
  for (unsigned size = 1; size <= 32; size *= 2) {
    INFO("tile size " << size);
    device_buffer<unsigned> out(threads * 8);
    run(1, threads, dynamic_tile_kernel, size, out.p);
    auto h = out.to_host();
    unsigned half = std::max(size / 2, 1u);
    for (unsigned t = 0; t < threads; ++t) {
      INFO("thread " << t);
      const unsigned* o = &h[t * 8];
      unsigned base = t / size * size, g_size = std::min(threads - base, size), g_rank = t - base;
      unsigned h_rank = g_size <= half ? g_rank : g_rank % half;
      unsigned h_size = g_size <= half ? g_size : std::min(g_size - g_rank / half * half, half);
      CHECK(o[0] == g_rank);
      CHECK(o[1] == g_size);
      CHECK(o[2] == g_size);
      CHECK(o[3] == h_rank);
      CHECK(o[4] == h_size);
      CHECK(o[5] == t + 1000 * threads);
      CHECK(o[6] == t % 8 + 800);
      CHECK(o[7] == threads);
    }
  }
}

// ---- memcpy_async ----------------------------------------------------------

constexpr int copy_count = 1000;

__global__ void memcpy_async_kernel(const int* in, int* out) {
  __shared__ int stage[copy_count];
  __shared__ int second[256];
  __shared__ int per_tile[128];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = block.thread_rank(), n = block.size();
  cg::memcpy_async(block, stage, in, sizeof(int) * copy_count);
  cg::memcpy_async(block, second, 256, in + 7, copy_count);  // min(256, 1000) elements
  cg::wait_prior<1>(block);
  // Each thread reads what other threads' shares of the copy brought.
  for (unsigned i = t; i < copy_count; i += n) out[i] = stage[copy_count - 1 - i];
  cg::wait(block);
  for (unsigned i = t; i < 256; i += n) out[copy_count + i] = second[255 - i];
  auto tile = cg::tiled_partition<32>(block);
  unsigned k = tile.meta_group_rank();
  cg::memcpy_async(tile, per_tile + k * 32, in + 500 + k * 32, cuda::aligned_size_t<16>(32 * sizeof(int)));
  cg::wait(tile);
  out[copy_count + 256 + t] = per_tile[k * 32 + 31 - tile.thread_rank()];
}

TEST_CASE(
    "cooperative_groups: memcpy_async into shared memory, shared by the group, made visible by wait and wait_prior") {
  std::vector<int> in(copy_count);
  for (int i = 0; i < copy_count; ++i) in[i] = i * 3 + 1;
  device_buffer<int> input(in), out(copy_count + 256 + 128);
  run(1, 128, memcpy_async_kernel, static_cast<const int*>(input.p), out.p);
  auto h = out.to_host();
  for (int i = 0; i < copy_count; ++i) CHECK(h[i] == in[copy_count - 1 - i]);
  for (int i = 0; i < 256; ++i) CHECK(h[copy_count + i] == in[7 + 255 - i]);
  for (int t = 0; t < 128; ++t) CHECK(h[copy_count + 256 + t] == in[500 + t / 32 * 32 + 31 - t % 32]);
}

// ---- misuse ----------------------------------------------------------------

template <unsigned N>
concept can_tile_block = requires(const cg::thread_block& b) {
  cg::tiled_partition<N>(b);
};
template <unsigned N, unsigned Parent>
concept can_tile_tile = requires(const cg::thread_block_tile<Parent>& t) {
  cg::tiled_partition<N>(t);
};
template <class Group>
concept can_reduce = requires(const Group& g) {
  cg::reduce(g, 1, cg::plus<int>());
};

TEST_CASE(
    "cooperative_groups: a tile size that is not a power of two up to 1024 does not compile, nor reduce over a block") {
  static_assert(can_tile_block<1> && can_tile_block<32> && can_tile_block<64> && can_tile_block<1024>);
  static_assert(!can_tile_block<0> && !can_tile_block<3> && !can_tile_block<12> && !can_tile_block<96> &&
                !can_tile_block<2048>);
  static_assert(can_tile_tile<8, 16> && !can_tile_tile<32, 16>);
  static_assert(can_reduce<cg::thread_block_tile<8>> && can_reduce<cg::coalesced_group>);
  static_assert(!can_reduce<cg::thread_block> && !can_reduce<cg::thread_group>);
  CHECK(true);
}

__global__ void dynamic_tile_size_kernel(unsigned size) { cg::tiled_partition(cg::this_thread_block(), size); }

TEST_CASE("cooperative_groups: tiled_partition(g, n) with n not a power of two up to 32 fails the launch") {
  for (unsigned size : {0u, 3u, 12u, 64u}) {
    std::string r = failure_of(dynamic_tile_size_kernel, 32, size);
    INFO(r);
    CHECK(contains(r, "dynamic_tile_size_kernel"));
    CHECK(contains(r, "tiled_partition: tile size " + std::to_string(size) + " is not a power of two from 1 to 32"));
  }
}

__device__ int tile_shuffle_site(const cg::thread_block_tile<8>& tile, int v) { return tile.shfl(v, 0); }
constexpr int tile_shuffle_line = __LINE__ - 1;
__global__ void tile_diverges_kernel() {
  auto tile = cg::tiled_partition<8>(cg::this_thread_block());
  if (tile.thread_rank() < 4) tile_shuffle_site(tile, 1);
}

TEST_CASE("cooperative_groups: a tile whose lanes diverge at a collective is reported, never a hang") {
  // Pinned to the forward schedule: which lanes the report names as waiting and which as gone depends on the order the
  // lanes run in (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  std::string r = failure_of(tile_diverges_kernel, 32);
  INFO(r);
  CHECK(contains(r, "tile_diverges_kernel"));
  CHECK(contains(r, "__shfl_sync (" + site(tile_shuffle_line)));
  CHECK(contains(r, "mask 0x000000ff"));
  CHECK(contains(r, "lanes 0-3 wait for lanes 4-7, which have exited"));
}

__device__ int tile_any_site(const cg::thread_block_tile<16>& tile) { return tile.any(1); }
constexpr int tile_any_line = __LINE__ - 1;
__device__ unsigned tile_ballot_site(const cg::thread_block_tile<16>& tile) { return tile.ballot(1); }
constexpr int tile_ballot_line = __LINE__ - 1;
__global__ void tile_different_collectives_kernel() {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  if (tile.thread_rank() < 8)
    tile_any_site(tile);
  else
    tile_ballot_site(tile);
}

TEST_CASE("cooperative_groups: lanes of a tile calling different collectives are reported") {
  // Pinned to the forward schedule: the report names the first lane to call the other collective, which depends on the
  // order (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  std::string r = failure_of(tile_different_collectives_kernel, 16);
  INFO(r);
  CHECK(contains(r, "tile_different_collectives_kernel"));
  CHECK(contains(r, "thread (8,0,0)"));
  CHECK(contains(r, "__ballot_sync (" + site(tile_ballot_line)));
  CHECK(contains(r, "lanes 0-7 wait at __any_sync (" + site(tile_any_line)));
  CHECK(contains(r, "different collectives"));
}
