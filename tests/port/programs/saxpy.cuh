// Shared by saxpy_main.cu and saxpy_kernel.cu, and listed with them in
// weft_add_cuda_executable: its launch is ported too, and both .cu files
// read the port although the sources sit here and the ports in the build tree.
#pragma once

constexpr int kThreads = 128;

__global__ void saxpy(int n, float a, const float* x, float* y);

inline void launch_saxpy(int n, float a, const float* x, float* y) {
  saxpy<<<(n + kThreads - 1) / kThreads, kThreads>>>(n, a, x, y);
}
