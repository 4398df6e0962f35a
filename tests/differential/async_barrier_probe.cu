// Probe of asynchronous barriers, copies and pipelines: tokens and phases,
// arrive(n), completion functions, arrive_and_drop, the guide's block copy
// with a cuda::barrier, producer/consumer warps, a double-buffered block
// pipeline, partitioned pipelines, a thread-scope pipeline and the
// <cuda_pipeline.h> primitives. To be built with nvcc and run on an H100 by
// hand; its output is to be committed beside it as async_barrier_probe.expected,
// and only then registered in CMakeLists.txt as warp_probe is.
//
//   nvcc -std=c++20 -arch=sm_90 -o async_barrier_probe async_barrier_probe.cu && ./async_barrier_probe
//
// With weft:
//   g++ -std=c++20 -O2 -x c++ -I include async_barrier_probe.cu -lboost_context -rdynamic -o async_barrier_probe
//
// Every line is defined behaviour. The deadlock and misuse reports weft gives
// are not probed: on a GPU they are hangs or undefined behaviour.
#include <cstdio>
#include <cstring>

#ifdef __CUDACC__
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#pragma nv_diag_suppress static_var_with_dynamic_init
#define LAUNCH(kernel, grid, block, shared, ...) kernel<<<grid, block, shared>>>(__VA_ARGS__)
#define DYNAMIC_SHARED(T, name)         \
  extern __shared__ T name##_storage[]; \
  T* name = name##_storage
#else
#include <weft/compat/cuda_pipeline.h>
#include <weft.hpp>
#include <weft/compat/cuda/pipeline>
#define LAUNCH(kernel, grid, block, shared, ...) \
  weft::launch(weft::launch_config{grid, block, shared}, kernel, __VA_ARGS__)
#define DYNAMIC_SHARED(T, name) T* name = weft::dynamic_shared<T>()
#endif

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// The calling block as a group: what memcpy_async and make_pipeline need of one.
struct block_group {
  __device__ unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ unsigned thread_rank() const {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  __device__ void sync() const { __syncthreads(); }
};

struct phase_counter {
  int* phases;
  __device__ void operator()() noexcept { ++*phases; }
};

constexpr int out_size = 4096;

// out[0], out[1]: a phase completes only with its last expected arrival
// (arrive(3) counts 3); every arrival before it is seen by its waiters, and
// waiting on a completed phase returns at once.
__global__ void tokens(int* out) {
  __shared__ block_barrier bar;
  __shared__ block_barrier::arrival_token first;
  __shared__ int arrivals;
  if (threadIdx.x == 0) {
    init(&bar, 8);
    arrivals = 0;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(&arrivals, 1);
    first = bar.arrive();
  }
  __syncthreads();
  if (threadIdx.x == 5) {
    atomicAdd(&arrivals, 3);
    block_barrier::arrival_token token = bar.arrive(3);
    (void)token;
  }
  __syncthreads();
  if (threadIdx.x >= 1 && threadIdx.x <= 4) {
    atomicAdd(&arrivals, 1);
    block_barrier::arrival_token token = bar.arrive();
    bar.wait(static_cast<block_barrier::arrival_token&&>(token));
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    bar.wait(block_barrier::arrival_token(first));
    out[0] = arrivals;
    out[1] = 1;
  }
}

// out[b]: phases completed in block b; out[8 + r * gridDim.x + b]: the count
// each thread of block b saw after round r, summed over the block.
__global__ void completion(int* out, int rounds) {
  __shared__ cuda::barrier<cuda::thread_scope_block, phase_counter> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x, phase_counter{out + blockIdx.x});
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    bar.arrive_and_wait();
    atomicAdd(&out[8 + r * gridDim.x + blockIdx.x], out[blockIdx.x]);
  }
}

// out[0]: phases; out[1]: phases seen by thread 0 after each of its waits, as digits.
__global__ void dropping(int* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block, phase_counter> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x, phase_counter{out});
  __syncthreads();
  if (threadIdx.x >= 32) {
    bar.arrive_and_drop();
    return;
  }
  for (int r = 0; r < 5; ++r) {
    bar.arrive_and_wait();
    if (threadIdx.x == 0) out[1] = out[1] * 10 + out[0];
  }
}

