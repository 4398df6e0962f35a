// The device query every course starts with: print the properties of each
// device, and check that they are consistent with what the runtime accepts.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    printf("no CUDA device found\nFAIL\n");
    return 1;
  }
  bool ok = true;
  for (int dev = 0; dev < count; ++dev) {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, dev);
    printf("Device %d: \"%s\"\n", dev, prop.name);
    printf("  Compute capability:                %d.%d\n", prop.major, prop.minor);
    printf("  Total global memory:               %.0f MiB\n", prop.totalGlobalMem / 1048576.0);
    printf("  Multiprocessors:                   %d\n", prop.multiProcessorCount);
    printf("  Shared memory per block:           %zu bytes\n", prop.sharedMemPerBlock);
    printf("  Shared memory per block (opt-in):  %zu bytes\n", prop.sharedMemPerBlockOptin);
    printf("  Registers per block:               %d\n", prop.regsPerBlock);
    printf("  Warp size:                         %d\n", prop.warpSize);
    printf("  Max threads per block:             %d\n", prop.maxThreadsPerBlock);
    printf("  Max block dimensions:              %d x %d x %d\n", prop.maxThreadsDim[0], prop.maxThreadsDim[1],
           prop.maxThreadsDim[2]);
    printf("  Max grid dimensions:               %d x %d x %d\n", prop.maxGridSize[0], prop.maxGridSize[1],
           prop.maxGridSize[2]);
    printf("  Concurrent kernels:                %s\n", prop.concurrentKernels ? "yes" : "no");
    printf("  Unified addressing:                %s\n", prop.unifiedAddressing ? "yes" : "no");
    int value = 0;
    cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerBlock, dev);
    ok = ok && value == prop.maxThreadsPerBlock && prop.warpSize == 32 && prop.major >= 2;
    cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, dev);
    ok = ok && value == prop.multiProcessorCount && value > 0;
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  printf("Driver version %d.%d, runtime version %d.%d\n", driver / 1000, driver % 100 / 10, runtime / 1000,
         runtime % 100 / 10);
  ok = ok && driver >= runtime && runtime > 0;
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
