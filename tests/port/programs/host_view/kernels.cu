// port.program.host_view, the device side: a kernel that calls the device
// functions whose names host.cpp defines for itself on the host (umin,
// __mul24, min, rsqrtf), as cuda-samples' mergeSort does, plus the mixed-type
// min/max overloads and an atomic. host.cpp checks the results with its own
// functions. Prints PASS or FAIL.
#include <cuda_runtime.h>
#include <cstdio>

typedef unsigned int uint;

// host.cpp: the mismatches between the kernel's results and the host's.
int count_mismatches(int n, const uint* d_a, const uint* d_b, const uint* d_mins, const int* d_products,
                     const float* d_roots, const uint* d_mixed_mins, const double* d_mixed_maxes,
                     const unsigned long long* d_sum);

__global__ void device_values(int n, const uint* a, const uint* b, uint* mins, int* products, float* roots,
                              uint* mixed_mins, double* mixed_maxes, unsigned long long* sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  mins[i] = umin(a[i], b[i]);
  products[i] = __mul24(static_cast<int>(a[i]), static_cast<int>(b[i]));
  roots[i] = rsqrtf(static_cast<float>(a[i] + 1));
  // min(int, unsigned) compares as unsigned: -1 is the largest.
  mixed_mins[i] = min(static_cast<int>(a[i]) - 1, b[i]);
  mixed_maxes[i] = max(static_cast<float>(a[i]) * 0.5f, static_cast<double>(b[i]) * 0.25);
  atomicAdd(sum, static_cast<unsigned long long>(min(static_cast<int>(a[i]), static_cast<int>(b[i]))));
}

int main() {
  const int n = 1000;
  uint a[n], b[n];
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<uint>((i * 37) % 101);
    b[i] = static_cast<uint>((i * 53) % 89);
  }
  uint *d_a, *d_b, *d_mins, *d_mixed_mins;
  int* d_products;
  float* d_roots;
  double* d_mixed_maxes;
  unsigned long long* d_sum;
  cudaMalloc(&d_a, n * sizeof(uint));
  cudaMalloc(&d_b, n * sizeof(uint));
  cudaMalloc(&d_mins, n * sizeof(uint));
  cudaMalloc(&d_products, n * sizeof(int));
  cudaMalloc(&d_roots, n * sizeof(float));
  cudaMalloc(&d_mixed_mins, n * sizeof(uint));
  cudaMalloc(&d_mixed_maxes, n * sizeof(double));
  cudaMalloc(&d_sum, sizeof(unsigned long long));
  cudaMemcpy(d_a, a, n * sizeof(uint), cudaMemcpyHostToDevice);
  cudaMemcpy(d_b, b, n * sizeof(uint), cudaMemcpyHostToDevice);
  cudaMemset(d_sum, 0, sizeof(unsigned long long));
  device_values<<<(n + 127) / 128, 128>>>(n, d_a, d_b, d_mins, d_products, d_roots, d_mixed_mins, d_mixed_maxes, d_sum);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("FAIL: the kernel failed\n");
    return 1;
  }
  int mismatches = count_mismatches(n, d_a, d_b, d_mins, d_products, d_roots, d_mixed_mins, d_mixed_maxes, d_sum);
  std::printf("%s: %d mismatches\n", mismatches == 0 ? "PASS" : "FAIL", mismatches);
  return mismatches == 0 ? 0 : 1;
}
