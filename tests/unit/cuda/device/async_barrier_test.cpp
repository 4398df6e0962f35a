// Asynchronous barriers, copies and pipelines (<cuda/barrier>,
// <cuda/pipeline>, <cuda_pipeline.h>): the CUDA guide's patterns, phases and
// tokens, dropping out, completion functions, and the reports for waits
// that can never complete.
//
// A small block group stands in for cooperative_groups::thread_block in most
// tests, so that they only need what the headers under test need from a
// group; one test runs the guide's two copy examples as the guide writes
// them, with cooperative_groups.
//
// The kernels have external linkage so that reports can name them.
#include <doctest/doctest.h>
#include <weft/compat/cooperative_groups.h>
#include <weft/compat/cuda_pipeline.h>
#include <weft.hpp>
#include <weft/compat/cuda/pipeline>  // brings <cuda/barrier> and <cuda/std/barrier> too

#include <atomic>
#include <cassert>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <source_location>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "device_buffer.hpp"
#include "schedule_scope.hpp"
#include "stream_gates.hpp"
#include "text_checks.hpp"

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

namespace {

struct block_group {
  unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  unsigned thread_rank() const { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
  void sync(std::source_location where = std::source_location::current()) const { __syncthreads(where); }
};

std::string site(int line) { return std::string(__FILE__) + ":" + std::to_string(line) + ":"; }

// A launch that must fail: its report, after which the device is reset.
std::string failure_report() {
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  std::string report = weft::fault_message();
  CHECK(cudaDeviceReset() == cudaSuccess);
  return report;
}

std::vector<int> iota_vector(std::size_t n, int first = 0) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

}  // namespace

// ---- The guide's patterns ---------------------------------------------------

// "Asynchronous Data Copies using cuda::barrier": each block copies batches
// of the input into shared memory with memcpy_async over the block, waits at
// the barrier, and computes from shared memory.
__device__ void compute_doubles(int* out, const int* shared) {
  block_group block;
  // Reads another thread's element: only correct once the whole batch is in.
  unsigned i = block.thread_rank(), mirror = block.size() - 1 - i;
  out[i] = 2 * shared[mirror];
}

__global__ void guide_barrier_copy_kernel(int* global_out, const int* global_in, std::size_t batch_sz) {
  block_group block;
  int* shared = weft::dynamic_shared<int>();
  __shared__ block_barrier barrier;
  if (block.thread_rank() == 0) init(&barrier, block.size());
  block.sync();
  std::size_t grid_size = gridDim.x * block.size();
  for (std::size_t batch = 0; batch < batch_sz; ++batch) {
    std::size_t block_batch_idx = blockIdx.x * block.size() + grid_size * batch;
    cuda::memcpy_async(block, shared, global_in + block_batch_idx, sizeof(int) * block.size(), barrier);
    barrier.arrive_and_wait();
    compute_doubles(global_out + block_batch_idx, shared);
    block.sync();
  }
}

TEST_CASE("the guide's memcpy_async over a block with a cuda::barrier") {
  exact_workers pool(4);
  const unsigned blocks = 3, threads = 96, batches = 4, n = blocks * threads * batches;
  device_buffer<int> in(iota_vector(n, 1)), out(n);
  CHECK(weft::launch(weft::launch_config{blocks, threads, threads * sizeof(int)}, guide_barrier_copy_kernel, out.p,
                     in.p, std::size_t{batches}) == cudaSuccess);
  auto result = out.to_host();
  int wrong = 0;
  for (unsigned i = 0; i < n; ++i) {
    unsigned base = i / threads * threads, mirror = base + threads - 1 - i % threads;
    wrong += result[i] != 2 * static_cast<int>(mirror + 1);
  }
  CHECK(wrong == 0);
}

// "Producer-Consumer Pattern Using Asynchronous Barrier": the first warp
// fills two buffers in turn, the other warps consume them. ready[i] says
// buffer i may be filled, filled[i] that it has been.
__device__ void producer(block_barrier ready[], block_barrier filled[], int* buffer, const int* in, int n,
                         int buffer_len) {
  for (int i = 0; i < n / buffer_len; ++i) {
    ready[i % 2].arrive_and_wait();
    for (int j = static_cast<int>(threadIdx.x); j < buffer_len; j += warpSize)
      buffer[(i % 2) * buffer_len + j] = in[i * buffer_len + j];
    block_barrier::arrival_token token = filled[i % 2].arrive();
    (void)token;
  }
}

__device__ void consumer(block_barrier ready[], block_barrier filled[], const int* buffer, int* out, int n,
                         int buffer_len) {
  block_barrier::arrival_token token1 = ready[0].arrive();
  block_barrier::arrival_token token2 = ready[1].arrive();
  (void)token1;
  (void)token2;
  int consumers = static_cast<int>(blockDim.x) - warpSize, me = static_cast<int>(threadIdx.x) - warpSize;
  for (int i = 0; i < n / buffer_len; ++i) {
    filled[i % 2].arrive_and_wait();
    for (int j = me; j < buffer_len; j += consumers) out[i * buffer_len + j] = buffer[(i % 2) * buffer_len + j] + 1;
    block_barrier::arrival_token token = ready[i % 2].arrive();
    (void)token;
  }
}

// Each block hands over its own n elements of `in` and `out`.
__global__ void producer_consumer_kernel(int n, int buffer_len, const int* in, int* out) {
  in += blockIdx.x * n;
  out += blockIdx.x * n;
  int* buffer = weft::dynamic_shared<int>();
  __shared__ block_barrier bar[4];
  block_group block;
  if (block.thread_rank() < 4) init(bar + block.thread_rank(), block.size());
  block.sync();
  if (block.thread_rank() < static_cast<unsigned>(warpSize))
    producer(bar, bar + 2, buffer, in, n, buffer_len);
  else
    consumer(bar, bar + 2, buffer, out, n, buffer_len);
}

TEST_CASE("producer and consumer warps hand buffers over with arrive and wait") {
  const int n = 64 * 24, buffer_len = 64, blocks = 2;
  device_buffer<int> in(iota_vector(blocks * n)), out(blocks * n);
  CHECK(weft::launch(weft::launch_config{blocks, 128, 2 * buffer_len * sizeof(int)}, producer_consumer_kernel, n,
                     buffer_len, in.p, out.p) == cudaSuccess);
  auto result = out.to_host();
  int wrong = 0;
  for (int i = 0; i < blocks * n; ++i) wrong += result[i] != i + 1;
  CHECK(wrong == 0);
}

// "Asynchronous Data Copies using cuda::pipeline", multi-stage: a two-stage
// block pipeline fetches batch b+1 while batch b is computed.
__global__ void guide_pipeline_kernel(int* global_out, const int* global_in, std::size_t batch_sz) {
  block_group block;
  constexpr std::size_t stages_count = 2;
  int* shared = weft::dynamic_shared<int>();
  std::size_t shared_offset[stages_count] = {0, block.size()};
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope::thread_scope_block, stages_count> shared_state;
  auto pipeline = cuda::make_pipeline(block, &shared_state);
  std::size_t grid_size = gridDim.x * block.size();
  auto block_batch = [&](std::size_t batch) { return blockIdx.x * block.size() + grid_size * batch; };
  if (batch_sz == 0) return;
  pipeline.producer_acquire();
  cuda::memcpy_async(block, shared + shared_offset[0], global_in + block_batch(0), sizeof(int) * block.size(),
                     pipeline);
  pipeline.producer_commit();
  for (std::size_t batch = 1; batch < batch_sz; ++batch) {
    std::size_t compute_stage_idx = (batch - 1) % 2, copy_stage_idx = batch % 2;
    std::size_t global_idx = block_batch(batch);
    pipeline.producer_acquire();
    cuda::memcpy_async(block, shared + shared_offset[copy_stage_idx], global_in + global_idx,
                       sizeof(int) * block.size(), pipeline);
    pipeline.producer_commit();
    pipeline.consumer_wait();
    compute_doubles(global_out + block_batch(batch - 1), shared + shared_offset[compute_stage_idx]);
    pipeline.consumer_release();
  }
  pipeline.consumer_wait();
  compute_doubles(global_out + block_batch(batch_sz - 1), shared + shared_offset[(batch_sz - 1) % 2]);
  pipeline.consumer_release();
}

TEST_CASE("the guide's double-buffered pipeline copy into shared memory") {
  exact_workers pool(4);
  const unsigned blocks = 4, threads = 64, batches = 7, n = blocks * threads * batches;
  device_buffer<int> in(iota_vector(n, 1)), out(n);
  CHECK(weft::launch(weft::launch_config{blocks, threads, 2 * threads * sizeof(int)}, guide_pipeline_kernel, out.p,
                     in.p, std::size_t{batches}) == cudaSuccess);
  auto result = out.to_host();
  int wrong = 0;
  for (unsigned i = 0; i < n; ++i) {
    unsigned base = i / threads * threads, mirror = base + threads - 1 - i % threads;
    wrong += result[i] != 2 * static_cast<int>(mirror + 1);
  }
  CHECK(wrong == 0);
}

// The guide's two examples as it writes them (extern __shared__ arrays
// become weft::dynamic_shared, as the porting step does), with
// cooperative_groups' thread_block and grid_group.
__device__ void guide_compute(int* global_out, int const* shared_in) {
  auto block = cooperative_groups::this_thread_block();
  global_out[block.thread_rank()] = 2 * shared_in[block.size() - 1 - block.thread_rank()];
}

__global__ void with_barrier(int* global_out, int const* global_in, [[maybe_unused]] size_t size, size_t batch_sz) {
  auto grid = cooperative_groups::this_grid();
  auto block = cooperative_groups::this_thread_block();
  assert(size == batch_sz * grid.size());     // Exposition: input size fits batch_sz * grid_size
  int* shared = weft::dynamic_shared<int>();  // block.size() * sizeof(int) bytes
  __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> barrier;
  if (block.thread_rank() == 0) {
    init(&barrier, block.size());  // Friend function initializes barrier
  }
  block.sync();
  for (size_t batch = 0; batch < batch_sz; ++batch) {
    size_t block_batch_idx = block.group_index().x * block.size() + grid.size() * batch;
    cuda::memcpy_async(block, shared, global_in + block_batch_idx, sizeof(int) * block.size(), barrier);
    barrier.arrive_and_wait();  // Waits for all copies to complete
    guide_compute(global_out + block_batch_idx, shared);
    block.sync();
  }
}

template <typename T>
__global__ void example_kernel(T* global_out, T const* global_in, [[maybe_unused]] size_t size, size_t batch_sz) {
  auto grid = cooperative_groups::this_grid();
  auto block = cooperative_groups::this_thread_block();
  assert(size == batch_sz * grid.size());                  // Assume input size fits batch_sz * grid_size
  constexpr size_t stages_count = 2;                       // Pipeline with two stages
  T* shared = weft::dynamic_shared<T>();                   // stages_count * block.size() * sizeof(int) bytes
  size_t shared_offset[stages_count] = {0, block.size()};  // Offsets to each batch
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope::thread_scope_block, stages_count> shared_state;
  auto pipeline = cuda::make_pipeline(block, &shared_state);
  auto block_batch = [&](size_t batch) -> int { return block.group_index().x * block.size() + grid.size() * batch; };
  if (batch_sz == 0) return;
  pipeline.producer_acquire();
  cuda::memcpy_async(block, shared + shared_offset[0], global_in + block_batch(0), sizeof(T) * block.size(), pipeline);
  pipeline.producer_commit();
  for (size_t batch = 1; batch < batch_sz; ++batch) {
    size_t compute_stage_idx = (batch - 1) % 2;
    size_t copy_stage_idx = batch % 2;
    size_t global_idx = block_batch(batch);
    pipeline.producer_acquire();
    cuda::memcpy_async(block, shared + shared_offset[copy_stage_idx], global_in + global_idx, sizeof(T) * block.size(),
                       pipeline);
    pipeline.producer_commit();
    pipeline.consumer_wait();
    guide_compute(global_out + block_batch(batch - 1), shared + shared_offset[compute_stage_idx]);
    pipeline.consumer_release();
  }
  pipeline.consumer_wait();
  guide_compute(global_out + block_batch(batch_sz - 1), shared + shared_offset[(batch_sz - 1) % 2]);
  pipeline.consumer_release();
}

TEST_CASE("the guide's copy examples, with cooperative_groups") {
  exact_workers pool(4);
  const unsigned blocks = 4, threads = 64, batches = 5, n = blocks * threads * batches;
  device_buffer<int> in(iota_vector(n, 1)), out(n);
  SUBCASE("cuda::barrier") {
    CHECK(weft::launch(weft::launch_config{blocks, threads, threads * sizeof(int)}, with_barrier, out.p, in.p,
                       size_t{n}, size_t{batches}) == cudaSuccess);
  }
  SUBCASE("cuda::pipeline") {
    CHECK(weft::launch(weft::launch_config{blocks, threads, 2 * threads * sizeof(int)}, example_kernel<int>, out.p,
                       in.p, size_t{n}, size_t{batches}) == cudaSuccess);
  }
  auto result = out.to_host();
  int wrong = 0;
  for (unsigned i = 0; i < n; ++i) {
    unsigned base = i / threads * threads, mirror = base + threads - 1 - i % threads;
    wrong += result[i] != 2 * static_cast<int>(mirror + 1);
  }
  CHECK(wrong == 0);
}

// Without the pipeline's waits the consumers would read a stage before its
// producers filled it: producers (warp 0) dawdle with __nanosleep, and every
// consumer checks every element of the stage it waited for.
template <bool by_role>
__global__ void partitioned_pipeline_kernel(const int* in, int* errors, int rounds) {
  constexpr int stages = 3, width = 32;
  __shared__ int buffer[stages][width];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
  block_group block;
  bool is_producer = block.thread_rank() < 32;
  auto pipe = by_role ? cuda::make_pipeline(block, &state,
                                            is_producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer)
                      : cuda::make_pipeline(block, &state, std::size_t{32});
  for (int r = 0; r < rounds; ++r) {
    if (is_producer) {
      pipe.producer_acquire();
      __nanosleep(2000);
      cuda::memcpy_async(&buffer[r % stages][threadIdx.x], &in[r * width + threadIdx.x], cuda::aligned_size_t<4>(4),
                         pipe);
      pipe.producer_commit();
    } else {
      pipe.consumer_wait();
      for (int j = 0; j < width; ++j) atomicAdd(&errors[threadIdx.x], buffer[r % stages][j] != in[r * width + j]);
      pipe.consumer_release();
    }
  }
}

TEST_CASE("a partitioned pipeline: consumers see each stage whole, producers wait for releases") {
  const int rounds = 10;
  device_buffer<int> in(iota_vector(rounds * 32, 5)), errors(96);
  SUBCASE("producer count") {
    CHECK(weft::launch(2, 96, partitioned_pipeline_kernel<false>, in.p, errors.p, rounds) == cudaSuccess);
  }
  SUBCASE("roles") {
    CHECK(weft::launch(2, 96, partitioned_pipeline_kernel<true>, in.p, errors.p, rounds) == cudaSuccess);
  }
  auto result = errors.to_host();
  CHECK(std::accumulate(result.begin(), result.end(), 0) == 0);
}

// Thread 0 quits a unified pipeline at once, thread 1 after two rounds: the
// others' later rounds must not wait for them. quit() is true for exactly
// one thread, the last to leave.
__global__ void quitting_kernel(int* last, int* rounds_done) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(block_group{}, &state);
  int rounds = threadIdx.x == 0 ? 0 : threadIdx.x == 1 ? 2 : 6;
  for (int r = 0; r < rounds; ++r) {
    pipe.producer_acquire();
    pipe.producer_commit();
    pipe.consumer_wait();
    pipe.consumer_release();
    atomicAdd(rounds_done, 1);
  }
  atomicAdd(last, pipe.quit() ? 1 : 0);
}

