// Kernels with and without the races the race check must find, run in one
// program built with WEFT_SANITIZE=race (tests/race/CMakeLists.txt). Each
// case says how many hazards it must add; the program prints PASS or FAIL,
// and its output (the reports) is checked by check_race_output.cmake.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cuda/barrier>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <weft/stackless_kernel.hpp>

#include "weft/detail/checks/race_check.hpp"

namespace cg = cooperative_groups;

constexpr int TILE = 16;

// The CUDA guide's shared-memory matrix multiplication (C = A * B, n x n,
// n a multiple of TILE); `barrier_after_use` false drops the second
// __syncthreads, so the next tile overwrites As and Bs while others read.
__global__ void tiled_matmul(const float* A, const float* B, float* C, int n, bool barrier_after_use) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < n / TILE; ++t) {
    // race-line: matmul_write_a
    As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
    // race-line: matmul_write_b
    Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
    __syncthreads();
    // race-line: matmul_read
    for (int k = 0; k < TILE; ++k) sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    if (barrier_after_use) __syncthreads();
  }
  C[row * n + col] = sum;
}

// The tree reduction of the CUDA samples; `barrier_in_loop` false drops the
// barrier between its steps.
__global__ void block_sum(const float* in, float* out, bool barrier_in_loop) {
  __shared__ float partial[256];
  unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    // race-line: block_sum_step
    if (t < s) partial[t] += partial[t + s];
    if (barrier_in_loop) __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// Two blocks write the same global word.
__global__ void blocks_write_one_word(int* word) {
  // race-line: blocks_write_one_word
  if (threadIdx.x == 0) *word = blockIdx.x;
}

// Each block writes its own word: no race.
__global__ void blocks_write_own_words(int* words) {
  if (threadIdx.x == 0) words[blockIdx.x] = blockIdx.x;
}

// Warp-synchronous: lanes read a neighbour's shared slot, with or without
// __syncwarp between the write and the read.
__global__ void warp_neighbours(int* out, bool syncwarp) {
  __shared__ int slot[32];
  slot[threadIdx.x] = threadIdx.x;
  if (syncwarp) __syncwarp();
  out[threadIdx.x] = slot[(threadIdx.x + 1) % 32];
}

// The same with a shuffle between the write and the read, which orders the
// lanes it names as __syncwarp does. With `whole_warp` false each half-warp
// shuffles on its own, so lanes 15 and 31 read slots that the other half
// wrote, ordered by nothing.
__global__ void shuffle_neighbours(int* out, bool whole_warp) {
  __shared__ int slot[32];
  unsigned lane = threadIdx.x;
  slot[lane] = lane;
  unsigned mask = whole_warp ? 0xffffffffu : (lane < 16 ? 0x0000ffffu : 0xffff0000u);
  int below = __shfl_down_sync(mask, static_cast<int>(lane), 1, 16);
  out[lane] = slot[(lane + 1) % 32] + below;
}

// Atomics on one word from every thread of every block: never a race.
__global__ void count_with_atomics(int* counter) {
  atomicAdd(counter, 1);
  __shared__ int local;
  if (threadIdx.x == 0) local = 0;
  __syncthreads();
  atomicAdd(&local, 1);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(counter + 1, local);
}

// The same as a stackless kernel (weft's native spelling, what weft-port
// writes for a kernel it converts): neither the atomics' bookkeeping nor
// the stackless executor's, inlined into its coroutine body, may be taken
// for the kernel's accesses.
__global__ weft::stackless_kernel count_with_atomics_stackless(int* counter) {
  atomicAdd(counter, 1);
  __shared__ int local;
  if (threadIdx.x == 0) local = 0;
  co_await weft::syncthreads();
  atomicAdd(&local, 1);
  co_await weft::syncthreads();
  if (threadIdx.x == 0) atomicAdd(counter + 1, local);
}

// One writer per launch: launched twice in one stream, the launches are
// ordered and never race.
__global__ void write_word(int* word, int value) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *word = value;
}
__global__ void read_word(const int* word, int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = *word; }

// Fence-plus-flag, as the threadFenceReduction sample: each block writes a
// partial result, fences, and counts itself with an atomic; the last block
// reads every partial result.
__global__ void last_block_sums(int* partial, unsigned* arrived, int* total) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = blockIdx.x + 1;
    __threadfence();
    last = atomicInc(arrived, gridDim.x) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += partial[b];
    *total = sum;
  }
}

// grid.sync() orders the blocks' writes before the reads after it.
__global__ void grid_exchange(int* words, int* out) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) words[blockIdx.x] = blockIdx.x;
  grid.sync();
  if (threadIdx.x == 0) out[blockIdx.x] = words[(blockIdx.x + 1) % gridDim.x];
}

// A dynamic shared buffer read across warps without a barrier.
__global__ void dynamic_shared_across_warps(int* out, bool barrier) {
  extern __shared__ int buffer[];
  buffer[threadIdx.x] = threadIdx.x;
  if (barrier) __syncthreads();
  out[threadIdx.x] = buffer[(threadIdx.x + 32) % blockDim.x];
}

// A lock made of atomics (warp_probe's spin_lock): every thread of every
// block takes it with atomicCAS, bumps a counter and hands it back with
// atomicExch. With the __threadfence before the release, CUDA orders each
// holder's accesses before the next holder's; without it, nothing does.
__global__ void locked_counter(int* lock, int* counter, bool fence) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  *counter = *counter + 1;
  if (fence) __threadfence();
  atomicExch(lock, 0);
}

// The same lock in __shared__ memory, held by the threads of one block, with
// __threadfence_block before the release.
__global__ void shared_locked_counter(int* counter) {
  __shared__ int lock;
  if (threadIdx.x == 0) lock = 0;
  __syncthreads();
  while (atomicCAS(&lock, 0, 1) != 0) {
  }
  counter[blockIdx.x] = counter[blockIdx.x] + 1;
  __threadfence_block();
  atomicExch(&lock, 0);
}

// A cuda::barrier's completion function writes what every thread reads after
// the phase: CUDA runs it after the last arrival and before any wait returns.
struct race_phase_counter {
  int* phases;
  __device__ void operator()() noexcept { ++*phases; }
};
__global__ void barrier_completion_count(int* phases, int* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block, race_phase_counter> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x, race_phase_counter{phases + blockIdx.x});
  __syncthreads();
  for (int round = 0; round < 3; ++round) {
    bar.arrive_and_wait();
    out[blockIdx.x * blockDim.x + threadIdx.x] = phases[blockIdx.x];
  }
}

// Warp-specialised, as CUTLASS synchronises warps: warp 0 writes a row and
// arrives at named barrier 1 without waiting; warp 1 waits there, reads the
// row and arrives at barrier 2, where warp 0 waits before writing again. A
// completed named barrier orders what its arrivals did before it.
__device__ void race_named_sync(int id) { asm volatile("bar.sync %0, 64;" ::"r"(id) : "memory"); }
__device__ void race_named_arrive(int id) { asm volatile("bar.arrive %0, 64;" ::"r"(id) : "memory"); }
__global__ void named_handover(int* out) {
  __shared__ int row[32];
  int lane = threadIdx.x % 32;
  for (int round = 0; round < 4; ++round) {
    if (threadIdx.x < 32) {
      if (round > 0) race_named_sync(2);
      row[lane] = round;
      race_named_arrive(1);
    } else {
      race_named_sync(1);
      out[(blockIdx.x * 4 + round) * 32 + lane] = row[lane];
      race_named_arrive(2);
    }
  }
}

// Warps 0 and 1 meet at named barrier 1; warp 2 never arrives there, so
// its read of warp 0's write is ordered by nothing (a race) unless it too
// waits, at barrier 2 with warp 0 (no race).
__global__ void named_bystander(int* out, bool bystander_waits) {
  __shared__ int row[32];
  int lane = threadIdx.x % 32;
  // race-line: named_bystander_write
  if (threadIdx.x < 32) row[lane] = lane;
  if (threadIdx.x < 64) race_named_sync(1);
  if (threadIdx.x < 32 && bystander_waits) race_named_arrive(2);
  if (threadIdx.x >= 64 && bystander_waits) race_named_sync(2);
  // race-line: named_bystander_read
  if (threadIdx.x >= 32) out[blockIdx.x * 96 + threadIdx.x] = row[lane];
}

