// The first CUDA program of most courses: C = A + B, with the usual error
// checks, timing-free, and a host comparison.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

__global__ void vectorAdd(const float* A, const float* B, float* C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) C[i] = A[i] + B[i] + 0.0f;
}

int main() {
  int numElements = 50000;
  size_t size = numElements * sizeof(float);
  float* h_A = (float*)malloc(size);
  float* h_B = (float*)malloc(size);
  float* h_C = (float*)malloc(size);
  for (int i = 0; i < numElements; ++i) {
    h_A[i] = rand() / (float)RAND_MAX;
    h_B[i] = rand() / (float)RAND_MAX;
  }
  float *d_A = NULL, *d_B = NULL, *d_C = NULL;
  cudaError_t err = cudaMalloc((void**)&d_A, size);
  if (err == cudaSuccess) err = cudaMalloc((void**)&d_B, size);
  if (err == cudaSuccess) err = cudaMalloc((void**)&d_C, size);
  if (err != cudaSuccess) {
    fprintf(stderr, "Failed to allocate device vectors (error code %s)!\n", cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
  cudaMemcpy(d_A, h_A, size, cudaMemcpyHostToDevice);
  cudaMemcpy(d_B, h_B, size, cudaMemcpyHostToDevice);

  int threadsPerBlock = 256;
  int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
  printf("CUDA kernel launch with %d blocks of %d threads\n", blocksPerGrid, threadsPerBlock);
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
  err = cudaGetLastError();
  if (err != cudaSuccess) {
    fprintf(stderr, "Failed to launch vectorAdd kernel (error code %s)!\n", cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
  cudaMemcpy(h_C, d_C, size, cudaMemcpyDeviceToHost);
  for (int i = 0; i < numElements; ++i) {
    if (fabs(h_A[i] + h_B[i] - h_C[i]) > 1e-5) {
      fprintf(stderr, "Result verification failed at element %d!\n", i);
      printf("FAIL\n");
      exit(EXIT_FAILURE);
    }
  }
  cudaFree(d_A);
  cudaFree(d_B);
  cudaFree(d_C);
  free(h_A);
  free(h_B);
  free(h_C);
  printf("Test PASSED\n");
  return 0;
}
