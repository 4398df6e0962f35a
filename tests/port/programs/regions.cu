// Kernels that weft-port gives region versions (a loop over the block's
// threads between barriers), checked against the host: `__syncthreads();`
// and cooperative groups' block barriers, launches by name and by address,
// parameters that each thread changes, a kernel template, locals every
// thread shares read by barrier loops' heads, warp shuffles (under a
// warp's `if` too, with a named mask), cg::reduce over tiles. Built twice: as
// ported (port_regions: region versions, or with WEFT_EXECUTOR=stackless
// the stackless kernels) and with NO_STACKLESS (port_regions_fibers); all
// three print the same lines and PASS.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <algorithm>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

#define TILE 16
constexpr int threads = 128;

__global__ void block_sum(const int* in, int* sums) {
  __shared__ int partial[threads];
  unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}

__global__ void tiled_matmul(const float* a, const float* b, float* c, int n) {
  __shared__ float as[TILE][TILE], bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0;
  for (int m = 0; m < n / TILE; ++m) {
    as[ty][tx] = a[row * n + m * TILE + tx];
    bs[ty][tx] = b[(m * TILE + ty) * n + col];
    __syncthreads();
    for (int e = 0; e < TILE; ++e) sum += as[ty][e] * bs[e][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

// Threads past `active` return before the barrier, which the others pass.
__global__ void rotate_active(const int* in, int* out, int active) {
  extern __shared__ int ring[];
  const int t = threadIdx.x;
  if (t >= active) return;
  const int* source = in + blockIdx.x * blockDim.x;
  int kept;
  kept = source[t];
  ring[t] = kept;
  __syncthreads();
  int next = ring[(t + 1) % active];
  out[blockIdx.x * blockDim.x + t] = next * 1000 + kept;
}

// Hillis-Steele inclusive scan, double-buffered.
__global__ void scan(const int* in, int* out) {
  __shared__ int buffer[2][threads];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int current = 0;
  buffer[current][t] = in[i];
  __syncthreads();
  for (int offset = 1; offset < threads; offset *= 2) {
    int value = buffer[current][t];
    if (t >= offset) value += buffer[current][t - offset];
    buffer[1 - current][t] = value;
    current = 1 - current;
    __syncthreads();
  }
  out[i] = buffer[current][t];
}

// A 2D block whose second row returns early but for its first four threads.
__global__ void rows_reversed(int* data) {
  __shared__ int tile[2][8];
  int x = threadIdx.x, y = threadIdx.y;
  tile[y][x] = data[y * 8 + x];
  if (y == 1 && x >= 4) return;
  __syncthreads();
  data[y * 8 + x] = tile[1 - y][7 - x];
}

// The block's barrier through cooperative groups; a `uint` across it.
__global__ void group_sum(const int* in, int* sums) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ int partial[threads];
  uint t = cta.thread_rank();
  partial[t] = in[blockIdx.x * blockDim.x + t];
  cg::sync(cta);
  for (uint stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    cta.sync();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}

// Launched by address: a void kernel that forwards to its stackless body,
// its region version registered under the void kernel's address.
__global__ void reverse_blocks(int* data) {
  __shared__ int copy[threads];
  unsigned t = threadIdx.x, base = blockIdx.x * blockDim.x;
  copy[t] = data[base + t];
  __syncthreads();
  data[base + t] = copy[blockDim.x - 1 - t];
}

// Parameters each thread changes: each thread's own copy.
__global__ void own_parameters(int* data, int n) {
  __shared__ int values[threads];
  data += blockIdx.x * blockDim.x;
  n += threadIdx.x;
  values[threadIdx.x] = n;
  __syncthreads();
  data[threadIdx.x] = values[blockDim.x - 1 - threadIdx.x] + n;
}

// A kernel template: each instance the program launches registers its
// region version.
template <class T, int size>
__global__ void template_sum(const T* in, T* sums) {
  __shared__ T partial[size];
  T mine = in[blockIdx.x * size + threadIdx.x];
  partial[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned stride = size / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] = mine = mine + partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = mine;
}

// Locals every thread shares (kept outside the regions), a loop of two
// variables, an inner bound from the outer loop's variable, a block of its
// own with a barrier, a parameter passed to CUDA's min.
__global__ void strided_sums(const int* in, int* out, int width) {
  __shared__ int tile[threads];
  int first = blockIdx.x * width;
  int last = first + width - 1;
  int sum = 0;
  for (int i = first, step = 0; i <= last; i += threads, ++step) {
    tile[threadIdx.x] = in[i + threadIdx.x] * (step + 1);
    __syncthreads();
    for (int stride = threads / 2; stride >= 1 && stride <= i - first + threads; stride /= 2) {
      if ((int)threadIdx.x < stride) tile[threadIdx.x] += tile[threadIdx.x + stride];
      __syncthreads();
    }
    sum += tile[0];
    __syncthreads();
  }
  {
    int mine = sum;
    __syncthreads();
    out[blockIdx.x * threads + threadIdx.x] = mine + min(width, 4);
  }
}

// Calls of __device__ functions that wait, inlined into the region
// version: a scan whose barriers sit in a loop bounded by a parameter
// every thread shares, its result returned through a second function
// (`return f(...) - value;`) into a local (`int x = f(...);`).
__device__ int inclusive_scan(int value, volatile int* buffer, int size, cg::thread_block cta) {
  int pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
  buffer[pos] = 0;
  pos += size;
  buffer[pos] = value;
  for (int offset = 1; offset < size; offset <<= 1) {
    cg::sync(cta);
    int t = buffer[pos] + buffer[pos - offset];
    cg::sync(cta);
    buffer[pos] = t;
  }
  return buffer[pos];
}

__device__ int exclusive_scan(int value, volatile int* buffer, int size, cg::thread_block cta) {
  return inclusive_scan(value, buffer, size, cta) - value;
}

__global__ void inlined_scan(const int* in, int* out, int size) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ int buffer[2 * threads];
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  int value = in[pos];
  int scanned = exclusive_scan(value, buffer, size, cta);
  out[pos] = scanned;
}

// A callee that returns early, after its last barrier, inside a block of
// its own: the next region skips the thread that returned. Threads past
// `active` exit in the kernel before the call; a void callee called as a
// statement.
__device__ int neighbour_sum(int* stage, int t, int value) {
  {
    stage[t] = value;
    __syncthreads();
    if (t == 0) return stage[0] * 100;
  }
  return stage[t] + stage[t - 1];
}

__device__ void store_twice(int* out, int at, int value) {
  __syncthreads();
  out[at] = 2 * value;
}

__global__ void inlined_early_returns(const int* in, int* out, int active) {
  __shared__ int stage[threads];
  int t = threadIdx.x;
  if (t >= active) return;
  int sum;
  sum = neighbour_sum(stage, t, in[blockIdx.x * blockDim.x + t]);
  store_twice(out, blockIdx.x * blockDim.x + t, sum);
}

// Warp shuffles as statements where a barrier could stand: each splits
// the block's loop there. Warp sums by shuffles down (a 48-thread block's
// second warp is partial: the full mask means its 16 lanes), then the
// warps' sums meet in shared memory.
__global__ void shuffle_reduce(const int* in, int* lanes, int* sums) {
  __shared__ int warp_sums[threads / 32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int value = in[i];
  for (int offset = 16; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffff, value, offset);
  }
  lanes[i] = value;
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w) sum += warp_sums[w];
    sums[blockIdx.x] = sum;
  }
}