// The handover again, with its named barriers in the kernel's own body:
// weft-port makes the kernel stackless and awaits weft::bar_sync and
// weft::bar_arrive in it. Warp 0 fills a __shared__ row and a global one
// and arrives at barrier 1; warp 1 waits there, reads both and arrives at
// barrier 2, where warp 0 waits before the next round. With
// `consumer_waits` false warp 1 only arrives at barrier 1 (bar.arrive
// acquires nothing), so its reads race with warp 0's writes (one round).
__global__ void named_inline_handover(int* staged, int* out, bool consumer_waits) {
  __shared__ int row[32];
  int lane = threadIdx.x % 32;
  int* global_row = staged + blockIdx.x * 32;
  int rounds = consumer_waits ? 4 : 1;
  for (int round = 0; round < rounds; ++round) {
    if (threadIdx.x < 32) {
      if (round > 0) asm volatile("bar.sync 2, 64;");
      row[lane] = round;
      global_row[lane] = round;
      asm volatile("bar.arrive 1, 64;");
    } else {
      if (consumer_waits)
        asm volatile("bar.sync 1, 64;");
      else
        asm volatile("bar.arrive 1, 64;");
      out[(blockIdx.x * 4 + round) * 32 + lane] = row[lane] + global_row[lane];
      if (round + 1 < rounds) asm volatile("bar.arrive 2, 64;");
    }
  }
}

// bar.arrive releases what its warp did before it, not after: warp 0
// arrives at barrier 1 and writes on, before warp 1, which waits there,
// arrives and reads what warp 0 wrote after its arrival (a race).
__global__ void named_write_after_arrive(int* staged, int* out) {
  int lane = threadIdx.x % 32;
  int* global_row = staged + blockIdx.x * 32;
  if (threadIdx.x < 32) {
    asm volatile("bar.arrive 1, 64;");
    // race-line: named_write_after_arrive_write
    global_row[lane] = lane;
  } else {
    asm volatile("bar.sync 1, 64;");
    // race-line: named_write_after_arrive_read
    out[blockIdx.x * 32 + lane] = global_row[lane];
  }
}

// named_bystander's race, inline: warp 2 reads what warp 0 wrote before
// named barrier 1, which only warps 0 and 1 meet at.
__global__ void named_inline_bystander(int* out) {
  __shared__ int row[32];
  int lane = threadIdx.x % 32;
  // race-line: named_inline_bystander_write
  if (threadIdx.x < 32) row[lane] = lane + 1;
  if (threadIdx.x < 64) asm volatile("bar.sync 1, 64;");
  // race-line: named_inline_bystander_read
  if (threadIdx.x >= 32) out[blockIdx.x * 96 + threadIdx.x] = row[lane];
}

// Two blocks on two workers share a global shadow page: block 0 writes a
// word (its worker now holds the page) and spins on a flag in host memory,
// which the check does not see, until block 1 has written the same word
// (a race: nothing orders the two writes) and set the flag. Block 1's
// worker must get the page from a holder that makes no traced access, so
// answers no ask, to check its write. Each spin gives up after 20 s, so
// that a block left alone does not hang the test.
__device__ bool race_spin_until_set(const std::atomic<int>& flag) {
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (flag.load() == 0)
    if (std::chrono::steady_clock::now() > give_up) return false;
  return true;
}
__global__ void page_holder_spins_unseen(int* words, std::atomic<int>* unseen_flags, int* timed_out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    // race-line: page_holder_block0_write
    words[0] = 1;
    unseen_flags[0] = 1;
    if (!race_spin_until_set(unseen_flags[1])) atomicAdd(timed_out, 1);
  } else {
    if (!race_spin_until_set(unseen_flags[0])) atomicAdd(timed_out, 1);
    // race-line: page_holder_block1_write
    words[0] = 2;
    unseen_flags[1] = 1;
  }
}

// (Included here, not above, so that the lines above keep the numbers that
// race_check.sh names.)
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>

#include <cuda/pipeline>

// Asynchronous copies: on a GPU the copy runs until the wait that completes
// it, so reading the destination or overwriting the source before that wait
// races with it (weft copies at once; the race check keeps the copy in flight).
constexpr int COPY_TILE = 64;  // elements, one per thread of the block
enum async_copy_bug { no_copy_bug, read_before_wait, source_overwritten };

// The cuda-samples' globalToShmemAsyncCopy shape: a block-scope pipeline of
// two stages, the next tile copied while the current one is used.
__global__ void pipelined_tiles(const float* in, float* out, int tiles, int bug) {
  __shared__ float tile[2][COPY_TILE];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  cg::thread_block block = cg::this_thread_block();
  cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
  pipe.producer_acquire();
  // race-line: pipelined_tiles_first_copy
  cuda::memcpy_async(block, tile[0], in, sizeof(float) * COPY_TILE, pipe);
  pipe.producer_commit();
  float sum = 0;
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles) {
      pipe.producer_acquire();
      // race-line: pipelined_tiles_next_copy
      cuda::memcpy_async(block, tile[(t + 1) % 2], in + (t + 1) * COPY_TILE, sizeof(float) * COPY_TILE, pipe);
      pipe.producer_commit();
    }
    // race-line: pipelined_tiles_early_read
    if (bug == read_before_wait) sum += tile[t % 2][threadIdx.x];
    pipe.consumer_wait();
    sum += tile[t % 2][COPY_TILE - 1 - threadIdx.x];
    pipe.consumer_release();
  }
  out[blockIdx.x * COPY_TILE + threadIdx.x] = sum;
}

// The CUDA guide's block copy with a cuda::barrier; the source is written
// before the wait (a race) or after it, another thread's word (none).
__global__ void barrier_staged(float* data, float* out, int bug) {
  __shared__ float tile[COPY_TILE];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  cg::thread_block block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  float* source = data + blockIdx.x * COPY_TILE;
  // race-line: barrier_staged_copy
  cuda::memcpy_async(block, tile, source, sizeof(float) * COPY_TILE, bar);
  // race-line: barrier_staged_source_write
  if (bug == source_overwritten) source[threadIdx.x] = 0;
  bar.arrive_and_wait();
  out[blockIdx.x * COPY_TILE + threadIdx.x] = tile[COPY_TILE - 1 - threadIdx.x];
  if (bug == no_copy_bug) source[COPY_TILE - 1 - threadIdx.x] = 1;
}

// Each thread stages its own word with the pipeline primitives.
__global__ void primitive_staged(const int* in, int* out, int bug) {
  __shared__ __align__(16) int staged[COPY_TILE];
  // race-line: primitive_staged_copy
  __pipeline_memcpy_async(&staged[threadIdx.x], &in[blockIdx.x * COPY_TILE + threadIdx.x], sizeof(int));
  __pipeline_commit();
  // race-line: primitive_staged_early_read
  int early = bug == read_before_wait ? staged[threadIdx.x] : 0;
  __pipeline_wait_prior(0);
  out[blockIdx.x * COPY_TILE + threadIdx.x] = staged[threadIdx.x] + early;
}

// A block's cg::memcpy_async, read mirrored (another thread's share).
__global__ void group_staged(const int* in, int* out, int bug) {
  __shared__ int staged[COPY_TILE];
  cg::thread_block block = cg::this_thread_block();
  // race-line: group_staged_copy
  cg::memcpy_async(block, staged, in + blockIdx.x * COPY_TILE, sizeof(int) * COPY_TILE);
  int early = bug == read_before_wait ? staged[COPY_TILE - 1 - threadIdx.x] : 0;
  cg::wait(block);
  out[blockIdx.x * COPY_TILE + threadIdx.x] = staged[COPY_TILE - 1 - threadIdx.x] + early;
}

// A writer and a reader in two streams: CUDA orders them only by an event,
// the host's synchronisation or the legacy stream between blocking
// streams, whatever order weft runs them in. A second pair for the
// non-blocking streams' case, whose hazard has source lines of its own.
__global__ void stream_writer(int* word) {
  // race-line: stream_writer_write
  if (threadIdx.x == 0) *word = 1;
}
// race-line: stream_reader_read
__global__ void stream_reader(const int* word, int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = *word; }
__global__ void nonblocking_writer(int* word) {
  if (threadIdx.x == 0) *word = 2;
}
__global__ void nonblocking_reader(const int* word, int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = *word; }
__global__ void legacy_stream_step() {}

// locked_counter's lock with __threadfence_system before the release: a
// system fence orders at least what __threadfence does.
__global__ void system_fenced_counter(int* lock, int* counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  *counter = *counter + 1;
  __threadfence_system();
  atomicExch(lock, 0);
}

// libcu++'s atomics (cuda::std::atomic is a system-scope cuda::atomic):
// a flag stored with release and loaded with acquire hands over what the
// storing thread wrote before it, between blocks and within one; stored
// relaxed, with no fence before it, it hands over nothing (CUDA's memory
// model: the reader's read of `data` races with the write).
#include <cuda/atomic>

