// Sum reductions with dynamic shared memory, as CUDA samples write them:
// `extern __shared__` in a template kernel, in a byte buffer cast to the
// element type, and at namespace scope; launches through a macro and with
// the shared size in the configuration. Built unmodified through
// weft_add_cuda_executable. Prints PASS or FAIL.
#include <cstdio>
#include <vector>

// Shared by every kernel that counts: the block's dynamic shared memory.
extern __shared__ int counters[];

template <unsigned blockSize, class T>
__global__ void reduce(const T* in, T* out, unsigned n) {
  extern __shared__ T sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  T sum = 0;
  if (i < n) sum += in[i];
  if (i + blockSize < n) sum += in[i + blockSize];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockSize / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// The same sum over a raw byte buffer, the way templated code avoids
// redeclaring `extern __shared__ T` with different types.
__global__ void reduce_bytes(const double* in, double* out, unsigned n) {
  extern __shared__ __align__(sizeof(double)) unsigned char smem[];
  double* sdata = reinterpret_cast<double*>(smem);
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = i < n ? in[i] : 0.0;
  __syncthreads();
  for (unsigned s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Counts the even values with per-block counters in `counters` (namespace
// scope), indexed and offset like an array.
__global__ void count_even(const int* in, int* total, int n) {
  int* mine = counters + threadIdx.x;
  *mine = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) *mine += (in[i] % 2 == 0);
  __syncthreads();
  if (threadIdx.x == 0) {
    int block_sum = 0;
    for (unsigned t = 0; t < blockDim.x; ++t) block_sum += counters[t];
    atomicAdd(total, block_sum);
  }
}

// clang-format off
#define LAUNCH_REDUCE(bs, blocks, in, out, n) \
  reduce<bs, float><<<blocks, bs, bs * sizeof(float)>>>(in, out, n)
// clang-format on

int main() {
  const unsigned n = 1 << 16;
  bool ok = true;

  // float, blockSize 256, each block summing 512 elements.
  std::vector<float> h_in(n);
  for (unsigned i = 0; i < n; ++i) h_in[i] = float(i % 7);
  float *d_in, *d_partial;
  const unsigned blocks = (n + 511) / 512;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_partial, blocks * sizeof(float));
  cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  LAUNCH_REDUCE(256, blocks, d_in, d_partial, n);
  std::vector<float> h_partial(blocks);
  cudaMemcpy(h_partial.data(), d_partial, blocks * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0, expected = 0;
  for (float p : h_partial) sum += p;
  for (float v : h_in) expected += v;
  if (sum != expected) {
    std::printf("FAIL: reduce<256> sum %f, expected %f\n", sum, expected);
    ok = false;
  }

  // double through the byte buffer, blockSize 128.
  std::vector<double> h_d(n, 0.25);
  double *d_d, *d_dpartial;
  const unsigned dblocks = n / 128;
  cudaMalloc(&d_d, n * sizeof(double));
  cudaMalloc(&d_dpartial, dblocks * sizeof(double));
  cudaMemcpy(d_d, h_d.data(), n * sizeof(double), cudaMemcpyHostToDevice);
  // A launch over several lines, as the porting step must handle.
  // clang-format off
  reduce_bytes<<<dblocks,
                 128,
                 128 * sizeof(double)>>>(d_d, d_dpartial,
                                         n);
  // clang-format on
  std::vector<double> h_dpartial(dblocks);
  cudaMemcpy(h_dpartial.data(), d_dpartial, dblocks * sizeof(double), cudaMemcpyDeviceToHost);
  double dsum = 0;
  for (double p : h_dpartial) dsum += p;
  if (dsum != n * 0.25) {
    std::printf("FAIL: reduce_bytes sum %f, expected %f\n", dsum, n * 0.25);
    ok = false;
  }

  // Even values among 0..n-1, counted through the namespace-scope array.
  std::vector<int> h_ints(n);
  for (unsigned i = 0; i < n; ++i) h_ints[i] = int(i);
  int *d_ints, *d_total, h_total = 0;
  cudaMalloc(&d_ints, n * sizeof(int));
  cudaMalloc(&d_total, sizeof(int));
  cudaMemcpy(d_ints, h_ints.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_total, &h_total, sizeof(int), cudaMemcpyHostToDevice);
  count_even<<<16, 64, 64 * sizeof(int)>>>(d_ints, d_total, (int)n);
  cudaMemcpy(&h_total, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  if (h_total != int(n / 2)) {
    std::printf("FAIL: count_even %d, expected %u\n", h_total, n / 2);
    ok = false;
  }

  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    std::printf("FAIL: %s\n", cudaGetErrorString(err));
    ok = false;
  }
  std::printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
