// Stackless kernels that keep their stackless version only, without a region
// version: each breaks one rule of the transformation (regions.cu has those
// that keep them), and --explain says which (regions_refused.expected-stderr).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__device__ int counter;

// The loop's bound differs by thread: threads reach different barriers.
__global__ void thread_bound(int* data) {
  for (int i = 0; i < (int)threadIdx.x; ++i) {
    data[i] += 1;
    __syncthreads();
  }
}

// A barrier under a condition on the thread.
__global__ void barrier_in_if(int* data) {
  if (threadIdx.x < 16) {
    data[threadIdx.x] = 1;
    __syncthreads();
  }
}

// A local of deduced type lives across the barrier.
__global__ void auto_local(const int* in, int* out) {
  auto v = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = v;
}

// `break` leaves the barrier loop.
__global__ void break_out(int* data, int n) {
  for (int i = 0; i < n; ++i) {
    if (data[i] < 0) break;
    __syncthreads();
  }
}

// The loop's body changes its variable.
__global__ void variable_changed(int* data, int n) {
  for (int i = 0; i < n; ++i) {
    data[threadIdx.x] += i;
    __syncthreads();
    i += data[0] > 100;
  }
}

// The bound reads memory.
__global__ void bound_from_memory(int* data, const int* bound) {
  for (int i = 0; i < *bound; ++i) {
    data[threadIdx.x] += i;
    __syncthreads();
  }
}

// A barrier in a `while`.
__global__ void barrier_in_while(int* data) {
  int i = 0;
  while (i < 4) {
    data[threadIdx.x] += i++;
    __syncthreads();
  }
}

// A local of a struct type lives across the barrier.
struct pair_of {
  int a, b;
};
__global__ void struct_local(const int* in, int* out) {
  pair_of p{in[threadIdx.x], 1};
  __syncthreads();
  out[threadIdx.x] = p.a + p.b;
}

// The bound names a global variable that the kernel changes.
__global__ void changed_global(int* data) {
  for (int i = 0; i < counter; ++i) {
    if (threadIdx.x == 0) counter = 0;
    __syncthreads();
  }
  data[0] = 1;
}

// Other waits than a block barrier statement.
__global__ void counting_barrier(int* data) {
  data[0] = __syncthreads_count(data[threadIdx.x] > 0);
}

// A local type alias, which a later region would not see.
__global__ void local_alias(float* data) {
  using real = float;
  real x = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = x;
}

// A declaration weft-port cannot read.
__global__ void decltype_local(int* data) {
  decltype(data[0] + 1) v = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = v;
}

// A __shared__ array declared inside a statement.
__global__ void nested_shared(int* data) {
  if (blockDim.x == 32) {
    __shared__ int tile[32];
    tile[threadIdx.x] = data[threadIdx.x];
    data[threadIdx.x] = tile[31 - threadIdx.x];
  }
  __syncthreads();
}

// A tile's barrier: not the block's.
__global__ void tile_barrier(int* data) {
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cta);
  data[threadIdx.x] += 1;
  warp.sync();
  data[threadIdx.x] += 1;
}

// A group that may be a tile: thread_group names any group.
__global__ void group_barrier(int* data) {
  cg::thread_group g = cg::this_thread_block();
  data[threadIdx.x] += 1;
  cg::sync(g);
  data[threadIdx.x] += 1;
}

// The block's barrier inside an expression, not a statement of its own.
__global__ void barrier_in_expression(int* data) {
  cg::thread_block cta = cg::this_thread_block();
  data[threadIdx.x] += 1;
  (void)(cta.sync(), 0);
  data[threadIdx.x] += 1;
}

// Another directive in the body.
__global__ void directive_in_body(int* data) {
  data[threadIdx.x] += 1;
#if TILE_WIDTH
  data[threadIdx.x] += 2;
#endif
  __syncthreads();
  data[threadIdx.x] += 1;
}

// Cooperative groups used for more than the block and its barrier.
__global__ void tile_rank(int* data) {
  cg::thread_block cta = cg::this_thread_block();
  data[threadIdx.x] = cg::tiled_partition<32>(cta).thread_rank();
  cg::sync(cta);
  data[threadIdx.x] += 1;
}

// A changed parameter is each thread's own, but not where a barrier loop's
// bound reads it.
__global__ void changed_parameter_bound(int* data, int n) {
  n -= 1;
  for (int i = 0; i < n; ++i) {
    data[threadIdx.x] += i;
    __syncthreads();
  }
}

// A changed parameter of a type weft-port does not move.
struct counter_of {
  int value;
};
__global__ void changed_struct_parameter(int* data, counter_of c) {
  c.value += 1;
  __syncthreads();
  data[threadIdx.x] = c.value;
}

// A template parameter pack, which weft-port does not spell.
template <int... offsets>
__global__ void offsets_pack(int* data) {
  data[threadIdx.x] += (offsets + ...);
  __syncthreads();
  data[threadIdx.x] += 1;
}