// An inclusive scan of each warp by shuffles up, the lanes below `offset`
// keeping their own.
__global__ void shuffle_scan(const int* in, int* out) {
  int lane = threadIdx.x % 32;
  int value = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = 1; offset < 32; offset *= 2) {
    int below = __shfl_up_sync(0xffffffff, value, offset);
    if (lane >= offset) value += below;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

// Segments of 16 lanes. An xor past a segment's end reads the lane's own
// value (so the lower half-warp's sum comes doubled); one below its start
// reads there (the upper's: both halves' sum). Then lane 3 of each segment.
__global__ void half_warp_sums(const float* in, float* out) {
  float total = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int mask = 16; mask > 0; mask /= 2) {
    total += __shfl_xor_sync(0xFFFFFFFFu, total, mask, 16);
  }
  float third = __shfl_sync(0xffffffff, total + threadIdx.x % 16, 3, 16);
  out[blockIdx.x * blockDim.x + threadIdx.x] = third;
}

// A double operand: every bit of it comes across.
__global__ void double_lead(const double* in, double* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double lead;
  lead = __shfl_sync(0xffffffff, in[i] / 3, 31);
  out[i] = in[i] * 1000 + lead;
}

// A callee's shuffles in a loop without braces, inlined: a segment sum by
// xor within 8 lanes, then each lane's own sum minus the lowest lane's of
// its segment.
__device__ int segment_sum(int v) {
  for (int mask = 4; mask > 0; mask /= 2) v += __shfl_xor_sync(0xffffffff, v, mask, 8);
  return v;
}