__global__ void std_atomic_between_blocks(int* data, cuda::std::atomic<int>* flag, int* out, bool release) {
  if (blockIdx.x == 0) {
    // race-line: std_atomic_between_blocks_write
    data[0] = 42;
    flag->store(1, release ? cuda::std::memory_order_release : cuda::std::memory_order_relaxed);
  } else {
    while (flag->load(cuda::std::memory_order_acquire) == 0) {
    }
    // race-line: std_atomic_between_blocks_read
    out[0] = data[0];
  }
}
__global__ void std_atomic_in_block(int* data, cuda::std::atomic<int>* flag, int* out, bool release) {
  if (threadIdx.x == 0) {
    // race-line: std_atomic_in_block_write
    data[1] = 42;
    flag->store(1, release ? cuda::std::memory_order_release : cuda::std::memory_order_relaxed);
  } else {  // every other thread spins, each letting the others run now and then
    while (flag->load(cuda::std::memory_order_acquire) == 0) {
    }
    // race-line: std_atomic_in_block_read
    if (threadIdx.x == blockDim.x - 1) out[1] = data[1];
  }
}
// The same through __device__ variables, the flag counting rounds.
__device__ int std_atomic_device_data;
__device__ cuda::std::atomic<int> std_atomic_device_flag;
__global__ void std_atomic_device_variables(int round, int* out) {
  if (blockIdx.x == 0) {
    std_atomic_device_data = round;
    std_atomic_device_flag.store(round, cuda::std::memory_order_release);
  } else {
    while (std_atomic_device_flag.load(cuda::std::memory_order_acquire) != round) {
    }
    out[2] = std_atomic_device_data;
  }
}
// libcu++'s MessagePassing example: a release fence of device scope before
// a relaxed test_and_set, and a relaxed wait followed by an acquire fence;
// without the release fence, nothing orders the write before the read.
__global__ void std_atomic_flag_fenced(int* data, cuda::std::atomic_flag* flag, int* out, bool fence) {
  if (blockIdx.x == 0) {
    // race-line: std_atomic_flag_fenced_write
    data[2] = 42;
    if (fence) cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
    flag->test_and_set(cuda::std::memory_order_relaxed);
    flag->notify_one();
  } else {
    flag->wait(false, cuda::std::memory_order_relaxed);
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
    // race-line: std_atomic_flag_fenced_read
    out[3] = data[2];
  }
}
// A kernel and a copy or set in two streams: a copy engine runs beside the
// kernels of other streams, so only stream order, an event or the host
// orders them (cudaMemcpyAsync, cudaMemsetAsync).
__global__ void copy_reader(const int* from, int* out) {
  // race-line: copy_reader_read
  out[threadIdx.x] = from[threadIdx.x];
}
__global__ void set_reader(const int* from, int* out) {
  // race-line: set_reader_read
  out[threadIdx.x] = from[threadIdx.x];
}
__global__ void copy_source_writer(int* to) {
  // race-line: copy_source_writer_write
  to[threadIdx.x] = threadIdx.x;
}
// A graph's memset and memcpy nodes, which its edges order with its
// kernel nodes as they order kernels: a memset node and a kernel node that
// reads what it sets, with no edge between them, race; so do a copy and a
// kernel captured in two streams of one capture that no event joins
// between them.
__global__ void graph_set_reader(const int* from, int* out) {
  // race-line: graph_set_reader_read
  out[threadIdx.x] = from[threadIdx.x];
}
__global__ void graph_copy_reader(const int* from, int* out) {
  // race-line: graph_copy_reader_read
  out[threadIdx.x] = from[threadIdx.x];
}

// Three launches, the second ordered after the first, the third after
// neither: the first and the third race whatever the second did between
// them. And two launches more than 1024 launches apart, in streams that
// nothing orders.
__global__ void chain_writer(int* word) {
  // race-line: chain_writer_write
  if (threadIdx.x == 0) *word = 4;
}
// race-line: chain_reader_read
__global__ void chain_reader(const int* word, int* out) { out[threadIdx.x] = *word; }
__global__ void far_writer(int* word) {
  // race-line: far_writer_write
  if (threadIdx.x == 0) *word = 5;
}
// race-line: far_reader_read
__global__ void far_reader(const int* word, int* out) { out[threadIdx.x] = *word; }
__global__ void far_step() {}

// A cuda::barrier of device scope in global memory, which warp 0 of each of
// two blocks arrives at: its phase orders each arrival's write before what
// the waits that observe the phase do, in either block. Warp 1 never
// arrives: its read of the other block's word is ordered by nothing, unless
// a __syncthreads after warp 0's wait passes the order on.
__global__ void init_device_barrier(cuda::barrier<cuda::thread_scope_device>* bar, int expected) {
  init(bar, expected);
}
__global__ void device_barrier_exchange(cuda::barrier<cuda::thread_scope_device>* bar, int* slots, int* out,
                                        bool bystander_syncs) {
  int lane = threadIdx.x % 32;
  if (threadIdx.x < 32) {
    // race-line: device_barrier_write
    slots[blockIdx.x * 32 + lane] = static_cast<int>(blockIdx.x) + 1;
    bar->arrive_and_wait();
    out[blockIdx.x * 64 + threadIdx.x] = slots[(1 - blockIdx.x) * 32 + lane];
  }
  if (bystander_syncs) __syncthreads();
  // race-line: device_barrier_bystander_read
  if (threadIdx.x >= 32) out[blockIdx.x * 64 + threadIdx.x] = slots[(1 - blockIdx.x) * 32 + lane];
}

// Warp 1 leaves a block barrier in its first phase (arrive_and_drop): its
// arrival counts there, so warp 0 reads after that phase what warp 1 wrote
// before dropping; it waits for nothing, so the last dropper's read of warp
// 0's word is ordered by nothing (on fibers it comes after the phase
// completed, on its own arrival; stackless, thread 63 runs first after the
// __syncthreads and reads before warp 0 writes). Later phases are warp 0's
// alone.
__global__ void dropping_warp(int* out, bool dropper_reads) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int row[64];
  __shared__ int again[32];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  // race-line: dropping_warp_write
  row[threadIdx.x] = threadIdx.x;
  if (threadIdx.x >= 32) {
    bar.arrive_and_drop();
    // race-line: dropping_warp_dropper_read
    if (dropper_reads && threadIdx.x == blockDim.x - 1) out[blockIdx.x * 64 + threadIdx.x] = row[63 - threadIdx.x];
    return;
  }
  bar.arrive_and_wait();
  again[threadIdx.x] = row[threadIdx.x + 32];
  bar.arrive_and_wait();
  out[blockIdx.x * 64 + threadIdx.x] = again[31 - threadIdx.x];
}

// A block pipeline of two stages with roles: warp 0 produces (plain stores
// into the stage), warp 1 consumes. A stage's commit orders the producers'
// writes before the consumers' consumer_wait for it; a release orders the
// consumers' reads before the producers' next producer_acquire of it.
enum pipeline_stage_bug { stages_in_order, stage_read_before_wait, stage_overwritten_before_release };
__global__ void role_pipeline(int* out, int rounds, int bug) {
  __shared__ int stage[2][32];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  cg::thread_block block = cg::this_thread_block();
  bool producer = threadIdx.x < 32;
  int lane = threadIdx.x % 32;
  cuda::pipeline<cuda::thread_scope_block> pipe =
      cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
  int sum = 0;
  for (int r = 0; r < rounds; ++r) {
    if (producer && bug == stage_overwritten_before_release) {
      // race-line: role_pipeline_overwrite
      stage[r % 2][lane] = r;  // without producer_acquire
      pipe.producer_commit();
    } else if (producer) {
      pipe.producer_acquire();
      // race-line: role_pipeline_write
      stage[r % 2][lane] = r;
      pipe.producer_commit();
    } else if (bug == stage_read_before_wait) {
      // race-line: role_pipeline_early_read
      sum += stage[r % 2][31 - lane];
      pipe.consumer_wait();
      pipe.consumer_release();
    } else {
      pipe.consumer_wait();
      // race-line: role_pipeline_read
      sum += stage[r % 2][31 - lane];
      pipe.consumer_release();
    }
  }
  out[blockIdx.x * 64 + threadIdx.x] = sum;
}

