// The porting step as a project outside weft uses it: an unmodified .cu
// built with weft_add_cuda_executable. check_consumer.cmake edits VALUE and
// rebuilds, to see the edit ported again.
#include <cstdio>

#define VALUE 7

__global__ void put(int* out, int value) {
  extern __shared__ int staged[];
  staged[threadIdx.x] = value;
  __syncthreads();
  out[threadIdx.x] = staged[blockDim.x - 1 - threadIdx.x];
}

int main() {
  int* d;
  int h[32];
  cudaMalloc(&d, sizeof h);
  put<<<1, 32, sizeof h>>>(d, VALUE);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int v : h)
    if (v != VALUE) {
      std::printf("FAIL: %d, expected %d\n", v, VALUE);
      return 1;
    }
  std::printf("PASS: value %d\n", VALUE);
  return 0;
}
