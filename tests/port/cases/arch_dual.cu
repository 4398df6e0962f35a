// A __host__ __device__ function whose body tests __CUDA_ARCH__ has two
// views, nvcc's device pass's and its host pass's: its body is written in
// both, and the device view's runs when the caller is inside a kernel.
// #line directives keep both copies at the body's own lines.
#define HOST_DEVICE __host__ __device__

__host__ __device__ int view() {
#ifdef __CUDA_ARCH__
  return __CUDA_ARCH__;
#else
  return 0;
#endif
}

struct counter {
  HOST_DEVICE int step(int x) const
  {
#if defined(__CUDA_ARCH__)
    return x + 1;
#endif
    return x;
  }
};

template <class T>
__device__ __host__ constexpr T scaled(T x) {
#if __CUDA_ARCH__ >= 700
  return x * 2;
#else
  return x;
#endif
}

// Without a test of __CUDA_ARCH__ nothing changes.
__host__ __device__ int plain(int x) { return x + 1; }
