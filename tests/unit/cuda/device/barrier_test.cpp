// __syncthreads and its counting variants: loops, uniform branches, large
// blocks, threads that exit early, and many blocks on several workers.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "device_buffer.hpp"
#include "stream_gates.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace {

// The classic shared-memory tree reduction: every level reads what other
// threads wrote at the level before, so each barrier must hold.
template <unsigned Threads>
__global__ void block_sum(const int* in, int* out) {
  __shared__ int partial[Threads];
  unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

template <unsigned Threads>
void check_block_sums(unsigned blocks) {
  std::vector<int> in(std::size_t{blocks} * Threads);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 7 % 13) - 6;
  device_buffer<int> d_in(in), d_out(blocks);
  REQUIRE(weft::launch(blocks, Threads, block_sum<Threads>, d_in.p, d_out.p) == cudaSuccess);
  auto out = d_out.to_host();
  for (unsigned b = 0; b < blocks; ++b) {
    int expected = 0;
    for (unsigned t = 0; t < Threads; ++t) expected += in[b * Threads + t];
    CHECK(out[b] == expected);
  }
}

}  // namespace

TEST_CASE("tree reduction over many blocks on several workers") {
  exact_workers pool(4);
  check_block_sums<256>(64);
}

TEST_CASE("tree reduction in blocks of 1024 threads") {
  exact_workers pool(4);
  check_block_sums<1024>(8);
}

TEST_CASE("rotating a block's values through shared memory many times") {
  // Each step reads a neighbour's value, waits, then overwrites its own: a
  // missing or leaky barrier lets a thread read an already rotated value.
  // One worker runs the blocks back to back; four run them side by side.
  unsigned workers = 0;
  SUBCASE("one worker") { workers = 1; }
  SUBCASE("four workers") { workers = 4; }
  exact_workers pool(workers);
  const unsigned threads = 100, blocks = 8;
  const int steps = 257;
  device_buffer<int> out(threads * blocks);
  auto rotate = [](int step_count, int* result) {
    __shared__ int ring[100];
    unsigned t = threadIdx.x, n = blockDim.x;
    ring[t] = static_cast<int>(blockIdx.x * 1000 + t);
    __syncthreads();
    for (int s = 0; s < step_count; ++s) {
      int next = ring[(t + 1) % n];
      __syncthreads();
      ring[t] = next;
      __syncthreads();
    }
    result[blockIdx.x * n + t] = ring[t];
  };
  REQUIRE(weft::launch(blocks, threads, rotate, steps, out.p) == cudaSuccess);
  auto host = out.to_host();
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < threads; ++t)
      CHECK(host[b * threads + t] == static_cast<int>(b * 1000 + (t + steps) % threads));
}

TEST_CASE("barriers in data-dependent branches that are uniform per block") {
  // Each block takes one branch and loops a data-dependent number of times;
  // every thread of the block agrees, so the barriers inside are legal.
  unsigned workers = 0;
  SUBCASE("one worker") { workers = 1; }
  SUBCASE("four workers") { workers = 4; }
  exact_workers pool(workers);
  const unsigned threads = 48;
  std::vector<int> trips{0, 1, 2, 3, 10, 11, 40, 41};
  device_buffer<int> d_trips(trips), out(trips.size() * threads);
  auto kernel = [](const int* trip_counts, int* result) {
    __shared__ int counter;
    if (threadIdx.x == 0) counter = 0;
    __syncthreads();
    int n = trip_counts[blockIdx.x];
    if (n % 2 == 0) {
      for (int i = 0; i < n; ++i) {
        if (threadIdx.x == static_cast<unsigned>(i) % blockDim.x) counter += 1;
        __syncthreads();
      }
    } else {
      for (int i = 0; i < n; ++i) {
        if (threadIdx.x == blockDim.x - 1) counter += 2;
        __syncthreads();
      }
    }
    result[blockIdx.x * blockDim.x + threadIdx.x] = counter;
  };
  REQUIRE(weft::launch(static_cast<unsigned>(trips.size()), threads, kernel, d_trips.p, out.p) == cudaSuccess);
  auto host = out.to_host();
  for (std::size_t b = 0; b < trips.size(); ++b) {
    int expected = trips[b] % 2 == 0 ? trips[b] : 2 * trips[b];
    for (unsigned t = 0; t < threads; ++t) CHECK(host[b * threads + t] == expected);
  }
}