TEST_CASE("threads that quit a pipeline are no longer waited for, and the last to quit is told") {
  device_buffer<int> last(1), rounds_done(1);
  CHECK(weft::launch(3, 16, quitting_kernel, last.p, rounds_done.p) == cudaSuccess);
  CHECK(last.to_host()[0] == 3);
  CHECK(rounds_done.to_host()[0] == 3 * (2 + 14 * 6));
}

// libcu++'s thread-scope example: one thread's own pipeline, waited with
// pipeline_consumer_wait_prior, and the primitives of <cuda_pipeline.h>.
__global__ void thread_pipeline_kernel(const std::uint64_t* global, std::uint64_t* out, int count) {
  std::uint64_t* shared = weft::dynamic_shared<std::uint64_t>() + threadIdx.x * count;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  for (int i = 0; i < count; ++i) {
    pipe.producer_acquire();
    cuda::memcpy_async(shared + i, global + i, sizeof(*global), pipe);
    pipe.producer_commit();
  }
  cuda::pipeline_consumer_wait_prior<1>(pipe);
  pipe.consumer_release();
  cuda::pipeline_consumer_wait_prior<0>(pipe);
  pipe.consumer_release();
  std::uint64_t sum = 0;
  for (int i = 0; i < count; ++i) sum += shared[i];
  out[threadIdx.x] = sum;
}

