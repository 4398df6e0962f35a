// Probe of cooperative groups, device side: the thread block of a 3-D block,
// tiles of every size (ranks, meta groups, shuffles, votes, matches), a tile
// of a tile, cg::reduce with each operator, the scans, coalesced_threads in
// divergent branches (a partial warp too), labeled and binary partitions,
// tiled_partition at run time with a short last tile, and memcpy_async with
// wait and wait_prior. Only what CUDA defines is printed: no shuffle from
// outside a group, no operator that does not commute. One line per check.
//
// To be built with nvcc and run on an H100 by hand; its output is to be
// committed beside it as cooperative_groups_probe.expected:
//
//   nvcc -arch=sm_90 -o cooperative_groups_probe cooperative_groups_probe.cu
//   ./cooperative_groups_probe > cooperative_groups_probe.expected
//
// With weft, through the porting step (CMake: weft_add_cuda_executable):
//   weft-port cooperative_groups_probe.cu -o probe.cpp
//   g++ -std=c++20 -O2 -I include -I include/weft/compat probe.cpp -lboost_context -rdynamic
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

#include <cstdio>

namespace cg = cooperative_groups;

constexpr int out_size = 1 << 16;

__device__ int value_of(unsigned t) { return static_cast<int>((t * 37 + 11) % 101) - 50; }

__global__ void block_3d(int* out) {
  cg::thread_block b = cg::this_thread_block();
  unsigned r = b.thread_rank();
  unsigned block_linear = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int* o = out + (block_linear * b.num_threads() + r) * 12;
  dim3 gi = b.group_index(), ti = b.thread_index(), dt = b.dim_threads();
  __shared__ int s[64];
  s[r] = static_cast<int>(r * 3 + blockIdx.x);
  b.sync();
  o[0] = static_cast<int>(r);
  o[1] = static_cast<int>(b.size());
  o[2] = static_cast<int>(gi.x), o[3] = static_cast<int>(gi.y), o[4] = static_cast<int>(gi.z);
  o[5] = static_cast<int>(ti.x), o[6] = static_cast<int>(ti.y), o[7] = static_cast<int>(ti.z);
  o[8] = static_cast<int>(dt.x), o[9] = static_cast<int>(dt.y), o[10] = static_cast<int>(dt.z);
  o[11] = s[(r + 1) % b.size()];
}

template <unsigned N>
__global__ void tile_members(int* out) {
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(cg::this_thread_block());
  unsigned t = threadIdx.x;
  int v = static_cast<int>(t * 7 + 3);
  int* o = out + t * 14;
  o[0] = static_cast<int>(tile.thread_rank());
  o[1] = static_cast<int>(tile.num_threads());
  o[2] = static_cast<int>(tile.meta_group_rank());
  o[3] = static_cast<int>(tile.meta_group_size());
  o[4] = tile.shfl(v, 1);
  o[5] = tile.shfl_up(v, 1);
  o[6] = tile.shfl_down(v, 1);
  o[7] = tile.shfl_xor(v, N / 2);
  o[8] = tile.any(t % 5 == 0);
  o[9] = tile.all(t % 2 == 0);
  o[10] = static_cast<int>(tile.ballot(t % 3 == 0));
  o[11] = static_cast<int>(tile.match_any(static_cast<int>(t / 3)));
  int pred = -1;
  o[12] = static_cast<int>(tile.match_all(static_cast<int>(t / N), pred));
  o[13] = pred;
}

__global__ void tile_of_tile(int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(t16);
  unsigned t = block.thread_rank();
  out[t * 5 + 0] = static_cast<int>(t4.thread_rank());
  out[t * 5 + 1] = static_cast<int>(t4.meta_group_rank());
  out[t * 5 + 2] = static_cast<int>(t4.meta_group_size());
  int quarter = cg::reduce(t4, static_cast<int>(t), cg::plus<int>());
  t16.sync();
  out[t * 5 + 3] = cg::reduce(t16, quarter, cg::plus<int>());
  out[t * 5 + 4] = t4.shfl(static_cast<int>(t), 3);
}

template <unsigned N>
__global__ void tile_reduce(int* out) {
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(cg::this_thread_block());
  int v = value_of(threadIdx.x);
  int* o = out + threadIdx.x * 6;
  o[0] = cg::reduce(tile, v, cg::plus<int>());
  o[1] = cg::reduce(tile, v, cg::less<int>());
  o[2] = cg::reduce(tile, v, cg::greater<int>());
  o[3] = static_cast<int>(cg::reduce(tile, static_cast<unsigned>(v), cg::bit_and<unsigned>()));
  o[4] = static_cast<int>(cg::reduce(tile, static_cast<unsigned>(v), cg::bit_or<unsigned>()));
  o[5] = static_cast<int>(cg::reduce(tile, static_cast<unsigned>(v), cg::bit_xor<unsigned>()));
}

template <unsigned N>
__global__ void tile_scan(int* out) {
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(cg::this_thread_block());
  int v = value_of(threadIdx.x);
  int* o = out + threadIdx.x * 4;
  o[0] = cg::inclusive_scan(tile, v);
  o[1] = cg::exclusive_scan(tile, v);
  o[2] = cg::inclusive_scan(tile, v, cg::greater<int>());
  o[3] = cg::exclusive_scan(tile, v, cg::plus<int>());
}

