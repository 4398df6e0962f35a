// Atomic functions under contention from every SM worker, on global and
// shared memory: the final values, and the old values returned, are exact.
#include <doctest/doctest.h>
#include <weft.hpp>

#include "device_buffer.hpp"
#include "stream_gates.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

// Enough blocks, each thread repeating its update, that the workers really
// do update the same addresses at the same time.
constexpr unsigned blocks = 64, threads = 128, total = blocks * threads, reps = 16;

__device__ unsigned global_id() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Old values returned by a counter that each thread bumped once: a
// permutation of 0..n-1 exactly when no update was lost or duplicated.
template <class T>
void check_permutation(std::vector<T> olds, T step = 1) {
  std::sort(olds.begin(), olds.end());
  for (std::size_t i = 0; i < olds.size(); ++i) CHECK(olds[i] == static_cast<T>(i * step));
}

struct sums {
  int i;
  unsigned u;
  unsigned long long ull;
  float f;
  double d;
};

// A lock-free increment built from atomicCAS, as CUDA programs write it,
// except for the first look at the value: CUDA's guide reads it plainly,
// which races with the other threads' atomicCAS (a GPU tolerates it; C++ and
// ThreadSanitizer do not). A compare-and-swap of 0 for 0 reads it
// atomically: it changes nothing whatever it finds.
template <class T>
__device__ T cas_increment(T* address) {
  T old = atomicCAS(address, T{0}, T{0}), assumed;
  do {
    assumed = old;
    old = atomicCAS(address, assumed, static_cast<T>(assumed + 1));
  } while (old != assumed);
  return old;
}

}  // namespace

TEST_CASE("atomicAdd of every type from all workers") {
  exact_workers pool(4);
  device_buffer<sums> s(1);
  device_buffer<int> olds(total * reps);
  auto kernel = [](sums* out, int* old) {
    for (unsigned r = 0; r < reps; ++r) {
      old[global_id() * reps + r] = atomicAdd(&out->i, 1);
      atomicAdd(&out->u, 3u);
      atomicAdd(&out->ull, (1ull << 33) + 1);
      atomicAdd(&out->f, 2.0f);  // integral values: the float sum is exact in any order
      atomicAdd(&out->d, 0.25);
    }
  };
  REQUIRE(weft::launch(blocks, threads, kernel, s.p, olds.p) == cudaSuccess);
  const unsigned n = total * reps;
  sums r = s.to_host()[0];
  CHECK(r.i == static_cast<int>(n));
  CHECK(r.u == 3 * n);
  CHECK(r.ull == n * ((1ull << 33) + 1));
  CHECK(r.f == 2.0f * n);
  CHECK(r.d == 0.25 * n);
  check_permutation(olds.to_host());
}

TEST_CASE("atomicSub, including unsigned wrap-around") {
  exact_workers pool(4);
  device_buffer<int> i(std::vector<int>{1000});
  device_buffer<unsigned> u(1), olds(total * reps);
  auto kernel = [](int* signed_value, unsigned* unsigned_value, unsigned* old) {
    for (unsigned r = 0; r < reps; ++r) {
      atomicSub(signed_value, 3);
      old[global_id() * reps + r] = 0u - atomicSub(unsigned_value, 1u);
    }
  };
  REQUIRE(weft::launch(blocks, threads, kernel, i.p, u.p, olds.p) == cudaSuccess);
  CHECK(i.to_host()[0] == 1000 - 3 * static_cast<int>(total * reps));
  CHECK(u.to_host()[0] == 0u - total * reps);
  check_permutation(olds.to_host());
}

