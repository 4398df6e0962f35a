// Probe of CUDA's own error codes for the bad inputs weft must reject.
// Built with nvcc on a real GPU by hand; its output is committed beside it
// (error_codes_probe.expected) and weft's tests assert the same codes.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void empty_kernel() {}
__global__ void trap_kernel() { if (threadIdx.x == 3) __trap(); }
__global__ void dyn_kernel() { extern __shared__ float s[]; s[threadIdx.x] = 1; }

static void report(const char* what, cudaError_t launch, cudaError_t last) {
  std::printf("%-44s returned=%d(%s) last=%d(%s)\n", what, (int)launch, cudaGetErrorName(launch), (int)last,
              cudaGetErrorName(last));
}

#define LAUNCH(what, ...)                                     \
  do {                                                        \
    __VA_ARGS__;                                              \
    cudaError_t peek = cudaPeekAtLastError();                 \
    cudaError_t last = cudaGetLastError();                    \
    report(what, peek, last);                                 \
    cudaError_t again = cudaGetLastError();                   \
    std::printf("%-44s after-clear=%d\n", what, (int)again);  \
  } while (0)

#define CALL(what, expr)                              \
  do {                                                \
    cudaError_t r = (expr);                           \
    cudaError_t last = cudaGetLastError();            \
    report(what, r, last);                            \
  } while (0)

int main() {
  cudaFree(0);
  LAUNCH("block 2048 threads", empty_kernel<<<1, 2048>>>());
  LAUNCH("block (1,1,65)", empty_kernel<<<1, dim3(1, 1, 65)>>>());
  LAUNCH("block (1025,1,1)", empty_kernel<<<1, dim3(1025, 1, 1)>>>());
  LAUNCH("block 0 threads", empty_kernel<<<1, 0>>>());
  LAUNCH("grid.y 70000", empty_kernel<<<dim3(1, 70000), 1>>>());
  LAUNCH("grid.z 65536", empty_kernel<<<dim3(1, 1, 65536), 1>>>());
  LAUNCH("grid 0", empty_kernel<<<0, 1>>>());
  LAUNCH("grid.x 2^31-1 ok?", empty_kernel<<<dim3(0x7fffffffu), 1>>>());
  cudaDeviceSynchronize();
  cudaGetLastError();
  LAUNCH("grid.x 2^31", empty_kernel<<<dim3(0x80000000u), 1>>>());
  LAUNCH("dyn shmem 1 MiB", dyn_kernel<<<1, 32, 1 << 20>>>());
  LAUNCH("dyn shmem 48 KiB", dyn_kernel<<<1, 32, 48 * 1024>>>());
  LAUNCH("dyn shmem 48 KiB + 4", dyn_kernel<<<1, 32, 48 * 1024 + 4>>>());
  LAUNCH("dyn shmem 100 KiB no opt-in", dyn_kernel<<<1, 32, 100 * 1024>>>());
  CALL("set max dyn 100 KiB", cudaFuncSetAttribute(dyn_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
  LAUNCH("dyn shmem 100 KiB opt-in", dyn_kernel<<<1, 32, 100 * 1024>>>());
  CALL("set max dyn 228 KiB", cudaFuncSetAttribute(dyn_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 228 * 1024));
  CALL("set max dyn 227 KiB", cudaFuncSetAttribute(dyn_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
  LAUNCH("dyn shmem 227 KiB opt-in", dyn_kernel<<<1, 32, 227 * 1024>>>());
  cudaDeviceSynchronize();

  int host_int = 0;
  float* d = nullptr;
  CALL("cudaMalloc 0 bytes", cudaMalloc(&d, 0));
  std::printf("cudaMalloc 0 bytes pointer is null: %d\n", d == nullptr);
  CALL("cudaMalloc null out-pointer", cudaMalloc((void**)nullptr, 16));
  CALL("cudaMalloc 1<<60 bytes", cudaMalloc(&d, (size_t)1 << 60));
  CALL("cudaFree null", cudaFree(nullptr));
  CALL("cudaFree host stack pointer", cudaFree(&host_int));
  CALL("cudaMalloc 256", cudaMalloc(&d, 256));
  CALL("cudaFree interior pointer", cudaFree(d + 1));
  CALL("cudaMemset past end", cudaMemset(d, 0, 512));
  CALL("cudaMemset host pointer", cudaMemset(&host_int, 0, 4));
  CALL("cudaMemcpy H2D past end", cudaMemcpy(d, &host_int, 512, cudaMemcpyHostToDevice));
  CALL("cudaMemcpy bad kind 7", cudaMemcpy(d, &host_int, 4, (cudaMemcpyKind)7));
  CALL("cudaMemcpy H2D dst=host", cudaMemcpy(&host_int, &host_int, 4, cudaMemcpyHostToDevice));
  CALL("cudaMemcpy D2H src=host", cudaMemcpy(&host_int, &host_int, 4, cudaMemcpyDeviceToHost));
  CALL("cudaMemcpy null dst", cudaMemcpy(nullptr, d, 4, cudaMemcpyDeviceToHost));
  CALL("cudaMemcpy 0 bytes null", cudaMemcpy(nullptr, nullptr, 0, cudaMemcpyDeviceToHost));
  CALL("cudaMemcpy Default host to host", cudaMemcpy(&host_int, &host_int, 4, cudaMemcpyDefault));
  CALL("cudaFree ok", cudaFree(d));
  CALL("cudaFree twice", cudaFree(d));
  CALL("cudaMemset freed", cudaMemset(d, 0, 4));
  std::printf("name 719: %s / %s\n", cudaGetErrorName((cudaError_t)719), cudaGetErrorString((cudaError_t)719));
  std::printf("name 12345: %s / %s\n", cudaGetErrorName((cudaError_t)12345), cudaGetErrorString((cudaError_t)12345));
  size_t stack = 0;
  cudaDeviceGetLimit(&stack, cudaLimitStackSize);
  std::printf("default stack limit %zu\n", stack);
  CALL("set stack limit 0", cudaDeviceSetLimit(cudaLimitStackSize, 0));
  CALL("set bad limit 99", cudaDeviceSetLimit((cudaLimit)99, 0));
  // A fault inside a kernel: which calls report it, and is it sticky?
  trap_kernel<<<2, 32>>>();
  CALL("launch of trapping kernel (peek)", cudaPeekAtLastError());
  CALL("cudaDeviceSynchronize after trap", cudaDeviceSynchronize());
  CALL("cudaGetLastError after trap", cudaGetLastError());
  CALL("cudaGetLastError again", cudaGetLastError());
  CALL("cudaMalloc after trap", cudaMalloc(&d, 16));
  CALL("cudaMemcpy after trap", cudaMemcpy(&host_int, &host_int, 4, cudaMemcpyDefault));
  CALL("cudaDeviceReset", cudaDeviceReset());
  CALL("cudaMalloc after reset", cudaMalloc(&d, 16));
  return 0;
}
