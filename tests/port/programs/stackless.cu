// Kernels that weft-port converts to stackless kernels, one for each kind of
// barrier and warp collective, checked against the host. Built twice: as
// ported (port_stackless, its kernels stackless) and with NO_STACKLESS
// (port_stackless_fibers); both print the same lines and PASS.
#include <cstdio>
#include <vector>

constexpr int threads = 128;

__device__ int squared(int x) { return x * x; }

// Block barriers: a shared-memory sum, and the counting flavours.
__global__ void block_barriers(const int* in, int* out) {
  __shared__ int partial[threads];
  int t = threadIdx.x;
  partial[t] = squared(in[blockIdx.x * threads + t]);
  __syncthreads();
  for (int half = threads / 2; half > 0; half /= 2) {
    if (t < half) partial[t] += partial[t + half];
    __syncthreads();
  }
  int odd = __syncthreads_count(in[blockIdx.x * threads + t] % 2);
  int all_small = __syncthreads_and(in[blockIdx.x * threads + t] < 1000);
  int any_big = __syncthreads_or(in[blockIdx.x * threads + t] > 250);
  if (t != 0) return;
  out[blockIdx.x * 4 + 0] = partial[0];
  out[blockIdx.x * 4 + 1] = odd;
  out[blockIdx.x * 4 + 2] = all_small;
  out[blockIdx.x * 4 + 3] = any_big;
}

// Warp collectives: each lane writes what each returns.
template <class T>
__global__ void warp_collectives(const T* in, T* shuffles, unsigned* votes, int* reductions) {
  int t = threadIdx.x, lane = t % 32;
  T v = in[t];
  __syncwarp();
  shuffles[t * 4 + 0] = __shfl_sync(0xffffffffu, v, 3);
  shuffles[t * 4 + 1] = __shfl_up_sync(0xffffffffu, v, 1);
  shuffles[t * 4 + 2] = __shfl_down_sync(0xffffffffu, v, 2, 16);
  shuffles[t * 4 + 3] = __shfl_xor_sync(0xffffffffu, v, 5);
  int all_match = 0;
  votes[t * 6 + 0] = __all_sync(0xffffffffu, lane < 31);
  votes[t * 6 + 1] = __any_sync(0xffffffffu, lane == 31);
  votes[t * 6 + 2] = __ballot_sync(0xffffffffu, lane % 3 == 0);
  votes[t * 6 + 3] = __match_any_sync(0xffffffffu, lane / 8);
  votes[t * 6 + 4] = __match_all_sync(0xffffffffu, 7, &all_match);
  votes[t * 6 + 5] = all_match;
  reductions[t * 6 + 0] = __reduce_add_sync(0xffffffffu, lane);
  reductions[t * 6 + 1] = __reduce_min_sync(0xffffffffu, 10 - lane);
  reductions[t * 6 + 2] = __reduce_max_sync(0xffffffffu, static_cast<unsigned>(lane));
  reductions[t * 6 + 3] = __reduce_and_sync(0xffffffffu, 0xf0u | lane);
  reductions[t * 6 + 4] = __reduce_or_sync(0xffffffffu, 1u << (lane % 8));
  reductions[t * 6 + 5] = __reduce_xor_sync(0xffffffffu, static_cast<unsigned>(lane));
}

// A byte shuffled as CUDA's overloads take it: promoted to int.
__global__ void byte_shuffle(unsigned char* bytes, int* out) {
  out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, bytes[threadIdx.x], 1);
}

int main() {
  const int blocks = 4, n = blocks * threads;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37) % 301;
  int *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_out, blocks * 4 * sizeof(int));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  block_barriers<<<blocks, threads>>>(d_in, d_out);
  std::vector<int> out(blocks * 4);
  cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int b = 0; b < blocks; ++b) {
    int sum = 0, odd = 0, all_small = 1, any_big = 0;
    for (int t = 0; t < threads; ++t) {
      int x = in[b * threads + t];
      sum += x * x;
      odd += x % 2;
      all_small &= (x < 1000);
      any_big |= (x > 250);
    }
    printf("block %d: sum of squares %d, odd %d, all small %d, any big %d\n", b, out[b * 4], out[b * 4 + 1],
           out[b * 4 + 2], out[b * 4 + 3]);
    ok &= out[b * 4] == sum && out[b * 4 + 1] == odd && out[b * 4 + 2] == all_small && out[b * 4 + 3] == any_big;
  }

  const int lanes = 64;
  std::vector<float> values(lanes);
  for (int t = 0; t < lanes; ++t) values[t] = 0.5f * t;
  float *d_values, *d_shuffles;
  unsigned* d_votes;
  int* d_reductions;
  cudaMalloc(&d_values, lanes * sizeof(float));
  cudaMalloc(&d_shuffles, lanes * 4 * sizeof(float));
  cudaMalloc(&d_votes, lanes * 6 * sizeof(unsigned));
  cudaMalloc(&d_reductions, lanes * 6 * sizeof(int));
  cudaMemcpy(d_values, values.data(), lanes * sizeof(float), cudaMemcpyHostToDevice);
  warp_collectives<float><<<1, lanes>>>(d_values, d_shuffles, d_votes, d_reductions);
  std::vector<float> shuffles(lanes * 4);
  std::vector<unsigned> votes(lanes * 6);
  std::vector<int> reductions(lanes * 6);
  cudaMemcpy(shuffles.data(), d_shuffles, shuffles.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(votes.data(), d_votes, votes.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(reductions.data(), d_reductions, reductions.size() * sizeof(int), cudaMemcpyDeviceToHost);
  for (int t = 0; t < lanes; ++t) {
    int lane = t % 32, warp = t - lane;
    int down = lane % 16 + 2 < 16 ? t + 2 : t;
    float want[4] = {values[warp + 3], values[lane >= 1 ? t - 1 : t], values[down], values[warp + (lane ^ 5)]};
    unsigned groups = 0xffu << (lane / 8 * 8);
    unsigned want_votes[6] = {0, 1, 0x49249249u, groups, 0xffffffffu, 1};
    int want_reductions[6] = {496, -21, 31, 0xf0, 0xff, 0};
    for (int k = 0; k < 4; ++k) ok &= shuffles[t * 4 + k] == want[k];
    for (int k = 0; k < 6; ++k) ok &= votes[t * 6 + k] == want_votes[k];
    for (int k = 0; k < 6; ++k) ok &= reductions[t * 6 + k] == want_reductions[k];
  }
  printf("lane 5: shuffles %g %g %g %g, ballot %08x, match %08x, sum %d\n", shuffles[20], shuffles[21], shuffles[22],
         shuffles[23], votes[32], votes[33], reductions[30]);
  unsigned char* d_bytes;
  int* d_swapped;
  std::vector<unsigned char> bytes(32);
  for (int t = 0; t < 32; ++t) bytes[t] = static_cast<unsigned char>(200 + t);
  cudaMalloc(&d_bytes, 32);
  cudaMalloc(&d_swapped, 32 * sizeof(int));
  cudaMemcpy(d_bytes, bytes.data(), 32, cudaMemcpyHostToDevice);
  byte_shuffle<<<1, 32>>>(d_bytes, d_swapped);
  std::vector<int> swapped(32);
  cudaMemcpy(swapped.data(), d_swapped, 32 * sizeof(int), cudaMemcpyDeviceToHost);
  for (int t = 0; t < 32; ++t) ok &= swapped[t] == 200 + (t ^ 1);
  printf("bytes: lane 0 gets %d, lane 1 gets %d\n", swapped[0], swapped[1]);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