TEST_CASE("__syncthreads_count, _and and _or return the block-wide result to every thread") {
  const unsigned threads = 100, blocks = 3, results = 6;
  device_buffer<int> out(threads * blocks * results);
  auto kernel = [](int* result) {
    int t = static_cast<int>(threadIdx.x);
    int* r = result + (blockIdx.x * blockDim.x + threadIdx.x) * 6;
    r[0] = __syncthreads_count(t % 3 == 0);
    r[1] = __syncthreads_count(t);  // any non-zero predicate counts, not just 1
    r[2] = __syncthreads_and(t < 1000) != 0;
    r[3] = __syncthreads_and(t != 57) != 0;
    r[4] = __syncthreads_or(t == 57) != 0;
    r[5] = __syncthreads_or(0) != 0;
  };
  REQUIRE(weft::launch(blocks, threads, kernel, out.p) == cudaSuccess);
  int multiples_of_3 = 0;
  for (unsigned t = 0; t < threads; ++t) multiples_of_3 += t % 3 == 0;
  auto host = out.to_host();
  for (unsigned i = 0; i < threads * blocks; ++i) {
    const int* r = &host[i * results];
    CHECK(r[0] == multiples_of_3);
    CHECK(r[1] == static_cast<int>(threads) - 1);
    CHECK(r[2] == 1);
    CHECK(r[3] == 0);
    CHECK(r[4] == 1);
    CHECK(r[5] == 0);
  }
}

TEST_CASE("__syncthreads_count in a loop counts each barrier afresh") {
  const unsigned threads = 1024, rounds = 20;
  device_buffer<int> out(threads * rounds);
  auto kernel = [](unsigned round_count, int* result) {
    unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned n = blockDim.x * blockDim.y * blockDim.z;
    for (unsigned i = 0; i < round_count; ++i) result[i * n + t] = __syncthreads_count(t < i * 60);
  };
  // 8x8x16: a 3D block of the maximum 1024 threads.
  REQUIRE(weft::launch(1, dim3(8, 8, 16), kernel, rounds, out.p) == cudaSuccess);
  auto host = out.to_host();
  for (unsigned i = 0; i < rounds; ++i)
    for (unsigned t = 0; t < threads; ++t) CHECK(host[i * threads + t] == static_cast<int>(std::min(i * 60, threads)));
}

TEST_CASE("threads that return early count as arrived at later barriers") {
  // sm_70 and later: a barrier completes once every thread that has not
  // exited has reached it. Each block must start counting afresh, also when
  // one worker runs the blocks back to back.
  unsigned workers = 0;
  SUBCASE("one worker") { workers = 1; }
  SUBCASE("four workers") { workers = 4; }
  exact_workers pool(workers);
  const unsigned threads = 64, blocks = 16;
  device_buffer<int> values(threads * blocks), counts(threads * blocks);
  SUBCASE("the highest threads return before the first barrier") {
    auto kernel = [](int* value, int* count) {
      __shared__ int squares[40];
      unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
      if (t >= 40) return;
      squares[t] = static_cast<int>(t * t);
      __syncthreads();
      value[i] = squares[(t + 1) % 40];
      // Exited threads are not counted, nor do they spoil _and.
      count[i] = __syncthreads_count(1) + 1000 * (__syncthreads_and(1) != 0);
    };
    REQUIRE(weft::launch(blocks, threads, kernel, values.p, counts.p) == cudaSuccess);
    auto v = values.to_host(), c = counts.to_host();
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned t = 0; t < 40; ++t) {
        CHECK(v[b * threads + t] == static_cast<int>((t + 1) % 40 * ((t + 1) % 40)));
        CHECK(c[b * threads + t] == 40 + 1000);
      }
  }
  SUBCASE("odd threads return between two barriers") {
    auto kernel = [](int* value, int* count) {
      __shared__ int ids[64];
      unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
      ids[t] = static_cast<int>(i);
      __syncthreads();
      if (t % 2 == 1) return;
      value[i] = ids[t + 1];
      count[i] = __syncthreads_count(t < 10);
      __syncthreads();
    };
    REQUIRE(weft::launch(blocks, threads, kernel, values.p, counts.p) == cudaSuccess);
    auto v = values.to_host(), c = counts.to_host();
    for (unsigned i = 0; i < threads * blocks; i += 2) {
      CHECK(v[i] == static_cast<int>(i + 1));
      CHECK(c[i] == 5);  // even threads below 10: 0, 2, 4, 6, 8
    }
  }
}

TEST_CASE("a barrier outside a kernel throws std::logic_error") {
  CHECK_THROWS_AS(__syncthreads(), std::logic_error);
  CHECK_THROWS_AS(__syncthreads_count(1), std::logic_error);
  CHECK_THROWS_AS(__syncthreads_and(1), std::logic_error);
  CHECK_THROWS_AS(__syncthreads_or(1), std::logic_error);
}
