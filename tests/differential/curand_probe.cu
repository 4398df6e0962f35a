// Probe of cuRAND's device API with the default generator (XORWOW,
// curandState) and Philox4_32_10: curand_init with seeds, subsequences and offsets, raw draws,
// uniform floats and doubles (as bits), normals (rounded, since weft's
// logf/sinf are the host's and may differ from the GPU's in the last bit),
// log-normals, skipahead and skipahead_sequence, and the guide-style Monte
// Carlo estimate of pi. An unmodified CUDA program: weft builds it through
// the porting step (weft_add_cuda_executable).
//
//   nvcc -arch=sm_90 -o curand_probe curand_probe.cu && ./curand_probe > curand_probe.expected
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstdio>
#include <cstring>

struct config {
  unsigned long long seed, subsequence, offset;
};

const int draws = 13;

struct result {
  unsigned raw[4];
  unsigned uniform_bits[2];
  unsigned long long uniform_double_bits[2];
  float normal[3];  // the third is drawn after a uniform: the cached second value survives it
  double normal_double[3];
  float2 normal2;
  float log_normal;
  unsigned after_skipahead[2];
  unsigned after_skipahead_sequence[2];
};

// Two draws from copies of `state` moved on by skipahead(n) and by
// skipahead_sequence(sequences); `state` itself does not move.
template <class State>
__device__ void draw_after_jumps(const State& state, unsigned long long n, unsigned long long sequences,
                                 unsigned* after_skipahead, unsigned* after_skipahead_sequence) {
  State jumped = state;
  skipahead(n, &jumped);
  after_skipahead[0] = curand(&jumped);
  after_skipahead[1] = curand(&jumped);
  jumped = state;
  skipahead_sequence(sequences, &jumped);
  after_skipahead_sequence[0] = curand(&jumped);
  after_skipahead_sequence[1] = curand(&jumped);
}

__global__ void draw(const config* configs, result* results, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  config c = configs[i];
  result r;
  curandState state;
  curand_init(c.seed, c.subsequence, c.offset, &state);
  for (int k = 0; k < 4; ++k) r.raw[k] = curand(&state);
  for (int k = 0; k < 2; ++k) {
    float u = curand_uniform(&state);
    memcpy(&r.uniform_bits[k], &u, 4);
    double d = curand_uniform_double(&state);
    memcpy(&r.uniform_double_bits[k], &d, 8);
  }
  r.normal[0] = curand_normal(&state);
  r.normal[1] = curand_normal(&state);
  r.normal[2] = curand_normal(&state);
  float u = curand_uniform(&state);
  (void)u;
  r.normal_double[0] = curand_normal_double(&state);
  r.normal_double[1] = curand_normal_double(&state);
  r.normal_double[2] = curand_normal_double(&state);
  r.normal2 = curand_normal2(&state);
  r.log_normal = curand_log_normal(&state, 1.0f, 0.5f);
  draw_after_jumps(state, 1000ull, 2ull, r.after_skipahead, r.after_skipahead_sequence);
  results[i] = r;
}

// The counter-based generator, curandStatePhilox4_32_10_t: four outputs per
// counter, so offsets that are not multiples of 4 start inside a block, and
// curand4 returns the next four wherever the state stands.
struct philox_result {
  unsigned raw[6];
  uint4 four[2];
  unsigned uniform_bits;
  float4 uniform4;
  unsigned long long uniform_double_bits;
  float normal[3];
  float4 normal4;
  double normal_double[2];
  unsigned after_skipahead[2];
  unsigned after_skipahead_sequence[2];
};

