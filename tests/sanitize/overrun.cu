// The new user's first ASan run (issue 16): a kernel that writes one
// element past a cudaMalloc'd array. Built with WEFT_SANITIZE=address, ASan
// must report the write, at this file's line, with no warning before it:
// the kernel's threads wait at a barrier first, so that they run on fibers
// and finished fibers switch away (unannounced, the switches made ASan warn
// "ignoring requested __asan_handle_no_return" here). check_overrun.sh
// runs it and reads the report.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void shift_left(int* data, int n) {
  __shared__ int tile[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? data[i] : 0;
  __syncthreads();
  if (i <= n) data[i] = tile[(threadIdx.x + 1) % blockDim.x];  // i == n: one past the end
}

int main() {
  const int n = 1000;
  int* data = nullptr;
  cudaMalloc(&data, n * sizeof(int));
  cudaMemset(data, 0, n * sizeof(int));
  shift_left<<<(n + 127) / 128, 128>>>(data, n);
  cudaDeviceSynchronize();
  cudaFree(data);
  std::printf("no error found\n");
}