__global__ void inlined_shuffles(const int* in, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int sum = segment_sum(in[i]);
  int lowest = __shfl_sync(0xffffffff, in[i], 0, 8);
  out[i] = sum * 1000 + lowest;
}

// The benchmark suite's two-stage shuffle kernels as it writes them: the
// mask a constant of the file, each warp reducing (or scanning) by
// shuffles in a callee, then the first warp, under `if (warp == 0)`, the
// warps' sums (totals) with the same callee.
constexpr unsigned full_mask = 0xffffffffu;
constexpr int warps = threads / 32;

__device__ int warp_total(int value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(full_mask, value, offset);
  return value;
}

__global__ void two_stage_sum(const int* in, int* sums) {
  __shared__ int warp_sums[warps];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int value = warp_total(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = warp_total(lane < warps ? warp_sums[lane] : 0);
    if (lane == 0) sums[blockIdx.x] = value;
  }
}

__device__ int warp_prefix(int value, int lane) {
  for (int offset = 1; offset < 32; offset *= 2) {
    int below = __shfl_up_sync(full_mask, value, offset);
    if (lane >= offset) value += below;
  }
  return value;
}

__global__ void two_stage_scan(const int* in, int* out) {
  __shared__ int warp_totals[warps];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int value = warp_prefix(in[i], lane);
  if (lane == 31) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) {
    int total = warp_prefix(lane < warps ? warp_totals[lane] : 0, lane);
    if (lane < warps) warp_totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) value += warp_totals[warp - 1];
  out[i] = value;
}

// Two barrier loops of one name, one after the other, each declaring its
// own `mine` (each row's sum, then its largest value), and in 64 x 2 blocks, whose rows are whole warps, a
// row's second warp (`threadIdx.x >> 5`) swapping neighbours' values.
__global__ void row_sum_and_max(int* data, int* rows) {
  __shared__ int partial[2][64];
  int i = blockIdx.x * 128 + threadIdx.y * 64 + threadIdx.x;
  int value = data[i];
  partial[threadIdx.y][threadIdx.x] = value;
  __syncthreads();
  for (unsigned s = 32; s > 0; s /= 2) {
    int* mine = &partial[threadIdx.y][threadIdx.x];
    if (threadIdx.x < s) *mine += mine[s];
    __syncthreads();
  }
  int row_sum = partial[threadIdx.y][0];
  __syncthreads();
  partial[threadIdx.y][threadIdx.x] = value;
  __syncthreads();
  for (unsigned s = 32; s > 0; s /= 2) {
    int* mine = &partial[threadIdx.y][threadIdx.x];
    if (threadIdx.x < s) *mine = max(*mine, mine[s]);
    __syncthreads();
  }
  int row_max = partial[threadIdx.y][0];
  if ((threadIdx.x >> 5) == 1) {
    value = __shfl_xor_sync(full_mask, value, 1);
  }
  data[i] = value;
  if (threadIdx.x == 0)
    rows[blockIdx.x * 4 + threadIdx.y * 2] = row_sum, rows[blockIdx.x * 4 + threadIdx.y * 2 + 1] = row_max;
}

// Locals that live across a barrier which weft-port declares again in each
// region that reads them (from threadIdx, blockIdx, parameters) or once
// before the regions (the same for every thread), in blocks of 16 x 4: one
// changed after its declaration stays each thread's own, and a division
// that follows the threads' `return` stays after it (a divisor of 0).
__global__ void recomputed_locals(const int* in, int* out, int divisor) {
  __shared__ int staged[64];
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  int base = blockIdx.x * 64;
  int doubled = t + 1;
  if (divisor == 0) return;
  int share = base / divisor;
  staged[t] = in[base + t];
  doubled *= 2;
  __syncthreads();
  out[base + t] = staged[63 - t] + doubled + share;
}

// cg::reduce over whole-warp tiles, the suite's two stages, in float:
// each lane's sum must come in the executors' order (a butterfly), bit for
// bit, which the values (of very different sizes) make depend on the order.
__global__ void group_float_sums(const float* in, float* lanes, float* sums) {
  __shared__ float tile_sums[warps];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float value = cg::reduce(tile, in[blockIdx.x * blockDim.x + threadIdx.x], cg::plus<float>());
  lanes[blockIdx.x * blockDim.x + threadIdx.x] = value;
  if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = value;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    value = cg::reduce(tile, tile.thread_rank() < warps ? tile_sums[tile.thread_rank()] : 0.0f, cg::plus<float>());
    if (tile.thread_rank() == 0) sums[blockIdx.x] = value;
  }
}

