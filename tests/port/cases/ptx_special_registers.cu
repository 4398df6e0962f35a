// Inline PTX that only reads a special register becomes a call of weft's
// function for it, in __global__, __device__ and __host__ __device__
// functions, and in macro definitions; host code's own assembly, and other
// assembly in a macro (which may be the host's), stay as they are.
#include <cstdint>

__device__ unsigned lane() {
  unsigned id;
  asm("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

__host__ __device__ unsigned long long stamp() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__global__ void registers(unsigned* out, unsigned long long* wide) {
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(out[0]));
  __asm__ __volatile__("mov.u32 %0, %%tid.y;" : "=r"(out[1]) : : "memory");
  asm volatile("mov.b32 %0, %%smid;" :"=r"(out[2])::"memory");
  asm volatile(
      "mov.u64 %0, "
      "%%clock64;"
      : "=l"(wide[0]));
  asm("mov.u32 %0, %%dynamic_smem_size;\n" : "=r"(out[3]));
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(*wide));
}

#define LANE(x) asm("mov.u32 %0, %%laneid;" : "=r"(x))
#define STAMP(t) \
  asm volatile("mov.u64 %0, %%globaltimer;" \
               : "=l"(t))
#define HOST_FENCE() asm volatile("mfence" ::: "memory")

__global__ void from_macros(unsigned* lane, unsigned long long* t) {
  LANE(*lane);
  STAMP(*t);
}

int host_code() {
  int x = 0;
  asm volatile("" ::: "memory");
  return x;
}

// Guarded for nvcc's device pass: the device view of the body is ported.
__host__ __device__ unsigned lane_or_zero() {
#ifdef __CUDA_ARCH__
  unsigned id;
  asm("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
#else
  return 0;
#endif
}
