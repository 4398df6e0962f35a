// libcu++'s asynchronous copies in kernels weft-port converts: weft copies
// at once, so `cuda::memcpy_async` never waits, nor does anything of a
// thread's own pipeline (`cuda::make_pipeline()`); the kernel's barriers
// are awaited as usual (a block-scope cuda::barrier's too). A block's
// unified pipeline, made from the block, is awaited (making it,
// producer_acquire, consumer_wait); another pipeline shared by threads keeps
// the kernel on fibers. Run with --explain (stackless_copies.expected-stderr).
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

// Stays on fibers: the reason --explain gives.
template <int Stages>
__global__ void partitioned(const float* in, float* out) {
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, Stages> state;
  auto pipe = cuda::make_pipeline(cooperative_groups::this_thread_block(), &state, 32);
  pipe.producer_acquire();
  pipe.producer_commit();
  pipe.consumer_wait();
  out[threadIdx.x] = in[threadIdx.x];
  pipe.consumer_release();
  __syncthreads();
}

void host(const float* in, float* out) {
  staged_by_thread<<<1, 64>>>(in, out);
  staged_with_barrier<<<1, 64>>>(in, out);
  staged_by_block<<<1, 64>>>(in, out);
  partitioned<2><<<1, 64>>>(in, out);
}
