// Inclusive prefix sum with warp shuffles: each warp scans its 32 values
// with __shfl_up_sync, warp totals are scanned by the first warp through
// shared memory, and a second pass adds each block's offset.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define BLOCK 256
#define WARPS (BLOCK / 32)

__device__ int warp_inclusive_scan(int value) {
  int lane = threadIdx.x & 31;
  for (int offset = 1; offset < 32; offset <<= 1) {
    int neighbour = __shfl_up_sync(0xffffffff, value, offset);
    if (lane >= offset) value += neighbour;
  }
  return value;
}

__global__ void block_scan(const int* in, int* out, int* block_sums, int n) {
  __shared__ int warp_totals[WARPS];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int value = i < n ? in[i] : 0;
  value = warp_inclusive_scan(value);
  if (lane == 31) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) {
    int total = lane < WARPS ? warp_totals[lane] : 0;
    total = warp_inclusive_scan(total);
    if (lane < WARPS) warp_totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) value += warp_totals[warp - 1];
  if (i < n) out[i] = value;
  if (threadIdx.x == BLOCK - 1) block_sums[blockIdx.x] = value;
}

__global__ void add_offsets(int* out, const int* scanned_block_sums, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (blockIdx.x > 0 && i < n) out[i] += scanned_block_sums[blockIdx.x - 1];
}

int main() {
  const int n = 60000;
  const int blocks = (n + BLOCK - 1) / BLOCK;  // 235: at most BLOCK, so one more scan pass suffices
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 11 - 3;
  int *d_in, *d_out, *d_sums, *d_scanned_sums, *d_unused;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, n * sizeof(int));
  cudaMalloc(&d_sums, blocks * sizeof(int));
  cudaMalloc(&d_scanned_sums, blocks * sizeof(int));
  cudaMalloc(&d_unused, sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  block_scan<<<blocks, BLOCK>>>(d_in, d_out, d_sums, n);
  block_scan<<<1, BLOCK>>>(d_sums, d_scanned_sums, d_unused, blocks);
  add_offsets<<<blocks, BLOCK>>>(d_out, d_scanned_sums, n);
  cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  int errors = 0;
  long long running = 0;
  for (int i = 0; i < n; ++i) {
    running += in[i];
    errors += out[i] != running;
  }
  printf("%d errors, last value %d\n", errors, out[n - 1]);
  bool ok = errors == 0 && cudaGetLastError() == cudaSuccess;
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_sums);
  cudaFree(d_scanned_sums);
  cudaFree(d_unused);
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