TEST_CASE("atomicExch hands each value on exactly once") {
  // Every thread swaps in its id: the returned values plus the final one are
  // the initial value and all ids, each exactly once.
  exact_workers pool(4);
  device_buffer<unsigned> cell(std::vector<unsigned>{total * reps}), olds(total * reps);
  device_buffer<unsigned long long> wide(std::vector<unsigned long long>{1ull << 40});
  device_buffer<int> narrow(std::vector<int>{-1});
  device_buffer<float> real(std::vector<float>{-1.0f});
  auto kernel = [](unsigned* c, unsigned* old, unsigned long long* w, int* n, float* r) {
    for (unsigned r = 0; r < reps; ++r) old[global_id() * reps + r] = atomicExch(c, global_id() * reps + r);
    atomicExch(w, (1ull << 40) + global_id());
    atomicExch(n, static_cast<int>(global_id()));
    atomicExch(r, static_cast<float>(global_id()));
  };
  REQUIRE(weft::launch(blocks, threads, kernel, cell.p, olds.p, wide.p, narrow.p, real.p) == cudaSuccess);
  auto seen = olds.to_host();
  seen.push_back(cell.to_host()[0]);
  check_permutation(seen);
  // The last write wins, whichever it was: a value some thread stored.
  CHECK(wide.to_host()[0] - (1ull << 40) < total);
  int last = narrow.to_host()[0];
  CHECK((last >= 0 && last < static_cast<int>(total)));
  float last_real = real.to_host()[0];
  CHECK((last_real >= 0.0f && last_real == static_cast<float>(static_cast<int>(last_real))));
}

TEST_CASE("atomicMin and atomicMax of signed and unsigned 32- and 64-bit values") {
  exact_workers pool(4);
  // Pseudo-random values with negatives; the host finds the expected extremes.
  auto value = [](unsigned id) { return static_cast<long long>(id * 7919u % 20011u) - 10005; };
  std::vector<long long> values(total);
  for (unsigned id = 0; id < total; ++id) values[id] = value(id);
  device_buffer<long long> d_values(values);
  struct extremes {
    int min_i, max_i;
    unsigned min_u, max_u;
    long long min_ll, max_ll;
    unsigned long long min_ull, max_ull;
  };
  device_buffer<extremes> e(std::vector<extremes>{{0, 0, ~0u, 0, 0, 0, ~0ull, 0}});
  auto kernel = [](const long long* v, extremes* out) {
    long long x = v[global_id()];
    atomicMin(&out->min_i, static_cast<int>(x));
    atomicMax(&out->max_i, static_cast<int>(x));
    atomicMin(&out->min_u, static_cast<unsigned>(x + 20000));
    atomicMax(&out->max_u, static_cast<unsigned>(x + 20000) * 100000u);
    atomicMin(&out->min_ll, x * 1000000000000ll);
    atomicMax(&out->max_ll, x * 1000000000000ll);
    atomicMin(&out->min_ull, static_cast<unsigned long long>(x + 20000) << 40);
    atomicMax(&out->max_ull, static_cast<unsigned long long>(x + 20000) << 40);
  };
  REQUIRE(weft::launch(blocks, threads, kernel, d_values.p, e.p) == cudaSuccess);
  long long lo = *std::min_element(values.begin(), values.end());
  long long hi = *std::max_element(values.begin(), values.end());
  REQUIRE(lo < 0);
  extremes r = e.to_host()[0];
  CHECK(r.min_i == lo);  // started at 0, so this also checks negatives win
  CHECK(r.max_i == hi);
  CHECK(r.min_u == static_cast<unsigned>(lo + 20000));
  CHECK(r.max_u == static_cast<unsigned>(hi + 20000) * 100000u);
  CHECK(r.min_ll == lo * 1000000000000ll);
  CHECK(r.max_ll == hi * 1000000000000ll);
  CHECK(r.min_ull == static_cast<unsigned long long>(lo + 20000) << 40);
  CHECK(r.max_ull == static_cast<unsigned long long>(hi + 20000) << 40);
}