__global__ void draw_philox(const config* configs, philox_result* results, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  config c = configs[i];
  philox_result r;
  curandStatePhilox4_32_10_t state;
  curand_init(c.seed, c.subsequence, c.offset, &state);
  for (int k = 0; k < 6; ++k) r.raw[k] = curand(&state);
  r.four[0] = curand4(&state);
  curand(&state);
  r.four[1] = curand4(&state);
  float u = curand_uniform(&state);
  memcpy(&r.uniform_bits, &u, 4);
  r.uniform4 = curand_uniform4(&state);
  double d = curand_uniform_double(&state);
  memcpy(&r.uniform_double_bits, &d, 8);
  r.normal[0] = curand_normal(&state);
  r.normal[1] = curand_normal(&state);
  r.normal[2] = curand_normal(&state);
  r.normal4 = curand_normal4(&state);
  r.normal_double[0] = curand_normal_double(&state);
  r.normal_double[1] = curand_normal_double(&state);
  draw_after_jumps(state, 5ull, 3ull, r.after_skipahead, r.after_skipahead_sequence);
  results[i] = r;
}

// skipahead(n) equals n draws; skipahead_sequence(1) equals curand_init with
// the next subsequence.
__global__ void agree(int* same) {
  curandState a, b;
  curand_init(99, 0, 0, &a);
  curand_init(99, 0, 0, &b);
  for (int k = 0; k < 777; ++k) curand(&a);
  skipahead(777ull, &b);
  same[0] = curand(&a) == curand(&b);
  curand_init(99, 5, 0, &a);
  curand_init(99, 4, 0, &b);
  skipahead_sequence(1ull, &b);
  same[1] = curand(&a) == curand(&b);
  curand_init(99, 0, 12345, &a);
  curand_init(99, 0, 0, &b);
  skipahead(12345ull, &b);
  same[2] = curand(&a) == curand(&b);
  curandStatePhilox4_32_10_t p, q;
  curand_init(99, 0, 0, &p);
  curand_init(99, 0, 0, &q);
  for (int k = 0; k < 777; ++k) curand(&p);
  skipahead(777ull, &q);
  same[3] = curand(&p) == curand(&q);
  curand_init(99, 5, 3, &p);
  curand_init(99, 4, 3, &q);
  skipahead_sequence(1ull, &q);
  same[4] = curand(&p) == curand(&q);
}

// The common teaching kernel: each thread seeds its own subsequence and
// counts the points of the unit square inside the quarter circle.
__global__ void monte_carlo_pi(unsigned long long seed, int samples, unsigned* hits) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState state;
  curand_init(seed, id, 0, &state);
  unsigned inside = 0;
  for (int k = 0; k < samples; ++k) {
    float x = curand_uniform(&state), y = curand_uniform(&state);
    if (x * x + y * y <= 1.0f) ++inside;
  }
  atomicAdd(hits, inside);
}

