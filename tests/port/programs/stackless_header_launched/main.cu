// Launches the kernels of kernels.cuh and scan.cuh, headers that only this
// file includes: by name, a template with its arguments, and
// reorders::rotate_blocks also through a table of pointers and by address;
// center_blocks and warp_scan call waiting helpers of their headers.
// Checks each against the host. Built twice: as ported
// (port_stackless_header_launched, whose kernels weft-port converts) and
// with NO_STACKLESS (port_stackless_header_launched_fibers); both print the
// same lines and PASS.
#include <cstdio>
#include <vector>

#include "kernels.cuh"
#include "kernels.cuh"  // again: its port keeps everything inside the include guard
#include "scan.cuh"     // again: #pragma once

constexpr int blocks = 3;

void (*const rotations[])(int*) = {reorders::rotate_blocks};

int main() {
  const int n = blocks * threads;
  std::vector<int> host(n), result(n);
  for (int i = 0; i < n; ++i) host[i] = (i * 37) % 113 - 50;
  int *data, *sums;
  cudaMalloc(&data, n * sizeof(int));
  cudaMalloc(&sums, blocks * sizeof(int));
  bool ok = true;
  auto upload = [&] { cudaMemcpy(data, host.data(), n * sizeof(int), cudaMemcpyHostToDevice); };
  auto download = [&] {
    ok = ok && cudaGetLastError() == cudaSuccess;
    cudaMemcpy(result.data(), data, n * sizeof(int), cudaMemcpyDeviceToHost);
  };

  upload();
  reverse_blocks<<<blocks, threads>>>(data);
  download();
  for (int i = 0; i < n; ++i) ok = ok && result[i] == host[i / threads * threads + threads - 1 - i % threads];
  printf("reverse_blocks: %d %d %d\n", result[0], result[threads], result[n - 1]);

  upload();
  block_sums<threads><<<blocks, threads>>>(data, sums);
  ok = ok && cudaGetLastError() == cudaSuccess;
  std::vector<int> block_sum(blocks);
  cudaMemcpy(block_sum.data(), sums, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b) {
    int expected = 0;
    for (int t = 0; t < threads; ++t) expected += host[b * threads + t];
    ok = ok && block_sum[b] == expected;
  }
  printf("block_sums<%d>: %d %d %d\n", threads, block_sum[0], block_sum[1], block_sum[2]);

  upload();
  warp_scan<<<blocks, threads>>>(data);
  download();
  for (int i = 0, sum = 0; i < n; ++i) {
    sum = i % 32 == 0 ? host[i] : sum + host[i];
    ok = ok && result[i] == sum;
  }
  printf("warp_scan: %d %d %d\n", result[31], result[32], result[n - 1]);

  upload();
  center_blocks<<<blocks, threads>>>(data);
  download();
  for (int b = 0; b < blocks; ++b) {
    int total = 0;
    for (int t = 0; t < threads; ++t) total += host[b * threads + t];
    for (int t = 0; t < threads; ++t) ok = ok && result[b * threads + t] == host[b * threads + t] * threads - total;
  }
  printf("center_blocks: %d %d %d\n", result[0], result[threads], result[n - 1]);

  // By address too: the .cu's port registers its headers' kernels (on
  // fibers as the plain kernel, stackless as the void kernel).
  static const char* const ways[] = {"by name", "through the table", "by address"};
  for (int way = 0; way < 3; ++way) {
    upload();
    if (way == 0) {
      reorders::rotate_blocks<<<blocks, threads>>>(data);
    } else if (way == 1) {
      rotations[0]<<<blocks, threads>>>(data);
    } else {
      void* args[] = {&data};
      ok = ok && cudaLaunchKernel((void*)reorders::rotate_blocks, dim3(blocks), dim3(threads), args, 0, nullptr) ==
                     cudaSuccess;
    }
    download();
    for (int i = 0; i < n; ++i) ok = ok && result[i] == host[i / threads * threads + (i % threads + 1) % threads];
    printf("rotate_blocks %s: %d %d %d\n", ways[way], result[0], result[threads], result[n - 1]);
  }

  ok = ok && cudaDeviceSynchronize() == cudaSuccess;
  cudaFree(data);
  cudaFree(sums);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
