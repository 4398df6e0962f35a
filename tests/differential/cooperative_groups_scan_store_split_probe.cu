// Probe of cooperative groups' later additions, device side: cg::inclusive_scan
// and cg::exclusive_scan over tiles of 64 to 256 threads (multi-warp tiles),
// cg::reduce_store_async into a pointer from a tile, a multi-warp tile and a
// coalesced group, cg::reduce_update_async, reduce_store_async into a
// cuda::atomic_ref and the scans' update variants, and the block's split
// barrier (thread_block::barrier_arrive and barrier_wait) over three phases.
// Only what CUDA defines is printed (a stored reduction is read after a
// block sync; of the guide's buffer allocation, which depends on the order
// of the warps, only the buffer's use). One line per check.
//
// To be built with nvcc and run on an H100 by hand; its output is to be
// committed beside it as cooperative_groups_scan_store_split_probe.expected
// (configuring again then adds the comparison):
//
//   nvcc -arch=sm_90 -o probe cooperative_groups_scan_store_split_probe.cu
//   ./probe > cooperative_groups_scan_store_split_probe.expected
//
// With weft, through the porting step (CMake: weft_add_cuda_executable),
// whose stackless kernels run these as awaitables.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>
#include <cuda/atomic>

#include <cstdio>
#include <utility>

namespace cg = cooperative_groups;

constexpr int out_size = 1 << 12;

__device__ int value_of(unsigned t) { return static_cast<int>((t * 37 + 11) % 101) - 50; }

template <unsigned N>
__global__ void wide_tile_scan(int* out) {
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(cg::this_thread_block());
  int v = value_of(threadIdx.x);
  int* o = out + threadIdx.x * 4;
  o[0] = cg::inclusive_scan(tile, v);
  o[1] = cg::exclusive_scan(tile, v);
  o[2] = cg::inclusive_scan(tile, v, cg::greater<int>());
  o[3] = cg::exclusive_scan(tile, v, cg::plus<int>());
}

// Slots 0-7: each warp's sum; 8-9: each tile of 128's maximum; 16-23: the
// sum over each warp's lanes of a multiple of 3 (a coalesced group); from
// 32: what each thread reads of its warp's sum after the block's sync.
__global__ void stored_reductions(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<128> wide = cg::tiled_partition<128>(block);
  int v = value_of(threadIdx.x);
  cg::reduce_store_async(warp, out + warp.meta_group_rank(), v, cg::plus<int>());
  cg::reduce_store_async(wide, out + 8 + wide.meta_group_rank(), v, cg::greater<int>());
  if (threadIdx.x % 3 == 0) {
    cg::coalesced_group some = cg::coalesced_threads();
    cg::reduce_store_async(some, out + 16 + threadIdx.x / 32, v, cg::plus<int>());
  }
  block.sync();
  out[32 + threadIdx.x] = out[threadIdx.x / 32];
}

// Slot 0: the block's sum added by each warp; 1: the maximum kept by each
// tile of 128; 2-9: each warp's odd lanes' sum stored; 10-17: counters
// starting at 100 * warp, each updated by its warp's inclusive_scan_update;
// 18-19: each tile of 128's counter after its exclusive_scan_update; 20:
// the guide's shared buffer's use; from 32: each thread's two scans.
__global__ void atomic_reductions(int* out) {
  __shared__ cuda::atomic<int, cuda::thread_scope_block> used;
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<128> wide = cg::tiled_partition<128>(block);
  int t = static_cast<int>(threadIdx.x);
  int v = value_of(threadIdx.x);
  unsigned w = warp.meta_group_rank();
  if (t < 8) out[10 + t] = 100 * t;
  block.sync();
  cg::reduce_update_async(warp, cuda::atomic_ref<int, cuda::thread_scope_device>(out[0]), v, cg::plus<int>());
  cg::reduce_update_async(wide, cuda::atomic_ref<int, cuda::thread_scope_device>(out[1]), v, cg::greater<int>());
  if (t % 2 == 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    cg::reduce_store_async(odd, cuda::atomic_ref<int, cuda::thread_scope_device>(out[2 + w]), v, cg::plus<int>());
  }
  int inclusive = cg::inclusive_scan_update(warp, cuda::atomic_ref<int, cuda::thread_scope_device>(out[10 + w]), v);
  int exclusive = cg::exclusive_scan_update(
      wide, cuda::atomic_ref<int, cuda::thread_scope_device>(out[18 + wide.meta_group_rank()]), v, cg::plus<int>());
  used = 0;
  block.sync();
  cg::exclusive_scan_update(warp, used, t % 2 + 1);
  block.sync();
  if (t == 0) out[20] = used.load();  // one writer: every thread storing it would race
  out[32 + 2 * t] = inclusive;
  out[32 + 2 * t + 1] = exclusive;
}

// Each phase: every thread writes its slot, arrives, waits, and reads
// another thread's slot of the phase (two rows, alternating).
__global__ void split_barrier(int* out) {
  __shared__ int slots[2][128];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = block.thread_rank();
  for (unsigned phase = 0; phase < 3; ++phase) {
    slots[phase % 2][t] = value_of(t + 5 * phase);
    cg::thread_block::arrival_token token = block.barrier_arrive();
    block.barrier_wait(std::move(token));
    out[phase * 128 + t] = slots[phase % 2][(t + 37) % 128];
  }
}

int* device_out;
int host_out[out_size];

// Runs a launch and prints `count` results, `per_line` to a line.
void report(const char* name, int count, int per_line) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", name, cudaGetErrorName(e));
    return;
  }
  cudaMemcpy(host_out, device_out, count * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < count; i += per_line) {
    std::printf("%s[%d]:", name, i / per_line);
    for (int j = i; j < i + per_line && j < count; ++j) std::printf(" %d", host_out[j]);
    std::printf("\n");
  }
  cudaMemset(device_out, 0, out_size * sizeof(int));
}

int main() {
  cudaMalloc(&device_out, out_size * sizeof(int));
  cudaMemset(device_out, 0, out_size * sizeof(int));

  wide_tile_scan<64><<<1, 256>>>(device_out);
  report("wide_tile_scan<64>", 256 * 4, 16);
  wide_tile_scan<128><<<1, 256>>>(device_out);
  report("wide_tile_scan<128>", 256 * 4, 16);
  wide_tile_scan<256><<<1, 256>>>(device_out);
  report("wide_tile_scan<256>", 256 * 4, 16);

  stored_reductions<<<1, 256>>>(device_out);
  report("reduce_store_async", 32 + 256, 16);

  atomic_reductions<<<1, 256>>>(device_out);
  report("atomic_reductions", 32 + 2 * 256, 16);

  split_barrier<<<1, 128>>>(device_out);
  report("split_barrier", 3 * 128, 16);

  cudaFree(device_out);
  return 0;
}