// libcu++'s pipeline_producer_commit example: a thread-scope pipeline's
// copies bound to a barrier.
__global__ void producer_commit_kernel(const std::uint64_t* global, std::uint64_t* out, int count) {
  std::uint64_t* shared = weft::dynamic_shared<std::uint64_t>();
  __shared__ cuda::barrier<cuda::thread_scope_block> barrier;
  init(&barrier, 1);
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  for (int i = 0; i < count; ++i) cuda::memcpy_async(shared + i, global + i, sizeof(*global), pipe);
  pipeline_producer_commit(pipe, barrier);
  barrier.arrive_and_wait();
  pipe.consumer_release();
  for (int i = 0; i < count; ++i) out[i] = shared[i] * 3;
}

__global__ void primitives_kernel(const int* global, int* out) {
  alignas(16) __shared__ int staging[4][4];
  for (int k = 0; k < 4; ++k) __pipeline_memcpy_async(&staging[k][0], &global[4 * k], 16, k == 3 ? 8 : 0);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  for (int k = 0; k < 16; ++k) out[k] = staging[k / 4][k % 4];
}

__global__ void bad_primitive_kernel(const int* global) {
  alignas(16) __shared__ int staging[4];
  __pipeline_memcpy_async(staging, global, 12);
}

TEST_CASE("a thread-scope pipeline and the pipeline primitives") {
  std::vector<std::uint64_t> host(8);
  std::iota(host.begin(), host.end(), 1);
  device_buffer<std::uint64_t> global(host), sums(4);
  CHECK(weft::launch(weft::launch_config{1, 4, 4 * 8 * sizeof(std::uint64_t)}, thread_pipeline_kernel, global.p, sums.p,
                     8) == cudaSuccess);
  CHECK(sums.to_host() == std::vector<std::uint64_t>(4, 36));

  device_buffer<std::uint64_t> tripled(8);
  CHECK(weft::launch(weft::launch_config{1, 1, 8 * sizeof(std::uint64_t)}, producer_commit_kernel, global.p, tripled.p,
                     8) == cudaSuccess);
  CHECK(tripled.to_host() == std::vector<std::uint64_t>{3, 6, 9, 12, 15, 18, 21, 24});

  device_buffer<int> in(iota_vector(16, 1)), out(16);
  CHECK(weft::launch(1, 1, primitives_kernel, in.p, out.p) == cudaSuccess);
  std::vector<int> expected = iota_vector(16, 1);
  expected[14] = expected[15] = 0;  // the last copy zero-fills 8 of its 16 bytes
  CHECK(out.to_host() == expected);

  CHECK(weft::launch(1, 1, bad_primitive_kernel, in.p) == cudaSuccess);
  std::string report = failure_report();
  INFO(report);
  CHECK(contains(report, "__pipeline_memcpy_async with size_and_align 12"));
  CHECK(contains(report, "must be 4, 8 or 16"));
}