TEST_CASE("atomicInc and atomicDec wrap around their limit") {
  exact_workers pool(4);
  const unsigned n = 17 * 59 * reps, limit = 9;  // n % 10 == 8
  device_buffer<unsigned> counters(2), inc_olds(n), dec_olds(n);
  auto kernel = [](unsigned lim, unsigned* c, unsigned* inc_old, unsigned* dec_old) {
    for (unsigned r = 0; r < reps; ++r) {
      inc_old[global_id() * reps + r] = atomicInc(&c[0], lim);
      dec_old[global_id() * reps + r] = atomicDec(&c[1], lim);
    }
  };
  REQUIRE(weft::launch(17, 59, kernel, limit, counters.p, inc_olds.p, dec_olds.p) == cudaSuccess);
  // From 0, the k-th atomicInc returns k % 10 and the k-th atomicDec returns
  // (10 - k % 10) % 10: 0, 9, 8, ..., 1, 0, 9, ...
  const unsigned wrap = limit + 1;
  auto c = counters.to_host();
  CHECK(c[0] == n % wrap);
  CHECK(c[1] == (wrap - n % wrap) % wrap);
  std::vector<unsigned> inc_expected(wrap), dec_expected(wrap), inc_seen(wrap), dec_seen(wrap);
  for (unsigned k = 0; k < n; ++k) ++inc_expected[k % wrap], ++dec_expected[(wrap - k % wrap) % wrap];
  for (unsigned old : inc_olds.to_host()) ++inc_seen.at(old);
  for (unsigned old : dec_olds.to_host()) ++dec_seen.at(old);
  CHECK(inc_seen == inc_expected);
  CHECK(dec_seen == dec_expected);
}

TEST_CASE("atomicInc and atomicDec from a value above the limit") {
  device_buffer<unsigned> v(std::vector<unsigned>{20, 20, 0, 5}), olds(4);
  auto kernel = [](unsigned* x, unsigned* old) {
    old[0] = atomicInc(&x[0], 9);  // old >= limit: back to 0
    old[1] = atomicDec(&x[1], 9);  // old > limit: to the limit
    old[2] = atomicDec(&x[2], 9);  // old == 0: to the limit
    old[3] = atomicInc(&x[3], 9);  // below the limit: + 1
  };
  REQUIRE(weft::launch(1, 1, kernel, v.p, olds.p) == cudaSuccess);
  CHECK(v.to_host() == std::vector<unsigned>{0, 9, 9, 6});
  CHECK(olds.to_host() == std::vector<unsigned>{20, 20, 0, 5});
}

TEST_CASE("atomicCAS-based lock-free increments of int, unsigned, ull and unsigned short") {
  exact_workers pool(4);
  struct counters {
    int i;
    unsigned u;
    unsigned long long ull;
    unsigned short us;
  };
  device_buffer<counters> c(1);
  device_buffer<int> olds(total * reps);
  auto kernel = [](counters* out, int* old) {
    for (unsigned r = 0; r < reps; ++r) {
      old[global_id() * reps + r] = cas_increment(&out->i);
      cas_increment(&out->u);
      cas_increment(&out->ull);
      if (r < 3) cas_increment(&out->us);  // 3 per thread: stays below 65536
    }
  };
  REQUIRE(weft::launch(blocks, threads, kernel, c.p, olds.p) == cudaSuccess);
  const unsigned n = total * reps;
  counters r = c.to_host()[0];
  CHECK(r.i == static_cast<int>(n));
  CHECK(r.u == n);
  CHECK(r.ull == n);
  CHECK(r.us == 3 * total);
  check_permutation(olds.to_host());
}

TEST_CASE("atomicCAS returns the old value whether or not it swapped") {
  device_buffer<int> v(std::vector<int>{5, 5}), olds(2);
  auto kernel = [](int* x, int* old) {
    old[0] = atomicCAS(&x[0], 5, 8);  // matches: swaps
    old[1] = atomicCAS(&x[1], 4, 8);  // does not match: unchanged
  };
  REQUIRE(weft::launch(1, 1, kernel, v.p, olds.p) == cudaSuccess);
  CHECK(v.to_host() == std::vector<int>{8, 5});
  CHECK(olds.to_host() == std::vector<int>{5, 5});
}

