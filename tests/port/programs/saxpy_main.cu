// A program of two .cu files and a header: this one launches the kernel
// saxpy_kernel.cu defines, directly and through the header. Prints PASS or FAIL.
#include <cstdio>
#include <vector>

#include "saxpy.cuh"

int main() {
  const int n = 1 << 20;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  float *d_x, *d_y;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<(n + kThreads - 1) / kThreads, kThreads>>>(n, 2.0f, d_x, d_y);  // y = 2 + 2 = 4
  launch_saxpy(n, 0.5f, d_x, d_y);                                        // y = 4 + 0.5 = 4.5
  cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost);
  int errors = 0;
  for (float v : y) errors += v != 4.5f;
  cudaFree(d_x);
  cudaFree(d_y);
  std::printf(errors == 0 ? "PASS\n" : "FAIL: %d wrong values\n", errors);
  return errors == 0 ? 0 : 1;
}