// ---- Phases, tokens, dropping out, completion ------------------------------

// Thread 0 watches a phase complete arrival by arrival: its token's phase is
// not over until every thread has arrived, counting arrive(n) as n.
__global__ void token_kernel(int* seen) {
  __shared__ block_barrier bar;
  __shared__ block_barrier::arrival_token first;
  if (threadIdx.x == 0) init(&bar, 8);  // 6 threads: one arrives with 3
  __syncthreads();
  if (threadIdx.x == 0) {
    first = bar.arrive();
    seen[0] = bar.weft_phase_completed(first);
  }
  __syncthreads();
  if (threadIdx.x == 5) {
    block_barrier::arrival_token token = bar.arrive(3);
    seen[1] = bar.weft_phase_completed(token);
  }
  __syncthreads();
  if (threadIdx.x == 0) seen[2] = bar.weft_phase_completed(first);  // 4 of 8 so far
  __syncthreads();  // the last arrivals come after that look, in any order of threads
  if (threadIdx.x >= 1 && threadIdx.x <= 4) {
    block_barrier::arrival_token token = bar.arrive();
    bar.wait(std::move(token));
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    seen[3] = bar.weft_phase_completed(first);
    bar.wait(block_barrier::arrival_token(first));  // a completed phase: returns at once
    seen[4] = 1;
  }
}