// A parameter passed to a function of the file that takes a reference.
__device__ void bump(int& v) { v += 1; }
__global__ void parameter_by_reference(int* data, int n) {
  bump(n);
  __syncthreads();
  data[threadIdx.x] = n;
}

// A local that a barrier loop's head reads, changed after its declaration.
__global__ void changed_bound(int* data) {
  int first = blockIdx.x;
  first += 1;
  for (int i = first; i < 8; ++i) {
    data[threadIdx.x] += i;
    __syncthreads();
  }
}

// Calls of __device__ functions that wait, not inlined: a return before
// the callee's barrier (its thread would miss it); a call inside an
// expression; a callee that takes a reference; a callee that names what the
// kernel declares too (inlined, the kernel's would hide it); a callee with
// __shared__ memory called twice (inlined twice, it would be two arrays).
__device__ int returns_early(int* stage, int t) {
  if (t == 0) return 0;
  __syncthreads();
  return stage[t];
}
__global__ void return_before_barrier(int* data) {
  int v = returns_early(data, threadIdx.x);
  data[threadIdx.x] = v;
}
__global__ void call_in_expression(int* data) { data[threadIdx.x] = returns_early(data, threadIdx.x) + 1; }
__device__ void add_after_barrier(int& total, int v) {
  __syncthreads();
  total += v;
}
__global__ void reference_parameter(int* data) {
  int total = 0;
  add_after_barrier(total, data[threadIdx.x]);
  data[threadIdx.x] = total;
}
__device__ int scale = 3;
__device__ int scaled_after_barrier(int v) {
  __syncthreads();
  return v * scale;
}
__global__ void hidden_name(int* data, int scale) {
  int v = scaled_after_barrier(data[threadIdx.x]);
  data[threadIdx.x] = v + scale;
}
__device__ void shared_swap(int* data) {
  __shared__ int copy[32];
  copy[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = copy[31 - threadIdx.x];
}
__global__ void shared_twice(int* data) {
  shared_swap(data);
  shared_swap(data);
}
__global__ void shuffle_partial_mask(int* data) {
  int v = data[threadIdx.x];
  v += __shfl_down_sync(0x0000ffff, v, 1);
  data[threadIdx.x] = v;
}
__global__ void shuffle_active_mask(int* data) {
  int v = data[threadIdx.x];
  v += __shfl_down_sync(__activemask(), v, 1);
  data[threadIdx.x] = v;
}
__global__ void shuffle_variable_width(int* data) {
  int v = data[threadIdx.x], width = blockDim.x / 4;
  v += __shfl_xor_sync(0xffffffff, v, 1, width);
  data[threadIdx.x] = v;
}
__global__ void shuffle_in_expression(int* data) {
  data[threadIdx.x] = 2 * __shfl_sync(0xffffffff, data[threadIdx.x], 0);
}
__global__ void shuffle_after_return(int* data, int n) {
  if (threadIdx.x >= n) return;
  int v = __shfl_sync(0xffffffff, data[threadIdx.x], 0);
  data[threadIdx.x] = v;
}
__global__ void shuffle_in_warp_branch(int* data) {
  int v = data[threadIdx.x];
  if (threadIdx.x < 32) v = __shfl_down_sync(0xffffffff, v, 1);
  data[threadIdx.x] = v;
}
__device__ int shuffled_total(int v) {
  if (v == 0) return 0;
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(0xffffffff, v, offset);
  }
  return v;
}
__global__ void shuffle_in_callee(int* data) {
  int total = shuffled_total(data[threadIdx.x]);
  data[threadIdx.x] = total;
}
constexpr unsigned low_lanes = 0x0000ffff;
constexpr unsigned short narrow_mask = 0xffffffff;
#define MACRO_MASK 0xffffffff
__global__ void shuffle_masks(int* data) {
  int v = data[threadIdx.x];
  v += __shfl_down_sync(low_lanes, v, 1);
  data[threadIdx.x] = v;
}
__global__ void shuffle_narrow_mask(int* data) {
  int v = data[threadIdx.x];
  v += __shfl_down_sync(narrow_mask, v, 1);
  data[threadIdx.x] = v;
}
__global__ void shuffle_macro_mask(int* data) {
  int v = data[threadIdx.x];
  v += __shfl_down_sync(MACRO_MASK, v, 1);
  data[threadIdx.x] = v;
}
__global__ void shuffle_variable_mask(int* data) {
  unsigned mask = 0xffffffff;
  int v = data[threadIdx.x];
  if (v < 0) mask = 1;
  v += __shfl_down_sync(mask, v, 1);
  data[threadIdx.x] = v;
}
__global__ void shuffle_under_lane_if(int* data) {
  int lane = threadIdx.x % 32, v = data[threadIdx.x];
  if (lane < 16) {
    v += __shfl_down_sync(0xffffffff, v, 1);
  }
  data[threadIdx.x] = v;
}
__global__ void shuffle_under_scaled_warp(int* data, int k) {
  int v = data[threadIdx.x];
  if (k * threadIdx.x / 32 == 1) {
    v += __shfl_down_sync(0xffffffff, v, 1);
  }
  data[threadIdx.x] = v;
}
__global__ void shuffle_under_wider_shift(int* data) {
  int v = data[threadIdx.x];
  if ((threadIdx.x >> 5 - 1) == 1) {
    v += __shfl_down_sync(0xffffffff, v, 1);
  }
  data[threadIdx.x] = v;
}
__global__ void shuffle_under_changed_warp(int* data) {
  int warp = threadIdx.x / 32, v = data[threadIdx.x];
  if (v < 0) warp = 0;
  if (warp == 0) {
    v += __shfl_down_sync(0xffffffff, v, 1);
  }
  data[threadIdx.x] = v;
}
__global__ void shuffle_under_if_else(int* data) {
  int v = data[threadIdx.x];
  if (threadIdx.x / 32 == 0) {
    v += __shfl_down_sync(0xffffffff, v, 1);
  } else {
    v = 0;
  }
  data[threadIdx.x] = v;
}
__device__ int synced_total(int v) {
  __syncthreads();
  v += __shfl_down_sync(0xffffffff, v, 1);
  return v;
}
__global__ void barrier_under_warp_if(int* data) {
  int v = data[threadIdx.x];
  if (threadIdx.x / 32 == 0) {
    v = synced_total(v);
  }
  data[threadIdx.x] = v;
}
__global__ void nested_loops_of_one_name(int* data) {
  for (int s = 1; s < 4; s *= 2) {
    for (int s = 1; s < 4; s *= 2) {
      data[threadIdx.x] += s;
      __syncthreads();
    }
  }
}
__global__ void crossing_and_own(int* data) {
  for (int s = 1; s < 4; s *= 2) {
    int at = threadIdx.x;
    __syncthreads();
    data[at] += s;
  }
  for (int s = 1; s < 4; s *= 2) {
    int at = threadIdx.x ^ 1;
    data[at] -= s;
    __syncthreads();
  }
}
__global__ void shuffle_under_summed_shift(int* data, int k) {
  int v = data[threadIdx.x];
  if ((k + threadIdx.x >> 5) == 1) {
    v += __shfl_down_sync(0xffffffff, v, 1);
  }
  data[threadIdx.x] = v;
}
__global__ void shuffle_under_negated_warp(int* data, int k) {
  int v = data[threadIdx.x];
  if (k == -threadIdx.x / 32) {
    v += __shfl_down_sync(0xffffffff, v, 1);
  }
  data[threadIdx.x] = v;
}

