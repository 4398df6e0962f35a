// A 2D array in pitched device memory: cudaMallocPitch pads each row, the
// kernel addresses rows by the pitch in bytes, cudaMemcpy2D copies in and
// out of a tightly packed host array.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

__global__ void scaleRows(float* devPtr, size_t pitch, int width, int height) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < height && c < width) {
    float* row = (float*)((char*)devPtr + r * pitch);
    row[c] = row[c] * (r + 1);
  }
}

int main() {
  const int width = 123, height = 45;
  std::vector<float> host(width * height);
  for (int i = 0; i < width * height; ++i) host[i] = float(i % width);
  float* devPtr;
  size_t pitch;
  cudaError_t err = cudaMallocPitch((void**)&devPtr, &pitch, width * sizeof(float), height);
  printf("pitch %zu bytes for rows of %zu bytes\n", pitch, width * sizeof(float));
  bool ok = err == cudaSuccess && pitch >= width * sizeof(float);
  cudaMemcpy2D(devPtr, pitch, host.data(), width * sizeof(float), width * sizeof(float), height,
               cudaMemcpyHostToDevice);
  dim3 block(16, 16);
  dim3 grid((width + 15) / 16, (height + 15) / 16);
  scaleRows<<<grid, block>>>(devPtr, pitch, width, height);
  std::vector<float> out(width * height);
  err = cudaMemcpy2D(out.data(), width * sizeof(float), devPtr, pitch, width * sizeof(float), height,
                     cudaMemcpyDeviceToHost);
  ok = ok && err == cudaSuccess;
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c) ok = ok && out[r * width + c] == float(c * (r + 1));
  cudaFree(devPtr);
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