TEST_CASE("an arrival token's phase completes with the last expected arrival") {
  static_assert(std::is_trivially_default_constructible_v<block_barrier>, "usable as __shared__ without construction");
  static_assert(block_barrier::max() >= 1024);
  device_buffer<int> seen(5);
  CHECK(weft::launch(1, 6, token_kernel, seen.p) == cudaSuccess);
  CHECK(seen.to_host() == std::vector<int>{0, 0, 0, 1, 1});
}

// Counts phases, and checks that no thread got past the phase before the
// completion function ran.
struct phase_counter {
  int* phases;
  void operator()() noexcept { ++*phases; }
};

__global__ void completion_kernel(int* phases, int* errors, int rounds) {
  __shared__ cuda::barrier<cuda::thread_scope_block, phase_counter> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x, phase_counter{phases + blockIdx.x});
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x % 3 == 0) __nanosleep(1000);  // arrive in a different order every time
    bar.arrive_and_wait();
    errors[blockIdx.x] += phases[blockIdx.x] != r + 1;
  }
}

TEST_CASE("the completion function runs once per phase, before the waiters go on") {
  device_buffer<int> phases(3), errors(3);
  CHECK(weft::launch(3, 70, completion_kernel, phases.p, errors.p, 5) == cudaSuccess);
  CHECK(phases.to_host() == std::vector<int>{5, 5, 5});
  CHECK(errors.to_host() == std::vector<int>{0, 0, 0});
}