TEST_CASE("a spin lock from atomicCAS and atomicExch guards a plain counter") {
  exact_workers pool(4);
  device_buffer<int> lock_and_counter(2);
  auto kernel = [](int* state) {
    int* lock = &state[0];
    for (unsigned r = 0; r < reps; ++r) {
      while (atomicCAS(lock, 0, 1) != 0) {
      }
      __threadfence();  // see the previous holder's writes
      state[1] = state[1] + 1;
      __threadfence();  // publish ours before the release
      atomicExch(lock, 0);
    }
  };
  REQUIRE(weft::launch(16, 32, kernel, lock_and_counter.p) == cudaSuccess);
  CHECK(lock_and_counter.to_host() == std::vector<int>{0, static_cast<int>(16 * 32 * reps)});
}

TEST_CASE("atomicAnd, atomicOr and atomicXor: each thread flips its own bit") {
  // 64 blocks share 8 words; block b owns bit b of each, so every word is
  // updated by all workers at once and a lost update leaves a wrong bit.
  exact_workers pool(4);
  const unsigned long long pattern = 0xF0F0F0F00F0F0F0Full;
  struct words {
    unsigned long long ors[8], ands[8], xors[8];
    int ors32[8], ands32[8];
    unsigned xors32[8];
  };
  words start{};
  for (int w = 0; w < 8; ++w) {
    start.ands[w] = ~0ull;
    start.xors[w] = pattern;
    start.ands32[w] = -1;
    start.xors32[w] = static_cast<unsigned>(pattern);
  }
  device_buffer<words> d(std::vector<words>{start});
  auto kernel = [](words* out) {
    unsigned w = threadIdx.x, b = blockIdx.x;
    unsigned long long bit = 1ull << b;
    atomicOr(&out->ors[w], bit);
    atomicAnd(&out->ands[w], ~bit);
    for (unsigned r = 0; r < 2 * reps + 1; ++r) atomicXor(&out->xors[w], bit);  // an odd number of flips
    // 32-bit words: blocks b and b + 32 share a bit, which ends up flipped an
    // even number of times.
    int bit32 = static_cast<int>(1u << (b % 32));
    atomicOr(&out->ors32[w], bit32);
    atomicAnd(&out->ands32[w], ~bit32);
    for (unsigned r = 0; r < 2 * reps + 1; ++r) atomicXor(&out->xors32[w], static_cast<unsigned>(bit32));
  };
  REQUIRE(weft::launch(64, 8, kernel, d.p) == cudaSuccess);
  words r = d.to_host()[0];
  for (int w = 0; w < 8; ++w) {
    CHECK(r.ors[w] == ~0ull);
    CHECK(r.ands[w] == 0);
    CHECK(r.xors[w] == ~pattern);
    CHECK(r.ors32[w] == -1);
    CHECK(r.ands32[w] == 0);
    CHECK(r.xors32[w] == static_cast<unsigned>(pattern));
  }
}

