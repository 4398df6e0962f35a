// A program that defines its own lerp, as cuda-samples' helper_math.h does,
// after <math.h>: nvcc compiles it as C++17, where <math.h> has no lerp at
// global scope; weft compiles C++20, and its <math.h> must not bring
// std::lerp there either. The float overloads of <math.h> stay global.
#include <math.h>
#include <stdio.h>

#include <cuda_runtime.h>

inline __host__ __device__ float lerp(float a, float b, float t) { return a + t * (b - a); }

__global__ void interpolate(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrt(lerp(a[i], b[i], 0.25f));  // sqrt(float): single precision
}

int main() {
  const int n = 256;
  float *a, *b, *out;
  cudaMallocManaged(&a, n * sizeof(float));
  cudaMallocManaged(&b, n * sizeof(float));
  cudaMallocManaged(&out, n * sizeof(float));
  for (int i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = float(i + 8);
  }
  interpolate<<<(n + 127) / 128, 128>>>(a, b, out, n);
  cudaDeviceSynchronize();
  bool ok = sizeof(sqrt(1.0f)) == sizeof(float) && fabs(M_PI - 3.14159265358979) < 1e-12;
  for (int i = 0; i < n; ++i) ok = ok && out[i] == sqrtf(float(i) + 2.0f);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