// The guide's memcpy_async over a block with a cuda::barrier; out[i] is twice
// the element mirrored within the block's batch.
__global__ void barrier_copy(int* out, const int* in, int batches) {
  block_group block;
  DYNAMIC_SHARED(int, shared);
  __shared__ block_barrier bar;
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  int grid_size = gridDim.x * block.size();
  for (int batch = 0; batch < batches; ++batch) {
    int base = blockIdx.x * block.size() + grid_size * batch;
    cuda::memcpy_async(block, shared, in + base, sizeof(int) * block.size(), bar);
    bar.arrive_and_wait();
    out[base + block.thread_rank()] = 2 * shared[block.size() - 1 - block.thread_rank()];
    block.sync();
  }
}

// The guide's producer/consumer warps over two buffers; out[i] = in[i] + 1.
// Each block takes every gridDim.x-th chunk of `len` elements (were two
// blocks to copy the same chunks, they would write the same words of out
// with nothing ordering them: a race on a GPU too, which the race check
// reports).
__global__ void producer_consumer(int n, int len, const int* in, int* out) {
  DYNAMIC_SHARED(int, buffer);
  __shared__ block_barrier bar[4];
  block_barrier* ready = bar;
  block_barrier* filled = bar + 2;
  if (threadIdx.x < 4) init(bar + threadIdx.x, blockDim.x);
  __syncthreads();
  int first = blockIdx.x, step = gridDim.x;
  int chunks = (n / len - first + step - 1) / step;
  auto chunk = [&](int k) { return first + k * step; };
  if (threadIdx.x < 32) {
    for (int k = 0; k < chunks; ++k) {
      ready[k % 2].arrive_and_wait();
      for (int j = threadIdx.x; j < len; j += 32) buffer[(k % 2) * len + j] = in[chunk(k) * len + j];
      block_barrier::arrival_token token = filled[k % 2].arrive();
      (void)token;
    }
  } else {
    block_barrier::arrival_token t0 = ready[0].arrive(), t1 = ready[1].arrive();
    (void)t0;
    (void)t1;
    int consumers = blockDim.x - 32, me = threadIdx.x - 32;
    for (int k = 0; k < chunks; ++k) {
      filled[k % 2].arrive_and_wait();
      for (int j = me; j < len; j += consumers) out[chunk(k) * len + j] = buffer[(k % 2) * len + j] + 1;
      block_barrier::arrival_token token = ready[k % 2].arrive();
      (void)token;
    }
  }
}

// The guide's two-stage block pipeline; out as for barrier_copy.
__global__ void block_pipeline(int* out, const int* in, int batches) {
  block_group block;
  DYNAMIC_SHARED(int, shared);
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(block, &state);
  int grid_size = gridDim.x * block.size();
  auto base = [&](int batch) { return static_cast<int>(blockIdx.x * block.size()) + grid_size * batch; };
  pipe.producer_acquire();
  cuda::memcpy_async(block, shared, in + base(0), sizeof(int) * block.size(), pipe);
  pipe.producer_commit();
  for (int batch = 1; batch <= batches; ++batch) {
    if (batch < batches) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, shared + (batch % 2) * block.size(), in + base(batch), sizeof(int) * block.size(),
                         pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    const int* stage = shared + ((batch - 1) % 2) * block.size();
    out[base(batch - 1) + block.thread_rank()] = 2 * stage[block.size() - 1 - block.thread_rank()];
    pipe.consumer_release();
  }
}

// A partitioned pipeline: warp 0 produces 32 ints per round into three
// stages, the other threads count the elements that differ from the input.
__global__ void partitioned(const int* in, int* errors, int rounds, int by_role) {
  __shared__ int buffer[3][32];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 3> state;
  block_group block;
  bool producer = threadIdx.x < 32;
  auto pipe = by_role ? cuda::make_pipeline(block, &state,
                                            producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer)
                      : cuda::make_pipeline(block, &state, 32);
  for (int r = 0; r < rounds; ++r) {
    if (producer) {
      pipe.producer_acquire();
      cuda::memcpy_async(&buffer[r % 3][threadIdx.x], &in[r * 32 + threadIdx.x], cuda::aligned_size_t<4>(4), pipe);
      pipe.producer_commit();
    } else {
      pipe.consumer_wait();
      for (int j = 0; j < 32; ++j) atomicAdd(&errors[0], buffer[r % 3][j] != in[r * 32 + j]);
      pipe.consumer_release();
    }
  }
}

