// Probe of CUDA's codes and values for the runtime API calls where weft had
// to choose without a measurement (docs/semantics.md says "not yet
// measured"). Build with `nvcc -arch=sm_90 runtime_api_probe.cu` on a GPU,
// commit the output beside it as runtime_api_probe.expected, and make weft's
// tests assert what it shows.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void empty_kernel() {}

static void report(const char* what, cudaError_t r) {
  cudaError_t last = cudaGetLastError();
  std::printf("%-52s returned=%d(%s) last=%d\n", what, (int)r, cudaGetErrorName(r), (int)last);
}

#define CALL(expr) report(#expr, (expr))

int main() {
  cudaFree(0);
  void* p = nullptr;
  size_t pitch = 12345;
  CALL(cudaMallocPitch(&p, &pitch, 0, 4));
  std::printf("  pointer=%p pitch=%zu\n", p, pitch);
  CALL(cudaMallocPitch(&p, &pitch, 100, 0));
  std::printf("  pointer=%p pitch=%zu\n", p, pitch);
  CALL(cudaMallocPitch(&p, &pitch, 100, 3));
  std::printf("  pitch for 100 bytes=%zu\n", pitch);
  CALL(cudaMallocPitch(&p, &pitch, 513, 3));
  std::printf("  pitch for 513 bytes=%zu\n", pitch);
  CALL(cudaMemset2D(p, pitch, 0, pitch + 1, 1));
  CALL(cudaMemset2D(p, pitch, 0, 16, 4));
  CALL(cudaMemcpy2D(p, 8, p, pitch, 16, 1, cudaMemcpyDeviceToDevice));
  CALL(cudaMemcpy2D(p, pitch, p, pitch, 16, 4, cudaMemcpyDeviceToDevice));

  cudaPitchedPtr pp{};
  CALL(cudaMalloc3D(&pp, make_cudaExtent(0, 4, 4)));
  std::printf("  ptr=%p pitch=%zu xsize=%zu ysize=%zu\n", pp.ptr, pp.pitch, pp.xsize, pp.ysize);
  CALL(cudaMalloc3D(&pp, make_cudaExtent(32, 4, 3)));
  cudaMemcpy3DParms parms{};
  parms.srcPtr = pp;
  parms.dstPtr = pp;
  parms.srcPos = make_cudaPos(pp.pitch, 0, 0);
  parms.extent = make_cudaExtent(8, 1, 1);
  parms.kind = cudaMemcpyDeviceToDevice;
  CALL(cudaMemcpy3D(&parms));
  parms.srcPos = make_cudaPos(0, 0, 2);
  parms.extent = make_cudaExtent(8, 1, 2);
  CALL(cudaMemcpy3D(&parms));

  int local = 0;
  cudaPointerAttributes a{};
  CALL(cudaPointerGetAttributes(&a, &local));
  std::printf("  type=%d device=%d devicePointer=%p hostPointer=%p (host %p)\n", (int)a.type, a.device,
              a.devicePointer, a.hostPointer, (void*)&local);
  CALL(cudaPointerGetAttributes(&a, nullptr));
  std::printf("  type=%d device=%d devicePointer=%p hostPointer=%p\n", (int)a.type, a.device, a.devicePointer,
              a.hostPointer);

  CALL(cudaHostAlloc(&p, 0, 0));
  std::printf("  pointer=%p\n", p);
  CALL(cudaHostAlloc(&p, 16, 0x8));
  void* h = nullptr;
  CALL(cudaMallocHost(&h, 64));
  CALL(cudaFree(h));
  CALL(cudaHostRegister(h, 64, 0));
  void* d = nullptr;
  CALL(cudaMalloc(&d, 64));
  CALL(cudaHostRegister(d, 64, 0));
  CALL(cudaFreeHost(d));

  int blocks = -1;
  CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, empty_kernel, 1025, 0));
  std::printf("  blocks=%d\n", blocks);
  CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, empty_kernel, 0, 0));
  std::printf("  blocks=%d\n", blocks);
  CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, empty_kernel, 256, 300 * 1024));
  std::printf("  blocks=%d\n", blocks);

  int dev = 0;
  cudaGetDevice(&dev);
  CALL(cudaDeviceEnablePeerAccess(dev, 0));
  CALL(cudaDeviceDisablePeerAccess(dev));
  CALL(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield));
  unsigned flags = 0;
  CALL(cudaGetDeviceFlags(&flags));
  std::printf("  flags=%#x\n", flags);
  CALL(cudaMallocManaged(&p, 0));
  CALL(cudaMemPrefetchAsync(&local, 4, cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, 0));
  int v = 0;
  CALL(cudaDeviceGetAttribute(&v, (cudaDeviceAttr)0, 0));
  return 0;
}
