// Example: a grid-wide sum with one kernel: blocks write partial sums, the whole grid
// synchronises with grid.sync(), and block 0 adds the partial sums. The grid
// is sized from the occupancy calculator, as cooperative launches must be,
// and launched with cudaLaunchCooperativeKernel.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void gridSum(const float* in, float* partial, float* result, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ float cache[256];

  float sum = 0.0f;
  for (int i = grid.thread_rank(); i < n; i += grid.size()) sum += in[i];
  cache[block.thread_rank()] = sum;
  block.sync();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (block.thread_rank() < stride) cache[block.thread_rank()] += cache[block.thread_rank() + stride];
    block.sync();
  }
  if (block.thread_rank() == 0) partial[blockIdx.x] = cache[0];

  grid.sync();

  if (grid.thread_rank() == 0) {
    float total = 0.0f;
    for (int b = 0; b < gridDim.x; b++) total += partial[b];
    *result = total;
  }
}

int main() {
  int device = 0, supportsCoop = 0, numSMs = 0, blocksPerSM = 0;
  cudaDeviceGetAttribute(&supportsCoop, cudaDevAttrCooperativeLaunch, device);
  cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSM, gridSum, 256, 0);
  if (!supportsCoop) {
    printf("cooperative launch not supported\nFAIL\n");
    return 0;
  }
  int blocks = numSMs * blocksPerSM;

  const int n = 1 << 20;
  float *in, *partial, *result;
  cudaMallocManaged(&in, n * sizeof(float));
  cudaMallocManaged(&partial, blocks * sizeof(float));
  cudaMallocManaged(&result, sizeof(float));
  for (int i = 0; i < n; i++) in[i] = (i % 4) * 0.25f;  // exact in float: sums of quarters

  int count = n;
  void* args[] = {&in, &partial, &result, &count};
  cudaError_t err = cudaLaunchCooperativeKernel((void*)gridSum, blocks, 256, args, 0, 0);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  float expected = (n / 4) * (0.0f + 0.25f + 0.5f + 0.75f);
  printf("%d blocks on %d SMs: sum %.1f, expected %.1f (%s)\n", blocks, numSMs, *result, expected,
         cudaGetErrorString(err));

  // A cooperative grid must be resident at once: a million blocks are refused.
  cudaError_t tooLarge = cudaLaunchCooperativeKernel((void*)gridSum, 1000000, 256, args, 0, 0);
  cudaGetLastError();

  bool ok = err == cudaSuccess && *result == expected && tooLarge == cudaErrorCooperativeLaunchTooLarge;
  cudaFree(in);
  cudaFree(partial);
  cudaFree(result);
  printf(ok ? "PASS\n" : "FAIL\n");
  return 0;
}
