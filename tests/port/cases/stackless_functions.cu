// __device__ functions that wait: weft-port adds an awaitable version of
// each (weft_port_awaitable_NAME, declared beside each declaration and
// defined after the last line at the plain one's lines), which converted
// kernels co_await; the plain one stays for every other caller. Run with
// --explain (stackless_functions.expected-stderr).
#include <cstdio>

constexpr unsigned full_warp = 0xffffffffu;

// Declared first, with a default argument; defined after a kernel calls it.
__device__ int lane_sum(int v, int width = 32);

// A chain: tile_total waits only through lane_sum.
__device__ int tile_total(int v) { return lane_sum(v) + lane_sum(v, 16); }

// Waits itself, returns nothing, called as a statement.
static __device__ void publish(int* slot, int v) {
  __syncthreads();
  *slot = v;
  __syncthreads();
}

// A template, called with its arguments named and deduced.
template <class T>
__device__ T warp_max(T v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    T other = __shfl_xor_sync(full_warp, v, offset);
    if (other > v) v = other;
  }
  return v;
}

namespace blocks {
__device__ float block_sum(float v, float* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  float sum = 0;
  for (unsigned i = 0; i < blockDim.x; ++i) sum += scratch[i];
  __syncthreads();
  return sum;
}
}  // namespace blocks

// Converted: each call awaited.
__global__ void sums(const int* in, int* out) {
  __shared__ int slot;
  int v = tile_total(in[threadIdx.x]) + lane_sum(in[threadIdx.x], 8);
  publish(&slot, v);
  out[threadIdx.x] = slot + warp_max<int>(v) + warp_max(in[threadIdx.x]);
}

__device__ int lane_sum(int v, int width) {
  for (int offset = width / 2; offset > 0; offset /= 2) v += __shfl_down_sync(full_warp, v, offset, width);
  return v;
}

__global__ void block_sums(float* data) {
  __shared__ float scratch[256];
  data[threadIdx.x] = blocks::block_sum(data[threadIdx.x], scratch) / 2;
}

// Its name is used as a value: stackless behind a void kernel of that name.
__global__ void by_address(int* out) { out[threadIdx.x] = lane_sum(out[threadIdx.x]); }

// Overloaded, recursive, or calling what cannot be seen: their callers stay on fibers.
__device__ int spread(int v) { return __shfl_sync(full_warp, v, 0); }
__device__ float spread(float v) { return __shfl_sync(full_warp, v, 0); }
__device__ int halve_until_one(int v) {
  __syncwarp();
  return v <= 1 ? v : halve_until_one(v / 2);
}
__device__ int ping(int v);
__device__ int pong(int v) {
  __syncwarp();
  return v > 0 ? ping(v - 1) : 0;
}
__device__ int ping(int v) { return v > 0 ? pong(v - 1) : 1; }
__device__ int unseen(int v);
__device__ int waits_and_calls_unseen(int v) {
  __syncwarp();
  return unseen(v);
}
__global__ void calls_overloaded(int* out) { out[0] = spread(out[0]); }
__global__ void calls_recursive(int* out) { out[0] = halve_until_one(out[0]); }
__global__ void calls_mutually_recursive(int* out) { out[0] = ping(out[0]); }
__global__ void calls_waiting_unseen(int* out) { out[0] = waits_and_calls_unseen(out[0]); }
#ifndef NO_FLAGS  // its awaitable version, after the last line, would be outside the #ifndef
__device__ int read_after_barrier(const int* flag) {
  __syncthreads();
  return *flag;
}
__global__ void calls_conditional(int* out) { out[1] = read_after_barrier(out); }
#endif

void host(int* p, float* f) {
  sums<<<1, 32>>>(p, p);
  block_sums<<<1, 256>>>(f);
  void* address = (void*)by_address;
  printf("%p\n", address);
}
