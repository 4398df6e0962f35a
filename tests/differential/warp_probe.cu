// Probe of CUDA's warp-level primitives: shuffles (reduction, scan, butterfly,
// widths 8 and 16, every variant at the segment edges), votes on divergent
// predicates, match, reduce, a partial warp, two halves of a warp in
// different branches, an intra-warp spin lock, and the bit intrinsics. To be
// built with nvcc and run on an H100 by hand; its output is to be committed
// beside it as warp_probe.expected. The ctest test differential.warp_probe
// builds it with weft and requires the same output, line for line (lines
// marked "undefined" included: weft matches what the H100 did there).
//
//   nvcc -arch=sm_90 -o warp_probe warp_probe.cu && ./warp_probe > warp_probe.expected
//
// With weft:
//   g++ -std=c++20 -O2 -x c++ -I include warp_probe.cu -lboost_context -rdynamic -o warp_probe && ./warp_probe
//
// The mask and exited-lane errors weft reports are not probed: on a GPU they
// are undefined behaviour (a hang, or garbage).
#include <cstdio>
#include <cstring>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#define LAUNCH(kernel, grid, block, ...) kernel<<<grid, block>>>(__VA_ARGS__)
#else
#include <weft.hpp>
#define LAUNCH(kernel, grid, block, ...) weft::launch(grid, block, kernel, __VA_ARGS__)
#endif

// Every kernel writes up to 64 ints per thread slot into `out`.
constexpr int out_size = 4096;

__global__ void reduce_scan_butterfly(int* out) {
  unsigned lane = threadIdx.x % 32;
  int v = static_cast<int>(threadIdx.x * 7 % 11);
  int sum = v;
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
  int scan = v;
  for (unsigned d = 1; d < 32; d *= 2) {
    int n = __shfl_up_sync(0xffffffff, scan, d);
    if (lane >= d) scan += n;
  }
  int all = v;
  for (int m = 16; m > 0; m /= 2) all += __shfl_xor_sync(0xffffffff, all, m);
  out[threadIdx.x * 3 + 0] = sum;
  out[threadIdx.x * 3 + 1] = scan;
  out[threadIdx.x * 3 + 2] = all;
}

__global__ void segments(int width, int* out) {
  unsigned t = threadIdx.x;
  int v = static_cast<int>(t * 10);
  out[t * 8 + 0] = __shfl_sync(0xffffffff, v, 3, width);
  out[t * 8 + 1] = __shfl_sync(0xffffffff, v, 35, width);  // srcLane past 31
  out[t * 8 + 2] = __shfl_up_sync(0xffffffff, v, 2, width);
  out[t * 8 + 3] = __shfl_down_sync(0xffffffff, v, 3, width);
  out[t * 8 + 4] = __shfl_xor_sync(0xffffffff, v, 1, width);
  out[t * 8 + 5] = __shfl_xor_sync(0xffffffff, v, width, width);  // leaves the segment
  out[t * 8 + 6] = __shfl_down_sync(0xffffffff, v, 33, width);    // delta past 31
  out[t * 8 + 7] = __shfl_up_sync(0xffffffff, v, 0, width);
}

__global__ void typed_shuffles(double* d, long long* ll, float* f, unsigned long* ul) {
  unsigned lane = threadIdx.x;
  d[lane] = __shfl_sync(0xffffffff, lane * 1.5 - 7.25, 31 - static_cast<int>(lane));
  ll[lane] = __shfl_down_sync(0xffffffff, (1ll << 40) * static_cast<long long>(lane) - 3, 5);
  f[lane] = __shfl_xor_sync(0xffffffff, lane * -0.5f, 7);
  ul[lane] = __shfl_up_sync(0xffffffff, 0xfedcba9876543210ul + lane, 4);
}

__global__ void votes(int* out) {
  unsigned lane = threadIdx.x % 32, t = threadIdx.x;
  int p = lane % 3 == 0;
  out[t * 6 + 0] = static_cast<int>(__ballot_sync(0xffffffff, p));
  out[t * 6 + 1] = __any_sync(0xffffffff, p);
  out[t * 6 + 2] = __all_sync(0xffffffff, p);
  out[t * 6 + 3] = __any_sync(0xffffffff, 0);
  out[t * 6 + 4] = __all_sync(0xffffffff, 1);
  // Divergent: each half votes among itself.
  if (lane < 16)
    out[t * 6 + 5] = static_cast<int>(__ballot_sync(0x0000ffff, lane % 2));
  else
    out[t * 6 + 5] = static_cast<int>(__ballot_sync(0xffff0000, lane > 20));
}

