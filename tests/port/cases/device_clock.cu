// clock() in device code is CUDA's SM cycle counter: weft-port rewrites the
// calls in __global__, __device__ and __host__ __device__ functions, and
// leaves host code, member calls, qualified names and declarations alone.
#include <ctime>

struct timer {
  long clock() const { return 1; }
};

__device__ clock_t device_ticks() { return clock(); }

__host__ __device__ long either() { return (long)clock(); }

__global__ void spin(clock_t* out, clock_t cycles, timer t) {
  clock_t start = clock();
  while (clock() - start < cycles) {
  }
  out[0] = t.clock() + std::clock() + ::clock();
}

int host_code() { return (int)clock(); }
