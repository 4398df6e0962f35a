// Kernels and their launch in a header that the .cu includes: nvcc users
// list only the .cu, so the porting step has to find this launch itself.
#pragma once

// It reads its lane with inline PTX, as some samples do: weft-port ports a
// read of a special register (and run_samples.py keeps such a sample in
// scope). A wrong lane spoils the result.
__global__ void scaleKernel(float* values, float factor, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  if (i < count) values[i] *= lane == threadIdx.x % 32 ? factor : 0.0f;
}

inline void launchScale(float* values, float factor, int count) {
  const int threads = 128;
  scaleKernel<<<(count + threads - 1) / threads, threads>>>(values, factor, count);
}
