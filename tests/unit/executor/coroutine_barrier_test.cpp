// Stackless kernels (weft/stackless_kernel.hpp) on the stackless executor
// give what the same kernels give on fibers: reductions, tiled matmul, the
// counting barriers, threads that exit early, multi-dimensional blocks and
// dynamic shared memory.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/stackless_kernel.hpp>

#include "device_buffer.hpp"
#include "stackless_scope.hpp"

#include <numeric>
#include <utility>
#include <vector>

namespace {

constexpr unsigned coroutine_reduce_threads = 256;

weft::stackless_kernel coroutine_block_sum(const float* in, float* out) {
  __shared__ float partial[coroutine_reduce_threads];
  unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * coroutine_reduce_threads + t];
  co_await weft::syncthreads();
  for (unsigned half = coroutine_reduce_threads / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    co_await weft::syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

std::vector<float> coroutine_reduce_input(unsigned blocks) {
  std::vector<float> in(blocks * coroutine_reduce_threads);
  for (unsigned i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 97) * 0.25f;
  return in;
}

}  // namespace

TEST_CASE("a stackless kernel's block reduction equals the fibers' and the host's") {
  constexpr unsigned blocks = 300;
  auto in = coroutine_reduce_input(blocks);
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<float> d_in(in), d_out(blocks);
    REQUIRE(weft::launch<coroutine_block_sum>(blocks, coroutine_reduce_threads, d_in.p, d_out.p) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned b = 0; b < blocks; ++b) {
    float expected = std::accumulate(in.begin() + b * coroutine_reduce_threads,
                                     in.begin() + (b + 1) * coroutine_reduce_threads, 0.0f);
    CHECK(on_coroutines[b] == doctest::Approx(expected));
  }
}

TEST_CASE("a stackless kernel launched by address and as a lambda runs the same") {
  constexpr unsigned blocks = 8;
  auto in = coroutine_reduce_input(blocks);
  stackless_scope scope(stackless_executor::coroutines);
  device_buffer<float> d_in(in), by_address(blocks), by_lambda(blocks);
  REQUIRE(weft::launch(blocks, coroutine_reduce_threads, coroutine_block_sum, d_in.p, by_address.p) == cudaSuccess);
  auto lambda = [](const float* in, float* out) -> weft::stackless_kernel {
    __shared__ float partial[coroutine_reduce_threads];
    partial[threadIdx.x] = in[blockIdx.x * coroutine_reduce_threads + threadIdx.x];
    co_await weft::syncthreads();
    if (threadIdx.x == 0) {
      float sum = 0;
      for (float v : partial) sum += v;
      out[blockIdx.x] = sum;
    }
  };
  REQUIRE(weft::launch(blocks, coroutine_reduce_threads, lambda, d_in.p, by_lambda.p) == cudaSuccess);
  auto a = by_address.to_host(), b = by_lambda.to_host();
  for (unsigned i = 0; i < blocks; ++i) CHECK(a[i] == doctest::Approx(b[i]));
}

namespace {

constexpr int coroutine_tile = 16;

// The CUDA guide's shared-memory matrix multiplication, 2D blocks.
weft::stackless_kernel coroutine_tiled_matmul(const float* a, const float* b, float* c, int n) {
  __shared__ float a_tile[coroutine_tile][coroutine_tile];
  __shared__ float b_tile[coroutine_tile][coroutine_tile];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * coroutine_tile + ty, col = blockIdx.x * coroutine_tile + tx;
  float sum = 0;
  for (int m = 0; m < n / coroutine_tile; ++m) {
    a_tile[ty][tx] = a[row * n + m * coroutine_tile + tx];
    b_tile[ty][tx] = b[(m * coroutine_tile + ty) * n + col];
    co_await weft::syncthreads();
    for (int k = 0; k < coroutine_tile; ++k) sum += a_tile[ty][k] * b_tile[k][tx];
    co_await weft::syncthreads();
  }
  c[row * n + col] = sum;
}

}  // namespace

TEST_CASE("a stackless tiled matmul equals the fibers' and the host's") {
  constexpr int n = 64;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(i % 7) - 3.0f;
    b[i] = static_cast<float>(i % 5) * 0.5f;
  }
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<float> d_a(a), d_b(b), d_c(n * n);
    REQUIRE(weft::launch<coroutine_tiled_matmul>(dim3(n / coroutine_tile, n / coroutine_tile),
                                                 dim3(coroutine_tile, coroutine_tile), d_a.p, d_b.p, d_c.p,
                                                 n) == cudaSuccess);
    return d_c.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (int row = 0; row < n; ++row)
    for (int col = 0; col < n; ++col) {
      float expected = 0;
      for (int k = 0; k < n; ++k) expected += a[row * n + k] * b[k * n + col];
      CHECK(on_coroutines[row * n + col] == doctest::Approx(expected));
    }
}

