// The driver API (<cuda.h>) without modules: the codes CUDA 13 returns for
// initialisation, contexts, memory, virtual memory and launches, and the
// names and texts of its CUresult codes. Each line is a call and its code
// (and a value where it does not depend on the machine).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void add_one(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

static void line(const char* what, CUresult r) { std::printf("%s %d\n", what, static_cast<int>(r)); }

int main() {
  int count = -1;
  CUcontext ctx = nullptr;
  line("before_init.cuDeviceGetCount", cuDeviceGetCount(&count));
  line("before_init.cuCtxGetCurrent", cuCtxGetCurrent(&ctx));
  int version = 0;
  CUresult r = cuDriverGetVersion(&version);
  std::printf("cuDriverGetVersion %d %d\n", static_cast<int>(r), version);
  for (int code = 0; code < 1000; ++code) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (cuGetErrorName(static_cast<CUresult>(code), &name) != CUDA_SUCCESS) continue;
    cuGetErrorString(static_cast<CUresult>(code), &text);
    std::printf("error %d %s: %s\n", code, name, text);
  }
  const char* none = "x";
  r = cuGetErrorName(static_cast<CUresult>(12345), &none);
  std::printf("cuGetErrorName(12345) %d %s\n", static_cast<int>(r), none ? "set" : "null");

  line("cuInit(1)", cuInit(1));
  line("cuInit(0)", cuInit(0));
  r = cuCtxGetCurrent(&ctx);
  std::printf("after_init.cuCtxGetCurrent %d %s\n", static_cast<int>(r), ctx ? "context" : "null");
  CUdevice dev = -1;
  line("no_context.cuCtxGetDevice", cuCtxGetDevice(&dev));
  line("no_context.cuCtxSynchronize", cuCtxSynchronize());
  CUdeviceptr p = 0;
  line("no_context.cuMemAlloc", cuMemAlloc(&p, 16));
  line("cuDeviceGet(5)", cuDeviceGet(&dev, 5));
  int value = 0;
  line("cuDeviceGetAttribute(500)", cuDeviceGetAttribute(&value, static_cast<CUdevice_attribute>(500), 0));
  line("cuDeviceGetAttribute(device 7)", cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 7));
  int attributes[] = {CU_DEVICE_ATTRIBUTE_WARP_SIZE, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                      CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                      CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING};
  for (int a : attributes) {
    r = cuDeviceGetAttribute(&value, static_cast<CUdevice_attribute>(a), 0);
    std::printf("attribute %d %d %d\n", a, static_cast<int>(r), value);
  }
  line("cuCtxDestroy(null)", cuCtxDestroy(nullptr));
  line("cuModuleLoad(null)", cuModuleLoad(nullptr, "kernels.ptx"));

  // The runtime makes the primary context current.
  cudaFree(nullptr);
  r = cuCtxGetCurrent(&ctx);
  std::printf("after_runtime.cuCtxGetCurrent %d %s\n", static_cast<int>(r), ctx ? "context" : "null");
  r = cuCtxGetDevice(&dev);
  std::printf("after_runtime.cuCtxGetDevice %d %d\n", static_cast<int>(r), dev);

  line("cuMemAlloc(0)", cuMemAlloc(&p, 0));
  line("cuMemFree(0)", cuMemFree(0));
  line("cuMemFree(bad)", cuMemFree(static_cast<CUdeviceptr>(0x1234)));
  line("cuStreamDestroy(null)", cuStreamDestroy(nullptr));
  line("cuEventDestroy(null)", cuEventDestroy(nullptr));
  line("cuLaunchKernel(null)", cuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
  int on_stack = 0;
  CUdeviceptr base = 0;
  std::size_t size = 0;
  line("cuMemGetAddressRange(unknown)", cuMemGetAddressRange(&base, &size, reinterpret_cast<CUdeviceptr>(&on_stack)));
  unsigned type = 0;
  line("cuPointerGetAttribute(unknown)",
       cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(&on_stack)));
  CUdeviceptr managed = 0;
  cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL);
  r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, managed);
  std::printf("managed memory type %d %u\n", static_cast<int>(r), type);
  void* host = nullptr;
  cuMemAllocHost(&host, 64);
  r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(host));
  std::printf("host memory type %d %u\n", static_cast<int>(r), type);

  // Virtual memory management.
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
  std::size_t g = 0;
  r = cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  std::printf("granularity %d %zu\n", static_cast<int>(r), g);
  CUmemGenericAllocationHandle handle = 0;
  line("cuMemCreate(size not a multiple)", cuMemCreate(&handle, g + 4096, &prop, 0));
  line("cuMemCreate", cuMemCreate(&handle, g, &prop, 0));
  CUmemAllocationProp reported = {};
  r = cuMemGetAllocationPropertiesFromHandle(&reported, handle);
  std::printf("properties %d compression %d\n", static_cast<int>(r), static_cast<int>(reported.allocFlags.compressionType));
  CUdeviceptr va = 0;
  line("cuMemAddressReserve", cuMemAddressReserve(&va, g, 0, 0, 0));
  line("cuMemMap(offset 4096)", cuMemMap(va, g, 4096, handle, 0));
  line("cuMemMap", cuMemMap(va, g, 0, handle, 0));
  line("cuMemMap(again)", cuMemMap(va, g, 0, handle, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  line("cuMemSetAccess", cuMemSetAccess(va, g, &access, 1));
  line("cuMemRelease", cuMemRelease(handle));
  line("cuMemRelease(again)", cuMemRelease(handle));
  int n = static_cast<int>(g / sizeof(int));
  cudaMemset(reinterpret_cast<void*>(va), 0, g);
  add_one<<<(n + 255) / 256, 256>>>(reinterpret_cast<int*>(va), n);
  int last = 0;
  cudaMemcpy(&last, reinterpret_cast<int*>(va) + n - 1, sizeof last, cudaMemcpyDeviceToHost);
  std::printf("kernel on mapped memory %d\n", last);
  line("cuMemUnmap(half)", cuMemUnmap(va, g / 2));
  line("cuMemAddressFree(mapped)", cuMemAddressFree(va, g));
  line("cuMemUnmap", cuMemUnmap(va, g));
  line("cuMemUnmap(again)", cuMemUnmap(va, g));
  line("cuMemAddressFree", cuMemAddressFree(va, g));
  line("cuMemAddressFree(again)", cuMemAddressFree(va, g));
  return 0;
}