// Threads 32 and up do one phase and drop out; the others go on alone, so
// their phases must complete without them.
__global__ void drop_kernel(int* phases, int* late) {
  __shared__ cuda::barrier<cuda::thread_scope_block, phase_counter> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x, phase_counter{phases});
  __syncthreads();
  if (threadIdx.x >= 32) {
    __nanosleep(5000);
    bar.arrive_and_drop();
    return;
  }
  bar.arrive_and_wait();
  *late += *phases != 1;  // the first phase needed the dropping threads' arrivals
  for (int r = 0; r < 4; ++r) bar.arrive_and_wait();
}

TEST_CASE("arrive_and_drop counts once, and later phases expect one arrival fewer") {
  device_buffer<int> phases(1), late(1);
  CHECK(weft::launch(1, 64, drop_kernel, phases.p, late.p) == cudaSuccess);
  CHECK(phases.to_host()[0] == 5);
  CHECK(late.to_host()[0] == 0);
}

// cuda::std::barrier is a system-scope cuda::barrier, usable with its
// constructor where it is not shared.
__global__ void std_barrier_kernel(int* phases) {
  __shared__ cuda::std::barrier<phase_counter> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x, phase_counter{phases});
  __syncthreads();
  bar.arrive_and_wait();
  bar.arrive_and_wait();
  if (threadIdx.x == 0) {
    cuda::std::barrier<> own(1);
    own.arrive_and_wait();
  }
}

TEST_CASE("cuda::std::barrier") {
  static_assert(std::is_same_v<cuda::std::barrier<>, cuda::barrier<cuda::thread_scope_system>>);
  device_buffer<int> phases(1);
  CHECK(weft::launch(1, 40, std_barrier_kernel, phases.p) == cudaSuccess);
  CHECK(phases.to_host()[0] == 2);
}

TEST_CASE("cuda::std::barrier between host threads") {
  int phases = 0;
  cuda::std::barrier<phase_counter> bar(4, phase_counter{&phases});
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int r = 0; r < 50; ++r) {
        bar.arrive_and_wait();
        wrong += phases != 2 * r + 1;
        bar.arrive_and_wait();  // nobody completes the next phase before all have checked
      }
    });
  for (auto& t : threads) t.join();
  CHECK(phases == 100);
  CHECK(wrong == 0);
}

