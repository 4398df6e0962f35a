// The device half of the sample: copies the data in, scales it on the
// device (the launch sits in scale_kernels.cuh), and copies it back.
#include <fake_helpers.h>

#include "scale_kernels.cuh"

void scaleOnDevice(float* host, float factor, int count) {
  float* device = nullptr;
  size_t bytes = count * sizeof(float);
  checkFake(cudaMalloc(&device, bytes));
  checkFake(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  launchScale(device, factor, count);
  checkFake(cudaGetLastError());
  checkFake(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
  checkFake(cudaFree(device));
}
