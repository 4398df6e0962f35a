// Stackless kernels that also get a region version (weft/region_kernel.hpp):
// each barrier a `__syncthreads();` statement at the top of the body or of
// a `for` whose bounds every thread of the block shares. The case runs with
// --explain (regions.expected-stderr); regions_refused.cu has the shapes
// that keep the stackless version only. Cooperative groups' block barriers
// (`cg::sync(block);`, `block.sync();`) count as `__syncthreads();`.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
#define TILE 16
constexpr int block_threads = 128;

// A halving tree: `t` lives across the barriers, the loop's bounds are blockDim's.
__global__ void block_sum(const float* in, float* sums) {
  __shared__ float partial[block_threads];
  unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}

// The same into one total: `*total = ...` writes where the parameter
// points, which leaves the parameter as it was.
__global__ void grid_total(const float* in, float* total) {
  __shared__ float partial[block_threads];
  partial[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float sum = 0;
    for (int i = 0; i < block_threads; ++i) sum += partial[i];
    *total = sum;
  }
}

// Tiled matmul: a loop bound from a parameter the kernel never changes and
// a macro; several declarators in one declaration; a local that every
// region but its own uses.
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

// An early return before the barrier ends the thread (its later regions
// skip it); a const local, a pointer local and a local declared without a
// value move to the per-thread struct; a local used in one region stays there.
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
  out[blockIdx.x * blockDim.x + t] = next + kept + (source == in);
}

// A barrier first, two in a row, and a loop over the grid that a step of
// gridDim keeps the same for every thread.
__global__ void grid_rounds(int* counts, int rounds) {
  __syncthreads();
  __syncthreads();
  for (int r = 0; r < rounds * (int)gridDim.x; r += gridDim.x) {
    atomicAdd(&counts[threadIdx.x], 1);
    __syncthreads();
  }
}

// The block's barrier through cooperative groups: its group declared from
// this_thread_block() stays outside the regions (every thread's is the
// same block), `cg::sync(cta);` and `cta.sync();` are barriers, a `uint`
// (glibc's unsigned int) lives across them, `#pragma unroll` stays before
// its loop in a region and before a barrier loop.
__global__ void group_barriers(const int* in, int* out) {
  cg::thread_block cta = cg::this_thread_block();
  __shared__ int tile[block_threads];
  uint t = cta.thread_rank();
  tile[t] = in[t];
  cg::sync(cta);
#pragma unroll
  for (int i = 0; i < 4; ++i) tile[t] += i;
  cta.sync();
#pragma unroll
  for (uint stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) tile[t] += tile[t + stride];
    cg::sync(cta);
  }
  if (t == 0) out[blockIdx.x] = tile[0];
}

// A kernel whose name is used as a value keeps a void kernel that forwards
// to its stackless body; the region version is registered under the void
// kernel's address, which launches by address look up.
__global__ void by_address(int* data) {
  __shared__ int copy[32];
  copy[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = copy[31 - threadIdx.x];
}
void* by_address_pointer = (void*)by_address;

// Parameters the kernel changes are each thread's own: per-thread locals
// set from the parameter (renamed) as the first region starts.
__global__ void advanced_pointers(const float* in, float* out, int shift) {
  __shared__ float tile[block_threads];
  in += blockIdx.x * blockDim.x;
  out += blockIdx.x * blockDim.x;
  shift %= block_threads;
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + shift) % blockDim.x];
}

// A value parameter changed by thread: each thread's own.
__global__ void parameter_by_thread(int* data, int n) {
  n += threadIdx.x;
  __syncthreads();
  data[threadIdx.x] = n;
}

// A kernel template: its region version is a template of the same
// parameters (defaults dropped), registered for each instance the program
// makes, which the stackless body names; a local whose type is a type
// parameter moves, and the instance registers only where it is trivial.
template <class T, unsigned int block_size = block_threads>
__global__ void template_sum(const T* in, T* out) {
  __shared__ T partial[block_size];
  T mine = in[blockIdx.x * block_size + threadIdx.x];
  partial[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned stride = block_size / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] = mine = mine + partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = mine;
}

// Locals declared from values every thread shares and read by a barrier
// loop's head run once for the block, outside the regions; a loop of two
// variables; an inner loop's bound from the outer loop's variable; a block
// of its own with a barrier; a parameter passed to CUDA's `min` and to a
// function of the file that takes a value.
__device__ int clamped(int v, int limit) { return v < limit ? v : limit; }
__global__ void shared_bounds(const float* a, float* c, int width) {
  __shared__ float tile[TILE];
  int first = blockIdx.x * width;
  int last = first + width - 1;
  float sum = 0;
  for (int i = first, j = 0; i <= last; i += TILE, ++j) {
    tile[threadIdx.x] = a[i + threadIdx.x] + j;
    __syncthreads();
    for (int stride = TILE / 2; stride >= 1 && stride <= i - first + TILE; stride /= 2) {
      if ((int)threadIdx.x < stride) tile[threadIdx.x] += tile[threadIdx.x + stride];
      __syncthreads();
    }
    sum += tile[0];
    __syncthreads();
  }
  {
    float mine = sum;
    __syncthreads();
    c[blockIdx.x * TILE + threadIdx.x] = mine + min(width, 4) + clamped(width, 8);
  }
}

