// Probe of CUDA's codes and values for streams, events and host functions
// where the documentation leaves weft to guess. Build with
// `nvcc -arch=sm_90 stream_probe.cu` on a GPU and commit its output beside it
// as stream_probe.expected; weft's build of the same file must print the same.
#include <cuda_runtime.h>
#include <cstdio>

// Spins until *flag is set by the host (mapped host memory on a GPU).
__global__ void wait_for_flag(volatile int* flag) {
  while (*flag == 0) {
  }
}

static void report(const char* what, cudaError_t r) {
  cudaError_t last = cudaGetLastError();
  std::printf("%-64s returned=%d(%s) last=%d\n", what, (int)r, cudaGetErrorName(r), (int)last);
}

#define CALL(expr) report(#expr, (expr))

struct callback_codes {
  cudaError_t status, sync_stream, sync_device, memset, record, last;
};
static cudaEvent_t callback_event;
static int* callback_device_int;

static void CUDART_CB probing_callback(cudaStream_t stream, cudaError_t status, void* data) {
  callback_codes* c = static_cast<callback_codes*>(data);
  c->status = status;
  c->sync_stream = cudaStreamSynchronize(stream);
  c->sync_device = cudaDeviceSynchronize();
  c->memset = cudaMemsetAsync(callback_device_int, 0, sizeof(int), stream);
  c->record = cudaEventRecord(callback_event, stream);
  c->last = cudaGetLastError();
}

int main() {
  cudaFree(0);
  int least = 99, greatest = 99;
  CALL(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  std::printf("  least=%d greatest=%d\n", least, greatest);

  cudaStream_t s = nullptr;
  CALL(cudaStreamCreate(nullptr));
  CALL(cudaStreamCreateWithFlags(&s, 0x4));
  CALL(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -100));
  int priority = 99;
  unsigned flags = 99;
  CALL(cudaStreamGetPriority(s, &priority));
  CALL(cudaStreamGetFlags(s, &flags));
  std::printf("  priority=%d flags=%u\n", priority, flags);
  CALL(cudaStreamDestroy(s));
  CALL(cudaStreamCreateWithPriority(&s, cudaStreamDefault, 100));
  CALL(cudaStreamGetPriority(s, &priority));
  std::printf("  priority=%d\n", priority);
  CALL(cudaStreamGetPriority(0, &priority));
  std::printf("  priority of stream 0=%d\n", priority);
  CALL(cudaStreamGetFlags(0, &flags));
  std::printf("  flags of stream 0=%u\n", flags);
  CALL(cudaStreamDestroy(0));
  CALL(cudaStreamAddCallback(s, probing_callback, nullptr, 1));
  CALL(cudaStreamAddCallback(s, nullptr, nullptr, 0));
  CALL(cudaLaunchHostFunc(s, nullptr, nullptr));

  cudaEvent_t a = nullptr, b = nullptr, untimed = nullptr;
  CALL(cudaEventCreate(nullptr));
  CALL(cudaEventCreateWithFlags(&a, 0x100));
  CALL(cudaEventCreateWithFlags(&a, cudaEventInterprocess));
  CALL(cudaEventCreate(&a));
  CALL(cudaEventCreateWithFlags(&b, cudaEventBlockingSync));
  CALL(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
  float ms = -1;
  CALL(cudaEventQuery(a));
  CALL(cudaEventSynchronize(a));
  CALL(cudaEventElapsedTime(&ms, a, b));
  CALL(cudaEventRecord(a, s));
  CALL(cudaEventSynchronize(a));
  CALL(cudaEventElapsedTime(&ms, a, b));
  CALL(cudaEventElapsedTime(&ms, b, a));
  CALL(cudaEventElapsedTime(nullptr, a, a));
  CALL(cudaEventRecord(untimed, s));
  CALL(cudaEventSynchronize(untimed));
  CALL(cudaEventElapsedTime(&ms, a, untimed));
  CALL(cudaEventElapsedTime(&ms, a, a));
  std::printf("  a to a=%.1f ms\n", ms);
  CALL(cudaStreamWaitEvent(s, a, 0x4));

  // Busy: a kernel waits for the host.
  int* flag = nullptr;
  CALL(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  *flag = 0;
  int* device_flag = nullptr;
  CALL(cudaHostGetDevicePointer(&device_flag, flag, 0));
  wait_for_flag<<<1, 1, 0, s>>>(device_flag);
  CALL(cudaEventRecord(b, s));
  CALL(cudaStreamQuery(s));
  CALL(cudaEventQuery(b));
  CALL(cudaEventElapsedTime(&ms, a, b));
  CALL(cudaStreamDestroy(s));
  __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
  CALL(cudaDeviceSynchronize());
  CALL(cudaEventQuery(b));

  // A callback that calls the runtime.
  CALL(cudaStreamCreate(&s));
  CALL(cudaMalloc(&callback_device_int, sizeof(int)));
  callback_event = untimed;
  callback_codes codes{};
  CALL(cudaStreamAddCallback(s, probing_callback, &codes, 0));
  CALL(cudaStreamSynchronize(s));
  std::printf("  in a callback: status=%d stream sync=%d device sync=%d memset=%d record=%d last=%d\n",
              (int)codes.status, (int)codes.sync_stream, (int)codes.sync_device, (int)codes.memset, (int)codes.record,
              (int)codes.last);
  CALL(cudaStreamDestroy(s));
  CALL(cudaEventDestroy(a));
  CALL(cudaEventDestroy(b));
  CALL(cudaEventDestroy(untimed));
  return 0;
}
