// A file that uses half precision: its kernels that shuffle or match stay on
// fibers (CUDA shuffles __half too; weft's awaitables do not yet), the others
// convert. Runs with --explain (stackless_half.expected-stderr).
#include <cuda_fp16.h>

template <class T>
__global__ void shuffle_any(T* data) {
  data[threadIdx.x] = __shfl_down_sync(0xffffffffu, data[threadIdx.x], 1);
}

__global__ void halves_in_shared(__half* data) {
  __shared__ __half tile[32];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[31 - threadIdx.x];
}

void host(__half* h, float* f) {
  shuffle_any<__half><<<1, 32>>>(h);
  shuffle_any<float><<<1, 32>>>(f);
  halves_in_shared<<<1, 32>>>(h);
}
