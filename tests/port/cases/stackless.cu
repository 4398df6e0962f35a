// Which kernels weft-port converts to stackless kernels (co_await at each
// barrier and warp collective, co_return for return), and which stay on
// fibers; the case runs with --explain, which says why for each
// (stackless.expected-stderr).
#include <cstdio>

#define SQUARE(x) ((x) * (x))
#define WAIT_ALL() __syncthreads()

__device__ float twice(float x) { return 2.0f * x; }
__device__ float twice_squared(float x) { return twice(SQUARE(x)); }  // calls only what never waits
__device__ int warp_sum(int v) {                                      // waits: awaited by converted kernels
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}
struct pair_of {
  float a, b;
};
__device__ int elsewhere();  // defined in another file

// Converted: a barrier as a statement, in a condition, as an operand; an
// early return; helpers that never wait.
__global__ void declared_first(float* out, int n);
__global__ void declared_first(float* out, int n) {
  __shared__ float tile[64];
  if (n == 0) return;
  tile[threadIdx.x] = twice_squared(threadIdx.x) + pair_of{1.0f, 2.0f}.b;
  __syncthreads();
  if (__syncthreads_or(threadIdx.x == 3)) out[threadIdx.x] = tile[63 - threadIdx.x];
  int ones = __syncthreads_count(1) + __popc(__ballot_sync(0xffffffffu, threadIdx.x % 2));
  out[threadIdx.x] += ones;
  ::__syncthreads();
}

// Converted: a template, with nested shuffles and its launch named with arguments.
template <class T, int Width>
__global__ void __launch_bounds__(128) shuffled(T* data) {
  T v = data[threadIdx.x];
  v = __shfl_sync(0xffffffffu, __shfl_xor_sync(0xffffffffu, v, 1, Width), 0, Width);
  if (__all_sync(0xffffffffu, v > 0))
    data[threadIdx.x] = v;
  else
    __syncwarp();
}

// Converted: a `short` is shuffled as CUDA's overloads take it, promoted to int.
__global__ void promoted(short* p) { p[threadIdx.x] = __shfl_xor_sync(0xffffffffu, p[threadIdx.x], 1); }

// calls_a_waiting_helper and calls_own_swap convert, awaiting the helpers;
// the others stay on fibers: the reason --explain gives is on each line.
__global__ void no_barrier(float* out) { out[threadIdx.x] = 1.0f; }         // nothing to gain
__global__ void calls_a_waiting_helper(int* out) { out[0] = warp_sum(1); }  // warp_sum awaited
__global__ void waits_in_a_macro(int* out) {
  out[0] = 1;
  WAIT_ALL();
}  // WAIT_ALL waits
__device__ void swap(int& a, int& b) {  // the file's own swap waits, where std::swap would not
  __syncthreads();
  int t = a;
  a = b;
  b = t;
}
__global__ void calls_own_swap(int* out) {
  __syncthreads();
  swap(out[0], out[1]);
}  // swap awaited
__global__ void calls_unknown(int* out) {
  out[0] = elsewhere();
  __syncthreads();
}  // not seen
__global__ void holds_a_lambda(int* out) {
  auto one = [] { return 1; };
  __syncthreads();
  out[0] = one();
}
__global__ void waits_in_a_lambda(int* out) {
  auto sync = [] { __syncthreads(); };
  sync();
  out[0] = 1;
}
__global__ void spins(volatile int* flag) {
  __syncthreads();
  while (*flag == 0)
    ;
}
__global__ void taken_by_address(int* out) {
  __syncthreads();
  out[0] = 1;
}
__global__ void with_attributes(int* out) {
  __syncthreads();
  out[0] = 1;
}

void host(float* f, int* p) {
  declared_first<<<1, 64>>>(f, 64);
  shuffled<float, 32><<<1, 32>>>(f);
  promoted<<<1, 32>>>(reinterpret_cast<short*>(p));
  void* by_address = (void*)taken_by_address;
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, with_attributes);  // takes a stackless kernel: converted
  with_attributes<<<1, 32>>>(p);
  printf("%p\n", by_address);
}
