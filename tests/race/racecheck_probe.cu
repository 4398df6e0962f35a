// Shared-memory kernels with and without races, each run once, to compare
// weft's race check (WEFT_SANITIZE=race) with compute-sanitizer's racecheck
// on a GPU (docs/debugging.md, "Against compute-sanitizer"). An ordinary
// CUDA program: nvcc builds it as it is, weft through
// weft_add_cuda_executable. `racecheck_probe NAME` runs one case; without
// an argument it runs them all. It prints each case's name and, for the
// cases without a race, a result that does not depend on timing.
#include <cuda_runtime.h>

#include <cuda/barrier>

#include <cstdio>
#include <cstring>

constexpr int TILE = 16;

// The CUDA guide's shared-memory matrix multiplication; without the second
// __syncthreads the next tile overwrites As and Bs while others read them.
__global__ void tiled_matmul(const float* A, const float* B, float* C, int n, bool barrier_after_use) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < n / TILE; ++t) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t * TILE + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    if (barrier_after_use) __syncthreads();
  }
  C[row * n + col] = sum;
}

// The tree reduction; without the loop's barrier a step reads partial sums
// that the step before is still writing.
__global__ void tree_sum(const int* in, int* out, bool barrier_in_loop) {
  __shared__ int partial[256];
  unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    if (barrier_in_loop) __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// Lanes of one warp read a neighbour's slot, with or without __syncwarp.
__global__ void warp_neighbours(int* out, bool syncwarp) {
  __shared__ int slot[32];
  slot[threadIdx.x] = threadIdx.x;
  if (syncwarp) __syncwarp();
  out[threadIdx.x] = slot[(threadIdx.x + 1) % 32];
}

// Each thread reads the word a thread of the other warp wrote into dynamic
// shared memory, with or without a barrier between.
__global__ void dynamic_neighbour(int* out, bool barrier) {
  extern __shared__ int buffer[];
  buffer[threadIdx.x] = threadIdx.x;
  if (barrier) __syncthreads();
  out[threadIdx.x] = buffer[(threadIdx.x + 32) % blockDim.x];
}

// A warp's sum by shuffles alone; each thread's shared slot is its own.
__global__ void shuffle_sum(int* out) {
  __shared__ int own[32];
  own[threadIdx.x] = threadIdx.x + 1;
  int v = own[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x == 0) out[0] = v;
}

// Warp 0 writes a row and arrives at named barrier 1; warp 1 waits there,
// reads it and arrives at barrier 2, where warp 0 waits before the next
// round.
__device__ void named_sync(int id) { asm volatile("bar.sync %0, 64;" ::"r"(id) : "memory"); }
__device__ void named_arrive(int id) { asm volatile("bar.arrive %0, 64;" ::"r"(id) : "memory"); }
__global__ void named_handover(int* out) {
  __shared__ int row[32];
  int lane = threadIdx.x % 32;
  for (int round = 0; round < 4; ++round) {
    if (threadIdx.x < 32) {
      if (round > 0) named_sync(2);
      row[lane] = round + lane;
      named_arrive(1);
    } else {
      named_sync(1);
      out[round * 32 + lane] = row[lane];
      named_arrive(2);
    }
  }
}

// Warps 0 and 1 meet at named barrier 1; warp 2 does not, so its read of
// what warp 0 wrote is ordered by nothing.
__global__ void named_bystander(int* out) {
  __shared__ int row[32];
  int lane = threadIdx.x % 32;
  if (threadIdx.x < 32) row[lane] = lane + 1;
  if (threadIdx.x < 64) asm volatile("bar.sync 1, 64;");
  if (threadIdx.x >= 32) out[threadIdx.x] = row[lane];
}

// A cuda::barrier in shared memory orders the writes before arrive_and_wait
// with the reads after it; a read of another thread's word before the wait
// races with that thread's write.
__global__ void shared_barrier(int* out, bool read_before_wait) {
  __shared__ int slot[64];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  unsigned other = (threadIdx.x + 32) % blockDim.x;
  slot[threadIdx.x] = threadIdx.x;
  int early = read_before_wait ? slot[other] : 0;
  bar.arrive_and_wait();
  out[threadIdx.x] = slot[other] + early;
}

// A counter in shared memory that every thread bumps with atomicAdd.
__global__ void atomic_counter(int* out) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  atomicAdd(&count, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = count;
}

namespace {

int* d_ints;
float* d_floats;
int h_ints[1024];
float h_floats[1024];

bool wanted(const char* name, int argc, char** argv) { return argc < 2 || std::strcmp(argv[1], name) == 0; }

void begin(const char* name) {
  std::printf("case %s\n", name);
  std::fflush(stdout);
}

// Waits for the case's kernel and says whether it ran.
void end() {
  cudaError_t status = cudaDeviceSynchronize();
  std::printf("  status %s\n", cudaGetErrorName(status));
  std::fflush(stdout);
}

long long int_sum(int count) {
  cudaMemcpy(h_ints, d_ints, count * sizeof(int), cudaMemcpyDeviceToHost);
  long long sum = 0;
  for (int i = 0; i < count; ++i) sum += h_ints[i];
  return sum;
}

void run_matmul(bool barrier_after_use) {
  constexpr int n = 2 * TILE;
  float* A = d_floats;
  float* B = d_floats + n * n;
  float* C = d_floats + 2 * n * n;
  for (int i = 0; i < n * n; ++i) h_floats[i] = static_cast<float>(i % 7);
  cudaMemcpy(A, h_floats, n * n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, h_floats, n * n * sizeof(float), cudaMemcpyHostToDevice);
  tiled_matmul<<<dim3(2, 2), dim3(TILE, TILE)>>>(A, B, C, n, barrier_after_use);
  end();
  if (barrier_after_use) {
    cudaMemcpy(h_floats, C, n * n * sizeof(float), cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int i = 0; i < n * n; ++i) sum += h_floats[i];
    std::printf("  sum of C %.0f\n", sum);
  }
}

void run_tree_sum(bool barrier_in_loop) {
  for (int i = 0; i < 512; ++i) h_ints[i] = i % 5;
  cudaMemcpy(d_ints + 512, h_ints, 512 * sizeof(int), cudaMemcpyHostToDevice);
  tree_sum<<<2, 256>>>(d_ints + 512, d_ints, barrier_in_loop);
  end();
  if (barrier_in_loop) std::printf("  block sums %lld\n", int_sum(2));
}

}  // namespace

int main(int argc, char** argv) {
  cudaMalloc(&d_ints, 1024 * sizeof(int));
  cudaMalloc(&d_floats, 3 * 1024 * sizeof(float));

  if (wanted("matmul_two_barriers", argc, argv)) {
    begin("matmul_two_barriers");
    run_matmul(true);
  }
  if (wanted("matmul_one_barrier", argc, argv)) {
    begin("matmul_one_barrier");
    run_matmul(false);
  }
  if (wanted("tree_sum_loop_barrier", argc, argv)) {
    begin("tree_sum_loop_barrier");
    run_tree_sum(true);
  }
  if (wanted("tree_sum_no_loop_barrier", argc, argv)) {
    begin("tree_sum_no_loop_barrier");
    run_tree_sum(false);
  }
  if (wanted("warp_neighbours_syncwarp", argc, argv)) {
    begin("warp_neighbours_syncwarp");
    warp_neighbours<<<1, 32>>>(d_ints, true);
    end();
    std::printf("  sum %lld\n", int_sum(32));
  }
  if (wanted("warp_neighbours_no_syncwarp", argc, argv)) {
    begin("warp_neighbours_no_syncwarp");
    warp_neighbours<<<1, 32>>>(d_ints, false);
    end();
  }
  if (wanted("dynamic_neighbour_barrier", argc, argv)) {
    begin("dynamic_neighbour_barrier");
    dynamic_neighbour<<<1, 64, 64 * sizeof(int)>>>(d_ints, true);
    end();
    std::printf("  sum %lld\n", int_sum(64));
  }
  if (wanted("dynamic_neighbour_no_barrier", argc, argv)) {
    begin("dynamic_neighbour_no_barrier");
    dynamic_neighbour<<<1, 64, 64 * sizeof(int)>>>(d_ints, false);
    end();
  }
  if (wanted("shuffle_sum", argc, argv)) {
    begin("shuffle_sum");
    shuffle_sum<<<1, 32>>>(d_ints);
    end();
    std::printf("  sum %lld\n", int_sum(1));
  }
  if (wanted("named_handover", argc, argv)) {
    begin("named_handover");
    named_handover<<<1, 64>>>(d_ints);
    end();
    std::printf("  sum %lld\n", int_sum(128));
  }
  if (wanted("named_bystander", argc, argv)) {
    begin("named_bystander");
    named_bystander<<<1, 96>>>(d_ints);
    end();
  }
  if (wanted("barrier_arrive_and_wait", argc, argv)) {
    begin("barrier_arrive_and_wait");
    shared_barrier<<<1, 64>>>(d_ints, false);
    end();
    std::printf("  sum %lld\n", int_sum(64));
  }
  if (wanted("barrier_read_before_wait", argc, argv)) {
    begin("barrier_read_before_wait");
    shared_barrier<<<1, 64>>>(d_ints, true);
    end();
  }
  if (wanted("atomic_counter", argc, argv)) {
    begin("atomic_counter");
    atomic_counter<<<2, 128>>>(d_ints);
    end();
    std::printf("  counts %lld\n", int_sum(2));
  }

  cudaFree(d_ints);
  cudaFree(d_floats);
  return 0;
}
