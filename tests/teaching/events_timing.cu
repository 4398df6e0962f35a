// Timing with events, as CUDA courses teach it: events recorded around a
// kernel measure its time on the device, a stream waits for an event
// recorded in another stream, and the times of a sequence add up.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void busyKernel(float* data, int n, int repeat) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = data[i];
    for (int r = 0; r < repeat; r++) v = v * 0.999f + 0.001f;
    data[i] = v;
  }
}

__global__ void addOne(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

int main() {
  const int n = 1 << 16;
  float* d_data;
  cudaMalloc(&d_data, n * sizeof(float));
  cudaMemset(d_data, 0, n * sizeof(float));

  cudaEvent_t start, middle, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&middle);
  cudaEventCreate(&stop);

  cudaEventRecord(start, 0);
  busyKernel<<<n / 256, 256>>>(d_data, n, 40);
  cudaEventRecord(middle, 0);
  busyKernel<<<n / 256, 256>>>(d_data, n, 80);
  cudaEventRecord(stop, 0);
  cudaEventSynchronize(stop);

  float first = 0, second = 0, total = 0;
  cudaEventElapsedTime(&first, start, middle);
  cudaEventElapsedTime(&second, middle, stop);
  cudaEventElapsedTime(&total, start, stop);
  printf("first kernel: %.3f ms, second: %.3f ms, total: %.3f ms\n", first, second, total);
  float diff = total - (first + second);
  bool timesOk = first > 0 && second > 0 && diff < 0.01f && diff > -0.01f;

  // A second stream waits for the first one's event before it adds one.
  cudaStream_t producer, consumer;
  cudaStreamCreate(&producer);
  cudaStreamCreate(&consumer);
  cudaEvent_t produced;
  cudaEventCreateWithFlags(&produced, cudaEventDisableTiming);
  cudaMemsetAsync(d_data, 0, n * sizeof(float), producer);
  busyKernel<<<n / 256, 256, 0, producer>>>(d_data, n, 100);
  cudaEventRecord(produced, producer);
  cudaStreamWaitEvent(consumer, produced, 0);
  addOne<<<n / 256, 256, 0, consumer>>>(d_data, n);
  cudaStreamSynchronize(consumer);

  float* h_data = new float[n];
  cudaMemcpy(h_data, d_data, n * sizeof(float), cudaMemcpyDeviceToHost);
  float expected = 0.0f;
  for (int r = 0; r < 100; r++) expected = expected * 0.999f + 0.001f;
  expected += 1.0f;
  int wrong = 0;
  for (int i = 0; i < n; i++)
    if (h_data[i] != expected) wrong++;
  printf("after the wait: %d wrong values\n", wrong);

  float untimed = 0;
  bool refused = cudaEventElapsedTime(&untimed, start, produced) == cudaErrorInvalidResourceHandle;
  cudaGetLastError();

  delete[] h_data;
  cudaEventDestroy(start);
  cudaEventDestroy(middle);
  cudaEventDestroy(stop);
  cudaEventDestroy(produced);
  cudaStreamDestroy(producer);
  cudaStreamDestroy(consumer);
  cudaFree(d_data);
  printf(timesOk && wrong == 0 && refused ? "PASS\n" : "FAIL\n");
  return 0;
}
