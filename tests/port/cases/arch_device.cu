// __CUDA_ARCH__ in __global__ and __device__ functions: nvcc's device pass
// sees 900 (sm_90), so weft-port writes what that pass reads, and every
// form of the test keeps its line.
#include <cstdio>

__device__ int fast_path(int x) {
#if __CUDA_ARCH__ >= 700
  return x * 2;
#else
  return x;
#endif
}

__global__ void whole_body(int* out) {
#if __CUDA_ARCH__ >= 700
  out[0] = fast_path(1);
#endif
}

__global__ void every_form(int* out) {
#ifdef __CUDA_ARCH__
  out[0] = 1;
#endif
#ifndef __CUDA_ARCH__
  out[1] = 1;
#endif
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 800)
  out[2] = 1;
#elif defined __CUDA_ARCH__ /* a comment */ && \
    __CUDA_ARCH__ >= 800
  out[2] = 2;
#endif
  out[3] = __CUDA_ARCH__;  // in code too
  auto lambda = [](int* p) {
#if __CUDA_ARCH__ >= 900
    p[4] = 9;
#endif
  };
  lambda(out);
}

// Left out on an H100 too: a warning says which lines.
__global__ void future_only(int* out) {
#if __CUDA_ARCH__ >= 1000
  out[0] = 1;
#endif
}

// A host function keeps the host view: __CUDA_ARCH__ is not defined there.
int host_side() {
#ifdef __CUDA_ARCH__
  return 1;
#else
  return 0;
#endif
}

#define ARCH_MACRO_BODY __CUDA_ARCH__  // macro bodies are left as they are

// Qualifiers spelled through a macro count.
#define KERNEL(name) __global__ void name(int* out)
KERNEL(through_a_macro) {
#if __CUDA_ARCH__ >= 700
  out[0] = 1;
#endif
}
