// weft/index_ranges.hpp: grid- and block-stride ranges cover each index once
// across a grid (or a block), for every shape and bound, in 1D, 2D and 3D;
// they model range-v3's concepts, so that its views compose with them. The
// only unit test that includes range-v3 (it is slow to parse).
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/index_ranges.hpp>

#include "device_buffer.hpp"

#include <cstddef>
#include <cstdint>
#include <ranges>
#include <type_traits>
#include <vector>

#include <range/v3/algorithm/all_of.hpp>
#include <range/v3/algorithm/count.hpp>
#include <range/v3/numeric/accumulate.hpp>
#include <range/v3/range/concepts.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/view/filter.hpp>
#include <range/v3/view/iota.hpp>
#include <range/v3/view/stride.hpp>
#include <range/v3/view/take.hpp>
#include <range/v3/view/transform.hpp>

// What the kernel-facing types are, in range-v3's terms and the standard's.
static_assert(std::is_trivially_copyable_v<weft::stride_range<int>>);
static_assert(std::is_trivially_copyable_v<weft::stride_space<int, 3>>);
static_assert(ranges::random_access_iterator<weft::stride_iterator<int>>);
static_assert(ranges::random_access_range<weft::stride_range<int>>);
static_assert(ranges::random_access_range<weft::stride_range<std::uint64_t>>);
static_assert(ranges::sized_range<weft::stride_range<unsigned>>);
static_assert(ranges::sized_sentinel_for<weft::stride_sentinel<long>, weft::stride_iterator<long>>);
static_assert(ranges::view_<weft::stride_range<int>>);
static_assert(std::random_access_iterator<weft::stride_iterator<int>>);
static_assert(std::ranges::random_access_range<weft::stride_range<int>>);
static_assert(std::ranges::sized_range<weft::stride_range<std::size_t>>);
static_assert(std::ranges::forward_range<weft::stride_space<int, 3>>);
static_assert(ranges::forward_range<weft::stride_space<int, 2>>);
static_assert(ranges::sized_range<weft::stride_space<int, 2>>);
static_assert(ranges::view_<weft::stride_space<std::size_t, 3>>);
static_assert(std::forward_iterator<weft::stride_space_iterator<int, 2>>);
// The loop variable follows the bound's type.
static_assert(std::is_same_v<ranges::range_value_t<weft::stride_range<std::int64_t>>, std::int64_t>);
static_assert(std::is_same_v<decltype(weft::grid_stride(std::size_t{1})), weft::stride_range<std::size_t>>);
static_assert(std::is_same_v<decltype(weft::block_stride(short{1})), weft::stride_range<short>>);
static_assert(std::is_same_v<decltype(*weft::grid_stride_2d(1u, 1u).begin()), weft::index_2d<unsigned>>);
// range-v3's views take them, and keep what they can of their category.
static_assert(ranges::view_<decltype(weft::stride_range<int>{} | ranges::views::filter([](int) { return true; }))>);
static_assert(ranges::random_access_range<decltype(weft::stride_range<int>{} |
                                                   ranges::views::transform([](int i) { return i * 2; }))>);

