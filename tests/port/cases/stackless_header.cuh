// The kernels of a header that stackless_header.cu alone includes.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Converts: a template whose launch, in this header, names its arguments,
// with volatile shared tiles, the block's group and an early return.
template <int bx, int by>
__global__ void reverse_tile(const float* in, float* out, int w, int h) {
  cg::thread_block cta = cg::this_thread_block();
  volatile __shared__ float tile[bx * by];
  const int x = threadIdx.x + blockIdx.x * blockDim.x;
  const int y = threadIdx.y + blockIdx.y * blockDim.y;
  const int here = threadIdx.x + threadIdx.y * bx;
  tile[here] = in[min(x, w - 1) + min(y, h - 1) * w];
  cg::sync(cta);
  if (x >= w || y >= h) return;
  out[x + y * w] = tile[bx * by - 1 - here];
}

static void reverse_rows(float* data, int w, int h) {
  dim3 threads(32, 6);
  dim3 blocks((w + 31) / 32, (h + 5) / 6);
  reverse_tile<32, 6><<<blocks, threads>>>(data, data, w, h);
}

// Converts: the .cu launches it by name, as it launches its own kernels.
__global__ void launched_from_the_cu(int* values) {
  __shared__ int tile[32];
  tile[threadIdx.x] = values[threadIdx.x];
  __syncthreads();
  values[threadIdx.x] = tile[31 - threadIdx.x];
}

// Converts: its waiting helper is made awaitable (after the last line: no guard).
__device__ void wait_for_the_block() { __syncthreads(); }

__global__ void calls_a_waiting_helper(int* values) {
  values[threadIdx.x] += 1;
  wait_for_the_block();
}

static void launch_helper_waiter(int* values) { calls_a_waiting_helper<<<1, 32>>>(values); }

// Stays: a C-linkage kernel's stackless body would follow the header's last line.
extern "C" __global__ void c_named(int* values) {
  __syncthreads();
  values[threadIdx.x] = 0;
}
