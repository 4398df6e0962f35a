// 1D convolution with the mask in constant memory, copied there with
// cudaMemcpyToSymbol, and a __device__ counter read back with
// cudaMemcpyFromSymbol.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#define MASK_WIDTH 5

__constant__ float d_mask[MASK_WIDTH];
__device__ unsigned int d_outputs;

__global__ void convolution1D(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0;
  int start = i - MASK_WIDTH / 2;
  for (int j = 0; j < MASK_WIDTH; ++j)
    if (start + j >= 0 && start + j < n) sum += in[start + j] * d_mask[j];
  out[i] = sum;
  atomicAdd(&d_outputs, 1u);
}

int main() {
  const int n = 10000;
  float mask[MASK_WIDTH] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = float(i % 10);
  cudaMemcpyToSymbol(d_mask, mask, sizeof(mask));
  unsigned int zero = 0;
  cudaMemcpyToSymbol(d_outputs, &zero, sizeof(zero));
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  convolution1D<<<(n + 255) / 256, 256>>>(d_in, d_out, n);
  cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  unsigned int outputs = 0;
  cudaMemcpyFromSymbol(&outputs, d_outputs, sizeof(outputs));
  bool ok = outputs == n;
  for (int i = 0; i < n; ++i) {
    float expected = 0;
    for (int j = 0; j < MASK_WIDTH; ++j) {
      int k = i - MASK_WIDTH / 2 + j;
      if (k >= 0 && k < n) expected += in[k] * mask[j];
    }
    ok = ok && out[i] == expected;
  }
  cudaFree(d_in);
  cudaFree(d_out);
  printf("%u outputs\n", outputs);
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