int main() {
  const config configs[draws] = {
      {0, 0, 0},
      {1, 0, 0},
      {1234, 0, 0},
      {1234, 1, 0},
      {1234, 0, 1},
      {1234, 0, 5},
      {1234, 7, 1000},
      {0xdeadbeefcafef00dull, 3, 1000},
      {42, 1ull << 20, 0},
      {7, 123456789, 0},
      {7, 0, (1ull << 40) + 3},
      {7, ~0ull, ~0ull},
      {0xffffffff00000000ull, 65536, 65536},
  };
  config* d_configs;
  result* d_results;
  cudaMalloc(&d_configs, sizeof configs);
  cudaMalloc(&d_results, sizeof(result) * draws);
  cudaMemcpy(d_configs, configs, sizeof configs, cudaMemcpyHostToDevice);
  draw<<<1, 32>>>(d_configs, d_results, draws);
  result results[draws];
  cudaMemcpy(results, d_results, sizeof results, cudaMemcpyDeviceToHost);
  for (int i = 0; i < draws; ++i) {
    const config& c = configs[i];
    const result& r = results[i];
    std::printf("init(%llx, %llx, %llx):\n", c.seed, c.subsequence, c.offset);
    std::printf("  raw %08x %08x %08x %08x\n", r.raw[0], r.raw[1], r.raw[2], r.raw[3]);
    std::printf("  uniform %08x %08x double %016llx %016llx\n", r.uniform_bits[0], r.uniform_bits[1],
                r.uniform_double_bits[0], r.uniform_double_bits[1]);
    std::printf("  normal %.4f %.4f %.4f double %.9f %.9f %.9f\n", r.normal[0], r.normal[1], r.normal[2],
                r.normal_double[0], r.normal_double[1], r.normal_double[2]);
    std::printf("  normal2 %.4f %.4f log_normal %.4f\n", r.normal2.x, r.normal2.y, r.log_normal);
    std::printf("  skipahead(1000) %08x %08x skipahead_sequence(2) %08x %08x\n", r.after_skipahead[0],
                r.after_skipahead[1], r.after_skipahead_sequence[0], r.after_skipahead_sequence[1]);
  }

  philox_result* d_philox;
  cudaMalloc(&d_philox, sizeof(philox_result) * draws);
  draw_philox<<<1, 32>>>(d_configs, d_philox, draws);
  philox_result philox[draws];
  cudaMemcpy(philox, d_philox, sizeof philox, cudaMemcpyDeviceToHost);
  for (int i = 0; i < draws; ++i) {
    const config& c = configs[i];
    const philox_result& r = philox[i];
    unsigned u4[4];
    memcpy(u4, &r.uniform4, 16);
    std::printf("philox init(%llx, %llx, %llx):\n", c.seed, c.subsequence, c.offset);
    std::printf("  raw %08x %08x %08x %08x %08x %08x\n", r.raw[0], r.raw[1], r.raw[2], r.raw[3], r.raw[4], r.raw[5]);
    std::printf("  curand4 %08x %08x %08x %08x then %08x %08x %08x %08x\n", r.four[0].x, r.four[0].y, r.four[0].z,
                r.four[0].w, r.four[1].x, r.four[1].y, r.four[1].z, r.four[1].w);
    std::printf("  uniform %08x uniform4 %08x %08x %08x %08x double %016llx\n", r.uniform_bits, u4[0], u4[1], u4[2],
                u4[3], r.uniform_double_bits);
    std::printf("  normal %.4f %.4f %.4f normal4 %.4f %.4f %.4f %.4f double %.9f %.9f\n", r.normal[0], r.normal[1],
                r.normal[2], r.normal4.x, r.normal4.y, r.normal4.z, r.normal4.w, r.normal_double[0],
                r.normal_double[1]);
    std::printf("  skipahead(5) %08x %08x skipahead_sequence(3) %08x %08x\n", r.after_skipahead[0],
                r.after_skipahead[1], r.after_skipahead_sequence[0], r.after_skipahead_sequence[1]);
  }

  int* d_same;
  cudaMalloc(&d_same, 5 * sizeof(int));
  agree<<<1, 1>>>(d_same);
  int same[5];
  cudaMemcpy(same, d_same, sizeof same, cudaMemcpyDeviceToHost);
  std::printf("skipahead(777) equals 777 draws: %d\n", same[0]);
  std::printf("skipahead_sequence(1) from subsequence 4 equals subsequence 5: %d\n", same[1]);
  std::printf("curand_init offset 12345 equals skipahead(12345): %d\n", same[2]);
  std::printf("philox: skipahead(777) equals 777 draws: %d\n", same[3]);
  std::printf("philox: skipahead_sequence(1) from subsequence 4 equals subsequence 5: %d\n", same[4]);

  unsigned* d_hits;
  cudaMalloc(&d_hits, sizeof(unsigned));
  cudaMemset(d_hits, 0, sizeof(unsigned));
  const int blocks = 8, threads = 64, samples = 1000;
  monte_carlo_pi<<<blocks, threads>>>(2024, samples, d_hits);
  unsigned hits = 0;
  cudaMemcpy(&hits, d_hits, sizeof hits, cudaMemcpyDeviceToHost);
  std::printf("monte carlo: %u of %d points inside, pi ~ %.6f\n", hits, blocks * threads * samples,
              4.0 * hits / (blocks * threads * samples));
  std::printf("%s\n", cudaGetErrorName(cudaGetLastError()));
  return 0;
}
