// Tests of __CUDA_ARCH__ at namespace or class scope choose which
// declarations exist. They take the device view where they guard device
// code, #include lines or declarations, the host view where they guard host
// functions only, and are left alone where both views read them alike.
#if __CUDA_ARCH__ >= 700
#include <cuda/barrier>
#endif

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
#else
__device__ double atomicAdd(double* address, double value) { return *address += value; }
#endif

template <class T> __device__ T reduce(T x) { return x; }
#if __CUDA_ARCH__ >= 800
template <> __device__ int reduce<int>(int x) { return x + 1; }
#endif

#ifndef __CUDA_ARCH__
int host_only() { return 1; }
#endif

struct tools {
#if __CUDA_ARCH__ >= 700
  __device__ int fast() const { return 1; }
#endif
};

namespace ns {
#ifdef __CUDA_ARCH__
__global__ void only_in_device_pass(int* p) { *p = 1; }
#endif
}  // namespace ns
