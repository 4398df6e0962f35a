// `do statement; while (condition);`, a body without braces, is one loop,
// not a statement then a `while` with an empty body: a kernel with one
// converts unless what the loop tests waits for another thread. A do-while
// whose body is empty (`do ; while`, `do {} while`) spins, and an endless
// one (`while (true)`, `while (1)`) spins on what its body tests. Run with
// --explain (stackless_do_while.expected-stderr).
#include <cuda/std/atomic>

// Convert: loops that do not wait.
__global__ void one_statement_body(const int* in, int* out) {
  __shared__ int partial[64];
  int k = in[threadIdx.x], steps = 0;
  do ++steps; while ((k /= 2) > 0);
  partial[threadIdx.x] = steps;
  __syncthreads();
  out[threadIdx.x] = partial[(threadIdx.x + 1) % 64];
}
__global__ void store_as_body(const int* in, int* out) {
  __shared__ int partial[64];
  int i = threadIdx.x;
  do partial[i % 64] = in[i]; while ((i += 64) < 64);
  __syncthreads();
  out[threadIdx.x] = partial[(threadIdx.x + 1) % 64];
}

// Stay on fibers: spins.
__global__ void empty_statement_body(int* flag, int* out) {
  __syncthreads();
  do ; while (!flag[0]);
  out[threadIdx.x] = 1;
}
__global__ void empty_braces_body(int* flag, int* out) {
  __syncthreads();
  do {
  } while (flag[0] == 0);
  out[threadIdx.x] = 1;
}
__global__ void one_statement_on_an_atomic(cuda::std::atomic<int>* ready, int* out) {
  __syncthreads();
  int polls = 0;
  do ++polls; while (ready->load() == 0);
  out[threadIdx.x] = polls;
}
__global__ void atomic_function_tested(int* count, int* out) {
  __syncthreads();
  do out[threadIdx.x] += 1; while (atomicAdd(count, 0) < 64);
}
__global__ void endless_cas(int* lock, int* out) {
  __syncthreads();
  do {
    if (atomicCAS(lock, 0, 1) == 0) break;
    out[threadIdx.x] += 1;
  } while (true);
}
__global__ void endless_exchange(cuda::std::atomic<int>* lock, int* out) {
  __syncthreads();
  do {
    if (lock->exchange(1) == 0) break;
    out[threadIdx.x] += 1;
  } while (1);
  lock->store(0);
}