// A tile's reductions and ranks where the region version cannot follow
// them: the tile passed to a function, another functor, a reduction
// inside an expression, under an `if` of the tile's rank (which differs
// within a warp) or of a smaller tile's number, a tile of a tile, a tile's
// own shuffle.
__device__ float tile_total(cg::thread_block_tile<32> t, float v) { return cg::reduce(t, v, cg::plus<float>()); }
__global__ void tile_passed(float* data) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  data[threadIdx.x] = tile_total(tile, data[threadIdx.x]);
}
struct counted_sum {
  __device__ float operator()(float a, float b) const { return a + b; }
};
__global__ void reduce_by_functor(float* data) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = cg::reduce(tile, data[threadIdx.x], counted_sum());
  data[threadIdx.x] = v;
}
__global__ void reduce_in_expression(float* data) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = 1.0f + cg::reduce(tile, data[threadIdx.x], cg::plus<float>());
  data[threadIdx.x] = v;
}
__global__ void reduce_under_rank(float* data) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = data[threadIdx.x];
  if (tile.thread_rank() < 16) {
    v = cg::reduce(tile, v, cg::plus<float>());
  }
  data[threadIdx.x] = v;
}
__global__ void reduce_under_small_tile(float* data) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> eighth = cg::tiled_partition<8>(block);
  float v = data[threadIdx.x];
  if (eighth.meta_group_rank() == 0) {
    v = cg::reduce(tile, v, cg::plus<float>());
  }
  data[threadIdx.x] = v;
}
__global__ void tile_of_tile(float* data) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> eighth = cg::tiled_partition<8>(tile);
  data[threadIdx.x] = cg::reduce(eighth, data[threadIdx.x], cg::plus<float>());
  block.sync();
}
__global__ void tile_shuffle(float* data) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = tile.shfl_down(data[threadIdx.x], 1);
  data[threadIdx.x] = v;
}
// A pointer declarator after the comma cannot become an assignment: no
// region version.
__global__ void pointer_declarator(float* in, float* out) {
  __shared__ float tile[16];
  float first = in[threadIdx.x], *at = out + threadIdx.x;
  tile[threadIdx.x] = first;
  __syncthreads();
  *at = tile[15 - threadIdx.x];
}