// Integers by cg's one-instruction operators in blocks of 112 threads,
// whose last tile has 16: the largest (all below 0) and the xor of the
// lanes there are.
// Then tiles of 8, whose smallest float goes to their rank's place.
__global__ void group_int_tiles(const int* in, int* largest, unsigned* mixed, float* smallest) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int high = cg::reduce(tile, in[i] - 1000, cg::greater<int>());
  unsigned bits = cg::reduce(tile, static_cast<unsigned>(in[i]) * 2654435761u, cg::bit_xor<unsigned>());
  largest[i] = high;
  mixed[i] = bits + tile.num_threads();
  cg::thread_block_tile<8> eighth = cg::tiled_partition<8>(block);
  float low = cg::reduce(eighth, in[i] * 0.5f, cg::less<float>());
  if (eighth.thread_rank() == 7) smallest[blockIdx.x * 14 + eighth.meta_group_rank()] = low;
}

// A 20 x 20 transpose in blocks of 8 x 4 threads (8 x 8 tiles, two rows
// each): after the barrier a thread assigns `x` and `y` afresh, which each
// region then declares as its own. In the blocks at the right edge the
// threads past it return after filling their tile: the later region runs
// the others, in rows that they leave gaps in.
__global__ void edge_transpose(const int* in, int* out, int n) {
  __shared__ int tile[8][9];
  int x = blockIdx.x * 8 + threadIdx.x;
  int y = blockIdx.y * 8 + threadIdx.y;
  for (int r = 0; r < 8; r += 4) tile[threadIdx.y + r][threadIdx.x] = x < n && y + r < n ? in[(y + r) * n + x] : -1;
  if (x >= n) return;
  __syncthreads();
  x = blockIdx.y * 8 + threadIdx.x;
  y = blockIdx.x * 8 + threadIdx.y;
  for (int r = 0; r < 8; r += 4)
    if (x < n && y + r < n) out[(y + r) * n + x] = tile[threadIdx.x][threadIdx.y + r];
}

// Of one statement's names only `at` is read after the barrier: `lane`
// stays in its region (the statement is split in two there).
__global__ void split_declaration(const int* in, int* out) {
  __shared__ int tile[32];
  int lane = threadIdx.x, at = blockIdx.x * 32 + lane;
  tile[lane] = in[at];
  __syncthreads();
  out[at] = tile[31 - threadIdx.x];
}

// Straight code between two barriers runs in one loop over the threads,
// across inlined calls: the kernel's statements, `scaled_prefix`'s and
// `prefix4`'s up to its barrier are one region (a callee that declares
// nothing for the block is spliced in without braces, its shared
// parameter read as the caller's constant). A local the merged statements
// no longer carry across a region (`v`) is no per-thread member; those
// that stay members are copied into registers (`auto v = ...;`) and
// written back where the region changes them.
__device__ int4 prefix4(int4 v, int* stage, int scale) {
  v.y += v.x;
  v.z += v.y;
  v.w += v.z;
  stage[threadIdx.x] = v.w * scale;
  __syncthreads();
  int before = threadIdx.x == 0 ? 0 : stage[threadIdx.x - 1];
  v.x += before;
  v.y += before;
  v.z += before;
  v.w += before;
  return v;
}
__device__ int4 scaled_prefix(int4 v, int* stage, int scale) {
  v.x *= 2;
  return prefix4(v, stage, scale);
}
__global__ void merged_calls(const int4* in, int4* out, int scale) {
  __shared__ int stage[threads];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int4 v = in[i];
  v.w -= 1;
  int4 r = scaled_prefix(v, stage, scale);
  out[i] = r;
}

// A local copied into a register for each region that uses it, written
// back where a region changes it and read after the next barrier.
__global__ void kept_in_register(const int* in, int* out) {
  __shared__ int tile[threads];
  int t = threadIdx.x;
  int acc = in[blockIdx.x * blockDim.x + t];
  tile[t] = acc;
  __syncthreads();
  acc += tile[(t + 1) % threads];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = acc * 2;
}

// A local whose address is taken stays a reference to its member: the
// pointer, kept across a barrier, must reach the same `v` in every region.
__global__ void address_taken(const int* in, int* out) {
  __shared__ int tile[threads];
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  int* p = &v;
  tile[t] = v;
  __syncthreads();
  *p += tile[(t + 1) % threads];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = v;
}

