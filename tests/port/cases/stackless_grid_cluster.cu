// Grid and cluster syncs in kernels weft-port converts: `grid.sync()`,
// `cluster.sync()` and `cg::sync(grid)` are awaited as weft::sync(g), and a
// converted kernel is registered for launches by address, a cooperative
// one's included, with its __cluster_dims__. A cluster's
// split barrier is awaited too (co_await weft::barrier_arrive(cluster),
// weft::barrier_wait(cluster, token)), and a kernel of C linkage converts
// through a stackless body of C++ linkage; a sync on a group the kernel
// does not name keeps it on fibers. Run with
// --explain (stackless_grid_cluster.expected-stderr).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void grid_phases(int* partial, int* total) {
  cg::grid_group grid = cg::this_grid();
  partial[grid.block_rank()] = static_cast<int>(grid.num_blocks());
  grid.sync();
  if (cg::this_grid().thread_rank() == 0) *total = partial[0];  // a made group's rank never waits
  cg::sync(grid);
}

__global__ void __cluster_dims__(2, 1, 1) cluster_swap(int* out) {
  __shared__ int word;
  auto cluster = cg::this_cluster();
  word = static_cast<int>(cluster.block_rank());
  cluster.sync();
  out[blockIdx.x] = *cluster.map_shared_rank(&word, cluster.block_rank() ^ 1);
  cluster.sync();
}

__global__ void __cluster_dims__(2, 1, 1) split_arrival(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  auto token = cluster.barrier_arrive();
  out[blockIdx.x] = 1;
  cluster.barrier_wait(std::move(token));
  cluster.barrier_arrive();
  cluster.barrier_wait();
}

extern "C" __global__ void c_linkage(int* out) {
  out[threadIdx.x] = 1;
  __syncthreads();
}

// Stays on fibers: the reason --explain gives.
__global__ void unnamed_grid(int* out) {
  out[0] = 1;
  cg::this_grid().sync();
  __syncthreads();
}

void host(int* p) {
  void* args[] = {&p, &p};
  cudaLaunchCooperativeKernel((void*)grid_phases, 4, 32, args);  // by address: weft-port registers it
  grid_phases<<<4, 32>>>(p, p);
  cluster_swap<<<4, 32>>>(p);
  split_arrival<<<4, 32>>>(p);
  unnamed_grid<<<1, 32>>>(p);
  c_linkage<<<1, 32>>>(p);
}
