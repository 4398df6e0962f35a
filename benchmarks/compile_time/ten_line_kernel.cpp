// The ten-line kernel program whose compile time docs/performance.md
// reports ("Compile time"); measure.sh compiles it.
#include <weft.hpp>
__global__ void add(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}
int main() {
  float *a, *b;
  cudaMalloc(&a, 1024 * 4);
  cudaMalloc(&b, 1024 * 4);
  weft::launch(4, 256, add, a, b, 1024);
  return cudaDeviceSynchronize();
}
