// Blocks that wait for other blocks, as CUDA programs do when a grid fits on
// the GPU at once: a grid barrier made of atomics, a block that waits for
// the grid's last block, and a flag handed between kernels in two streams.
// On the H100 every block of these grids is resident together. weft's build
// runs with one SM worker (the test sets WEFT_WORKERS=1), where only its
// helper workers let the waited-for blocks run; it must print the same.
#include <cuda_runtime.h>

#include <cstdio>

__device__ unsigned load_volatile(const unsigned* p) { return *(const volatile unsigned*)p; }

// Every block counts itself in, waits for all, then reads the count.
__global__ void grid_barrier(unsigned* count, unsigned* seen) {
  if (threadIdx.x == 0) {
    atomicAdd(count, 1u);
    while (load_volatile(count) < gridDim.x) {
    }
    seen[blockIdx.x] = load_volatile(count);
  }
  __syncthreads();
}

// Block 0 waits for the grid's last block, which waits for nobody.
__global__ void wait_for_last(unsigned* flag, unsigned* result) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    while (load_volatile(flag) == 0) {
    }
    *result = load_volatile(flag);
  } else if (blockIdx.x == gridDim.x - 1) {
    atomicExch(flag, 7u);
  }
}

// Two kernels in two streams take turns: each waits for the other's move.
__global__ void player(unsigned* turn, unsigned parity, unsigned turns) {
  for (unsigned t = parity; t < turns; t += 2) {
    while (load_volatile(turn) != t) {
    }
    atomicExch(turn, t + 1);
  }
}

int main() {
  unsigned* d;
  cudaMalloc(&d, 256 * sizeof(unsigned));
  unsigned h[256];

  for (unsigned blocks : {2u, 40u, 128u}) {
    cudaMemset(d, 0, 256 * sizeof(unsigned));
    grid_barrier<<<blocks, 64>>>(d, d + 1);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);
    unsigned all = 0;
    for (unsigned b = 0; b < blocks; ++b) all += h[1 + b] == blocks;
    std::printf("grid barrier of %u blocks: %s, count %u, %u blocks saw every block arrive\n", blocks,
                cudaGetErrorName(e), h[0], all);
  }

  cudaMemset(d, 0, 256 * sizeof(unsigned));
  wait_for_last<<<40, 32>>>(d, d + 1);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(h, d, 2 * sizeof(unsigned), cudaMemcpyDeviceToHost);
  std::printf("block 0 waits for block 39: %s, it read %u\n", cudaGetErrorName(e), h[1]);

  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  cudaMemset(d, 0, sizeof(unsigned));
  player<<<1, 1, 0, a>>>(d, 0, 20);
  player<<<1, 1, 0, b>>>(d, 1, 20);
  e = cudaDeviceSynchronize();
  cudaMemcpy(h, d, sizeof(unsigned), cudaMemcpyDeviceToHost);
  std::printf("two streams take 20 turns: %s, turn %u\n", cudaGetErrorName(e), h[0]);

  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  cudaFree(d);
  return 0;
}
