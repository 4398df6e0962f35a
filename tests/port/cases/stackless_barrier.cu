// A block-scope cuda::barrier in kernels weft-port converts: its waits,
// `bar.arrive_and_wait()` and `bar.wait(std::move(token))`, are awaited
// (weft/stackless_barrier.hpp); arriving and `init` never wait and keep
// their spelling. A barrier of another scope, or one weft-port cannot name,
// keeps the kernel on fibers. Run with --explain
// (stackless_barrier.expected-stderr).
#include <cuda/barrier>

__global__ void exchange(int* out) {
  __shared__ int words[64];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  words[threadIdx.x] = threadIdx.x;
  bar.arrive_and_wait();
  int next = words[(threadIdx.x + 1) % blockDim.x];
  auto token = bar.arrive();
  out[threadIdx.x] = next;
  bar.wait(std::move(token));
}

// Stay on fibers: the reasons --explain gives.
__global__ void device_scope(int* out) {
  __shared__ cuda::barrier<cuda::thread_scope_device> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  bar.arrive_and_wait();
  out[threadIdx.x] = 1;
}
__global__ void two_barriers(int* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bars[2];
  if (threadIdx.x < 2) init(&bars[threadIdx.x], blockDim.x);
  __syncthreads();
  bars[0].arrive_and_wait();
  out[threadIdx.x] = 1;
}

void host(int* p) {
  exchange<<<2, 64>>>(p);
  device_scope<<<1, 32>>>(p);
  two_barriers<<<1, 32>>>(p);
}
