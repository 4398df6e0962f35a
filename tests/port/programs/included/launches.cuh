// Not listed in weft_add_cuda_executable: weft-port finds it through
// main.cu's #include.
#pragma once
#include "detail/tile.cuh"

// One specialisation per type, each reading the block's dynamic shared
// memory through an extern __shared__ array declared in a macro.
template <class T>
struct dynamic_tile;
#define DEFINE_DYNAMIC_TILE(T, name) \
  template <>                        \
  struct dynamic_tile<T> {           \
    __device__ T* get() {            \
      extern __shared__ T name[];    \
      return name;                   \
    }                                \
  }
DEFINE_DYNAMIC_TILE(float, tile_of_floats);
DEFINE_DYNAMIC_TILE(int, tile_of_ints);

template <class T>
__global__ void block_sum(const T* in, T* out) {
  T* tile = dynamic_tile<T>().get();
  tile[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    T sum = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) sum += tile[i];
    out[blockIdx.x] = sum * tile_scale();
  }
}

inline void block_sums(const float* in, float* out, int n) {
  block_sum<float><<<n / 64, 64, 64 * sizeof(float)>>>(in, out);
}
