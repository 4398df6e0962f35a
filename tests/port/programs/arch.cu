// __CUDA_ARCH__ and __CUDACC__ as nvcc's two passes see them: weft-port gives
// kernels and __device__ functions the device pass's view (900, an sm_90),
// host functions the host pass's (undefined), and __host__ __device__
// functions both, picked by where they are called. Prints PASS or FAIL.
#include <cstdio>

#if !defined(__CUDACC__) || defined(__NVCC__) || __CUDACC_VER_MAJOR__ != 13 || __CUDACC_VER_MINOR__ != 0
#error "a port defines __CUDACC__ and CUDA 13.0's version, and not __NVCC__"
#endif

// At namespace scope, around what only device code uses: the device view.
#if __CUDA_ARCH__ >= 700
#include <cuda/barrier>
#endif

// An sm_60 fallback that an sm_90 never compiles: it would clash with
// weft's own atomicAdd for doubles.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
#else
__device__ double atomicAdd(double* address, double value) { return *address; }
#endif

#if __CUDA_ARCH__ >= 800
__device__ int newer_than_ampere() { return 800; }
#endif

// The whole body inside the test, as in cuda-samples' simpleAWBarrier: the
// body must run.
__global__ void guarded_body(int* out) {
#if __CUDA_ARCH__ >= 700
  __shared__ cuda::barrier<cuda::thread_scope_block>* unused_barrier;
  (void)unused_barrier;
  out[threadIdx.x] = __CUDA_ARCH__ + newer_than_ampere();
#endif
}

__host__ __device__ int which_view() {
#ifdef __CUDA_ARCH__
  return __CUDA_ARCH__;
#else
  return -1;
#endif
}

struct widget {
  __host__ __device__ int view() const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return 1;
#else
    return 2;
#endif
  }
};

template <class T>
__host__ __device__ constexpr T doubled_on_device(T x) {
#ifdef __CUDA_ARCH__
  return 2 * x;
#else
  return x;
#endif
}

__device__ int device_only() {
#ifndef __CUDA_ARCH__
  return -1;
#else
  return __CUDA_ARCH__;
#endif
}

__global__ void views(int* out) {
  out[0] = which_view();
  out[1] = widget{}.view();
  out[2] = doubled_on_device(21);
  out[3] = device_only();
  // A lambda inside a kernel is device code too.
  out[4] = [] {
#ifdef __CUDA_ARCH__
    return 1;
#else
    return 0;
#endif
  }();
}

int host_view() {
#ifdef __CUDA_ARCH__
  return 1;
#else
  return 0;
#endif
}

int main() {
  int* out = nullptr;
  cudaMallocManaged(&out, 64 * sizeof(int));
  guarded_body<<<1, 32>>>(out);
  views<<<1, 1>>>(out + 32);
  cudaDeviceSynchronize();
  int errors = 0;
  auto expect = [&](const char* what, int got, int want) {
    if (got != want) {
      std::printf("FAIL: %s is %d, not %d\n", what, got, want);
      ++errors;
    }
  };
  for (int i = 0; i < 32; ++i) expect("the guarded kernel's output", out[i], 1700);
  expect("a __host__ __device__ function in a kernel", out[32], 900);
  expect("a __host__ __device__ member in a kernel", out[33], 1);
  expect("a constexpr __host__ __device__ template in a kernel", out[34], 42);
  expect("a __device__ function", out[35], 900);
  expect("a lambda in a kernel", out[36], 1);
  expect("a __host__ __device__ function on the host", which_view(), -1);
  expect("a __host__ __device__ member on the host", widget{}.view(), 2);
  expect("a constexpr __host__ __device__ template on the host", doubled_on_device(21), 21);
  static_assert(doubled_on_device(21) == 21, "constant evaluation takes the host view");
  expect("a host function", host_view(), 0);
  cudaFree(out);
  if (errors == 0) std::printf("PASS\n");
  return errors == 0 ? 0 : 1;
}
