// Launches the kernels of kernels.cuh and shift.cuh only by address:
// cudaLaunchKernel((void*)k, ...), a graph's kernel node and a cooperative
// launch. Checks each against the host. Built twice: as ported
// (port_header_by_address, whose barrier kernels weft-port converts) and with
// NO_STACKLESS (port_header_by_address_fibers); both print the same lines
// and PASS.
#include <cstdio>
#include <vector>

#include "kernels.cuh"

constexpr int blocks = 3, threads = 64, n = blocks * threads;

int main() {
  std::vector<int> host(n), result(n);
  for (int i = 0; i < n; ++i) host[i] = (i * 37) % 113 - 50;
  int* data;
  cudaMalloc(&data, n * sizeof(int));
  bool ok = true;
  auto upload = [&] { cudaMemcpy(data, host.data(), n * sizeof(int), cudaMemcpyHostToDevice); };
  auto download = [&](const char* what, cudaError_t launched) {
    if (launched != cudaSuccess) printf("%s: %s\n", what, cudaGetErrorString(launched));
    ok = ok && launched == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    cudaMemcpy(result.data(), data, n * sizeof(int), cudaMemcpyDeviceToHost);
    printf("%s: %d %d %d\n", what, result[0], result[threads], result[n - 1]);
  };
  int factor = 3;
  void* data_only[] = {&data};
  void* data_and_factor[] = {&data, &factor};

  upload();
  download("scale", cudaLaunchKernel((void*)scale, dim3(blocks), dim3(threads), data_and_factor, 0, nullptr));
  for (int i = 0; i < n; ++i) ok = ok && result[i] == host[i] * factor;

  upload();
  download("reverse_blocks",
           cudaLaunchKernel((void*)reverse_blocks, dim3(blocks), dim3(threads), data_only, 0, nullptr));
  for (int i = 0; i < n; ++i) ok = ok && result[i] == host[i / threads * threads + threads - 1 - i % threads];

  upload();
  download("swap_halves", cudaLaunchKernel((void*)swap_halves, dim3(blocks), dim3(threads), data_only, 0, nullptr));
  for (int i = 0; i < n; ++i)
    ok = ok && result[i] == host[i / threads * threads + (i % threads + threads / 2) % threads];

  upload();
  download("add_block_index",
           cudaLaunchCooperativeKernel((void*)add_block_index, dim3(blocks), dim3(threads), data_only, 0, nullptr));
  for (int i = 0; i < n; ++i) ok = ok && result[i] == host[i] + i / threads;

  upload();
  download("negate", cudaLaunchKernel((void*)negate, dim3(blocks), dim3(threads), data_only, 0, nullptr));
  for (int i = 0; i < n; ++i) ok = ok && result[i] == -host[i];

  // Kernel nodes: shifts::rotate_blocks (dynamic shared memory), then reverse_blocks.
  upload();
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaGraphNode_t rotate_node, reverse_node;
  cudaKernelNodeParams params{};
  params.func = (void*)shifts::rotate_blocks;
  params.gridDim = dim3(blocks);
  params.blockDim = dim3(threads);
  params.sharedMemBytes = threads * sizeof(int);
  params.kernelParams = data_only;
  cudaError_t built = cudaGraphCreate(&graph, 0);
  if (built == cudaSuccess) built = cudaGraphAddKernelNode(&rotate_node, graph, nullptr, 0, &params);
  params.func = (void*)reverse_blocks;
  params.sharedMemBytes = 0;
  if (built == cudaSuccess) built = cudaGraphAddKernelNode(&reverse_node, graph, &rotate_node, 1, &params);
  if (built == cudaSuccess) built = cudaGraphInstantiate(&exec, graph, 0);
  if (built == cudaSuccess) built = cudaGraphLaunch(exec, nullptr);
  download("graph rotate_blocks, reverse_blocks", built);
  for (int i = 0; i < n; ++i) {
    int reversed = threads - 1 - i % threads;
    ok = ok && result[i] == host[i / threads * threads + (reversed + 1) % threads];
  }
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);

  cudaFree(data);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
