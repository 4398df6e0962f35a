// PTX's named barriers become weft::ptx::bar_sync and bar_arrive calls, in
// every spelling (bar, barrier, .cta, .aligned; immediates, "r" and "n"
// inputs), each keeping its line; in the kernels and __device__ functions
// made stackless they are awaited (co_await weft::bar_sync(1, 64)).
#define FULL_BARRIER 1

__device__ void producer_done(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__global__ void warp_specialised(int* out) {
  __shared__ int row[32];
  if (threadIdx.x < 32) {
    row[threadIdx.x] = threadIdx.x;
    producer_done(FULL_BARRIER, 64);
  } else {
    asm volatile("bar.sync %0, %1;" : : "r"(FULL_BARRIER), "n"(64));
    out[threadIdx.x - 32] = row[threadIdx.x - 32];
  }
  asm volatile("bar.sync 0;");
  asm("barrier.sync 2, 64;");
  asm volatile("bar.cta.sync 3;" ::: "memory");
  asm volatile("barrier.sync.aligned %0, 64;" ::"r"(4));
  asm volatile("barrier.cta.arrive.aligned 5, 64;");
  asm volatile(
      "bar.sync %0, "
      "%1;"
      :
      : "r"(6), "r"(blockDim.x));
}

#define NAMED_SYNC(id, n) asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n))

__global__ void from_macro() { NAMED_SYNC(7, 32); }

// A kernel with only __syncthreads runs stackless, and so does one with a named barrier.
__global__ void plain(int* x) {
  x[threadIdx.x] = 1;
  __syncthreads();
}

__global__ void named(int* x) {
  x[threadIdx.x] = 1;
  asm volatile("bar.sync 1, 64;");
}

// Its own barrier is awaitable, and so is the function it calls, which waits at a named barrier.
__global__ void calls_named(int* x) {
  __syncthreads();
  producer_done(1, 64);
}