TEST_CASE("the _block and _system variants behave like the plain functions") {
  exact_workers pool(4);
  device_buffer<unsigned> results(24);
  device_buffer<int> counter(2);
  auto kernel = [](unsigned* r, int* c) {
    __shared__ int in_block;
    if (threadIdx.x == 0) in_block = 0;
    __syncthreads();
    atomicAdd_block(&in_block, 1);
    atomicAdd_system(&c[0], 1);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&c[1], in_block == static_cast<int>(blockDim.x));
    if (global_id() != 0) return;
    // One thread, so that each old value is known.
    unsigned x = 10;
    r[0] = atomicSub_block(&x, 3u), r[1] = atomicSub_system(&x, 2u);              // 10, 7 -> 5
    r[2] = atomicExch_block(&x, 40u), r[3] = atomicExch_system(&x, 30u);          // 5, 40 -> 30
    r[4] = atomicMin_block(&x, 20u), r[5] = atomicMin_system(&x, 25u);            // 30, 20 -> 20
    r[6] = atomicMax_block(&x, 50u), r[7] = atomicMax_system(&x, 45u);            // 20, 50 -> 50
    r[8] = atomicInc_block(&x, 50u), r[9] = atomicInc_system(&x, 60u);            // 50, 0 -> 1
    r[10] = atomicDec_block(&x, 9u), r[11] = atomicDec_system(&x, 9u);            // 1, 0 -> 9
    r[12] = atomicCAS_block(&x, 9u, 12u), r[13] = atomicCAS_system(&x, 9u, 13u);  // 9, 12 -> 12
    r[14] = atomicAnd_block(&x, 6u), r[15] = atomicAnd_system(&x, 7u);            // 12, 4 -> 4
    r[16] = atomicOr_block(&x, 3u), r[17] = atomicOr_system(&x, 8u);              // 4, 7 -> 15
    r[18] = atomicXor_block(&x, 1u), r[19] = atomicXor_system(&x, 2u);            // 15, 14 -> 12
    r[20] = atomicAdd_block(&x, 5u), r[21] = atomicAdd_system(&x, 5u);            // 12, 17 -> 22
    r[22] = x;
  };
  REQUIRE(weft::launch(32, 96, kernel, results.p, counter.p) == cudaSuccess);
  std::vector<unsigned> expected{10, 7, 5, 40, 30, 20, 20, 50, 50, 0, 1, 0, 9, 12, 12, 4, 4, 7, 15, 14, 12, 17, 22, 0};
  CHECK(results.to_host() == expected);
  CHECK(counter.to_host() == std::vector<int>{32 * 96, 32});
}

TEST_CASE("a per-block histogram in shared memory, merged into global memory") {
  exact_workers pool(4);
  std::vector<int> values(total);
  for (unsigned i = 0; i < total; ++i) values[i] = static_cast<int>(i * 37 % 16);
  device_buffer<int> d_values(values);
  device_buffer<unsigned> histogram(16);
  auto kernel = [](const int* v, unsigned* global_histogram) {
    __shared__ unsigned bins[16];
    if (threadIdx.x < 16) bins[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&bins[v[global_id()]], 1u);
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&global_histogram[threadIdx.x], bins[threadIdx.x]);
  };
  REQUIRE(weft::launch(blocks, threads, kernel, d_values.p, histogram.p) == cudaSuccess);
  std::vector<unsigned> expected(16);
  for (int v : values) ++expected[v];
  CHECK(histogram.to_host() == expected);
}

TEST_CASE("the last block to finish sums the partial results (atomicInc + __threadfence)") {
  // The pattern of CUDA's threadFenceReduction sample: each block publishes
  // its partial sum, fences, and takes a ticket; the last ticket sums them.
  exact_workers pool(4);
  std::vector<int> values(total);
  for (unsigned i = 0; i < total; ++i) values[i] = static_cast<int>(i % 1000) - 300;
  device_buffer<int> d_values(values), partial(blocks), result(2);
  device_buffer<unsigned> tickets(1);
  auto kernel = [](const int* v, int* part, unsigned* ticket, int* out) {
    __shared__ int block_sum;
    __shared__ bool is_last;
    if (threadIdx.x == 0) block_sum = 0;
    __syncthreads();
    atomicAdd(&block_sum, v[global_id()]);
    __syncthreads();
    if (threadIdx.x == 0) {
      part[blockIdx.x] = block_sum;
      __threadfence();
      is_last = atomicInc(ticket, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (is_last && threadIdx.x == 0) {
      __threadfence_block();
      __threadfence_system();
      int sum = 0;
      for (unsigned b = 0; b < gridDim.x; ++b) sum += static_cast<volatile int*>(part)[b];
      out[0] = sum;
      atomicAdd(&out[1], 1);  // how many blocks thought they were last
      *ticket = 0;            // ready for the next launch
    }
  };
  int expected = 0;
  for (int v : values) expected += v;
  for (int launch = 0; launch < 3; ++launch) {
    REQUIRE(weft::launch(blocks, threads, kernel, d_values.p, partial.p, tickets.p, result.p) == cudaSuccess);
    CHECK(result.to_host() == std::vector<int>{expected, launch + 1});
    CHECK(tickets.to_host()[0] == 0);
  }
}
