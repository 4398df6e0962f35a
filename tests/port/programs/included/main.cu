// A program whose launches sit in headers it does not list, as nvcc users
// write them: weft_add_cuda_executable is given main.cu and host_side.cpp
// only. weft-port follows main.cu's #include "..." lines and ports what they
// name: launches.cuh (a launch, and an extern __shared__ array in a macro
// that specialises a template for each type, as cuda-samples'
// MC_SingleAsianOptionP does), detail/tile.cuh (a test of __CUDA_ARCH__)
// and legacy_kernels.cu (a .cu included by another, as older course code
// does). Prints PASS or FAIL.
#include <cstdio>

#include "launches.cuh"
#include "legacy_kernels.cu"

int host_side_value();  // host_side.cpp, compiled without weft-port

int main() {
  const int n = 256;
  float* data;
  cudaMallocManaged(&data, n * sizeof(float));
  for (int i = 0; i < n; ++i) data[i] = 1.0f;
  float* sums;
  cudaMallocManaged(&sums, (n / 64) * sizeof(float));
  block_sums(data, sums, n);
  int* legacy;
  cudaMallocManaged(&legacy, 32 * sizeof(int));
  legacy_fill<<<1, 32>>>(legacy, 3);
  // A kernel of the included .cu is registered: launchable by address.
  int value = 4;
  void* arguments[] = {&legacy, &value};
  cudaLaunchKernel(reinterpret_cast<void*>(legacy_add), dim3(1), dim3(16), arguments, 0, nullptr);
  cudaError_t error = cudaDeviceSynchronize();
  int errors = error != cudaSuccess;
  for (int b = 0; b < n / 64; ++b) errors += sums[b] != 64.0f * tile_scale();
  for (int i = 0; i < 32; ++i) errors += legacy[i] != (i < 16 ? 7 : 3);
  errors += host_side_value() != 0;
  std::printf(errors == 0 ? "PASS\n" : "FAIL: %d wrong values (%s)\n", errors, cudaGetErrorName(error));
  return errors == 0 ? 0 : 1;
}