// A device-scope barrier in global memory, shared by all blocks of a grid
// that fits the workers: every block writes, meets the others, then reads
// what they wrote.
__global__ void init_device_barrier(cuda::barrier<cuda::thread_scope_device>* bar, int count) { init(bar, count); }

__global__ void cross_block_kernel(cuda::barrier<cuda::thread_scope_device>* bar, int* slots, int* sums) {
  if (threadIdx.x == 0) slots[blockIdx.x] = static_cast<int>(blockIdx.x) + 1;
  bar->arrive_and_wait();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += slots[b];
    sums[blockIdx.x] = sum;
  }
}

TEST_CASE("a device-scope barrier in global memory joins blocks running on different workers") {
  exact_workers pool(4);
  device_buffer<cuda::barrier<cuda::thread_scope_device>> bar(1);
  device_buffer<int> slots(4), sums(4);
  CHECK(weft::launch(1, 1, init_device_barrier, bar.p, 4 * 32) == cudaSuccess);
  CHECK(weft::launch(4, 32, cross_block_kernel, bar.p, slots.p, sums.p) == cudaSuccess);
  CHECK(sums.to_host() == std::vector<int>(4, 10));
}

// ---- Waits that can never complete -----------------------------------------

__global__ void too_few_arrivals_kernel() {
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x + 1);
  __syncthreads();
  bar.arrive_and_wait();
}
constexpr int too_few_line = __LINE__ - 2;

TEST_CASE("a barrier that expects more arrivals than there are threads is a reported deadlock") {
  CHECK(weft::launch(1, 32, too_few_arrivals_kernel) == cudaSuccess);
  std::string report = failure_report();
  INFO(report);
  CHECK(contains(report, "too_few_arrivals_kernel"));
  CHECK(contains(report, "deadlock"));
  CHECK(contains(report,
                 "thread (0,0,0) to thread (31,0,0) wait at cuda::barrier::arrive_and_wait (" + site(too_few_line)));
  CHECK(contains(report, "in phase 0: 1 of 33 arrivals missing"));
}

// Thread 7 leaves without arriving; half the others wait at the barrier and
// half at __syncthreads, which can never complete either.
__global__ void mixed_wait_kernel() {
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  if (threadIdx.x == 7) return;
  if (threadIdx.x < 16) {
    block_barrier::arrival_token token = bar.arrive();
    bar.wait(std::move(token));
  } else {
    __syncthreads();
  }
}
constexpr int mixed_wait_line = __LINE__ - 5;
constexpr int mixed_sync_line = __LINE__ - 4;

TEST_CASE("a deadlock report names the threads at barriers of both kinds, and those that exited") {
  CHECK(weft::launch(1, 32, mixed_wait_kernel) == cudaSuccess);
  std::string report = failure_report();
  INFO(report);
  CHECK(contains(report, "thread (0,0,0) to thread (6,0,0) wait at cuda::barrier::wait (" + site(mixed_wait_line)));
  CHECK(contains(report, "thread (8,0,0) to thread (15,0,0) wait at cuda::barrier::wait"));
  CHECK(contains(report, "17 of 32 arrivals missing"));
  CHECK(contains(report, "thread (16,0,0) to thread (31,0,0) wait at __syncthreads (" + site(mixed_sync_line)));
  CHECK(contains(report, "1 of 32 threads exited"));
}

__global__ void too_many_arrivals_kernel() {
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, 4);
  __syncthreads();
  (void)bar.arrive(threadIdx.x == 2 ? 3 : 1);  // after two arrivals, three exceed the phase's four
}

__global__ void uninitialised_barrier_kernel(cuda::barrier<cuda::thread_scope_device>* bar) { bar->arrive_and_wait(); }