// Distributed shared memory: a cluster of two blocks whose threads add
// into the owner block's __shared__ bins with atomics (the CUDA guide's
// cluster histogram); the owner reads its bins after the final
// cluster.sync(), or without it, racing with the other block's atomics.
__global__ void cluster_bins(const int* values, int* bins, bool final_sync) {
  __shared__ int cluster_bin_counts[64];
  cg::cluster_group cluster = cg::this_cluster();
  cluster_bin_counts[threadIdx.x] = 0;
  cluster.sync();
  int value = values[blockIdx.x * blockDim.x + threadIdx.x];
  int* owner_bins = cluster.map_shared_rank(cluster_bin_counts, static_cast<unsigned>(value / 64) % 2);
  // race-line: cluster_bins_add
  atomicAdd(owner_bins + value % 64, 1);
  if (final_sync) cluster.sync();
  // race-line: cluster_bins_read
  int count = cluster_bin_counts[threadIdx.x];
  atomicAdd(&bins[cluster.block_rank() * 64 + threadIdx.x], count);
  // Neither block leaves while the other may still add into its bins.
  if (!final_sync) cluster.sync();
}

// A plain write into another block's __shared__ memory, which the owner
// reads without a cluster.sync() between them (`order` 0), or after one (1)
// or after the cluster's split barrier (2).
__global__ void cluster_remote_write(int* out, int order) {
  __shared__ int cluster_remote_slots[32];
  cg::cluster_group cluster = cg::this_cluster();
  cluster_remote_slots[threadIdx.x] = 1;
  cluster.sync();
  if (cluster.block_rank() == 1) {
    // race-line: cluster_remote_store
    cluster.map_shared_rank(cluster_remote_slots, 0)[threadIdx.x] = 2;
  }
  if (order == 1) cluster.sync();
  if (order == 2) {
    auto token = cluster.barrier_arrive();
    cluster.barrier_wait(std::move(token));
  }
  // race-line: cluster_owner_load
  if (cluster.block_rank() == 0) out[threadIdx.x] = cluster_remote_slots[threadIdx.x];
  cluster.sync();
}

template <class Kernel, class... Args>
static cudaError_t launch_cluster_of_two(Kernel kernel, unsigned threads, Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(2);
  config.blockDim = dim3(threads);
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = 2;
  attribute[0].val.clusterDim.y = 1;
  attribute[0].val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, args...);
}

// A cuda::barrier of device scope in a block's __shared__ memory (block 0
// of a cluster of two) that the other block's warp 0 arrives at through
// cluster.map_shared_rank, after writing into block 0's slots: the phase
// orders those writes before what block 0's threads do after their wait.
// Written after the arrival (`write_after_arriving`), they race with block
// 0's reads.
__global__ void cluster_barrier_handover(int* out, bool write_after_arriving) {
  __shared__ cuda::barrier<cuda::thread_scope_device> cluster_handover_bar;
  __shared__ int cluster_handover_slots[32];
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) init(&cluster_handover_bar, blockDim.x + 32);  // block 0's threads, block 1's warp 0
  if (threadIdx.x < 32) cluster_handover_slots[threadIdx.x] = 0;
  cluster.sync();
  if (cluster.block_rank() == 1 && threadIdx.x < 32) {
    cuda::barrier<cuda::thread_scope_device>* bar = cluster.map_shared_rank(&cluster_handover_bar, 0);
    int* slots = cluster.map_shared_rank(cluster_handover_slots, 0);
    if (!write_after_arriving) slots[threadIdx.x] = static_cast<int>(threadIdx.x) + 1;
    auto token = bar->arrive();
    (void)token;
    // race-line: cluster_handover_late_write
    if (write_after_arriving) slots[threadIdx.x] = static_cast<int>(threadIdx.x) + 1;
  }
  if (cluster.block_rank() == 0) {
    cluster_handover_bar.arrive_and_wait();
    // race-line: cluster_handover_read
    out[threadIdx.x] = cluster_handover_slots[threadIdx.x % 32];
  }
  // Block 0's memory outlives block 1's accesses to it.
  cluster.sync();
}

// Block 0's atomics on its own __shared__ counter, which block 1 reads
// through cluster.map_shared_rank after a cluster.sync() (`synced`), or
// with nothing between them.
__global__ void cluster_owner_atomics(int* out, bool synced) {
  __shared__ int cluster_owner_counter;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) cluster_owner_counter = 0;
  cluster.sync();
  // race-line: cluster_owner_atomic_add
  if (cluster.block_rank() == 0) atomicAdd(&cluster_owner_counter, 1);
  if (synced) cluster.sync();
  // race-line: cluster_peer_counter_read
  if (cluster.block_rank() == 1) out[threadIdx.x] = *cluster.map_shared_rank(&cluster_owner_counter, 0);
  cluster.sync();
}

// A cuda::barrier of device scope in global memory that only thread 0 of
// each of two blocks arrives at, after lane 1 wrote its block's slot and a
// __syncwarp of lanes 0 and 1 (`syncwarp`): the arrival releases what the
// __syncwarp ordered before it, so each thread 0 reads the other block's
// slot after its wait. Without the __syncwarp, lane 1's write is ordered
// by nothing.
__global__ void lane_then_device_barrier(cuda::barrier<cuda::thread_scope_device>* bar, int* slots, int* out,
                                         bool syncwarp) {
  // race-line: lane_barrier_write
  if (threadIdx.x == 1) slots[blockIdx.x] = static_cast<int>(blockIdx.x) + 1;
  if (syncwarp && threadIdx.x < 2) __syncwarp(0x3);
  if (threadIdx.x == 0) {
    bar->arrive_and_wait();
    // race-line: lane_barrier_read
    out[blockIdx.x] = slots[1 - blockIdx.x];
  }
}

// A cuda::pipeline of device scope, its shared state in global memory:
// block 0's threads produce into two stages in global memory, block 1's
// consume (a cooperative launch: make_pipeline syncs the grid). Every
// producer's commit of a stage orders its write before the consumers'
// consumer_wait for it, and every consumer's release its read before the
// producers' next producer_acquire of it; a consumer that reads the stage
// before its consumer_wait (`read_before_wait`) races with the producers.
__global__ void device_pipeline_handover(cuda::pipeline_shared_state<cuda::thread_scope_device, 2>* state, int* stages,
                                         int* out, int rounds, bool read_before_wait) {
  cg::grid_group grid = cg::this_grid();
  bool producer = blockIdx.x == 0;
  cuda::pipeline<cuda::thread_scope_device> pipe =
      cuda::make_pipeline(grid, state, producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
  int lane = threadIdx.x % 32;
  int sum = 0;
  for (int r = 0; r < rounds; ++r) {
    int* stage = stages + (r % 2) * 32;
    if (producer) {
      pipe.producer_acquire();
      // race-line: device_pipeline_write
      stage[lane] = r;
      pipe.producer_commit();
    } else if (read_before_wait) {
      // race-line: device_pipeline_early_read
      sum += stage[31 - lane];
      pipe.consumer_wait();
      pipe.consumer_release();
    } else {
      pipe.consumer_wait();
      sum += stage[31 - lane];
      pipe.consumer_release();
    }
  }
  out[blockIdx.x * 32 + threadIdx.x] = sum;
}

// Three readers of a __shared__ word, then a writer, with no barrier
// between them: thread 0 (warp 0) reads (`older_read`), then lanes 1 and 2
// of warp 1, which a __syncwarp orders before lane 3's write. The write
// races with thread 0's read, the oldest of the three.
__global__ void three_readers_then_writer(int* out, bool older_read) {
  __shared__ int three_readers_word;
  if (threadIdx.x == 0) three_readers_word = 1;
  __syncthreads();
  int seen = 0;
  // race-line: three_readers_read
  if ((threadIdx.x == 0 && older_read) || threadIdx.x == 33 || threadIdx.x == 34) seen = three_readers_word;
  if (threadIdx.x >= 33 && threadIdx.x <= 35) {
    __syncwarp(0xe);
    // race-line: three_readers_write
    if (threadIdx.x == 35) three_readers_word = 2;
  }
  out[threadIdx.x] = seen;
}

// Neighbouring threads write adjacent bytes of one word (an image kernel's
// `unsigned char out[i]`): no race, the bytes do not overlap. With
// `same_byte`, threads 2k and 2k+1 write one byte: a race.
__global__ void adjacent_bytes(unsigned char* out, bool same_byte) {
  unsigned i = same_byte ? threadIdx.x / 2 : threadIdx.x;
  // race-line: adjacent_bytes_write
  out[i] = static_cast<unsigned char>(threadIdx.x);
}

// The same in __shared__ memory, then copied out after a barrier.
__global__ void adjacent_shared_bytes(unsigned char* out, bool same_byte) {
  __shared__ unsigned char staged_bytes[64];
  unsigned i = same_byte ? threadIdx.x / 2 : threadIdx.x;
  // race-line: adjacent_shared_bytes_write
  staged_bytes[i] = static_cast<unsigned char>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = staged_bytes[threadIdx.x];
}

// Adjacent shorts, in global and in dynamic __shared__ memory: two to a
// word, no race.
__global__ void adjacent_shorts(short* out) {
  extern __shared__ short staged_shorts[];
  staged_shorts[threadIdx.x] = static_cast<short>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = staged_shorts[threadIdx.x ^ 1];
}

// Thread 1 writes byte 1 of a global word that thread 32 reads whole, with
// nothing between them: a race (`bytes` and `word` are one address).
__global__ void byte_then_word(unsigned char* bytes, const int* word, int* out) {
  // race-line: byte_then_word_write
  if (threadIdx.x == 1) bytes[1] = 7;
  // race-line: byte_then_word_read
  if (threadIdx.x == 32) out[0] = *word;
}

// The same in __shared__ memory.
__global__ void byte_then_shared_word(int* out) {
  __shared__ int whole_word;
  if (threadIdx.x == 0) whole_word = 0;
  __syncthreads();
  // race-line: byte_then_shared_word_write
  if (threadIdx.x == 1) reinterpret_cast<unsigned char*>(&whole_word)[1] = 7;
  // race-line: byte_then_shared_word_read
  if (threadIdx.x == 32) out[0] = whole_word;
}

// Kernels that weft-port gives a region version (every barrier a statement
// that every thread reaches), which runs in a race-check build as in any
// other: its reports must be the stackless kernel's (race_check.sh compares
// a run with WEFT_EXECUTOR=stackless) where the race lies within one stretch
// between barriers. One block each where racy, so that the pair of threads
// reported first does not depend on the workers' timing.

// The tiled matmul of C's first tile, over two tiles: silent with both
// barriers. With the second left out, the next tile's writes race with
// this tile's reads: a stretch across the loop's back edge, which the
// region version runs as two loops over the threads (every thread's reads,
// then every thread's writes), where the stackless kernel runs each
// thread's reads and writes together. Both orders are a GPU's, and both
// report the race on these lines, but not the same pairs: the region
// version only writes after reads, the stackless kernel reads after another
// thread's write as well.
__global__ void region_matmul(const float* A, const float* B, float* C, int n) {
  __shared__ float region_As[TILE][TILE];
  __shared__ float region_Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < n / TILE; ++t) {
    region_As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
    region_Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += region_As[threadIdx.y][k] * region_Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = sum;
}
__global__ void region_matmul_one_barrier(const float* A, const float* B, float* C, int n) {
  __shared__ float region_racy_As[TILE][TILE];
  __shared__ float region_racy_Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < n / TILE; ++t) {
    // race-line: region_matmul_write_a
    region_racy_As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
    // race-line: region_matmul_write_b
    region_racy_Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
    __syncthreads();
    // Not unrolled: each load's own instruction would be looked up for the
    // report (addr2line, 0.3 s each), all on this line.
#pragma unroll 1
    // race-line: region_matmul_read
    for (int k = 0; k < TILE; ++k) sum += region_racy_As[threadIdx.y][k] * region_racy_Bs[k][threadIdx.x];
  }
  C[row * n + col] = sum;
}

