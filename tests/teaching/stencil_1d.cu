// 1D stencil with a halo in shared memory: each output is the sum of the
// input within RADIUS of it. Threads at the block's edges also load the
// halo; __syncthreads separates loading from computing.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define RADIUS 3
#define BLOCK_SIZE 128

__global__ void stencil_1d(const int* in, int* out, int n) {
  __shared__ int temp[BLOCK_SIZE + 2 * RADIUS];
  int gindex = threadIdx.x + blockIdx.x * blockDim.x;
  int lindex = threadIdx.x + RADIUS;
  int size = n + 2 * RADIUS;  // the input's length
  temp[lindex] = gindex + RADIUS < size ? in[gindex + RADIUS] : 0;
  if (threadIdx.x < RADIUS) {
    temp[lindex - RADIUS] = gindex < size ? in[gindex] : 0;
    temp[lindex + BLOCK_SIZE] = gindex + BLOCK_SIZE + RADIUS < size ? in[gindex + BLOCK_SIZE + RADIUS] : 0;
  }
  __syncthreads();
  if (gindex >= n) return;
  int result = 0;
  for (int offset = -RADIUS; offset <= RADIUS; offset++) result += temp[lindex + offset];
  out[gindex] = result;
}

int main() {
  const int n = 100000;  // outputs; the input has RADIUS extra on each side
  std::vector<int> in(n + 2 * RADIUS), out(n);
  for (int i = 0; i < n + 2 * RADIUS; ++i) in[i] = (i * 7) % 11 - 5;
  int *d_in, *d_out;
  cudaMalloc((void**)&d_in, (n + 2 * RADIUS) * sizeof(int));
  cudaMalloc((void**)&d_out, n * sizeof(int));
  cudaMemcpy(d_in, in.data(), (n + 2 * RADIUS) * sizeof(int), cudaMemcpyHostToDevice);
  stencil_1d<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(d_in, d_out, n);
  cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  int errors = 0;
  for (int i = 0; i < n; ++i) {
    int expected = 0;
    for (int k = 0; k <= 2 * RADIUS; ++k) expected += in[i + k];
    errors += out[i] != expected;
  }
  cudaFree(d_in);
  cudaFree(d_out);
  printf("%d errors\n", errors);
  printf(errors == 0 ? "PASS\n" : "FAIL\n");
  return errors != 0;
}
