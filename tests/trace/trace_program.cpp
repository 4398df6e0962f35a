// Run by ctest with WEFT_TRACE set (check_trace.cmake): one of each thing the
// trace records, so that the checker can find each on its track.
#include <weft.hpp>

#include <cstdio>
#include <cstdlib>

__global__ void trace_kernel(int* out) {
  int block = blockIdx.y * gridDim.x + blockIdx.x;
  out[block * blockDim.x + threadIdx.x] = block;
}

__global__ void trace_after_wait(int* out) { out[threadIdx.x] += 1; }

__global__ void trace_per_thread(int* out) { out[threadIdx.x] = 7; }

__global__ void trace_graph_kernel(int* out) { out[threadIdx.x] = 5; }

// Never waited for: exit() must still find it in the trace.
__global__ void trace_at_exit(int* out) { out[threadIdx.x] = 9; }

void CUDART_CB host_step(void* data) { *static_cast<int*>(data) += 1; }

int main() {
  cudaStream_t first, second;
  cudaStreamCreate(&first);
  cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking);
  cudaEvent_t done;
  cudaEventCreate(&done);
  int* device = nullptr;
  cudaMalloc(&device, 10 * 64 * sizeof(int));
  static int host[8 * 64];
  int steps = 0;

  // A graph of one kernel node, launched into `second` below.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaStreamBeginCapture(second, cudaStreamCaptureModeGlobal);
  weft::launch({1, 64, 0, second}, trace_graph_kernel, device + 9 * 64);
  cudaStreamEndCapture(second, &graph);
  cudaGraphInstantiate(&exec, graph, 0);

  cudaMemsetAsync(device, 0, 256, first);
  weft::launch({dim3(4, 2), 64, 0, first}, trace_kernel, device);
  cudaMemcpyAsync(host, device, sizeof host, cudaMemcpyDeviceToHost, first);
  cudaLaunchHostFunc(first, host_step, &steps);
  cudaEventRecord(done, first);
  cudaStreamWaitEvent(second, done, 0);
  weft::launch({1, 64, 0, second}, trace_after_wait, device);
  cudaGraphLaunch(exec, second);
  weft::launch({1, 64, 0, cudaStreamPerThread}, trace_per_thread, device + 8 * 64);
  int per_thread = 0;  // a synchronous copy: on the legacy default stream
  cudaMemcpy(&per_thread, device + 8 * 64, sizeof per_thread, cudaMemcpyDeviceToHost);
  if (cudaDeviceSynchronize() != cudaSuccess || steps != 1 || host[64 * 7] != 7 || per_thread != 7) {
    std::puts("FAIL");
    return 1;
  }
  weft::launch({1, 64, 0, second}, trace_at_exit, device + 9 * 64);
  std::puts("PASS");
  std::exit(0);
}