namespace {

// Host side, without a kernel: the indices a range gives, in order.
TEST_CASE("index ranges: a stride range's indices, size and arithmetic match a strided iota") {
  for (int first : {0, 3, 9})
    for (int stride : {1, 4, 7})
      for (int bound : {-5, 0, 1, 9, 10, 11, 40}) {
        CAPTURE(first);
        CAPTURE(stride);
        CAPTURE(bound);
        weft::stride_range<int> range(first, stride, bound);
        std::vector<int> expected;
        if (first < bound)
          expected = ranges::views::iota(first, bound) | ranges::views::stride(stride) | ranges::to<std::vector>;
        CHECK((range | ranges::to<std::vector>) == expected);
        CHECK(range.size() == expected.size());
        CHECK(ranges::distance(range) == static_cast<std::ptrdiff_t>(expected.size()));
        CHECK(range.empty() == expected.empty());
        for (std::size_t k = 0; k < expected.size(); ++k)
          CHECK(range.begin()[static_cast<std::ptrdiff_t>(k)] == expected[k]);
      }
  // Unsigned and 64-bit bounds, beyond what an int holds.
  const std::uint64_t big = (std::uint64_t{1} << 40) + 5;
  weft::stride_range<std::uint64_t> wide(big - 20, 8, big);
  CHECK((wide | ranges::to<std::vector>) == std::vector<std::uint64_t>{big - 20, big - 12, big - 4});
  CHECK(wide.size() == 3);
  weft::stride_range<unsigned> none(7u, 3u, 7u);
  CHECK(none.empty());
  CHECK(none.size() == 0);
}

// Each thread counts the indices it is given; each count must be 1 and the
// total n. The threads record with atomics, so a doubled index shows.
template <class Index>
void check_grid_stride_covers_once(dim3 grid, dim3 block, Index n) {
  CAPTURE(grid.x);
  CAPTURE(block.x);
  CAPTURE(n);
  const std::size_t count = static_cast<std::size_t>(n > 0 ? n : 0);
  device_buffer<unsigned> visits(count + 1);
  REQUIRE(weft::launch(
              grid, block,
              [](unsigned* visits, Index n) {
                for (Index i : weft::grid_stride(n)) atomicAdd(&visits[i], 1u);
              },
              visits.p, n) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  auto seen = visits.to_host();
  CHECK(ranges::all_of(seen | ranges::views::take(count), [](unsigned v) { return v == 1; }));
  CHECK(seen[count] == 0);  // nothing at or past n
}

TEST_CASE("index ranges: grid_stride covers each index exactly once across the grid") {
  const dim3 grids[] = {dim3(1), dim3(3), dim3(7)};
  const dim3 blocks[] = {dim3(1), dim3(32), dim3(33)};
  for (dim3 grid : grids)
    for (dim3 block : blocks) {
      const int threads = static_cast<int>(grid.x * block.x);
      for (int n : {0, 1, threads - 1, threads, threads + 1, 5 * threads + 3})
        check_grid_stride_covers_once(grid, block, n);
      check_grid_stride_covers_once(grid, block, -3);
      check_grid_stride_covers_once(grid, block, static_cast<unsigned>(2 * threads + 1));
      check_grid_stride_covers_once(grid, block, static_cast<std::uint64_t>(3 * threads - 1));
      check_grid_stride_covers_once(grid, block, static_cast<std::int64_t>(threads / 2));
    }
}

TEST_CASE("index ranges: block_stride covers each index once within every block") {
  for (unsigned block : {1u, 32u, 100u})
    for (int n : {0, 1, 99, 100, 101, 450}) {
      CAPTURE(block);
      CAPTURE(n);
      const unsigned blocks = 3;
      device_buffer<unsigned> visits(blocks * static_cast<unsigned>(n) + 1);
      REQUIRE(weft::launch(
                  blocks, block,
                  [](unsigned* visits, int n) {
                    for (int i : weft::block_stride(n)) atomicAdd(&visits[blockIdx.x * n + i], 1u);
                  },
                  visits.p, n) == cudaSuccess);
      auto seen = visits.to_host();
      CHECK(ranges::count(seen, 1u) == blocks * n);
      CHECK(ranges::count(seen, 0u) == 1);
    }
  // A 64-bit bound.
  device_buffer<unsigned> visits(1000);
  REQUIRE(weft::launch(
              2, 64,
              [](unsigned* visits) {
                for (std::uint64_t i : weft::block_stride(std::uint64_t{500}))
                  atomicAdd(&visits[blockIdx.x * 500 + i], 1u);
              },
              visits.p) == cudaSuccess);
  CHECK(ranges::all_of(visits.to_host(), [](unsigned v) { return v == 1; }));
}

TEST_CASE("index ranges: 2D and 3D spaces cover each point once, x fastest in each thread") {
  struct shape {
    dim3 grid, block;
    int width, height, depth;
  };
  const shape shapes[] = {{dim3(1, 1, 1), dim3(1, 1, 1), 3, 2, 2},  {dim3(2, 3, 1), dim3(4, 2, 2), 19, 7, 5},
                          {dim3(2, 2, 2), dim3(8, 4, 2), 16, 8, 4}, {dim3(3, 1, 2), dim3(5, 3, 1), 0, 4, 3},
                          {dim3(1, 2, 1), dim3(4, 4, 1), 5, 0, 1},  {dim3(2, 1, 1), dim3(8, 2, 2), 40, 3, 1}};
  for (const shape& s : shapes) {
    CAPTURE(s.width);
    CAPTURE(s.height);
    CAPTURE(s.depth);
    const std::size_t plane = static_cast<std::size_t>(s.width * s.height);
    device_buffer<unsigned> visits_2d(plane), visits_3d(plane * s.depth);
    // Whether each thread's points came in the hand-written nest's order,
    // and as many as size() said.
    device_buffer<unsigned> out_of_order(1);
    REQUIRE(weft::launch(
                s.grid, s.block,
                [](unsigned* v2, unsigned* v3, unsigned* bad, int w, int h, int d) {
                  if (blockIdx.z == 0 && threadIdx.z == 0) {
                    auto space = weft::grid_stride_2d(w, h);
                    std::size_t points = 0;
                    weft::index_2d<int> last{-1, -1};
                    for (auto [x, y] : space) {
                      atomicAdd(&v2[y * w + x], 1u);
                      if (y < last.y || (y == last.y && x <= last.x)) atomicAdd(bad, 1u);
                      last = {x, y};
                      ++points;
                    }
                    if (points != space.size()) atomicAdd(bad, 1u);
                  }
                  auto space = weft::grid_stride_3d(w, h, d);
                  std::size_t points = 0;
                  for (auto [x, y, z] : space) {
                    atomicAdd(&v3[(z * h + y) * w + x], 1u);
                    ++points;
                  }
                  if (points != space.size()) atomicAdd(bad, 1u);
                },
                visits_2d.p, visits_3d.p, out_of_order.p, s.width, s.height, s.depth) == cudaSuccess);
    CHECK(ranges::all_of(visits_2d.to_host(), [](unsigned v) { return v == 1; }));
    CHECK(ranges::all_of(visits_3d.to_host(), [](unsigned v) { return v == 1; }));
    CHECK(out_of_order.to_host()[0] == 0);
  }
}

TEST_CASE("index ranges: block_stride_2d and _3d cover each point once within a block") {
  device_buffer<unsigned> visits_2d(2 * 13 * 6), visits_3d(2 * 7 * 5 * 3);
  REQUIRE(weft::launch(
              2, dim3(4, 3, 2),
              [](unsigned* v2, unsigned* v3) {
                if (threadIdx.z == 0)
                  for (auto [x, y] : weft::block_stride_2d(13u, 6u)) atomicAdd(&v2[blockIdx.x * 78 + y * 13 + x], 1u);
                for (auto [x, y, z] : weft::block_stride_3d(7u, 5u, 3u))
                  atomicAdd(&v3[blockIdx.x * 105 + (z * 5 + y) * 7 + x], 1u);
              },
              visits_2d.p, visits_3d.p) == cudaSuccess);
  CHECK(ranges::all_of(visits_2d.to_host(), [](unsigned v) { return v == 1; }));
  CHECK(ranges::all_of(visits_3d.to_host(), [](unsigned v) { return v == 1; }));
}

TEST_CASE("index ranges: range-v3's views compose with grid_stride in a kernel") {
  const int n = 1000;
  device_buffer<int> out(n);
  device_buffer<long long> sums(1);
  REQUIRE(weft::launch(
              3, 64,
              [](int* out, long long* sums, int n) {
                // Only the even indices, written as their squares.
                for (int i : weft::grid_stride(n) | ranges::views::filter([](int i) { return i % 2 == 0; }))
                  out[i] = i * i;
                // And a range-v3 algorithm over this thread's share.
                atomicAdd(reinterpret_cast<unsigned long long*>(sums),
                          static_cast<unsigned long long>(ranges::accumulate(
                              weft::grid_stride(n) | ranges::views::transform([](int i) { return 1ll * i; }), 0ll)));
              },
              out.p, sums.p, n) == cudaSuccess);
  auto written = out.to_host();
  for (int i = 0; i < n; ++i) CHECK(written[i] == (i % 2 == 0 ? i * i : 0));
  CHECK(sums.to_host()[0] == 1ll * n * (n - 1) / 2);
}

}  // namespace