// The same without its first barrier: each thread reads the tiles in the
// stretch where the others write them. The region version runs the writes
// and the reads in one region, whose reads weft-port's --race-check leaves
// checked (it writes the tiles).
__global__ void region_matmul_no_first_barrier(const float* A, const float* B, float* C, int n) {
  __shared__ float region_early_As[TILE][TILE];
  __shared__ float region_early_Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < n / TILE; ++t) {
    region_early_As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
    region_early_Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
#pragma unroll 1
    // race-line: region_matmul_early_read
    for (int k = 0; k < TILE; ++k) sum += region_early_As[threadIdx.y][k] * region_early_Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = sum;
}

// The tree reduction with a barrier after every step: silent.
__global__ void region_block_sum(const float* in, float* out) {
  __shared__ float region_partial[256];
  unsigned t = threadIdx.x;
  region_partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) region_partial[t] += region_partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = region_partial[0];
}

// The same without the barrier between steps: thread 1's write of its word
// races with thread 0's read of it, one step later.
__global__ void region_block_sum_one_barrier(const float* in, float* out) {
  __shared__ float region_racy_partial[256];
  unsigned t = threadIdx.x;
  region_racy_partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    // race-line: region_block_sum_step
    if (t < s) region_racy_partial[t] += region_racy_partial[t + s];
  }
  if (t == 0) out[blockIdx.x] = region_racy_partial[0];
}

// Thread 0's write, read by the others after a barrier, and written again
// by thread 47 after the next: the barriers order each pair. Threads from
// 48 on return before the first barrier, which the others pass without them.
__global__ void region_handover(int* out) {
  __shared__ int region_word;
  if (threadIdx.x >= 48) return;
  if (threadIdx.x == 0) region_word = 42;
  __syncthreads();
  out[threadIdx.x] = region_word;
  __syncthreads();
  if (threadIdx.x == 47) region_word = 7;
}

// Each thread writes its global word, then reads its neighbour's in the
// same stretch between barriers: thread 0 reads word 1 before thread 1
// writes it, thread 63 reads word 0 after thread 0 wrote it.
__global__ void region_global_neighbours(int* out) {
  __shared__ int region_staged[64];
  region_staged[threadIdx.x] = static_cast<int>(threadIdx.x);
  __syncthreads();
  // race-line: region_global_write
  out[threadIdx.x] = region_staged[threadIdx.x];
  // race-line: region_global_read
  out[64 + threadIdx.x] = out[(threadIdx.x + 1) % 64];
}

// Every thread writes one __shared__ word, a write-after-write race however
// the compiler arranges the region version's loop over the threads.
__global__ void region_every_thread_writes(float* out) {
  __shared__ float region_last_writer;
  // race-line: region_every_thread_write
  region_last_writer = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = region_last_writer;
}

// In a 4-row block, thread (3,2) writes the word that thread (5,1) wrote
// and now reads, after the barrier, with nothing between the two: a race
// named with both threads' x and y. The region version's loop sets each
// thread's threadIdx.x (and y's low half) with a store of its own
// (region_block.hpp): a wrong y there names other threads, or none.
__global__ void region_rows_overwrite(int* out) {
  __shared__ int region_rows_cells[4][8];
  region_rows_cells[threadIdx.y][threadIdx.x] = static_cast<int>(threadIdx.x);
  __syncthreads();
  // race-line: region_rows_read
  if (threadIdx.x == 5 && threadIdx.y == 1) out[0] = region_rows_cells[1][5];
  // race-line: region_rows_write
  if (threadIdx.x == 3 && threadIdx.y == 2) region_rows_cells[1][5] = 9;
}

// The same between two threads of block (1,1) of a 2x2 grid, in global
// memory and a kernel without barriers: weft_traced::call_kernel restates
// the built-in variables' .x and y's low half (race_check.hpp).
__global__ void rows_overwrite(int* cells) {
  int* block_cells = cells + 32 * (blockIdx.y * gridDim.x + blockIdx.x);
  if (blockIdx.x != 1 || blockIdx.y != 1) return;
  // race-line: rows_read
  if (threadIdx.x == 5 && threadIdx.y == 1) cells[200] = block_cells[13];
  // race-line: rows_write
  if (threadIdx.x == 3 && threadIdx.y == 2) block_cells[13] = 9;
}

static int failures = 0;

static unsigned long long hazards() { return weft::detail::race_hazard_count().load(); }

template <class Launch>
static void expect(const char* name, bool racy, Launch launch) {
  unsigned long long before = hazards();
  launch();
  cudaError_t e = cudaDeviceSynchronize();
  unsigned long long added = hazards() - before;
  bool ok = e == cudaSuccess && (racy ? added > 0 : added == 0);
  std::printf("race case %s: %llu hazard(s), %s\n", name, added, ok ? "as expected" : "WRONG");
  if (!ok) ++failures;
}

