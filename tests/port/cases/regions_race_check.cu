// --race-check (a race-check build's port): a region version reads a
// `__shared__` array of scalars through weft::detail::untraced_read where
// the region is its block's whole barrier interval, writes no element of
// the array, and the array's address never escapes. The first kernels are
// rewritten; each later one keeps its reads traced, for the reason its
// comment gives. Without --race-check the port is what it always was (the
// other cases check that). Checked by port.case.regions (check_port.cmake).
#define TILE 16
constexpr int block_threads = 128;
constexpr int radius = 3;

struct pair_of {
  float first, second;
};

__shared__ float file_scope[block_threads];

// Rewritten: the region between the two barriers reads both tiles.
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

// Rewritten: the last region, from the barrier to the body's end, reads the window.
__global__ void stencil(const int* in, int* out) {
  __shared__ int window[block_threads + 2 * radius];
  int t = threadIdx.x, first = blockIdx.x * blockDim.x;
  window[t] = in[first + t];
  if (t < 2 * radius) window[blockDim.x + t] = in[first + blockDim.x + t];
  __syncthreads();
  int sum = 0;
  for (int k = 0; k <= 2 * radius; ++k) sum += window[t + k];
  out[first + t] = sum;
}

// Traced: the second barrier is missing, so the reads of the tiles share
// their interval with the next pass's writes (a race the check reports).
__global__ void matmul_without_second_barrier(const float* a, const float* b, float* c, int n) {
  __shared__ float as[TILE][TILE], bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0;
  for (int m = 0; m < n / TILE; ++m) {
    as[ty][tx] = a[row * n + m * TILE + tx];
    bs[ty][tx] = b[(m * TILE + ty) * n + col];
    __syncthreads();
    for (int e = 0; e < TILE; ++e) sum += as[ty][e] * bs[e][tx];
  }
  c[row * n + col] = sum;
}

// Traced: the first barrier is missing, so one region writes and reads the tiles.
__global__ void matmul_without_first_barrier(const float* a, const float* b, float* c, int n) {
  __shared__ float as[TILE][TILE], bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0;
  for (int m = 0; m < n / TILE; ++m) {
    as[ty][tx] = a[row * n + m * TILE + tx];
    bs[ty][tx] = b[(m * TILE + ty) * n + col];
    for (int e = 0; e < TILE; ++e) sum += as[ty][e] * bs[e][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

// Traced: each region between barriers that reads `partial` or `seen`
// writes it too (`+=`, `++`, through parentheses); the one after the loop
// has no barrier statement of its own right before it (the rule does not
// look into the loop). Rewritten: the last region, which only reads `seen`.
__global__ void reduction(const float* in, float* sums, int* counts) {
  __shared__ float partial[block_threads];
  __shared__ int seen[block_threads];
  unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  seen[t] = 0;
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    __syncthreads();
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
  __syncthreads();
  ++seen[t];
  __syncthreads();
  (seen[(t + 1) % block_threads]) = seen[t] + 1;
  __syncthreads();
  counts[blockIdx.x * blockDim.x + t] = seen[t];
}

// Traced: `&values[0]` (an atomic's operand) gives a pointer into the
// array, `int* whole = tiles` one to it, a reference `int& mine` and a call
// `take(values[t])` could write through what they are given.
__device__ void take(int& value) { value = 0; }
__global__ void escapes(int* out) {
  __shared__ int values[block_threads], tiles[block_threads], cells[block_threads], passed[block_threads];
  int t = threadIdx.x;
  values[t] = t;
  tiles[t] = t;
  cells[t] = t;
  passed[t] = t;
  __syncthreads();
  atomicAdd(&values[0], 1);
  int* whole = tiles;
  int& mine = cells[t];
  take(passed[t]);
  out[t] = values[(t + 1) % block_threads] + whole[t] + mine + tiles[t] + passed[t];
}

// Traced: dynamic shared memory (every extern array aliases it), an array
// of structs (copied whole: several loads, or a struct's copy), an array of the file's scope
// (a __device__ function could write it), and an array that a macro names
// (CLEAR writes it in the region that reads it: a race the check reports).
#define CLEAR(i) macro_cells[i] = 0
__global__ void not_candidates(float* out) {
  extern __shared__ float dynamic[];
  __shared__ pair_of pairs[block_threads];
  __shared__ float macro_cells[block_threads];
  int t = threadIdx.x;
  dynamic[t] = t;
  pairs[t] = pair_of{0.5f * t, 2.0f * t};
  file_scope[t] = t;
  macro_cells[t] = t;
  __syncthreads();
  pair_of copied = pairs[(t + 2) % block_threads];
  CLEAR(t);
  out[t] = dynamic[(t + 1) % block_threads] + copied.first + copied.second +
           file_scope[(t + 1) % block_threads] + macro_cells[(t + 1) % block_threads];
}

void host(float* f, int* p) {
  tiled_matmul<<<dim3(2, 2), dim3(TILE, TILE)>>>(f, f, f, 2 * TILE);
  stencil<<<2, block_threads>>>(p, p);
  matmul_without_second_barrier<<<dim3(2, 2), dim3(TILE, TILE)>>>(f, f, f, 2 * TILE);
  matmul_without_first_barrier<<<dim3(2, 2), dim3(TILE, TILE)>>>(f, f, f, 2 * TILE);
  reduction<<<2, block_threads>>>(f, f, p);
  escapes<<<2, block_threads>>>(p);
  not_candidates<<<2, block_threads, block_threads * sizeof(float)>>>(f);
}