// Calls of __device__ functions that wait, inlined: each callee's body in
// a block of its own at its own lines, after a region that binds its
// parameters (those every thread shares, read by its barrier loops' heads,
// in the block itself). A scan whose barriers sit in a loop, its result
// returned through a second function into a local.
__device__ int inclusive_scan(int value, volatile int* buffer, int size, cg::thread_block cta) {
  int pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
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
  __shared__ int buffer[2 * block_threads];
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  int scanned = exclusive_scan(in[pos], buffer, size, cta);
  out[pos] = scanned;
}

// A callee that returns early after its last barrier (the next region
// skips the thread that returned), assigned to a local; a thread that
// exits in the kernel before the call; a void callee called as a statement.
__device__ int neighbour_sum(int* stage, int t, int value) {
  {
    stage[t] = value;
    __syncthreads();
    if (t == 0) return stage[0];
  }
  return stage[t] + stage[t - 1];
}
__device__ void store_twice(int* out, int at, int value) {
  __syncthreads();
  out[at] = 2 * value;
}
__global__ void inlined_early_returns(const int* in, int* out, int active) {
  __shared__ int stage[block_threads];
  int t = threadIdx.x;
  if (t >= active) return;
  int sum;
  sum = neighbour_sum(stage, t, in[t]);
  store_twice(out, t, sum);
}

// A template callee with explicit arguments (its parameters declared in
// its block, its types' members spelled with the arguments), a macro that
// names its __shared__ array, a pointer parameter that is `const` itself.
#define CELL(i) cells[i]
template <int width, typename index>
__device__ void tile_copy(float* const out, const float* in, index n) {
  __shared__ float cells[width];
  for (index i = 0; i < n; i += width) {
    index mine = i + threadIdx.x;
    CELL(threadIdx.x) = in[mine];
    __syncthreads();
    out[mine] = CELL(width - 1 - threadIdx.x);
    __syncthreads();
  }
}
__global__ void inlined_template(float* out, const float* in, unsigned long n) {
  tile_copy<TILE, unsigned long>(out, in, n);
}

// Warp shuffles as statements where a barrier could stand: each a split.
__global__ void shuffle_statements(const float* in, double* out) {
  float v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffff, v, offset);
  }
  __syncthreads();
  double spread = __shfl_xor_sync(0xFFFFFFFFu, (double)v, 1, 8);
  out[threadIdx.x] = spread;
}

// A callee's shuffles, in a loop without braces, inlined and split.
__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);
  return v;
}
__global__ void inlined_shuffles(const float* in, float* out) {
  float total = warp_sum(in[threadIdx.x]);
  out[threadIdx.x] = total;
}

// Masks named by constants of the full mask (the file's, the kernel's
// own), and shuffles under warps' `if`s: a region sets each thread's flag
// from the condition, the regions inside run the threads whose flag is
// set; the registration asks for warps that lie in rows of the block.
constexpr unsigned full_mask = 0xffffffffu;
__global__ void warp_if(const float* in, float* out) {
  const unsigned int all_lanes = 0xFFFFFFFF;
  int lane = threadIdx.x % 32, warp = threadIdx.x / warpSize;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  __shared__ float sums[32];
  v += __shfl_xor_sync(full_mask, v, 1);
  if (lane == 0) sums[warp] = v;
  __syncthreads();
  if (warp == 0 && blockIdx.x > 0) {
    float mine = sums[lane];
    for (int offset = 16; offset > 0; offset /= 2) {
      mine += __shfl_down_sync(all_lanes, mine, offset);
    }
    if ((threadIdx.x >> 5) == 0) {
      mine = __shfl_sync(full_mask, mine, 0);
    }
    out[blockIdx.x] = mine;
  }
}

// A kernel's own mask variable, never changed after its declaration.
__global__ void unchanged_mask(int* data) {
  unsigned int mask = 0xffffffff;
  int v = data[threadIdx.x];
  v += __shfl_xor_sync(mask, v, 16);
  data[threadIdx.x] = v;
}

// Two barrier loops of one name, one after the other, each region
// declaring its own `at` (neither lives across a barrier).
__global__ void loops_of_one_name(int* data) {
  for (int s = 1; s < 64; s *= 2) {
    int at = threadIdx.x;
    data[at] += s;
    __syncthreads();
  }
  for (int s = 1; s < 64; s *= 2) {
    int at = threadIdx.x ^ 1;
    data[at] -= s;
    __syncthreads();
  }
}