__device__ void describe_coalesced(const cg::coalesced_group& g, int v, int* o) {
  unsigned lane = threadIdx.x % 32;
  o[0] = static_cast<int>(g.num_threads());
  o[1] = static_cast<int>(g.thread_rank());
  o[2] = g.shfl(v, 0);
  o[3] = g.shfl(v, static_cast<int>(g.num_threads()) - 1);
  o[4] = g.shfl_down(v, 1);
  o[5] = g.shfl_up(v, 2);
  o[6] = static_cast<int>(g.ballot(g.thread_rank() % 2));
  o[7] = g.any(lane == 31);
  o[8] = g.all(lane != 31);
  o[9] = cg::reduce(g, v, cg::plus<int>());
  o[10] = cg::inclusive_scan(g, v);
  o[11] = cg::exclusive_scan(g, v);
}

__global__ void coalesced(int* out) {
  unsigned t = threadIdx.x;
  int v = static_cast<int>(t * 5 + 1);
  int* o = out + t * 12;
  if (t % 32 % 3 == 1) {
    describe_coalesced(cg::coalesced_threads(), v, o);
  } else {
    describe_coalesced(cg::coalesced_threads(), v, o);
  }
}

__global__ void partitions(int* out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned lane = threadIdx.x % 32;
  int* o = out + threadIdx.x * 10;
  cg::coalesced_group lp = cg::labeled_partition(tile, static_cast<int>(lane * 7 % 5));
  o[0] = static_cast<int>(lp.num_threads());
  o[1] = static_cast<int>(lp.thread_rank());
  o[2] = static_cast<int>(lp.meta_group_rank());
  o[3] = static_cast<int>(lp.meta_group_size());
  o[4] = cg::reduce(lp, static_cast<int>(lane), cg::plus<int>());
  cg::coalesced_group bp = cg::binary_partition(tile, lane % 4 == 0);
  o[5] = static_cast<int>(bp.num_threads());
  o[6] = static_cast<int>(bp.thread_rank());
  o[7] = static_cast<int>(bp.meta_group_rank());
  o[8] = static_cast<int>(bp.meta_group_size());
  cg::coalesced_group sub = cg::labeled_partition(lp, static_cast<int>(lane % 2));
  o[9] = static_cast<int>(sub.num_threads());
}

__global__ void dynamic_tiles(unsigned tile_size, int* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group g = cg::tiled_partition(block, tile_size);
  unsigned t = block.thread_rank();
  out[t * 2 + 0] = static_cast<int>(g.thread_rank());
  out[t * 2 + 1] = static_cast<int>(g.size());
  g.sync();
}

enum { copy_count = 1000 };  // an enumerator: usable in device code without being a variable

__global__ void copies(const int* in, int* out) {
  __shared__ int stage[copy_count];
  __shared__ int second[256];
  cg::thread_block block = cg::this_thread_block();
  unsigned t = block.thread_rank(), n = block.num_threads();
  cg::memcpy_async(block, stage, in, sizeof(int) * copy_count);
  cg::memcpy_async(block, second, 256, in + 7, copy_count);
  cg::wait_prior<1>(block);
  for (unsigned i = t; i < copy_count; i += n) out[i] = stage[copy_count - 1 - i];
  cg::wait(block);
  for (unsigned i = t; i < 256; i += n) out[copy_count + i] = second[255 - i];
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

template <unsigned N>
void tiles_of() {
  char name[64];
  tile_members<N><<<1, 96>>>(device_out);
  std::snprintf(name, sizeof name, "tile_members<%u>", N);
  report(name, 96 * 14, 14);
  tile_reduce<N><<<1, 64>>>(device_out);
  std::snprintf(name, sizeof name, "tile_reduce<%u>", N);
  report(name, 64 * 6, 6);
  tile_scan<N><<<1, 64>>>(device_out);
  std::snprintf(name, sizeof name, "tile_scan<%u>", N);
  report(name, 64 * 4, 4);
}

int main() {
  cudaMalloc(&device_out, out_size * sizeof(int));
  cudaMemset(device_out, 0, out_size * sizeof(int));

  block_3d<<<dim3(2, 1, 2), dim3(4, 3, 2)>>>(device_out);
  report("block_3d", 4 * 24 * 12, 12);

  tiles_of<1>();
  tiles_of<2>();
  tiles_of<4>();
  tiles_of<8>();
  tiles_of<16>();
  tiles_of<32>();

  tile_of_tile<<<1, 64>>>(device_out);
  report("tile_of_tile", 64 * 5, 5);

  coalesced<<<1, 64>>>(device_out);
  report("coalesced_64", 64 * 12, 12);
  coalesced<<<1, 40>>>(device_out);
  report("coalesced_40", 40 * 12, 12);

  partitions<<<1, 64>>>(device_out);
  report("partitions", 64 * 10, 10);

  for (unsigned size = 1; size <= 32; size *= 2) {
    char name[64];
    dynamic_tiles<<<1, 40>>>(size, device_out);
    std::snprintf(name, sizeof name, "dynamic_tiles(%u)", size);
    report(name, 40 * 2, 8);
  }

  int in[copy_count];
  for (int i = 0; i < copy_count; ++i) in[i] = i * 3 + 1;
  int* device_in;
  cudaMalloc(&device_in, sizeof in);
  cudaMemcpy(device_in, in, sizeof in, cudaMemcpyHostToDevice);
  copies<<<1, 128>>>(device_in, device_out);
  report("memcpy_async", copy_count + 256, 16);
  cudaFree(device_in);
  cudaFree(device_out);
  return 0;
}
