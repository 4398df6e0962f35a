// A variable initialised directly, `T name(args);`, is a declaration, not a
// call of a function `name`: kernels that declare one still convert, with
// a type of CUDA's, of the file's own or of C++'s. A call written after a
// keyword (`else wait_for(...)`), an operator spelt as a word (`k xor
// mix(k)`) or a declaration is still a call.
// Run with --explain (stackless_direct_init.expected-stderr).
#include <cuda/std/atomic>

struct tile {
  __device__ tile(const float* p, int n) : data(p), size(n) {}
  __device__ float at(int i) const { return i < size ? data[i] : 0.0f; }
  const float* data;
  int size;
};

__device__ void wait_for(cuda::std::atomic<int>* f) {
  while (f->load() == 0) {
    __threadfence_block();
  }
}
__device__ float blend(float2 v);  // defined in another file
__device__ int mix(int k);         // defined in another file

// Convert: declarations only.
__global__ void vector_type(const float* a, const float* b, float* out) {
  __shared__ float partial[64];
  float2 v(a[threadIdx.x], b[threadIdx.x]);
  partial[threadIdx.x] = v.x + v.y;
  __syncthreads();
  out[threadIdx.x] = partial[(threadIdx.x + 1) % 64];
}
__global__ void own_type(const float* in, float* out, int n) {
  __shared__ float partial[64];
  const tile t(in, n);
  partial[threadIdx.x] = t.at(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = partial[(threadIdx.x + 1) % 64];
}
__global__ void built_in_type(float* out) {
  __shared__ float partial[64];
  int k(3);
  unsigned lane(threadIdx.x % 32);
  partial[threadIdx.x] = k * lane;
  __syncthreads();
  out[threadIdx.x] = partial[(threadIdx.x + 1) % 64];
}

// Stay on fibers: real calls beside declarations.
__global__ void call_after_else(cuda::std::atomic<int>* f, float* out) {
  __syncthreads();
  if (threadIdx.x == 0)
    f->store(1);
  else
    wait_for(f);
  out[threadIdx.x] = 1.0f;
}
__global__ void call_after_a_declaration(const float* a, float* out) {
  float2 v(a[0], a[1]);
  __syncthreads();
  out[threadIdx.x] = blend(v);
}
__global__ void call_after_an_operator_word(int* out) {
  int k(out[0]);
  __syncthreads();
  out[threadIdx.x] = k xor mix(k);
}
