// Driven by gdb in batch mode (check_gdb.sh): one block of 64 CUDA threads
// stopped with thread 5 at the marked line, where threads 0 to 3 wait at the
// __syncthreads below, thread 4 has exited and threads 6 to 63 have not
// started (weft runs a block's threads in order until one waits).
#include <weft.hpp>

#include <cstdio>
#include <thread>

__global__ void gdb_probe_kernel(int* out, dim3 shape, cudaError_t code) {
  unsigned t = threadIdx.x;
  out[t] = static_cast<int>(t);
  if (t == 4) return;
  if (t == 5) {
    out[t] = static_cast<int>(shape.x) + static_cast<int>(code);  // gdb stops here
  }
  __syncthreads();  // threads 0 to 3 wait here
  out[t] += 1;
}

int main() {
  int* out = nullptr;
  cudaMalloc(&out, 64 * sizeof(int));
  weft::launch({1, 64}, gdb_probe_kernel, out, dim3(5), cudaErrorIllegalAddress);
  // Polled, not waited for: a host thread that waits for a one-block grid
  // (cudaDeviceSynchronize, cudaStreamSynchronize, an event, a copy) may run
  // it itself (sm_pool::take_lone_grid), and check_gdb.sh expects the block
  // on an SM worker and this thread running none.
  cudaError_t status;
  while ((status = cudaStreamQuery(nullptr)) == cudaErrorNotReady) std::this_thread::yield();
  std::printf("gdb_probe done: %s\n", cudaGetErrorName(status));
  cudaFree(out);
  return 0;
}