// The cases of the kernels with region versions. `race_programs regions`
// runs only those whose reports race_check.sh compares with the stackless
// kernels' (`compared_only`): each new line of a report costs an addr2line.
static void region_cases(bool compared_only) {
  const int n = 2 * TILE;
  float *A, *B, *C, *sums;
  cudaMalloc(&A, n * n * sizeof(float));
  cudaMalloc(&B, n * n * sizeof(float));
  cudaMalloc(&C, n * n * sizeof(float));
  cudaMalloc(&sums, 4 * sizeof(float));
  std::vector<float> ones(n * n, 1.0f);
  cudaMemcpy(A, ones.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, ones.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  int* out;
  cudaMalloc(&out, 128 * sizeof(int));
  if (!compared_only) {
    expect("region_matmul", false, [&] { region_matmul<<<1, dim3(TILE, TILE)>>>(A, B, C, n); });
    float first = 0;
    cudaMemcpy(&first, C, sizeof first, cudaMemcpyDeviceToHost);
    if (first != n) {
      std::printf("region_matmul: C[0] is %g, not %d\n", first, n);
      ++failures;
    }
    expect("region_matmul_one_barrier", true, [&] { region_matmul_one_barrier<<<1, dim3(TILE, TILE)>>>(A, B, C, n); });
    expect("region_matmul_no_first_barrier", true,
           [&] { region_matmul_no_first_barrier<<<1, dim3(TILE, TILE)>>>(A, B, C, n); });
    expect("region_block_sum", false, [&] { region_block_sum<<<4, 256>>>(A, sums); });
    float sum = 0;
    cudaMemcpy(&sum, sums + 3, sizeof sum, cudaMemcpyDeviceToHost);
    if (sum != 256) {
      std::printf("region_block_sum: sum 3 is %g, not 256\n", sum);
      ++failures;
    }
    expect("region_handover", false, [&] { region_handover<<<1, 64>>>(out); });
    expect("region_rows_overwrite", true, [&] { region_rows_overwrite<<<1, dim3(8, 4)>>>(out); });
    int* cells;
    cudaMalloc(&cells, 256 * sizeof(int));
    expect("rows_overwrite", true, [&] { rows_overwrite<<<dim3(2, 2), dim3(8, 4)>>>(cells); });
    cudaFree(cells);
  }
  expect("region_block_sum_one_barrier", true, [&] { region_block_sum_one_barrier<<<1, 256>>>(A, sums + 1); });
  expect("region_global_neighbours", true, [&] { region_global_neighbours<<<1, 64>>>(out); });
  expect("region_every_thread_writes", true,
         [&] { region_every_thread_writes<<<1, 64>>>(reinterpret_cast<float*>(out)); });
  for (void* p : {static_cast<void*>(A), static_cast<void*>(B), static_cast<void*>(C), static_cast<void*>(sums),
                  static_cast<void*>(out)})
    cudaFree(p);
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "regions") {
    region_cases(true);
    std::printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
  }
  const int n = 64;
  float *A, *B, *C;
  cudaMalloc(&A, n * n * sizeof(float));
  cudaMalloc(&B, n * n * sizeof(float));
  cudaMalloc(&C, n * n * sizeof(float));
  std::vector<float> ones(n * n, 1.0f);
  cudaMemcpy(A, ones.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, ones.data(), n * n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 tiles(n / TILE, n / TILE), tile(TILE, TILE);
  expect("matmul", false, [&] { tiled_matmul<<<tiles, tile>>>(A, B, C, n, true); });
  expect("matmul_missing_barrier", true, [&] { tiled_matmul<<<tiles, tile>>>(A, B, C, n, false); });

  float *in, *sums;
  cudaMalloc(&in, 4 * 256 * sizeof(float));
  cudaMalloc(&sums, 4 * sizeof(float));
  cudaMemcpy(in, ones.data(), 4 * 256 * sizeof(float), cudaMemcpyHostToDevice);
  expect("reduction", false, [&] { block_sum<<<4, 256>>>(in, sums, true); });
  expect("reduction_missing_barrier", true, [&] { block_sum<<<4, 256>>>(in, sums, false); });

  int *words, *out;
  cudaMalloc(&words, 64 * sizeof(int));
  cudaMalloc(&out, 1024 * sizeof(int));
  cudaMemset(words, 0, 64 * sizeof(int));
  expect("blocks_own_words", false, [&] { blocks_write_own_words<<<8, 32>>>(words); });
  expect("blocks_one_word", true, [&] { blocks_write_one_word<<<2, 32>>>(words); });
  expect("warp_syncwarp", false, [&] { warp_neighbours<<<1, 32>>>(out, true); });
  expect("warp_no_syncwarp", true, [&] { warp_neighbours<<<1, 32>>>(out, false); });
  expect("warp_shuffle", false, [&] { shuffle_neighbours<<<1, 32>>>(out, true); });
  expect("warp_half_shuffles", true, [&] { shuffle_neighbours<<<1, 32>>>(out, false); });
  expect("atomics", false, [&] { count_with_atomics<<<4, 128>>>(words); });
  expect("atomics_stackless", false, [&] { count_with_atomics_stackless<<<4, 128>>>(words); });
  expect("two_launches_one_stream", false, [&] {
    write_word<<<1, 32>>>(words, 1);
    read_word<<<2, 32>>>(words, out);
    write_word<<<1, 32>>>(words, 2);
  });
  cudaMemset(words, 0, 64 * sizeof(int));
  expect("fence_and_flag", false,
         [&] { last_block_sums<<<8, 32>>>(words, reinterpret_cast<unsigned*>(words + 32), words + 40); });
  expect("grid_sync", false, [&] {
    void* args[] = {&words, &out};
    cudaLaunchCooperativeKernel(reinterpret_cast<void*>(grid_exchange), dim3(4), dim3(32), args);
  });
  expect("dynamic_shared", false, [&] { dynamic_shared_across_warps<<<1, 64, 64 * sizeof(int)>>>(out, true); });
  expect("dynamic_shared_missing_barrier", true,
         [&] { dynamic_shared_across_warps<<<1, 64, 64 * sizeof(int)>>>(out, false); });
  cudaMemset(words, 0, 64 * sizeof(int));
  expect("lock_with_fence", false, [&] { locked_counter<<<2, 64>>>(words, words + 1, true); });
  expect("lock_with_system_fence", false, [&] { system_fenced_counter<<<2, 64>>>(words, words + 1); });
  // libcu++'s atomics: release and acquire (silent), relaxed (reported).
  int* std_data = words + 60;  // not words[0], the lock of the locked_counter cases
  auto* std_flag = reinterpret_cast<cuda::std::atomic<int>*>(words + 56);
  auto* std_atomic_flag = reinterpret_cast<cuda::std::atomic_flag*>(words + 57);
  auto std_atomic_case = [&](const char* name, bool racy, auto launch) {
    cudaMemset(words + 56, 0, 2 * sizeof(int));
    expect(name, racy, launch);
  };
  std_atomic_case("std_atomic_release_acquire_between_blocks", false,
                  [&] { std_atomic_between_blocks<<<2, 1>>>(std_data, std_flag, out, true); });
  std_atomic_case("std_atomic_relaxed_between_blocks", true,
                  [&] { std_atomic_between_blocks<<<2, 1>>>(std_data, std_flag, out, false); });
  std_atomic_case("std_atomic_release_acquire_in_block", false,
                  [&] { std_atomic_in_block<<<1, 64>>>(std_data, std_flag, out, true); });
  std_atomic_case("std_atomic_relaxed_in_block", true,
                  [&] { std_atomic_in_block<<<1, 64>>>(std_data, std_flag, out, false); });
  std_atomic_case("std_atomic_device_variables", false, [&] {
    std_atomic_device_variables<<<2, 1>>>(1, out);
    std_atomic_device_variables<<<2, 1>>>(2, out);
  });
  std_atomic_case("std_atomic_flag_with_fences", false,
                  [&] { std_atomic_flag_fenced<<<2, 1>>>(std_data, std_atomic_flag, out, true); });
  std_atomic_case("std_atomic_flag_without_release_fence", true,
                  [&] { std_atomic_flag_fenced<<<2, 1>>>(std_data, std_atomic_flag, out, false); });
  expect("lock_without_fence", true, [&] { locked_counter<<<2, 64>>>(words, words + 1, false); });
  expect("shared_lock", false, [&] { shared_locked_counter<<<2, 64>>>(words + 8); });
  cudaMemset(words, 0, 64 * sizeof(int));
  expect("barrier_completion", false, [&] { barrier_completion_count<<<2, 64>>>(words, out); });
  expect("named_barriers", false, [&] { named_handover<<<2, 64>>>(out); });
  expect("named_barrier_with_bystander_waiting", false, [&] { named_bystander<<<2, 96>>>(out, true); });
  expect("named_barrier_bystander", true, [&] { named_bystander<<<2, 96>>>(out, false); });
  int* staged;
  cudaMalloc(&staged, 2 * 32 * sizeof(int));
  expect("named_barriers_inline", false, [&] { named_inline_handover<<<2, 64>>>(staged, out, true); });
  expect("named_barriers_inline_consumer_arrives", true, [&] { named_inline_handover<<<2, 64>>>(staged, out, false); });
  expect("named_barrier_inline_bystander", true, [&] { named_inline_bystander<<<2, 96>>>(out); });
  expect("named_write_after_arrive", true, [&] { named_write_after_arrive<<<2, 64>>>(staged, out); });
  cudaMemset(words, 0, 64 * sizeof(int));
  auto* unseen_flags = new std::atomic<int>[2] {};  // host memory: the check sees no access to it
  expect("page_holder_spins_unseen", true,
         [&] { page_holder_spins_unseen<<<2, 32>>>(words, unseen_flags, words + 32); });
  int timed_out = 0;
  cudaMemcpy(&timed_out, words + 32, sizeof timed_out, cudaMemcpyDeviceToHost);
  if (timed_out != 0) {
    std::printf("page_holder_spins_unseen: %d block(s) gave up waiting for the other\n", timed_out);
    ++failures;
  }
  int *staged_in, *staged_out;
  cudaMalloc(&staged_in, 2 * COPY_TILE * sizeof(int));
  cudaMalloc(&staged_out, 2 * COPY_TILE * sizeof(int));
  cudaMemset(staged_in, 0, 2 * COPY_TILE * sizeof(int));
  expect("pipelined_tiles", false, [&] { pipelined_tiles<<<2, COPY_TILE>>>(A, C, 4, no_copy_bug); });
  expect("pipelined_tiles_read_before_wait", true,
         [&] { pipelined_tiles<<<2, COPY_TILE>>>(A, C, 4, read_before_wait); });
  expect("barrier_staged", false, [&] { barrier_staged<<<2, COPY_TILE>>>(B, C, no_copy_bug); });
  expect("barrier_staged_source_overwritten", true,
         [&] { barrier_staged<<<2, COPY_TILE>>>(B, C, source_overwritten); });
  expect("primitive_staged", false, [&] { primitive_staged<<<2, COPY_TILE>>>(staged_in, staged_out, no_copy_bug); });
  expect("primitive_staged_read_before_wait", true,
         [&] { primitive_staged<<<2, COPY_TILE>>>(staged_in, staged_out, read_before_wait); });
  expect("group_staged", false, [&] { group_staged<<<2, COPY_TILE>>>(staged_in, staged_out, no_copy_bug); });
  expect("group_staged_read_before_wait", true,
         [&] { group_staged<<<2, COPY_TILE>>>(staged_in, staged_out, read_before_wait); });

  // A barrier of device scope, arrived at by warp 0 of each block; barrier
  // phases a thread drops out of; a pipeline's stages with roles.
  cuda::barrier<cuda::thread_scope_device>* device_barrier;
  cudaMalloc(&device_barrier, sizeof *device_barrier);
  expect("device_barrier_between_blocks", false, [&] {
    init_device_barrier<<<1, 1>>>(device_barrier, 64);
    device_barrier_exchange<<<2, 64>>>(device_barrier, staged, out, true);
  });
  expect("device_barrier_bystander", true, [&] {
    init_device_barrier<<<1, 1>>>(device_barrier, 64);
    device_barrier_exchange<<<2, 64>>>(device_barrier, staged, out, false);
  });
  expect("barrier_dropped_out", false, [&] { dropping_warp<<<2, 64>>>(out, false); });
  expect("barrier_dropper_reads", true, [&] { dropping_warp<<<2, 64>>>(out, true); });
  expect("pipeline_roles", false, [&] { role_pipeline<<<2, 64>>>(out, 6, stages_in_order); });
  expect("pipeline_roles_read_before_wait", true, [&] { role_pipeline<<<2, 64>>>(out, 6, stage_read_before_wait); });
  expect("pipeline_roles_overwritten_before_release", true,
         [&] { role_pipeline<<<2, 64>>>(out, 6, stage_overwritten_before_release); });

  // Launches in different streams.
  cudaStream_t first, second, first_nonblocking, second_nonblocking;
  cudaStreamCreate(&first);
  cudaStreamCreate(&second);
  cudaStreamCreateWithFlags(&first_nonblocking, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&second_nonblocking, cudaStreamNonBlocking);
  cudaEvent_t written;
  cudaEventCreate(&written);
  int* shared_word = words + 48;
  expect("streams_without_event", true, [&] {
    stream_writer<<<1, 32, 0, first>>>(shared_word);
    stream_reader<<<2, 32, 0, second>>>(shared_word, out);
  });
  expect("streams_with_event", false, [&] {
    stream_writer<<<1, 32, 0, first>>>(shared_word);
    cudaEventRecord(written, first);
    cudaStreamWaitEvent(second, written, 0);
    stream_reader<<<2, 32, 0, second>>>(shared_word, out);
  });
  expect("one_created_stream", false, [&] {
    stream_writer<<<1, 32, 0, first>>>(shared_word);
    stream_reader<<<2, 32, 0, first>>>(shared_word, out);
    stream_writer<<<1, 32, 0, first>>>(shared_word);
  });
  expect("streams_with_host_synchronisation", false, [&] {
    stream_writer<<<1, 32, 0, first>>>(shared_word);
    cudaStreamSynchronize(first);
    stream_reader<<<2, 32, 0, second>>>(shared_word, out);
  });
  expect("blocking_streams_with_legacy_stream_between", false, [&] {
    stream_writer<<<1, 32, 0, first>>>(shared_word);
    legacy_stream_step<<<1, 1>>>();
    stream_reader<<<2, 32, 0, second>>>(shared_word, out);
  });
  expect("nonblocking_streams_with_legacy_stream_between", true, [&] {
    nonblocking_writer<<<1, 32, 0, first_nonblocking>>>(shared_word);
    legacy_stream_step<<<1, 1>>>();
    nonblocking_reader<<<2, 32, 0, second_nonblocking>>>(shared_word, out);
  });
  // A graph's edge orders its kernels, and a graph launch orders them
  // before and after what its stream holds around it.
  cudaGraph_t graph = nullptr;  // set by a capture that succeeds
  cudaGraphExec_t graph_exec = nullptr;
  cudaStreamBeginCapture(second, cudaStreamCaptureModeGlobal);
  stream_writer<<<1, 32, 0, second>>>(shared_word);
  stream_reader<<<2, 32, 0, second>>>(shared_word, out);
  cudaStreamEndCapture(second, &graph);
  cudaGraphInstantiate(&graph_exec, graph);
  expect("graph_launches_in_one_stream", false, [&] {
    cudaGraphLaunch(graph_exec, first);
    stream_writer<<<1, 32, 0, first>>>(shared_word);
    cudaGraphLaunch(graph_exec, first);
  });
  int *cluster_values, *cluster_counts;
  cudaMalloc(&cluster_values, 128 * sizeof(int));
  cudaMalloc(&cluster_counts, 128 * sizeof(int));
  std::vector<int> spread(128);
  for (int i = 0; i < 128; ++i) spread[i] = (i * 37) % 128;
  cudaMemcpy(cluster_values, spread.data(), 128 * sizeof(int), cudaMemcpyHostToDevice);
  expect("cluster_histogram", false,
         [&] { launch_cluster_of_two(cluster_bins, 64, cluster_values, cluster_counts, true); });
  expect("cluster_histogram_missing_sync", true,
         [&] { launch_cluster_of_two(cluster_bins, 64, cluster_values, cluster_counts, false); });
  expect("cluster_remote_write_synced", false, [&] { launch_cluster_of_two(cluster_remote_write, 32, out, 1); });
  expect("cluster_remote_write_split_barrier", false, [&] { launch_cluster_of_two(cluster_remote_write, 32, out, 2); });
  expect("cluster_remote_write", true, [&] { launch_cluster_of_two(cluster_remote_write, 32, out, 0); });
  expect("cluster_barrier_handover", false, [&] { launch_cluster_of_two(cluster_barrier_handover, 64, out, false); });
  expect("cluster_barrier_write_after_arriving", true,
         [&] { launch_cluster_of_two(cluster_barrier_handover, 64, out, true); });
  expect("cluster_owner_atomics_synced", false, [&] { launch_cluster_of_two(cluster_owner_atomics, 32, out, true); });
  expect("cluster_owner_atomics", true, [&] { launch_cluster_of_two(cluster_owner_atomics, 32, out, false); });
  int* lane_slots;
  cudaMalloc(&lane_slots, 2 * sizeof(int));
  expect("lane_then_device_barrier", false, [&] {
    init_device_barrier<<<1, 1>>>(device_barrier, 2);
    lane_then_device_barrier<<<2, 32>>>(device_barrier, lane_slots, out, true);
  });
  expect("lane_then_device_barrier_without_syncwarp", true, [&] {
    init_device_barrier<<<1, 1>>>(device_barrier, 2);
    lane_then_device_barrier<<<2, 32>>>(device_barrier, lane_slots, out, false);
  });
  cuda::pipeline_shared_state<cuda::thread_scope_device, 2>* device_pipeline_state;
  cudaMalloc(&device_pipeline_state, sizeof *device_pipeline_state);
  int* pipeline_stages;
  cudaMalloc(&pipeline_stages, 2 * 32 * sizeof(int));
  auto device_pipeline_case = [&](bool read_before_wait) {
    int rounds = 6;
    void* args[] = {&device_pipeline_state, &pipeline_stages, &out, &rounds, &read_before_wait};
    cudaLaunchCooperativeKernel(reinterpret_cast<void*>(device_pipeline_handover), dim3(2), dim3(32), args);
  };
  expect("device_pipeline", false, [&] { device_pipeline_case(false); });
  expect("device_pipeline_read_before_wait", true, [&] { device_pipeline_case(true); });
  expect("three_readers_then_writer_warp_ordered", false, [&] { three_readers_then_writer<<<1, 64>>>(out, false); });
  expect("three_readers_then_writer", true, [&] { three_readers_then_writer<<<1, 64>>>(out, true); });

  // Copies and sets against kernels in other streams.
  int* copied;
  cudaMalloc(&copied, 32 * sizeof(int));
  static int host_values[32] = {};
  expect("copy_beside_kernel_in_nonblocking_streams", true, [&] {
    copy_reader<<<1, 32, 0, first_nonblocking>>>(copied, out);
    cudaMemcpyAsync(copied, host_values, sizeof host_values, cudaMemcpyHostToDevice, second_nonblocking);
  });
  expect("copy_after_kernel_with_event", false, [&] {
    copy_reader<<<1, 32, 0, first_nonblocking>>>(copied, out);
    cudaEventRecord(written, first_nonblocking);
    cudaStreamWaitEvent(second_nonblocking, written, 0);
    cudaMemcpyAsync(copied, host_values, sizeof host_values, cudaMemcpyHostToDevice, second_nonblocking);
  });
  expect("set_beside_kernel_in_nonblocking_streams", true, [&] {
    set_reader<<<1, 32, 0, first_nonblocking>>>(copied, out);
    cudaMemsetAsync(copied, 0, 32 * sizeof(int), second_nonblocking);
  });
  expect("set_after_kernel_with_event", false, [&] {
    set_reader<<<1, 32, 0, first_nonblocking>>>(copied, out);
    cudaEventRecord(written, first_nonblocking);
    cudaStreamWaitEvent(second_nonblocking, written, 0);
    cudaMemsetAsync(copied, 0, 32 * sizeof(int), second_nonblocking);
  });
  expect("copies_after_kernel_in_one_stream", false, [&] {
    copy_reader<<<1, 32, 0, first_nonblocking>>>(copied, out);
    cudaMemcpyAsync(copied, host_values, sizeof host_values, cudaMemcpyHostToDevice, first_nonblocking);
    cudaMemsetAsync(copied, 0, 32 * sizeof(int), first_nonblocking);
    cudaMemcpyAsync(out, copied, 32 * sizeof(int), cudaMemcpyDeviceToDevice, first_nonblocking);
  });
  expect("copy_source_beside_kernel", true, [&] {
    copy_source_writer<<<1, 32, 0, first_nonblocking>>>(copied);
    cudaMemcpyAsync(out, copied, 32 * sizeof(int), cudaMemcpyDeviceToDevice, second_nonblocking);
  });

  // A graph's memset node and a kernel node reading what it sets, without
  // and with an edge between them; a copy captured in one stream and a
  // kernel reading its destination captured in another, forked from the
  // first, without and with an event from the kernel to the copy.
  auto set_and_read_graph = [&](bool edge) {
    cudaGraph_t graph = nullptr;
    cudaGraphCreate(&graph, 0);
    cudaMemsetParams set = {};
    set.dst = copied;
    set.value = 7;
    set.elementSize = sizeof(int);
    set.width = 32;
    set.height = 1;
    cudaGraphNode_t set_node, read_node;
    cudaGraphAddMemsetNode(&set_node, graph, nullptr, 0, &set);
    void* args[] = {&copied, &out};
    cudaKernelNodeParams read = {};
    read.func = (void*)graph_set_reader;
    read.gridDim = dim3(1);
    read.blockDim = dim3(32);
    read.kernelParams = args;
    cudaGraphAddKernelNode(&read_node, graph, edge ? &set_node : nullptr, edge ? 1 : 0, &read);
    cudaGraphExec_t exec;
    cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    return exec;
  };
  cudaEvent_t forked, joined;
  cudaEventCreateWithFlags(&forked, cudaEventDisableTiming);
  cudaEventCreateWithFlags(&joined, cudaEventDisableTiming);
  auto copy_and_read_graph = [&](bool event) {
    cudaGraph_t graph = nullptr;
    cudaStreamBeginCapture(first_nonblocking, cudaStreamCaptureModeGlobal);
    cudaEventRecord(forked, first_nonblocking);
    cudaStreamWaitEvent(second_nonblocking, forked, 0);
    graph_copy_reader<<<1, 32, 0, second_nonblocking>>>(copied, out);
    cudaEventRecord(joined, second_nonblocking);
    if (event) cudaStreamWaitEvent(first_nonblocking, joined, 0);
    cudaMemcpyAsync(copied, staged, 32 * sizeof(int), cudaMemcpyDeviceToDevice, first_nonblocking);
    // Without the event, joined after the copy: a capture must end joined.
    if (!event) cudaStreamWaitEvent(first_nonblocking, joined, 0);
    cudaStreamEndCapture(first_nonblocking, &graph);
    cudaGraphExec_t exec;
    cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    return exec;
  };
  cudaGraphExec_t set_without_edge = set_and_read_graph(false), set_with_edge = set_and_read_graph(true);
  cudaGraphExec_t copy_without_event = copy_and_read_graph(false), copy_with_event = copy_and_read_graph(true);
  expect("graph_memset_node_and_kernel_node_with_edge", false,
         [&] { cudaGraphLaunch(set_with_edge, first_nonblocking); });
  expect("graph_memset_node_and_kernel_node_without_edge", true,
         [&] { cudaGraphLaunch(set_without_edge, first_nonblocking); });
  expect("captured_copy_and_kernel_with_event", false, [&] { cudaGraphLaunch(copy_with_event, first_nonblocking); });
  expect("captured_copy_and_kernel_without_event", true,
         [&] { cudaGraphLaunch(copy_without_event, first_nonblocking); });
  for (cudaGraphExec_t exec : {set_without_edge, set_with_edge, copy_without_event, copy_with_event})
    cudaGraphExecDestroy(exec);

  // The third launch is enqueued once the second has run (a host function
  // after it says so, which orders nothing in CUDA).
  cudaStream_t third_nonblocking;
  cudaStreamCreateWithFlags(&third_nonblocking, cudaStreamNonBlocking);
  std::atomic<bool> second_done{false};
  expect("third_launch_unordered_with_the_first", true, [&] {
    chain_writer<<<1, 32, 0, first_nonblocking>>>(copied);
    cudaEventRecord(written, first_nonblocking);
    cudaStreamWaitEvent(second_nonblocking, written, 0);
    chain_reader<<<1, 32, 0, second_nonblocking>>>(copied, out);
    cudaLaunchHostFunc(
        second_nonblocking, [](void* done) { static_cast<std::atomic<bool>*>(done)->store(true); }, &second_done);
    while (!second_done.load()) std::this_thread::yield();
    chain_reader<<<1, 32, 0, third_nonblocking>>>(copied, out + 32);
  });
  expect("launches_far_apart_in_unordered_streams", true, [&] {
    far_writer<<<1, 32, 0, first_nonblocking>>>(copied);
    for (int i = 0; i < 1100; ++i) far_step<<<1, 1, 0, second_nonblocking>>>();
    far_reader<<<1, 32, 0, second_nonblocking>>>(copied, out);
  });
  // Different bytes of one word do not race; one byte, or a byte and the
  // whole word, do.
  unsigned char* bytes;
  cudaMalloc(&bytes, 64);
  expect("adjacent_bytes", false, [&] { adjacent_bytes<<<1, 64>>>(bytes, false); });
  expect("adjacent_bytes_one_byte", true, [&] { adjacent_bytes<<<1, 64>>>(bytes, true); });
  expect("adjacent_shared_bytes", false, [&] { adjacent_shared_bytes<<<1, 64>>>(bytes, false); });
  expect("adjacent_shared_bytes_one_byte", true, [&] { adjacent_shared_bytes<<<1, 64>>>(bytes, true); });
  expect("adjacent_shorts", false,
         [&] { adjacent_shorts<<<1, 32, 32 * sizeof(short)>>>(reinterpret_cast<short*>(bytes)); });
  expect("byte_then_word", true,
         [&] { byte_then_word<<<1, 64>>>(bytes + 32, reinterpret_cast<const int*>(bytes + 32), out); });
  expect("byte_then_shared_word", true, [&] { byte_then_shared_word<<<1, 64>>>(out); });
  cudaFree(bytes);
  region_cases(false);
  std::printf("%s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
