// The suite's kernels in OpenCL C 1.2, the same algorithms as the CUDA
// spelling in weft_kernels.cpp: __local for __shared__,
// barrier(CLK_LOCAL_MEM_FENCE) for __syncthreads. PoCL 3.1's CPU device has
// no sub-groups (clinfo: "Max sub-groups per work group 0", no
// cl_khr_subgroup_shuffle), so the two shuffle kernels exchange values
// through local memory, the steps of a warp separated by barriers.
// The sizes come from the build options (-D), the same constants as the
// other implementations'.

__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}

__kernel void saxpy(float alpha, __global const float* x, __global const float* y, __global float* out, int n) {
  int i = get_global_id(0);
  if (i < n) out[i] = alpha * x[i] + y[i];
}

__kernel void stencil(__global const int* in, __global int* out) {
  __local int window[BLOCK_THREADS + 2 * STENCIL_RADIUS];
  int first = get_group_id(0) * get_local_size(0);
  int t = get_local_id(0);
  window[t] = in[first + t];
  if (t < 2 * STENCIL_RADIUS) window[get_local_size(0) + t] = in[first + get_local_size(0) + t];
  barrier(CLK_LOCAL_MEM_FENCE);
  int sum = 0;
  for (int k = 0; k <= 2 * STENCIL_RADIUS; ++k) sum += window[t + k];
  out[first + t] = sum;
}

__kernel void transpose(__global const float* in, __global float* out, int n) {
  __local float tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_group_id(0) * TRANSPOSE_TILE + tx;
  int y = get_group_id(1) * TRANSPOSE_TILE + ty;
  for (int r = 0; r < TRANSPOSE_TILE; r += TRANSPOSE_ROWS) tile[ty + r][tx] = in[(y + r) * n + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = get_group_id(1) * TRANSPOSE_TILE + tx;
  y = get_group_id(0) * TRANSPOSE_TILE + ty;
  for (int r = 0; r < TRANSPOSE_TILE; r += TRANSPOSE_ROWS) out[(y + r) * n + x] = tile[tx][ty + r];
}

__kernel void matmul(__global const float* a, __global const float* b, __global float* c, int n) {
  __local float as[MATMUL_TILE][MATMUL_TILE];
  __local float bs[MATMUL_TILE][MATMUL_TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int row = get_group_id(1) * MATMUL_TILE + ty, col = get_group_id(0) * MATMUL_TILE + tx;
  float sum = 0;
  for (int m = 0; m < n / MATMUL_TILE; ++m) {
    as[ty][tx] = a[row * n + m * MATMUL_TILE + tx];
    bs[ty][tx] = b[(m * MATMUL_TILE + ty) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = 0; e < MATMUL_TILE; ++e) sum += as[ty][e] * bs[e][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = sum;
}

__kernel void block_reduce(__global const float* in, __global float* block_sums) {
  __local float partial[BLOCK_THREADS];
  uint t = get_local_id(0);
  partial[t] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) block_sums[get_group_id(0)] = partial[0];
}

// What __shfl_down_sync's 5-step tree does in a warp, through local memory:
// each step adds the value `offset` lanes up, as the shuffle does.
void warp_sum_steps(__local float* values, int t, int lane) {
  for (int offset = 16; offset > 0; offset /= 2) {
    float up = lane + offset < 32 ? values[t + offset] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    values[t] += up;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// warp_reduce and group_reduce (for cg::reduce): the same two-level sum.
__kernel void warp_reduce(__global const float* in, __global float* block_sums) {
  __local float values[BLOCK_THREADS];
  __local float warp_sums[BLOCK_THREADS / 32];
  int t = get_local_id(0), lane = t % 32, warp = t / 32;
  values[t] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  warp_sum_steps(values, t, lane);
  if (lane == 0) warp_sums[warp] = values[t];
  barrier(CLK_LOCAL_MEM_FENCE);
  values[t] = lane < BLOCK_THREADS / 32 ? warp_sums[lane] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  warp_sum_steps(values, t, lane);
  if (t == 0) block_sums[get_group_id(0)] = values[0];
}

__kernel void scan_shared(__global const int* in, __global int* out) {
  __local int buffer[2][BLOCK_THREADS];
  int t = get_local_id(0), i = get_global_id(0);
  int current = 0;
  buffer[current][t] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int offset = 1; offset < BLOCK_THREADS; offset *= 2) {
    int value = buffer[current][t];
    if (t >= offset) value += buffer[current][t - offset];
    buffer[1 - current][t] = value;
    current = 1 - current;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[i] = buffer[current][t];
}

// What __shfl_up_sync's 5-step scan does in a warp, through local memory.
int warp_scan_steps(__local int* values, int t, int lane) {
  for (int offset = 1; offset < 32; offset *= 2) {
    int below = lane >= offset ? values[t - offset] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    values[t] += below;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return values[t];
}

__kernel void scan_shuffle(__global const int* in, __global int* out) {
  __local int values[BLOCK_THREADS];
  __local int warp_totals[BLOCK_THREADS / 32];
  int t = get_local_id(0), lane = t % 32, warp = t / 32, i = get_global_id(0);
  values[t] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  int value = warp_scan_steps(values, t, lane);
  if (lane == 31) warp_totals[warp] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  // Every warp scans the totals (a GPU's first warp alone would); all must
  // reach the same barriers.
  values[t] = lane < BLOCK_THREADS / 32 ? warp_totals[lane] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int total = warp_scan_steps(values, t, lane);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (warp == 0 && lane < BLOCK_THREADS / 32) warp_totals[lane] = total;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (warp > 0) value += warp_totals[warp - 1];
  out[i] = value;
}

__kernel void histogram(__global const uchar* in, __global uint* bins, int n) {
  __local uint local_bins[HISTOGRAM_BINS];
  int t = get_local_id(0);
  local_bins[t] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&local_bins[in[i]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_add(&bins[t], local_bins[t]);
}

__kernel void nbody(__global const float4* bodies, __global float4* acceleration, int n) {
  __local float4 tile[NBODY_TILE];
  int i = get_global_id(0), t = get_local_id(0);
  float4 me = bodies[i];
  float ax = 0, ay = 0, az = 0;
  for (int first = 0; first < n; first += NBODY_TILE) {
    tile[t] = bodies[first + t];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < NBODY_TILE; ++j) {
      float4 other = tile[j];
      float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
      float d2 = dx * dx + dy * dy + dz * dz + NBODY_SOFTENING;
      float inverse = 1.0f / sqrt(d2);
      float s = other.w * inverse * inverse * inverse;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  acceleration[i] = (float4)(ax, ay, az, 0.0f);
}