int main() {
  bool pass = true;
  int* ints = nullptr;
  int* out = nullptr;
  cudaMallocManaged(&ints, 8 * threads * sizeof(int));
  cudaMallocManaged(&out, 8 * threads * sizeof(int));
  for (int i = 0; i < 8 * threads; ++i) ints[i] = (i * 37) % 101 - 50;

  block_sum<<<8, threads>>>(ints, out);
  cudaDeviceSynchronize();
  for (int b = 0; b < 8; ++b) {
    int expected = 0;
    for (int t = 0; t < threads; ++t) expected += ints[b * threads + t];
    pass = pass && out[b] == expected;
    printf("sum %d: %d\n", b, out[b]);
  }

  const int n = 2 * TILE;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMallocManaged(&a, n * n * sizeof(float));
  cudaMallocManaged(&b, n * n * sizeof(float));
  cudaMallocManaged(&c, n * n * sizeof(float));
  for (int i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(i % 7);
    b[i] = static_cast<float>(i % 5) - 2;
  }
  tiled_matmul<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(a, b, c, n);
  cudaDeviceSynchronize();
  float trace = 0;
  for (int r = 0; r < n; ++r)
    for (int col = 0; col < n; ++col) {
      float expected = 0;
      for (int k = 0; k < n; ++k) expected += a[r * n + k] * b[k * n + col];
      pass = pass && c[r * n + col] == expected;
      if (r == col) trace += c[r * n + col];
    }
  printf("matmul trace: %g\n", trace);

  for (int i = 0; i < 2 * 64; ++i) out[i] = -1;
  rotate_active<<<2, 64, 64 * sizeof(int)>>>(ints, out, 50);
  cudaDeviceSynchronize();
  for (int blk = 0; blk < 2; ++blk)
    for (int t = 0; t < 64; ++t) {
      int expected = t < 50 ? ints[blk * 64 + (t + 1) % 50] * 1000 + ints[blk * 64 + t] : -1;
      pass = pass && out[blk * 64 + t] == expected;
    }
  printf("rotate: %d %d %d\n", out[0], out[49], out[50]);

  scan<<<8, threads>>>(ints, out);
  cudaDeviceSynchronize();
  for (int blk = 0; blk < 8; ++blk) {
    int running = 0;
    for (int t = 0; t < threads; ++t) {
      running += ints[blk * threads + t];
      pass = pass && out[blk * threads + t] == running;
    }
  }
  printf("scan: %d %d\n", out[threads - 1], out[8 * threads - 1]);

  for (int i = 0; i < 16; ++i) out[i] = i;
  rows_reversed<<<1, dim3(8, 2)>>>(out);
  cudaDeviceSynchronize();
  for (int i = 0; i < 16; ++i) {
    int y = i / 8, x = i % 8;
    int expected = (y == 1 && x >= 4) ? i : (1 - y) * 8 + (7 - x);
    pass = pass && out[i] == expected;
    printf("%d ", out[i]);
  }
  printf("\n");

  group_sum<<<8, threads>>>(ints, out);
  cudaDeviceSynchronize();
  for (int blk = 0; blk < 8; ++blk) {
    int expected = 0;
    for (int t = 0; t < threads; ++t) expected += ints[blk * threads + t];
    pass = pass && out[blk] == expected;
  }
  printf("group sums: %d %d\n", out[0], out[7]);

  for (int i = 0; i < 8 * threads; ++i) out[i] = ints[i];
  void* args[] = {&out};
  pass = pass && cudaLaunchKernel((const void*)reverse_blocks, dim3(8), dim3(threads), args, 0, 0) == cudaSuccess;
  cudaDeviceSynchronize();
  for (int i = 0; i < 8 * threads; ++i)
    pass = pass && out[i] == ints[i / threads * threads + threads - 1 - i % threads];
  printf("reversed: %d %d\n", out[0], out[8 * threads - 1]);

  own_parameters<<<8, threads>>>(out, 5);
  cudaDeviceSynchronize();
  for (int i = 0; i < 8 * threads; ++i) pass = pass && out[i] == 2 * 5 + threads - 1;
  printf("own parameters: %d %d\n", out[0], out[8 * threads - 1]);

  template_sum<int, threads><<<8, threads>>>(ints, out);
  cudaDeviceSynchronize();
  for (int blk = 0; blk < 8; ++blk) {
    int expected = 0;
    for (int t = 0; t < threads; ++t) expected += ints[blk * threads + t];
    pass = pass && out[blk] == expected;
  }
  for (int i = 0; i < 64; ++i) a[i] = 0.5f * static_cast<float>(i % 9);
  template_sum<float, 32><<<2, 32>>>(a, c);
  cudaDeviceSynchronize();
  for (int blk = 0; blk < 2; ++blk) {
    float expected = 0;
    for (int t = 0; t < 32; ++t) expected += a[blk * 32 + t];
    pass = pass && c[blk] == expected;
  }
  printf("template sums: %d %d %g %g\n", out[0], out[7], c[0], c[1]);

  strided_sums<<<2, threads>>>(ints, out, 2 * threads);
  cudaDeviceSynchronize();
  for (int blk = 0; blk < 2; ++blk) {
    int expected = 4;
    for (int r = 0; r < 2; ++r)
      for (int t = 0; t < threads; ++t) expected += (r + 1) * ints[blk * 2 * threads + r * threads + t];
    for (int t = 0; t < threads; ++t) pass = pass && out[blk * threads + t] == expected;
  }
  printf("strided sums: %d %d\n", out[0], out[threads]);

  inlined_scan<<<8, threads>>>(ints, out, threads);
  cudaDeviceSynchronize();
  for (int blk = 0; blk < 8; ++blk) {
    int running = 0;
    for (int t = 0; t < threads; ++t) {
      pass = pass && out[blk * threads + t] == running;
      running += ints[blk * threads + t];
    }
  }
  printf("inlined scan: %d %d\n", out[threads - 1], out[8 * threads - 1]);

  for (int i = 0; i < 2 * threads; ++i) out[i] = -1;
  inlined_early_returns<<<2, threads>>>(ints, out, 100);
  cudaDeviceSynchronize();
  for (int blk = 0; blk < 2; ++blk)
    for (int t = 0; t < threads; ++t) {
      const int* v = ints + blk * threads;
      int expected = t >= 100 ? -1 : 2 * (t == 0 ? v[0] * 100 : v[t] + v[t - 1]);
      pass = pass && out[blk * threads + t] == expected;
    }
  printf("inlined early returns: %d %d %d %d\n", out[0], out[1], out[99], out[100]);

  shuffle_reduce<<<3, threads>>>(ints, out + 3, out);
  shuffle_reduce<<<1, 48>>>(ints, out + 3 + 3 * threads, out + 3 + 3 * threads + 48);
  cudaDeviceSynchronize();
  for (int blk = 0; blk < 3; ++blk) {
    int expected = 0;
    for (int t = 0; t < threads; ++t) expected += ints[blk * threads + t];
    pass = pass && out[blk] == expected;
    for (int w = 0; w < threads / 32; ++w) {
      int warp = 0;
      for (int lane = 0; lane < 32; ++lane) warp += ints[blk * threads + w * 32 + lane];
      pass = pass && out[3 + blk * threads + w * 32] == warp;
    }
  }
  int partial = 0, lanes_checksum = 0;
  for (int t = 0; t < 48; ++t) partial += ints[t];
  for (int t = 0; t < 3 * threads + 48; ++t) lanes_checksum = lanes_checksum * 31 + out[3 + t];
  pass = pass && out[3 + 3 * threads + 48] == partial;
  printf("shuffle sums: %d %d %d, partial warp %d, lanes %d\n", out[0], out[1], out[2], out[3 + 3 * threads + 48],
         lanes_checksum);

  shuffle_scan<<<2, threads>>>(ints, out);
  cudaDeviceSynchronize();
  for (int i = 0; i < 2 * threads; ++i) {
    int expected = 0;
    for (int j = i - i % 32; j <= i; ++j) expected += ints[j];
    pass = pass && out[i] == expected;
  }
  printf("shuffle scan: %d %d %d\n", out[0], out[31], out[2 * threads - 1]);

  for (int i = 0; i < 64; ++i) a[i] = 0.25f * static_cast<float>(i % 13);
  half_warp_sums<<<1, 64>>>(a, c);
  cudaDeviceSynchronize();
  for (int i = 0; i < 64; ++i) {
    float lower = 0, upper = 0;
    for (int j = 0; j < 16; ++j) {
      lower += a[i - i % 32 + j];
      upper += a[i - i % 32 + 16 + j];
    }
    pass = pass && c[i] == (i % 32 < 16 ? 2 * lower : lower + upper) + 3;
  }
  printf("half-warp sums: %g %g %g\n", c[0], c[16], c[63]);

  double *doubles = nullptr, *double_out = nullptr;
  cudaMallocManaged(&doubles, threads * sizeof(double));
  cudaMallocManaged(&double_out, threads * sizeof(double));
  for (int i = 0; i < threads; ++i) doubles[i] = 1.0 + i / 7.0;
  double_lead<<<2, threads / 2>>>(doubles, double_out);
  cudaDeviceSynchronize();
  for (int i = 0; i < threads; ++i) pass = pass && double_out[i] == doubles[i] * 1000 + doubles[i - i % 32 + 31] / 3;
  printf("double lead: %.17g %.17g\n", double_out[0], double_out[threads - 1]);

  inlined_shuffles<<<2, threads>>>(ints, out);
  cudaDeviceSynchronize();
  for (int i = 0; i < 2 * threads; ++i) {
    int segment = 0;
    for (int j = i - i % 8; j < i - i % 8 + 8; ++j) segment += ints[j];
    pass = pass && out[i] == segment * 1000 + ints[i - i % 8];
  }
  printf("inlined shuffles: %d %d\n", out[0], out[2 * threads - 1]);

  two_stage_sum<<<3, threads>>>(ints, out);
  cudaDeviceSynchronize();
  for (int blk = 0; blk < 3; ++blk) {
    int expected = 0;
    for (int t = 0; t < threads; ++t) expected += ints[blk * threads + t];
    pass = pass && out[blk] == expected;
  }
  printf("two-stage sums: %d %d %d\n", out[0], out[1], out[2]);

  two_stage_scan<<<2, threads>>>(ints, out);
  cudaDeviceSynchronize();
  for (int i = 0; i < 2 * threads; ++i) {
    int expected = 0;
    for (int j = i - i % threads; j <= i; ++j) expected += ints[j];
    pass = pass && out[i] == expected;
  }
  printf("two-stage scan: %d %d %d\n", out[0], out[threads - 1], out[2 * threads - 1]);

  for (int i = 0; i < 2 * threads; ++i) out[i] = ints[i];
  int* rows = out + 2 * threads;
  row_sum_and_max<<<2, dim3(64, 2)>>>(out, rows);
  cudaDeviceSynchronize();
  for (int i = 0; i < 2 * threads; ++i) {
    int row = i - i % 64, sum = 0, largest = ints[row];
    for (int j = row; j < row + 64; ++j) sum += ints[j], largest = ints[j] > largest ? ints[j] : largest;
    pass = pass && out[i] == (i % 64 >= 32 ? ints[i ^ 1] : ints[i]);
    pass = pass && rows[i / 64 * 2] == sum && rows[i / 64 * 2 + 1] == largest;
  }
  printf("row sums and largest: %d %d %d %d, values %d %d\n", rows[0], rows[1], rows[6], rows[7], out[32],
         out[2 * threads - 1]);

  for (int i = 0; i < 2 * 64; ++i) out[i] = -1;
  recomputed_locals<<<2, dim3(16, 4)>>>(ints, out, 0);
  cudaDeviceSynchronize();
  for (int i = 0; i < 2 * 64; ++i) pass = pass && out[i] == -1;
  recomputed_locals<<<2, dim3(16, 4)>>>(ints, out, 3);
  cudaDeviceSynchronize();
  for (int i = 0; i < 2 * 64; ++i) {
    int t = i % 64, base = i - t;
    pass = pass && out[i] == ints[base + 63 - t] + 2 * (t + 1) + base / 3;
  }
  printf("recomputed locals: %d %d\n", out[0], out[2 * 64 - 1]);

  float *floats = nullptr, *float_lanes = nullptr, *float_sums = nullptr;
  cudaMallocManaged(&floats, 3 * threads * sizeof(float));
  cudaMallocManaged(&float_lanes, 3 * threads * sizeof(float));
  cudaMallocManaged(&float_sums, 3 * sizeof(float));
  for (int i = 0; i < 3 * threads; ++i) floats[i] = (i % 5 == 0 ? 1.0e7f : 1.0f) * (i % 3 - 1) + 0.1f * (i % 7);
  group_float_sums<<<3, threads>>>(floats, float_lanes, float_sums);
  cudaDeviceSynchronize();
  // The executors' butterfly: lane l adds lane l ^ d's value, d = 16 ... 1.
  auto butterfly = [](std::vector<float> v) {
    for (int d = 16; d > 0; d /= 2) {
      std::vector<float> next(32);
      for (int l = 0; l < 32; ++l) next[l] = v[l] + v[l ^ d];
      v = next;
    }
    return v;
  };
  for (int blk = 0; blk < 3; ++blk) {
    std::vector<float> stage(32, 0.0f);
    for (int w = 0; w < warps; ++w) {
      std::vector<float> sums =
          butterfly(std::vector<float>(floats + blk * threads + w * 32, floats + blk * threads + w * 32 + 32));
      for (int l = 0; l < 32; ++l) pass = pass && float_lanes[blk * threads + w * 32 + l] == sums[l];
      stage[w] = sums[0];
    }
    pass = pass && float_sums[blk] == butterfly(stage)[0];
  }
  printf("group float sums: %a %a %a, lane %a\n", float_sums[0], float_sums[1], float_sums[2], float_lanes[37]);

  const int odd_block = 112;
  int* largest = out;
  unsigned* mixed = nullptr;
  float* smallest = nullptr;
  cudaMallocManaged(&mixed, 2 * odd_block * sizeof(unsigned));
  cudaMallocManaged(&smallest, 2 * 14 * sizeof(float));
  group_int_tiles<<<2, odd_block>>>(ints, largest, mixed, smallest);
  cudaDeviceSynchronize();
  for (int i = 0; i < 2 * odd_block; ++i) {
    int first = i - i % odd_block + (i % odd_block) / 32 * 32,
        end = std::min(first + 32, i - i % odd_block + odd_block);
    int high = ints[first] - 1000;
    unsigned bits = 0;
    for (int j = first; j < end; ++j)
      high = std::max(high, ints[j] - 1000), bits ^= static_cast<unsigned>(ints[j]) * 2654435761u;
    pass = pass && largest[i] == high && mixed[i] == bits + 32;
  }
  for (int e = 0; e < 2 * 14; ++e) {
    float low = ints[e * 8] * 0.5f;
    for (int j = e * 8; j < e * 8 + 8; ++j) low = std::min(low, ints[j] * 0.5f);
    pass = pass && smallest[e] == low;
  }
  printf("group int tiles: %d %d %u %u, smallest %g %g\n", largest[0], largest[2 * odd_block - 1], mixed[0],
         mixed[2 * odd_block - 1], smallest[0], smallest[27]);

  const int side = 20;
  for (int i = 0; i < side * side; ++i) out[i] = -2;
  edge_transpose<<<dim3(3, 3), dim3(8, 4)>>>(ints, out, side);
  cudaDeviceSynchronize();
  for (int row = 0; row < side; ++row)
    for (int col = 0; col < side; ++col) {
      // Written by thread x = col % 8 of block x = row / 8, unless it returned.
      bool returned = row / 8 * 8 + col % 8 >= side;
      pass = pass && out[row * side + col] == (returned ? -2 : ints[col * side + row]);
    }
  printf("edge transpose: %d %d %d\n", out[1], out[side * side - 1], out[(side - 1) * side + 3]);

  split_declaration<<<2, 32>>>(ints, out);
  cudaDeviceSynchronize();
  for (int i = 0; i < 64; ++i) pass = pass && out[i] == ints[i / 32 * 32 + 31 - i % 32];
  printf("split declaration: %d %d\n", out[0], out[63]);

  int4* in4 = nullptr;
  int4* out4 = nullptr;
  cudaMallocManaged(&in4, 2 * threads * sizeof(int4));
  cudaMallocManaged(&out4, 2 * threads * sizeof(int4));
  for (int i = 0; i < 2 * threads; ++i) in4[i] = make_int4(ints[i], ints[i + 1], -ints[i + 2], ints[i + 3] % 7);
  merged_calls<<<2, threads>>>(in4, out4, 3);
  cudaDeviceSynchronize();
  for (int i = 0, carried = 0; i < 2 * threads; ++i) {
    int4 v = in4[i];
    v.w -= 1;
    v.x *= 2;
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    int before = i % threads == 0 ? 0 : carried;
    carried = v.w * 3;
    pass = pass && out4[i].x == v.x + before && out4[i].y == v.y + before && out4[i].z == v.z + before &&
           out4[i].w == v.w + before;
  }
  printf("merged calls: %d %d %d\n", out4[0].w, out4[threads].x, out4[2 * threads - 1].z);

  kept_in_register<<<2, threads>>>(ints, out);
  cudaDeviceSynchronize();
  for (int i = 0; i < 2 * threads; ++i)
    pass = pass && out[i] == 2 * (ints[i] + ints[i / threads * threads + (i % threads + 1) % threads]);
  printf("kept in register: %d %d\n", out[0], out[2 * threads - 1]);

  address_taken<<<2, threads>>>(ints, out);
  cudaDeviceSynchronize();
  for (int i = 0; i < 2 * threads; ++i)
    pass = pass && out[i] == ints[i] + ints[i / threads * threads + (i % threads + 1) % threads];
  printf("address taken: %d %d\n", out[0], out[2 * threads - 1]);

  pass = pass && cudaGetLastError() == cudaSuccess;
  printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
