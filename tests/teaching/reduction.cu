// Parallel sum reduction in shared memory, in the three classic variants
// taught in CUDA courses: interleaved addressing with a divergent modulo test,
// interleaved addressing with strided indices, and sequential addressing with
// the first add during the load. Each block reduces its slice; the host adds
// the partial sums.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                     \
  do {                                                                                  \
    cudaError_t err = (call);                                                           \
    if (err != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

__global__ void reduce_divergent(const int* in, int* out, unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_strided(const int* in, int* out, unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    unsigned index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduce_sequential(const int* in, int* out, unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  int sum = i < n ? in[i] : 0;
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

int main() {
  const unsigned n = 1 << 20, threads = 256;
  std::vector<int> host(n);
  long long expected = 0;
  for (unsigned i = 0; i < n; ++i) {
    host[i] = static_cast<int>(i % 97) - 48;
    expected += host[i];
  }
  int *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n / threads * sizeof(int)));
  CHECK(cudaMemcpy(d_in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  bool ok = true;
  for (int variant = 0; variant < 3; ++variant) {
    unsigned blocks = variant == 2 ? n / threads / 2 : n / threads;
    size_t shared = threads * sizeof(int);
    if (variant == 0) reduce_divergent<<<blocks, threads, shared>>>(d_in, d_out, n);
    if (variant == 1) reduce_strided<<<blocks, threads, shared>>>(d_in, d_out, n);
    if (variant == 2) reduce_sequential<<<blocks, threads, shared>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    std::vector<int> partial(blocks);
    CHECK(cudaMemcpy(partial.data(), d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    long long sum = 0;
    for (int p : partial) sum += p;
    std::printf("variant %d: %lld (expected %lld)\n", variant, sum, expected);
    ok = ok && sum == expected;
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  std::puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