TEST_CASE("co_await weft::syncthreads_count, _and and _or give what __syncthreads_count, _and and _or give") {
  // Each thread records the three results for a predicate that is true for
  // threadIdx.x % divisor == 0, with divisors 1 (all), 3 (some) and 0 (none).
  auto kernel = [](int* results) -> weft::stackless_kernel {
    int* mine = results + threadIdx.x * 9;
    for (int divisor : {1, 3, 0}) {
      int predicate = divisor != 0 && threadIdx.x % divisor == 0;
      mine[0] = co_await weft::syncthreads_count(predicate);
      mine[1] = co_await weft::syncthreads_and(predicate);
      mine[2] = co_await weft::syncthreads_or(predicate);
      mine += 3;
    }
  };
  constexpr unsigned threads = 100;
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_results(threads * 9);
    REQUIRE(weft::launch(1, threads, kernel, d_results.p) == cudaSuccess);
    return d_results.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  std::vector<int> expected_thread{100, 1, 1, 34, 0, 1, 0, 0, 0};
  for (unsigned t = 0; t < threads; ++t)
    CHECK(std::vector<int>(on_coroutines.begin() + t * 9, on_coroutines.begin() + (t + 1) * 9) == expected_thread);
}

TEST_CASE("threads of a stackless kernel that exit count as arrived at later barriers") {
  // Odd threads return before the first barrier, threads from 40 on after
  // the second; the counts see only those still running.
  auto kernel = [](int* counts) -> weft::stackless_kernel {
    if (threadIdx.x % 2 == 1) co_return;
    int first = co_await weft::syncthreads_count(1);
    if (threadIdx.x >= 40) co_return;
    int second = co_await weft::syncthreads_count(1);
    co_await weft::syncthreads();
    if (threadIdx.x == 0) {  // each block its own slots: one place stored by several blocks is a race
      counts[2 * blockIdx.x] = first;
      counts[2 * blockIdx.x + 1] = second;
    }
  };
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_counts(6);
    REQUIRE(weft::launch(3, 64, kernel, d_counts.p) == cudaSuccess);
    return d_counts.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  CHECK(on_coroutines == std::vector<int>{32, 20, 32, 20, 32, 20});
}

TEST_CASE("a stackless block resumes its threads in the fiber executor's order, round after round") {
  // After a barrier the thread whose arrival completed it runs first, then
  // the others in the order they arrived. Threads that exit (round 10)
  // change that order; the long runs of plain barriers before and after
  // keep it (more rounds than the executor's lists have room to rotate in).
  auto kernel = [](int* ticket, int* order) -> weft::stackless_kernel {
    for (int round = 0; round < 80; ++round) {
      order[round * 64 + threadIdx.x] = atomicAdd(ticket, 1) + 1;
      if (round == 10 && threadIdx.x % 7 == 3) co_return;
      co_await weft::syncthreads();
    }
  };
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_ticket(1), d_order(80 * 64);
    REQUIRE(weft::launch(1, 64, kernel, d_ticket.p, d_order.p) == cudaSuccess);
    return d_order.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  // Round 1 starts with thread 63, whose arrival completed round 0's barrier.
  CHECK(on_coroutines[64 + 63] < on_coroutines[64 + 0]);
}

