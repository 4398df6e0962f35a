// Kernels whose name is used as a value, as cuda-samples' transpose (a
// table of kernel pointers) and jacobiCudaGraphs ((void*)k in a kernel
// node) use them: weft-port keeps each a void kernel that forwards to a
// stackless body. Each is launched by name, by address through
// cudaLaunchKernel and through a table of pointers, and checked against the
// host. Built twice: as ported (port_stackless_value_names, stackless) and
// with NO_STACKLESS (port_stackless_value_names_fibers); both print the same
// lines and PASS.
#include <cstdio>
#include <vector>

constexpr int threads = 64, blocks = 3;

__global__ void reverse_blocks(int* data);

// Each block's elements in reverse order, through shared memory.
__global__ void reverse_blocks(int* data) {
  __shared__ int tile[threads];
  int t = threadIdx.x;
  tile[t] = data[blockIdx.x * threads + t];
  __syncthreads();
  data[blockIdx.x * threads + t] = tile[threads - 1 - t];
}

// Each block's elements rotated left by one, through shared memory.
static __global__ void __launch_bounds__(threads) rotate_blocks(int* data) {
  __shared__ int tile[threads];
  int t = threadIdx.x;
  tile[t] = data[blockIdx.x * threads + t];
  __syncthreads();
  data[blockIdx.x * threads + t] = tile[(t + 1) % threads];
}

using reorder = void (*)(int*);
struct named_reorder {
  const char* name;
  reorder kernel;
  int (*source)(int block, int t);  // where element t of a block comes from
};
const named_reorder reorders[] = {
    {"reverse_blocks", reverse_blocks, [](int, int t) { return threads - 1 - t; }},
    {"rotate_blocks", &rotate_blocks, [](int, int t) { return (t + 1) % threads; }},
};

int main() {
  std::vector<int> host(blocks * threads), result(blocks * threads);
  for (int i = 0; i < blocks * threads; ++i) host[i] = (i * 37) % 113 - 50;
  int* data;
  cudaMalloc(&data, host.size() * sizeof(int));
  bool ok = true;

  for (const named_reorder& r : reorders) {
    cudaFuncAttributes attributes;
    ok = ok && cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(r.kernel)) == cudaSuccess;
    for (int way = 0; way < 3; ++way) {
      cudaMemcpy(data, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice);
      if (way == 0) {
        if (r.kernel == reverse_blocks)
          reverse_blocks<<<blocks, threads>>>(data);
        else
          rotate_blocks<<<blocks, threads>>>(data);
      } else if (way == 1) {
        void* args[] = {&data};
        ok = ok && cudaLaunchKernel((void*)r.kernel, dim3(blocks), dim3(threads), args, 0, nullptr) == cudaSuccess;
      } else {
        r.kernel<<<blocks, threads>>>(data);
      }
      ok = ok && cudaGetLastError() == cudaSuccess;
      cudaMemcpy(result.data(), data, result.size() * sizeof(int), cudaMemcpyDeviceToHost);
      for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < threads; ++t) ok = ok && result[b * threads + t] == host[b * threads + r.source(b, t)];
      static const char* const ways[] = {"by name", "by address", "through the table"};
      printf("%s %s: %d %d %d\n", r.name, ways[way], result[0], result[threads], result[2 * threads + 7]);
    }
  }

  ok = ok && cudaDeviceSynchronize() == cudaSuccess;
  cudaFree(data);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