__global__ void matches(int* out) {
  unsigned lane = threadIdx.x;
  int pred = -1, pred_same = -1;
  out[lane * 6 + 0] = static_cast<int>(__match_any_sync(0xffffffff, static_cast<int>(lane % 5)));
  out[lane * 6 + 1] = static_cast<int>(__match_all_sync(0xffffffff, static_cast<int>(lane % 5), &pred));
  out[lane * 6 + 2] = pred;
  out[lane * 6 + 3] = static_cast<int>(__match_all_sync(0xffffffff, 7ull, &pred_same));
  out[lane * 6 + 4] = pred_same;
  out[lane * 6 + 5] = static_cast<int>(__match_any_sync(0xffffffff, lane < 8 ? 1.5 : lane < 20 ? -0.0 : 0.0));
}

__global__ void reductions(int* out) {
  unsigned lane = threadIdx.x;
  int v = static_cast<int>(lane) - 20;
  unsigned w = 0xf0000000u | lane;
  out[lane * 9 + 0] = __reduce_add_sync(0xffffffff, v);
  out[lane * 9 + 1] = __reduce_min_sync(0xffffffff, v);
  out[lane * 9 + 2] = __reduce_max_sync(0xffffffff, v);
  out[lane * 9 + 3] = static_cast<int>(__reduce_add_sync(0xffffffff, w));
  out[lane * 9 + 4] = static_cast<int>(__reduce_min_sync(0xffffffff, static_cast<unsigned>(v)));
  out[lane * 9 + 5] = static_cast<int>(__reduce_max_sync(0xffffffff, static_cast<unsigned>(v)));
  out[lane * 9 + 6] = static_cast<int>(__reduce_and_sync(0xffffffff, w));
  out[lane * 9 + 7] = static_cast<int>(__reduce_or_sync(0xffffffff, w));
  out[lane * 9 + 8] = static_cast<int>(__reduce_xor_sync(0xffffffff, lane * 3));
}

// 48 threads: the second warp has 16 lanes and uses a 16-lane mask.
__global__ void partial_warp(int* out) {
  unsigned t = threadIdx.x;
  unsigned mask = t < 32 ? 0xffffffffu : 0x0000ffffu;
  out[t * 3 + 2] = static_cast<int>(__activemask());
  int v = static_cast<int>(t);
  for (int offset = 8; offset > 0; offset /= 2) v += __shfl_down_sync(mask, v, offset, 16);
  out[t * 3 + 0] = v;
  out[t * 3 + 1] = static_cast<int>(__ballot_sync(mask, t % 2));
}

// Lanes past n exit first; then the survivors, and each side of a branch.
__global__ void activemask_exits(int n, int* out) {
  unsigned t = threadIdx.x;
  if (static_cast<int>(t) >= n) return;
  out[t * 2] = static_cast<int>(__activemask());
  if (t % 32 < 10)
    out[t * 2 + 1] = static_cast<int>(__activemask());
  else
    out[t * 2 + 1] = static_cast<int>(__activemask());
}

__global__ void halves(int* out) {
  unsigned lane = threadIdx.x;
  int v = static_cast<int>(lane);
  if (lane % 2 == 0)
    out[lane] = __shfl_sync(0x55555555, v, (lane + 2) % 32);
  else
    out[lane] = __reduce_add_sync(0xaaaaaaaa, v);
}

// Undefined in CUDA: the source lane is outside the mask (an H100 and weft: 0).
__global__ void outside_mask(int* out) {
  unsigned lane = threadIdx.x;
  if (lane < 16) out[lane] = __shfl_sync(0x0000ffff, static_cast<int>(lane) + 100, 20);
}

__global__ void spin_lock(int* lock, int* counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __nanosleep(100);
  int c = *reinterpret_cast<volatile int*>(counter);
  *reinterpret_cast<volatile int*>(counter) = c + 1;
  __threadfence();
  atomicExch(lock, 0);
}

