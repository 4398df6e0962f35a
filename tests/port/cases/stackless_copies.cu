// libcu++'s asynchronous copies in kernels weft-port converts: weft copies
// at once, so `cuda::memcpy_async` never waits, nor does anything of a
// thread's own pipeline (`cuda::make_pipeline()`); the kernel's barriers
// are awaited as usual (a block-scope cuda::barrier's too). A pipeline of
// the block or of a named tile, unified or partitioned (by a producer count
// or by each thread's role), is awaited (making it, producer_acquire,
// consumer_wait); one of a group weft-port cannot name keeps the kernel on
// fibers. Run with --explain (stackless_copies.expected-stderr).
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>

__global__ void staged_by_thread(const float* in, float* out) {
  __shared__ float tile[2][64];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  for (int stage = 0; stage < 2; ++stage) {
    pipe.producer_acquire();
    cuda::memcpy_async(&tile[stage][threadIdx.x], &in[stage * 64 + threadIdx.x], sizeof(float), pipe);
    pipe.producer_commit();
  }
  cuda::pipeline_consumer_wait_prior<0>(pipe);
  __syncthreads();
  out[threadIdx.x] = tile[0][63 - threadIdx.x] + tile[1][threadIdx.x];
  pipe.consumer_release();
}

__global__ void staged_with_barrier(const float* in, float* out) {
  __shared__ float tile[64];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(float), bar);
  bar.arrive_and_wait();
  out[threadIdx.x] = tile[63 - threadIdx.x];
}

__global__ void staged_by_block(const float* in, float* out) {
  __shared__ float tile[64];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cooperative_groups::this_thread_block();
  cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
  pipe.producer_acquire();
  cuda::memcpy_async(block, tile, in, sizeof(tile), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  out[threadIdx.x] = tile[63 - threadIdx.x];
  pipe.consumer_release();
}

template <int Stages>
__global__ void partitioned(const float* in, float* out) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, Stages> state;
  __shared__ float word[32];
  auto pipe = cuda::make_pipeline(cooperative_groups::this_thread_block(), &state, 32);
  if (threadIdx.x < 32) {
    pipe.producer_acquire();
    word[threadIdx.x] = in[threadIdx.x];
    pipe.producer_commit();
  } else {
    pipe.consumer_wait();
    out[threadIdx.x] = word[threadIdx.x - 32];
    pipe.consumer_release();
  }
  __syncthreads();
}

__global__ void by_role_and_tile(const float* in, float* out) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state, tile_state[2];
  auto block = cooperative_groups::this_thread_block();
  auto role = threadIdx.x % 2 ? cuda::pipeline_role::consumer : cuda::pipeline_role::producer;
  cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state, role);
  auto tile = cooperative_groups::tiled_partition<32>(block);
  auto tile_pipe = cuda::make_pipeline(tile, &tile_state[tile.meta_group_rank()]);
  tile_pipe.producer_acquire();
  tile_pipe.producer_commit();
  tile_pipe.consumer_wait();
  tile_pipe.consumer_release();
  if (role == cuda::pipeline_role::producer) {
    pipe.producer_acquire();
    pipe.producer_commit();
  } else {
    pipe.consumer_wait();
    out[threadIdx.x] = in[threadIdx.x];
    pipe.consumer_release();
  }
}

// Stays on fibers: the reason --explain gives.
__global__ void unnamed_tile_pipeline(const float* in, float* out) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe =
      cuda::make_pipeline(cooperative_groups::tiled_partition<32>(cooperative_groups::this_thread_block()), &state);
  pipe.consumer_wait();
  out[threadIdx.x] = in[threadIdx.x];
}

void host(const float* in, float* out) {
  staged_by_thread<<<1, 64>>>(in, out);
  staged_with_barrier<<<1, 64>>>(in, out);
  staged_by_block<<<1, 64>>>(in, out);
  partitioned<2><<<1, 64>>>(in, out);
  by_role_and_tile<<<1, 64>>>(in, out);
  unnamed_tile_pipeline<<<1, 32>>>(in, out);
}
