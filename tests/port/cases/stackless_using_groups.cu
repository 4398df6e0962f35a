// Cooperative groups called unqualified after `using namespace
// cooperative_groups;`, as many of NVIDIA's samples write them: weft-port
// awaits them as it awaits cg::reduce(...). A kernel that calls a name the
// file also defines as a function stays on fibers: which of the two a call
// means is overload resolution's choice. Run with --explain
// (stackless_using_groups.expected-stderr).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

using namespace cooperative_groups;

__global__ void block_total(const int* in, int* out) {
  thread_block block = this_thread_block();
  thread_block_tile<32> tile = tiled_partition<32>(block);
  int v = in[block.thread_rank()];
  sync(block);
  int sum = reduce(tile, v, plus<int>()) + exclusive_scan(tile, v);
  if (tile.thread_rank() == 0) atomicAdd(out, sum);
  coalesced_group active = coalesced_threads();
  out[1 + active.thread_rank()] = cooperative_groups::inclusive_scan(active, 1);
}

__global__ void whole_grid(int* out) {
  grid_group grid = this_grid();
  out[grid.block_rank()] = 1;
  grid.sync();
}

// The file's own `inclusive_scan`, beside cooperative groups': a kernel that
// calls it (or cooperative groups' of the name) stays on fibers.
__device__ int inclusive_scan(int a, int b) { return a + b; }
__global__ void own_scan(int* out) {
  out[threadIdx.x] = inclusive_scan(out[threadIdx.x], 1);
  __syncthreads();
}

void host(int* p) {
  block_total<<<1, 64>>>(p, p);
  whole_grid<<<2, 32>>>(p);
  own_scan<<<1, 32>>>(p);
}