// libcu++'s thread-scope example, and the primitives with zero fill.
__global__ void thread_pipeline(const unsigned long long* in, unsigned long long* out, const int* ints, int* copied) {
  DYNAMIC_SHARED(unsigned long long, words);
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  for (int i = 0; i < 8; ++i) {
    pipe.producer_acquire();
    cuda::memcpy_async(words + i, in + i, sizeof(*in), pipe);
    pipe.producer_commit();
  }
  cuda::pipeline_consumer_wait_prior<1>(pipe);
  pipe.consumer_release();
  cuda::pipeline_consumer_wait_prior<0>(pipe);
  pipe.consumer_release();
  unsigned long long sum = 0;
  for (int i = 0; i < 8; ++i) sum += words[i];
  out[0] = sum;
  __shared__ __align__(16) int staging[16];
  for (int k = 0; k < 4; ++k) __pipeline_memcpy_async(&staging[4 * k], &ints[4 * k], 16, k == 3 ? 8 : 0);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  for (int k = 0; k < 16; ++k) copied[k] = staging[k];
}

int* d_out;
int host_out[out_size];

void print(const char* name, int count) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", name, cudaGetErrorName(e));
    return;
  }
  cudaMemcpy(host_out, d_out, count * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < count; i += 16) {
    std::printf("%s[%d]:", name, i / 16);
    for (int j = i; j < i + 16 && j < count; ++j) std::printf(" %d", host_out[j]);
    std::printf("\n");
  }
  cudaMemset(d_out, 0, out_size * sizeof(int));
}

// Sum and a position-weighted checksum of the first `count` outputs.
void checksum(const char* name, int count) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", name, cudaGetErrorName(e));
    return;
  }
  cudaMemcpy(host_out, d_out, count * sizeof(int), cudaMemcpyDeviceToHost);
  long long sum = 0, weighted = 0;
  for (int i = 0; i < count; ++i) {
    sum += host_out[i];
    weighted += static_cast<long long>(host_out[i]) * (i % 97 + 1);
  }
  std::printf("%s: sum %lld weighted %lld\n", name, sum, weighted);
  cudaMemset(d_out, 0, out_size * sizeof(int));
}

int main() {
  cudaMalloc(&d_out, out_size * sizeof(int));
  cudaMemset(d_out, 0, out_size * sizeof(int));
  int* d_in;
  static int in[out_size];
  for (int i = 0; i < out_size; ++i) in[i] = (i * 37 + 11) % 1000;
  cudaMalloc(&d_in, sizeof in);
  cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);

  LAUNCH(tokens, 1, 6, 0, d_out);
  print("tokens", 2);
  LAUNCH(completion, 3, 70, 0, d_out, 5);
  print("completion", 8 + 5 * 3);
  LAUNCH(dropping, 1, 64, 0, d_out);
  print("dropping", 2);
  LAUNCH(barrier_copy, 4, 96, 96 * sizeof(int), d_out, d_in, 4);
  checksum("barrier_copy", 4 * 96 * 4);
  LAUNCH(producer_consumer, 2, 128, 2 * 64 * sizeof(int), 64 * 24, 64, d_in, d_out);
  checksum("producer_consumer", 64 * 24);
  LAUNCH(block_pipeline, 4, 64, 2 * 64 * sizeof(int), d_out, d_in, 7);
  checksum("block_pipeline", 4 * 64 * 7);
  LAUNCH(partitioned, 2, 96, 0, d_in, d_out, 10, 0);
  print("partitioned_count", 1);
  LAUNCH(partitioned, 2, 96, 0, d_in, d_out, 10, 1);
  print("partitioned_role", 1);

  unsigned long long host_ull[8], *d_ull, *d_sum;
  for (int i = 0; i < 8; ++i) host_ull[i] = (1ull << 40) + i;
  cudaMalloc(&d_ull, sizeof host_ull);
  cudaMalloc(&d_sum, sizeof(unsigned long long));
  cudaMemcpy(d_ull, host_ull, sizeof host_ull, cudaMemcpyHostToDevice);
  LAUNCH(thread_pipeline, 1, 1, 8 * sizeof(unsigned long long), d_ull, d_sum, d_in, d_out);
  print("primitives", 16);
  unsigned long long sum = 0;
  cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost);
  std::printf("thread_pipeline: %llu\n", sum);
  return 0;
}
