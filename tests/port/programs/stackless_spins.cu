// Kernels with a block barrier in which two threads of a block meet: each
// waits, spinning on an atomic, until the other has come. On a GPU the two
// run side by side; on weft's fibers an atomic that the spinner polls lets
// the block's other threads run. A stackless thread runs until it waits at a
// barrier, so whichever of the two comes first would spin for good:
// weft-port must keep each of these kernels on fibers (docs/porting.md,
// "Stackless kernels"). A kernel converted by mistake hangs, and the test's
// timeout fails it.
#include <cstdio>
#include <cuda/atomic>
#include <cuda/std/atomic>

constexpr int threads = 64;

// The first and the last thread swap words, meeting at a shared counter.
__global__ void meet_by_load(const int* in, int* out) {
  __shared__ cuda::std::atomic<int> arrived;
  __shared__ int words[2];
  int t = threadIdx.x;
  if (t == 0) arrived.store(0, cuda::std::memory_order_relaxed);
  __syncthreads();
  if (t == 0 || t == threads - 1) {
    int side = t == 0 ? 0 : 1;
    words[side] = in[2 * blockIdx.x + side];
    arrived.fetch_add(1, cuda::std::memory_order_release);
    while (arrived.load(cuda::std::memory_order_acquire) < 2) {
      __threadfence_block();
    }
    out[2 * blockIdx.x + side] = words[1 - side];
  }
}

// The same through a flag each in global memory, tested at the end of a
// do-while.
__global__ void meet_by_flag(cuda::std::atomic_flag* flags, const int* in, int* out) {
  __shared__ int words[2];
  int t = threadIdx.x;
  __syncthreads();
  if (t == 0 || t == threads - 1) {
    int side = t == 0 ? 0 : 1;
    words[side] = in[2 * blockIdx.x + side];
    flags[2 * blockIdx.x + side].test_and_set(cuda::std::memory_order_release);
    cuda::std::atomic_flag* other = &flags[2 * blockIdx.x + 1 - side];
    do {
      __threadfence_block();
    } while (!other->test(cuda::std::memory_order_acquire));
    out[2 * blockIdx.x + side] = 2 * words[1 - side];
  }
}

// The last thread hands a turn to the first by a store, which takes it by a
// compare-exchange and hands it back.
__global__ void meet_by_exchange(int* turns, const int* in, int* out) {
  __shared__ int words[2];
  cuda::atomic_ref<int, cuda::thread_scope_block> turn(turns[blockIdx.x]);
  int t = threadIdx.x;
  __syncthreads();
  if (t == 0) {
    words[0] = in[2 * blockIdx.x];
    int expected = 1;
    while (turn.compare_exchange_weak(expected, 2) == false) {
      expected = 1;
    }
    out[2 * blockIdx.x] = 3 * words[1];
  } else if (t == threads - 1) {
    words[1] = in[2 * blockIdx.x + 1];
    turn.store(1);
    while (turn != 2) {
      __threadfence_block();
    }
    out[2 * blockIdx.x + 1] = 3 * words[0];
  }
}

int main() {
  constexpr int blocks = 4;
  int host_in[2 * blocks], host_out[2 * blocks];
  for (int i = 0; i < 2 * blocks; ++i) host_in[i] = 10 * i + 7;
  int *in, *out, *turns;
  cuda::std::atomic_flag* flags;
  cudaMalloc(&in, sizeof(host_in));
  cudaMalloc(&out, sizeof(host_out));
  cudaMalloc(&turns, blocks * sizeof(int));
  cudaMalloc(&flags, 2 * blocks * sizeof(cuda::std::atomic_flag));
  cudaMemcpy(in, host_in, sizeof(host_in), cudaMemcpyHostToDevice);
  cudaMemset(turns, 0, blocks * sizeof(int));
  cudaMemset(flags, 0, 2 * blocks * sizeof(cuda::std::atomic_flag));

  bool ok = true;
  auto check = [&](const char* kernel, int factor) {
    cudaError_t status = cudaDeviceSynchronize();
    cudaMemcpy(host_out, out, sizeof(host_out), cudaMemcpyDeviceToHost);
    bool right = status == cudaSuccess;
    for (int i = 0; i < 2 * blocks; ++i) right = right && host_out[i] == factor * host_in[i ^ 1];  // the other's word
    std::printf("%s: %s\n", kernel, right ? "PASS" : "FAIL");
    ok = ok && right;
  };
  meet_by_load<<<blocks, threads>>>(in, out);
  check("meet_by_load", 1);
  meet_by_flag<<<blocks, threads>>>(flags, in, out);
  check("meet_by_flag", 2);
  meet_by_exchange<<<blocks, threads>>>(turns, in, out);
  check("meet_by_exchange", 3);

  cudaFree(in);
  cudaFree(out);
  cudaFree(turns);
  cudaFree(flags);
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
