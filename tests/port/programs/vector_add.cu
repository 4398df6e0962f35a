// Vector addition as the CUDA programming guide writes it, built unmodified
// through weft_add_cuda_executable. Prints PASS or FAIL.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                \
  do {                                                                                  \
    cudaError_t err_ = (call);                                                          \
    if (err_ != cudaSuccess) {                                                          \
      std::printf("FAIL: %s at %s:%d\n", cudaGetErrorString(err_), __FILE__, __LINE__); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

__global__ void VecAdd(const float* A, const float* B, float* C, int N) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

__global__ void Scale(float* C, float factor, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) C[i] *= factor;
}

int main() {
  const int N = 50000;
  size_t size = N * sizeof(float);
  float* h_A = (float*)malloc(size);
  float* h_B = (float*)malloc(size);
  float* h_C = (float*)malloc(size);
  for (int i = 0; i < N; ++i) {
    h_A[i] = i * 0.5f;
    h_B[i] = 2.0f;
  }

  float *d_A, *d_B, *d_C;
  CUDA_CHECK(cudaMalloc(&d_A, size));
  CUDA_CHECK(cudaMalloc(&d_B, size));
  CUDA_CHECK(cudaMalloc(&d_C, size));
  CUDA_CHECK(cudaMemcpy(d_A, h_A, size, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_B, h_B, size, cudaMemcpyHostToDevice));

  int threadsPerBlock = 256;
  int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;
  VecAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, N);
  CUDA_CHECK(cudaGetLastError());
  // A launch over several lines, as the porting step must handle.
  // clang-format off
  Scale<<<dim3(32), dim3(128), 0, 0>>>(d_C,
                                       /* factor */ 2.0f,
                                       N);
  // clang-format on
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_C, d_C, size, cudaMemcpyDeviceToHost));

  for (int i = 0; i < N; ++i) {
    float expected = (h_A[i] + h_B[i]) * 2.0f;
    if (std::fabs(h_C[i] - expected) > 1e-5f) {
      std::printf("FAIL: C[%d] = %f, expected %f\n", i, h_C[i], expected);
      return 1;
    }
  }
  CUDA_CHECK(cudaFree(d_A));
  CUDA_CHECK(cudaFree(d_B));
  CUDA_CHECK(cudaFree(d_C));
  free(h_A);
  free(h_B);
  free(h_C);
  std::printf("PASS\n");
  return 0;
}