// Locals across the barrier: `t` declared again in the second region,
// `base` once before the regions, `doubled` (changed) each thread's own,
// `share` (a division, after the threads' return) declared again.
constexpr int staged_size = 64;
__global__ void recomputed_locals(const int* in, int* out, int divisor) {
  __shared__ int staged[staged_size];
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  int base = blockIdx.x * staged_size;
  int doubled = t + 1;
  if (divisor == 0) return;
  int share = base / divisor;
  staged[t] = in[base + t];
  doubled *= 2;
  __syncthreads();
  out[base + t] = staged[staged_size - 1 - t] + doubled + share;
}

// cg::reduce over the block's tiles, split as a shuffle is: a whole warp's
// (`auto`, and under its warp's `if` by meta_group_rank), a half warp's;
// the tiles' ranks and sizes spelled from each thread's linear id and
// blockDim.
__global__ void tile_reductions(const float* in, float* sums, unsigned* flags) {
  __shared__ float tile_sums[block_threads / 32];
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
  float v = cg::reduce(tile, in[block.thread_rank()], cg::plus<float>());
  unsigned bits = cg::reduce(half, flags[threadIdx.x] << half.thread_rank(), cg::bit_or<unsigned>());
  if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = v;
  cg::sync(block);
  if (tile.meta_group_rank() == 0) {
    v = tile.thread_rank() < tile.meta_group_size() ? tile_sums[tile.thread_rank()] : 0.0f;
    v = cg::reduce(tile, v, cg::greater<float>());
    if (tile.thread_rank() == 0) sums[blockIdx.x] = v;
  }
  flags[threadIdx.x] = bits + half.size() + tile.num_threads();
}

// Locals that a later region assigns afresh before reading them (the
// transpose's `x` and `y` after its barrier): each region declares its own,
// as `x` in the second, with no per-thread copy. `carried` is read before
// it is assigned again, `step` from itself: each thread's own. `col`
// and `tile_col`, the second from the first in one statement, are declared
// again where the last region reads them. The regions that read the
// thread index as unsigned (threadIdx.x itself) count the threads in
// unsigned, the one whose index is `int lane` in int.
constexpr int flip_tile = 16;
__global__ void reassigned_locals(const float* in, float* out, int n) {
  __shared__ float tile[flip_tile][flip_tile + 1];
  int x = blockIdx.x * flip_tile + threadIdx.x;
  int y = blockIdx.y * flip_tile + threadIdx.y;
  float carried = in[y * n + x];
  int step = threadIdx.y;
  int col = threadIdx.x, tile_col = blockIdx.x * flip_tile + col;
  tile[threadIdx.y][threadIdx.x] = carried;
  __syncthreads();
  x = blockIdx.y * flip_tile + threadIdx.x;
  y = blockIdx.x * flip_tile + threadIdx.y;
  step = (step + 1) * 2;
  out[y * n + x] = tile[threadIdx.x][threadIdx.y] + carried + step;
  carried = 0;
  __syncthreads();
  int lane = threadIdx.x;
  if (lane == col) out[y] += carried + tile_col;
}

// Of one statement's names, only tile_col is read after the barrier: col
// stays in its region, tile_col becomes a per-thread copy.
__global__ void split_declaration(const float* in, float* out) {
  __shared__ float tile[16];
  int col = threadIdx.x, tile_col = blockIdx.x * 16 + col;
  tile[col] = in[tile_col];
  __syncthreads();
  out[tile_col] = tile[15 - threadIdx.x];
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
  __shared__ int stage[block_threads];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int4 v = in[i];
  v.w -= 1;
  int4 r = scaled_prefix(v, stage, scale);
  out[i] = r;
}

// A local copied into a register for each region that uses it, written
// back where a region changes it and read after the next barrier.
__global__ void kept_in_register(const int* in, int* out) {
  __shared__ int tile[block_threads];
  int t = threadIdx.x;
  int acc = in[blockIdx.x * blockDim.x + t];
  tile[t] = acc;
  __syncthreads();
  acc += tile[(t + 1) % block_threads];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = acc * 2;
}

// A local whose address is taken stays a reference to its member: the
// pointer, kept across a barrier, must reach the same `v` in every region.
__global__ void address_taken(const int* in, int* out) {
  __shared__ int tile[block_threads];
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  int* p = &v;
  tile[t] = v;
  __syncthreads();
  *p += tile[(t + 1) % block_threads];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = v;
}

void host(float* f, int* p) {
  block_sum<<<4, block_threads>>>(f, f);
  tiled_matmul<<<dim3(2, 2), dim3(TILE, TILE)>>>(f, f, f, 2 * TILE);
  rotate_active<<<2, 64, 64 * sizeof(int)>>>(p, p, 50);
  grid_rounds<<<3, 32>>>(p, 2);
  group_barriers<<<2, block_threads>>>(p, p);
  advanced_pointers<<<2, block_threads>>>(f, f, 3);
  template_sum<float, 64><<<2, 64>>>(f, f);
  shared_bounds<<<2, TILE>>>(f, f, 2 * TILE);
}
