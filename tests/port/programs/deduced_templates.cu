// Template kernels launched the way CUDA code usually launches them: the
// arguments pick the template arguments (scale<<<...>>>(floats, 2.0f, n)),
// and explicit template arguments where nothing can be deduced.
#include <cstdio>

template <typename T>
__global__ void scale(T* data, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

template <typename T, int Value>
__global__ void fill(T* data) {
  data[threadIdx.x] = Value;
}

int main() {
  float* f;
  double* d;
  int* k;
  cudaMallocManaged(&f, 64 * sizeof(float));
  cudaMallocManaged(&d, 64 * sizeof(double));
  cudaMallocManaged(&k, 64 * sizeof(int));
  for (int i = 0; i < 64; ++i) {
    f[i] = i;
    d[i] = i;
  }
  scale<<<2, 32>>>(f, 2.0f, 64);
  scale<<<2, 32>>>(d, 0.5, 64);
  fill<int, 7><<<1, 64>>>(k);
  cudaError_t err = cudaDeviceSynchronize();
  bool ok = err == cudaSuccess && f[63] == 126.0f && d[63] == 31.5 && k[5] == 7;
  printf("%s\n", ok ? "PASS" : "FAIL");
  cudaFree(f);
  cudaFree(d);
  cudaFree(k);
  return ok ? 0 : 1;
}
