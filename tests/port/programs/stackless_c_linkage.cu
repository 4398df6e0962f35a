// Kernels of C linkage, as cuda-samples and driver-API code write them,
// which weft-port converts through a stackless body of C++ linkage: each is
// launched by name and by address, and checked against the host. Built
// twice: as ported (port_stackless_c_linkage, stackless) and with
// NO_STACKLESS (port_stackless_c_linkage_fibers); both print the same lines
// and PASS.
#include <cstdio>
#include <vector>

constexpr int threads = 64, blocks = 3;

extern "C" __global__ void c_block_sum(const int* in, int* out);

// A block's sum by a tree in shared memory.
extern "C" __global__ void c_block_sum(const int* in, int* out) {
  __shared__ int partial[threads];
  int t = threadIdx.x;
  partial[t] = in[blockIdx.x * threads + t];
  __syncthreads();
  for (int half = threads / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

extern "C" {
// Each warp's sum by shuffles, in an extern "C" block.
__global__ void c_warp_sums(const int* in, int* out) {
  int v = in[blockIdx.x * threads + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0) out[blockIdx.x * (threads / 32) + threadIdx.x / 32] = v;
}
}

int main() {
  std::vector<int> host(blocks * threads);
  for (int i = 0; i < blocks * threads; ++i) host[i] = (i * 29) % 101 - 40;
  int *in, *out;
  cudaMalloc(&in, host.size() * sizeof(int));
  cudaMalloc(&out, host.size() * sizeof(int));
  cudaMemcpy(in, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice);
  bool ok = true;

  std::vector<int> sums(blocks);
  for (int by_address = 0; by_address < 2; ++by_address) {
    cudaMemset(out, 0, host.size() * sizeof(int));
    if (by_address) {
      void* args[] = {&in, &out};
      ok = ok && cudaLaunchKernel((void*)c_block_sum, dim3(blocks), dim3(threads), args, 0, nullptr) == cudaSuccess;
    } else {
      c_block_sum<<<blocks, threads>>>(in, out);
    }
    cudaMemcpy(sums.data(), out, sums.size() * sizeof(int), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; ++b) {
      int expected = 0;
      for (int t = 0; t < threads; ++t) expected += host[b * threads + t];
      ok = ok && sums[b] == expected;
    }
    printf("c_block_sum %s: %d %d %d\n", by_address ? "by address" : "by name", sums[0], sums[1], sums[2]);
  }

  std::vector<int> warps(blocks * threads / 32);
  for (int by_address = 0; by_address < 2; ++by_address) {
    cudaMemset(out, 0, host.size() * sizeof(int));
    if (by_address) {
      void* args[] = {&in, &out};
      ok = ok && cudaLaunchKernel((void*)c_warp_sums, dim3(blocks), dim3(threads), args, 0, nullptr) == cudaSuccess;
    } else {
      c_warp_sums<<<blocks, threads>>>(in, out);
    }
    cudaMemcpy(warps.data(), out, warps.size() * sizeof(int), cudaMemcpyDeviceToHost);
    for (int w = 0; w < blocks * threads / 32; ++w) {
      int expected = 0;
      for (int l = 0; l < 32; ++l) expected += host[w * 32 + l];
      ok = ok && warps[w] == expected;
    }
    printf("c_warp_sums %s: %d %d\n", by_address ? "by address" : "by name", warps[0], warps[5]);
  }

  ok = ok && cudaDeviceSynchronize() == cudaSuccess;
  cudaFree(in);
  cudaFree(out);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