TEST_CASE("a stackless kernel sees each thread's threadIdx in a 3D block, across barriers") {
  auto kernel = [](uint3* seen) -> weft::stackless_kernel {
    unsigned id = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    uint3 before = threadIdx;
    co_await weft::syncthreads();
    seen[2 * id] = before;
    co_await weft::syncthreads();
    seen[2 * id + 1] = threadIdx;
  };
  const dim3 block(5, 3, 2);
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<uint3> d_seen(2 * 30);
    REQUIRE(weft::launch(1, block, kernel, d_seen.p) == cudaSuccess);
    return d_seen.to_host();
  });
  for (unsigned id = 0; id < 30; ++id) {
    uint3 expected{id % 5, id / 5 % 3, id / 15};
    for (const auto* seen : {&on_coroutines, &on_fibers})
      for (unsigned k = 0; k < 2; ++k) {
        CHECK((*seen)[2 * id + k].x == expected.x);
        CHECK((*seen)[2 * id + k].y == expected.y);
        CHECK((*seen)[2 * id + k].z == expected.z);
      }
  }
}

// A round of a one-dimensional block sets only threadIdx.x: .y and .z must
// be zero from the block's start, also on a worker whose last block was 3D.
TEST_CASE("a one-dimensional stackless block after a 3D one sees threadIdx.y and .z zero across barriers") {
  auto three_dimensional = [](unsigned* last) -> weft::stackless_kernel {
    co_await weft::syncthreads();
    *last = threadIdx.y * 4 + threadIdx.z;  // the block's last thread to run has y and z not zero
  };
  auto one_dimensional = [](uint3* seen) -> weft::stackless_kernel {
    co_await weft::syncthreads();
    seen[2 * (blockIdx.x * 64 + threadIdx.x)] = threadIdx;
    co_await weft::syncthreads();
    seen[2 * (blockIdx.x * 64 + threadIdx.x) + 1] = threadIdx;
  };
  stackless_scope scope(stackless_executor::coroutines);
  unsigned saved_workers = weft::worker_count();
  weft::set_worker_count(1);  // both grids on the one worker (two blocks or more: not on this thread)
  device_buffer<unsigned> d_last(1);
  device_buffer<uint3> d_seen(2 * 4 * 64);
  REQUIRE(weft::launch(4, dim3(4, 3, 2), three_dimensional, d_last.p) == cudaSuccess);
  REQUIRE(weft::launch(4, 64, one_dimensional, d_seen.p) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  weft::set_worker_count(saved_workers);
  CHECK(d_last.to_host()[0] != 0);
  auto seen = d_seen.to_host();
  for (unsigned i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].x == i / 2 % 64);
    CHECK(seen[i].y == 0);
    CHECK(seen[i].z == 0);
  }
}

TEST_CASE("a stackless kernel reads dynamic shared memory and its block's arguments by value") {
  // Each thread writes its value into dynamic shared memory; after the
  // barrier, each reads its neighbour's. The by-value `offset` is each
  // thread's own copy: changing it changes no other thread's.
  auto kernel = [](int* out, int offset) -> weft::stackless_kernel {
    int* slots = weft::dynamic_shared<int>();
    slots[threadIdx.x] = static_cast<int>(threadIdx.x) + offset;
    offset += 1000;
    co_await weft::syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = slots[(threadIdx.x + 1) % blockDim.x] + offset;
  };
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_out(4 * 64);
    REQUIRE(weft::launch(weft::launch_config{4, 64, 64 * sizeof(int)}, kernel, d_out.p, 7) == cudaSuccess);
    return d_out.to_host();
  });
  CHECK(on_coroutines == on_fibers);
  for (unsigned i = 0; i < 4 * 64; ++i) CHECK(on_coroutines[i] == static_cast<int>((i % 64 + 1) % 64) + 7 + 1007);
}

TEST_CASE("stackless kernels run on the stackless executor, and on fibers when told") {
  auto kernel = [](int* where) -> weft::stackless_kernel {
    co_await weft::syncthreads();
    if (threadIdx.x == 0) where[blockIdx.x] = weft::detail::running_stackless_block != nullptr ? 1 : 2;
  };
  auto [on_coroutines, on_fibers] = on_both_executors([&] {
    device_buffer<int> d_where(3);
    REQUIRE(weft::launch(3, 32, kernel, d_where.p) == cudaSuccess);
    return d_where.to_host();
  });
  CHECK(on_coroutines == std::vector<int>{1, 1, 1});
  CHECK(on_fibers == std::vector<int>{2, 2, 2});
}
