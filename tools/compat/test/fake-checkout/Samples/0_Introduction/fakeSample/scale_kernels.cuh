// Kernels and their launch in a header that the .cu includes: nvcc users
// list only the .cu, so the porting step has to find this launch itself.
#pragma once

__global__ void scaleKernel(float* values, float factor, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) values[i] *= factor;
}

inline void launchScale(float* values, float factor, int count) {
  const int threads = 128;
  scaleKernel<<<(count + threads - 1) / threads, threads>>>(values, factor, count);
}