TEST_CASE("arrivals a barrier does not expect fail the launch") {
  // Pinned to the forward schedule: the arrival that overflows the phase depends on the order of arrivals
  // (WEFT_SCHEDULE).
  auto pinned = forward_schedule();
  CHECK(weft::launch(1, 4, too_many_arrivals_kernel) == cudaSuccess);
  std::string report = failure_report();
  INFO(report);
  CHECK(contains(report, "thread (2,0,0)"));
  CHECK(contains(report, "more arrivals than the barrier was initialised for"));

  device_buffer<cuda::barrier<cuda::thread_scope_device>> zeroed(1);
  CHECK(weft::launch(1, 1, uninitialised_barrier_kernel, zeroed.p) == cudaSuccess);
  report = failure_report();
  INFO(report);
  CHECK(contains(report, "never initialised"));
}

// The producer of a unified block pipeline skips its commit on thread 3:
// every consumer_wait is stuck, and the threads are unwound cleanly (the
// pipelines' destructors run).
__global__ void stuck_pipeline_kernel(const int* in) {
  __shared__ int buffer[64];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  block_group block;
  auto pipe = cuda::make_pipeline(block, &state);
  pipe.producer_acquire();
  cuda::memcpy_async(block, buffer, in, sizeof(buffer), pipe);
  if (threadIdx.x != 3) pipe.producer_commit();
  pipe.consumer_wait();
}
constexpr int stuck_wait_line = __LINE__ - 2;

TEST_CASE("a pipeline stage that is never committed is a reported deadlock") {
  device_buffer<int> in(64);
  CHECK(weft::launch(1, 8, stuck_pipeline_kernel, in.p) == cudaSuccess);
  std::string report = failure_report();
  INFO(report);
  CHECK(contains(report, "deadlock"));
  CHECK(contains(report,
                 "thread (0,0,0) to thread (7,0,0) wait at cuda::pipeline::consumer_wait (" + site(stuck_wait_line)));
  CHECK(contains(report, "1 of 8 producers have not committed"));
}

__global__ void consumer_acquires_kernel() {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(block_group{}, &state, std::size_t{1});
  if (threadIdx.x == 1) pipe.producer_acquire();
}

TEST_CASE("a consumer of a partitioned pipeline that acquires fails the launch") {
  CHECK(weft::launch(1, 2, consumer_acquires_kernel) == cudaSuccess);
  std::string report = failure_report();
  INFO(report);
  CHECK(contains(report, "thread (1,0,0): cuda::pipeline::producer_acquire called by a consumer thread"));
}

__global__ void misaligned_copy_kernel(const int* in) {
  __shared__ block_barrier bar;
  alignas(16) __shared__ int buffer[8];
  if (threadIdx.x == 0) init(&bar, 1);
  cuda::memcpy_async(buffer, in + 1, cuda::aligned_size_t<16>(16), bar);
}

TEST_CASE("an aligned_size_t whose promise is false fails the launch") {
  device_buffer<int> in(16);
  CHECK(weft::launch(1, 1, misaligned_copy_kernel, in.p) == cudaSuccess);
  std::string report = failure_report();
  INFO(report);
  CHECK(contains(report, "aligned_size_t<16>"));
}

// Two blocks share a device-scope barrier that expects a third: the blocks
// wait for other blocks, which weft cannot tell apart from slow ones, so the
// wait fails after the time limit instead of hanging.
__global__ void cross_block_stuck_kernel(cuda::barrier<cuda::thread_scope_device>* bar) {
  if (threadIdx.x == 0) bar->arrive_and_wait();
}
constexpr int cross_block_stuck_line = __LINE__ - 2;

TEST_CASE("a cross-block wait that sees no arrival for the time limit fails the launch") {
  exact_workers pool(4);
  weft::set_cross_block_wait_timeout(std::chrono::milliseconds(300));
  device_buffer<cuda::barrier<cuda::thread_scope_device>> bar(1);
  CHECK(weft::launch(1, 1, init_device_barrier, bar.p, 3) == cudaSuccess);
  auto start = std::chrono::steady_clock::now();
  CHECK(weft::launch(2, 32, cross_block_stuck_kernel, bar.p) == cudaSuccess);
  std::string report = failure_report();
  INFO(report);
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(300));
  CHECK(contains(report, "cuda::barrier::arrive_and_wait (" + site(cross_block_stuck_line)));
  CHECK(contains(report, "no thread arrived for 300 ms"));
  CHECK(contains(report, "1 of 3 arrivals missing"));
  weft::set_cross_block_wait_timeout(std::chrono::seconds(10));
}
