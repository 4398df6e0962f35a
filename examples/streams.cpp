// The CUDA guide's two-stream example ("Streams", "Callbacks", "Events"):
// each stream copies its half of the input to the device, runs a kernel on
// it and copies the result back, and a callback reports when its half is
// done; events time the whole loop. Where CUDA writes
//   MyKernel<<<100, 512, 0, stream[i]>>>(out, in, size);
// weft writes weft::launch({100, 512, 0, stream[i]}, MyKernel, out, in, size).
#include <weft.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>

// Each thread squares its elements (grid-stride loop: 100 blocks of 512
// threads cover any size).
__global__ void MyKernel(float* out, const float* in, int size) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < size; i += blockDim.x * gridDim.x) out[i] = in[i] * in[i];
}

std::atomic<int> halves_done{0};

// Runs on weft's host-function thread once the stream's copy back is done.
void CUDART_CB MyCallback(cudaStream_t, cudaError_t status, void* data) {
  std::printf("callback: stream %d done (%s)\n", static_cast<int>(reinterpret_cast<size_t>(data)),
              cudaGetErrorName(status));
  halves_done.fetch_add(1);
}

int main() {
  const int size = 1 << 20;  // elements per stream
  cudaStream_t stream[2];
  for (int i = 0; i < 2; ++i) cudaStreamCreate(&stream[i]);
  float* hostPtr;
  cudaMallocHost(&hostPtr, 2 * size * sizeof(float));
  for (int i = 0; i < 2 * size; ++i) hostPtr[i] = 0.001f * (i % 1000);
  float *inputDevPtr, *outputDevPtr;
  cudaMalloc(&inputDevPtr, 2 * size * sizeof(float));
  cudaMalloc(&outputDevPtr, 2 * size * sizeof(float));

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, 0);
  for (int i = 0; i < 2; ++i) {
    cudaMemcpyAsync(inputDevPtr + i * size, hostPtr + i * size, size * sizeof(float), cudaMemcpyHostToDevice,
                    stream[i]);
    weft::launch({100, 512, 0, stream[i]}, MyKernel, outputDevPtr + i * size, inputDevPtr + i * size, size);
    cudaMemcpyAsync(hostPtr + i * size, outputDevPtr + i * size, size * sizeof(float), cudaMemcpyDeviceToHost,
                    stream[i]);
    cudaStreamAddCallback(stream[i], MyCallback, reinterpret_cast<void*>(static_cast<size_t>(i)), 0);
  }
  // Stream 0 waits for both (they are blocking streams), so `stop` times the whole loop.
  cudaEventRecord(stop, 0);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);

  bool ok = halves_done == 2 && cudaGetLastError() == cudaSuccess;
  for (int i = 0; i < 2 * size && ok; ++i) {
    float x = 0.001f * (i % 1000);
    ok = std::fabs(hostPtr[i] - x * x) <= 1e-6f;
  }
  std::printf("two streams: %.3f ms for 2 x %d elements\n%s\n", ms, size, ok ? "PASS" : "FAIL");

  for (int i = 0; i < 2; ++i) cudaStreamDestroy(stream[i]);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(inputDevPtr);
  cudaFree(outputDevPtr);
  cudaFreeHost(hostPtr);
  return ok ? 0 : 1;
}