__global__ void bits(const unsigned* in, unsigned* out) {
  unsigned i = threadIdx.x, x = in[i], y = in[(i + 1) % 8];
  unsigned long long xl = static_cast<unsigned long long>(x) << 32 | y;
  unsigned* o = out + i * 16;
  o[0] = __popc(x);
  o[1] = __popcll(xl);
  o[2] = __clz(static_cast<int>(x));
  o[3] = __clzll(static_cast<long long>(xl));
  o[4] = __ffs(static_cast<int>(x));
  o[5] = __ffsll(static_cast<long long>(xl));
  o[6] = __brev(x);
  unsigned long long b = __brevll(xl);
  o[7] = static_cast<unsigned>(b >> 32);
  o[8] = static_cast<unsigned>(b);
  o[9] = __byte_perm(x, y, y & 0xffff);
  o[10] = __funnelshift_l(x, y, i * 7);
  o[11] = __funnelshift_lc(x, y, i * 7);
  o[12] = __funnelshift_r(x, y, i * 7);
  o[13] = __funnelshift_rc(x, y, i * 7);
  o[14] = __byte_perm(x, y, 0x4152);
  o[15] = __funnelshift_l(x, x, 13);
}

static int host_out[out_size];

static void show(const char* name, int* d, int count, int per_line) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", name, cudaGetErrorName(e));
    return;
  }
  cudaMemcpy(host_out, d, count * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < count; i += per_line) {
    std::printf("%s[%d]:", name, i / per_line);
    for (int j = i; j < i + per_line && j < count; ++j) std::printf(" %d", host_out[j]);
    std::printf("\n");
  }
  cudaMemset(d, 0, out_size * sizeof(int));
}

int main() {
  int* d = nullptr;
  cudaMalloc(&d, out_size * sizeof(int));
  cudaMemset(d, 0, out_size * sizeof(int));

  LAUNCH(reduce_scan_butterfly, 1, 64, d);
  show("reduce_scan_butterfly", d, 64 * 3, 3);
  for (int width : {2, 8, 16, 32}) {
    LAUNCH(segments, 1, 32, width, d);
    char name[32];
    std::snprintf(name, sizeof name, "segments_w%d", width);
    show(name, d, 32 * 8, 8);
  }
  {
    double* dd;
    long long* ll;
    float* f;
    unsigned long* ul;
    cudaMalloc(&dd, 32 * sizeof(double));
    cudaMalloc(&ll, 32 * sizeof(long long));
    cudaMalloc(&f, 32 * sizeof(float));
    cudaMalloc(&ul, 32 * sizeof(unsigned long));
    LAUNCH(typed_shuffles, 1, 32, dd, ll, f, ul);
    cudaDeviceSynchronize();
    double hd[32];
    long long hll[32];
    float hf[32];
    unsigned long hul[32];
    cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost);
    cudaMemcpy(hll, ll, sizeof hll, cudaMemcpyDeviceToHost);
    cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost);
    cudaMemcpy(hul, ul, sizeof hul, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 32; ++i) std::printf("typed[%d]: %.4f %lld %.3f %lx\n", i, hd[i], hll[i], hf[i], hul[i]);
    cudaFree(dd);
    cudaFree(ll);
    cudaFree(f);
    cudaFree(ul);
  }
  LAUNCH(votes, 1, 64, d);
  show("votes", d, 64 * 6, 6);
  LAUNCH(matches, 1, 32, d);
  show("matches", d, 32 * 6, 6);
  LAUNCH(reductions, 1, 32, d);
  show("reductions", d, 32 * 9, 9);
  LAUNCH(partial_warp, 1, 48, d);
  show("partial_warp", d, 48 * 3, 3);
  LAUNCH(activemask_exits, 1, 64, 40, d);
  show("activemask_exits", d, 40 * 2, 2);
  LAUNCH(halves, 1, 32, d);
  show("halves", d, 32, 32);
  LAUNCH(outside_mask, 1, 32, d);
  show("outside_mask (undefined)", d, 16, 16);
  LAUNCH(spin_lock, 4, 64, d, d + 1);
  show("spin_lock", d, 2, 2);
  {
    const unsigned in[8] = {0u, 1u, 0x80000000u, 0x12345678u, 0xffffffffu, 0x00f000f0u, 0xdeadbeefu, 0x7654u};
    unsigned *din, *dout;
    cudaMalloc(&din, sizeof in);
    cudaMalloc(&dout, 8 * 16 * sizeof(unsigned));
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    LAUNCH(bits, 1, 8, din, dout);
    show("bits", reinterpret_cast<int*>(dout), 8 * 16, 16);
    cudaFree(din);
    cudaFree(dout);
  }
  cudaFree(d);
  return 0;
}
