// Kernels weft-port converts only since it awaits a block-scope
// cuda::barrier, a block's pipeline, cluster syncs and unqualified
// cooperative groups, and knows
// that libcu++'s copies and a thread's own pipeline never wait; checked
// against the host. Built twice: as ported (port_stackless_sync_objects,
// its kernels stackless) and with NO_STACKLESS
// (port_stackless_sync_objects_fibers); both print the same lines and PASS.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cstdio>
#include <vector>

using namespace cooperative_groups;

constexpr int threads = 64, blocks = 4;

// Each thread's word, exchanged through shared memory across a barrier's
// phases: one waited at once, one split with work between.
__global__ void barrier_exchange(const int* in, int* out) {
  __shared__ int words[threads];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  int t = threadIdx.x;
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  words[t] = in[blockIdx.x * threads + t];
  bar.arrive_and_wait();
  int next = words[(t + 1) % threads];
  auto token = bar.arrive();
  int doubled = 2 * next;
  bar.wait(std::move(token));
  words[t] = doubled;
  bar.arrive_and_wait();
  out[blockIdx.x * threads + t] = words[threads - 1 - t];
}

// Two stages staged by each thread's own pipeline, then read by others.
__global__ void pipeline_staging(const int* in, int* out) {
  __shared__ int staged[2][threads];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  int t = threadIdx.x;
  for (int stage = 0; stage < 2; ++stage) {
    pipe.producer_acquire();
    cuda::memcpy_async(&staged[stage][t], &in[(blockIdx.x + stage) % blocks * threads + t], sizeof(int), pipe);
    pipe.producer_commit();
  }
  pipe.consumer_wait();
  pipe.consumer_release();
  pipe.consumer_wait();
  pipe.consumer_release();
  __syncthreads();
  out[blockIdx.x * threads + t] = staged[0][(t + 3) % threads] - staged[1][t];
}

// Batches staged through a block's pipeline of two stages.
__global__ void block_pipeline(const int* in, int* out) {
  __shared__ int staged[2][threads];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  thread_block block = this_thread_block();
  cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
  int sum = 0;
  for (int b = 0; b < blocks; ++b) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, staged[b % 2], in + b * threads, sizeof(staged[0]), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    sum += staged[b % 2][(threadIdx.x + b) % threads];
    pipe.consumer_release();
  }
  out[blockIdx.x * threads + threadIdx.x] = sum;
}

// Pairs of blocks swap a shared word through distributed shared memory.
__global__ void __cluster_dims__(2, 1, 1) cluster_swap(int* out) {
  __shared__ int word;
  thread_block block = this_thread_block();
  cluster_group cluster = this_cluster();
  if (threadIdx.x == 0) word = 100 * blockIdx.x + static_cast<int>(cluster.num_blocks());
  cluster.sync();
  out[blockIdx.x * threads + threadIdx.x] = *cluster.map_shared_rank(&word, cluster.block_rank() ^ 1);
  sync(block);
  cluster.sync();
}

int main() {
  std::vector<int> host(blocks * threads);
  for (int i = 0; i < blocks * threads; ++i) host[i] = (i * 37) % 211 - 50;
  int *in, *out;
  cudaMalloc(&in, host.size() * sizeof(int));
  cudaMalloc(&out, host.size() * sizeof(int));
  cudaMemcpy(in, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice);
  std::vector<int> got(host.size());
  bool ok = true;

  barrier_exchange<<<blocks, threads>>>(in, out);
  cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
  long long sum = 0;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) {
      int u = threads - 1 - t;
      ok = ok && got[b * threads + t] == 2 * host[b * threads + (u + 1) % threads];
      sum += got[b * threads + t];
    }
  printf("barrier_exchange: %lld\n", sum);

  pipeline_staging<<<blocks, threads>>>(in, out);
  cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) {
      int expected = host[b * threads + (t + 3) % threads] - host[(b + 1) % blocks * threads + t];
      ok = ok && got[b * threads + t] == expected;
    }
  printf("pipeline_staging: %d %d\n", got[0], got[threads + 1]);

  block_pipeline<<<blocks, threads>>>(in, out);
  cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) {
      int expected = 0;
      for (int k = 0; k < blocks; ++k) expected += host[k * threads + (t + k) % threads];
      ok = ok && got[b * threads + t] == expected;
    }
  printf("block_pipeline: %d %d\n", got[0], got[threads + 5]);

  cluster_swap<<<blocks, threads>>>(out);
  cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) ok = ok && got[b * threads + t] == 100 * (b ^ 1) + 2;
  printf("cluster_swap: %d %d %d %d\n", got[0], got[threads], got[2 * threads], got[3 * threads]);

  ok = ok && cudaGetLastError() == cudaSuccess;
  cudaFree(in);
  cudaFree(out);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
