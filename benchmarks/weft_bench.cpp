// weft_bench: weft against the same computation written as a plain C++ loop
// split over the same number of std::threads, in the same run.
//
//   weft_bench [--quick] [--repeat N] [vecadd] [matmul] [barrier] [warp] [launch] [wmma] [graph] [texture] [suite]
//
// `suite` (benchmarks/suite/) also compares each kernel with OpenCL C on PoCL.
//
// Each measurement is repeated (weft and plain alternating, so that both see
// the same noise on a shared machine) and the median is reported. The ratio
// is plain time / weft time: weft's throughput as a fraction of the plain
// loop's. Nothing here asserts anything about timing; the runner fails only
// when a computation gives a wrong result.
#include <weft.hpp>
#include <weft/cuda/device/wmma/fill.hpp>
#include <weft/cuda/device/wmma/load_store.hpp>
#include <weft/cuda/device/wmma/mma.hpp>
#include <weft/index_ranges.hpp>
#include <weft/stackless_kernel.hpp>

#include <boost/context/detail/fcontext.hpp>
#include <boost/context/fiber.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <numeric>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "suite/suite.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct options {
  bool quick = false;
  int repeat = 7;
  bool vecadd = false, matmul = false, barrier = false, warp = false, launch = false, wmma = false, graph = false,
       texture = false, suite = false;
};

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

template <class F>
double time_once(F&& f) {
  auto start = clock_type::now();
  f();
  return seconds_since(start);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct pair_timing {
  double weft, plain;          // median seconds
  double weft_min, plain_min;  // fastest run, seconds
};

// One warm-up run of each, then `repeat` alternating timed runs.
pair_timing measure_pair(int repeat, const std::function<void()>& weft_run, const std::function<void()>& plain_run) {
  weft_run();
  plain_run();
  std::vector<double> w, p;
  for (int i = 0; i < repeat; ++i) {
    w.push_back(time_once(weft_run));
    p.push_back(time_once(plain_run));
  }
  return {median(w), median(p), *std::min_element(w.begin(), w.end()), *std::min_element(p.begin(), p.end())};
}

struct timing {
  double median, best;  // seconds
};

template <class F>
timing measure(int repeat, F&& run) {
  run();
  std::vector<double> t;
  for (int i = 0; i < repeat; ++i) t.push_back(time_once(run));
  return {median(t), *std::min_element(t.begin(), t.end())};
}

/// The plain side of every comparison: body(t) for t in [0, threads), each
/// on its own std::thread, joined before returning.
void parallel_run(unsigned threads, const std::function<void(unsigned)>& body) {
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(body, t);
  for (auto& th : pool) th.join();
}

/// [begin, end) of part `t` when `n` items are split into `parts` contiguous parts.
std::pair<std::size_t, std::size_t> split(std::size_t n, unsigned parts, unsigned t) {
  return {n * t / parts, n * (t + 1) / parts};
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s %s\n", what, cudaGetErrorName(e), weft::fault_message().c_str());
  return false;
}

void fill(float* v, std::size_t n, unsigned seed) {
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = float(seed >> 8) / float(1 << 23) - 1.0f;
  }
}

struct row {
  std::string name;
  pair_timing t;
  std::string note;
};

// "target ...: met" or "MISSED"; a --quick run is too small to judge.
std::string verdict(const options& o, const char* target, bool met) {
  if (o.quick) return std::string(target) + ": not judged in --quick mode";
  return std::string(target) + (met ? ": met" : ": MISSED");
}

std::string pretty_time(double s) {
  char text[32];
  if (s >= 1)
    std::snprintf(text, sizeof text, "%.3f s", s);
  else if (s >= 1e-3)
    std::snprintf(text, sizeof text, "%.2f ms", s * 1e3);
  else
    std::snprintf(text, sizeof text, "%.1f us", s * 1e6);
  return text;
}

void print_table(const std::vector<row>& rows) {
  std::printf(
      "\nmedian times; ratio = plain time / weft time (weft's throughput as a fraction of the plain loop's);\n"
      "best-run ratio = the same from each side's fastest run\n");
  std::printf("%-48s %10s %10s %7s %9s  %s\n", "benchmark", "weft", "plain", "ratio", "best-run", "");
  for (const row& r : rows)
    std::printf("%-48s %10s %10s %7.3f %9.3f  %s\n", r.name.c_str(), pretty_time(r.t.weft).c_str(),
                pretty_time(r.t.plain).c_str(), r.t.plain / r.t.weft, r.t.plain_min / r.t.weft_min, r.note.c_str());
}

// ---------------------------------------------------------------------------
// 1. Vector addition

__global__ void VecAdd(const float* A, const float* B, float* C, int N) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

void plain_vecadd(const float* __restrict a, const float* __restrict b, float* __restrict c, std::size_t begin,
                  std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
}

// The plain loop as scalar code with the kernel's bounds check, one element
// at a time: what a CUDA thread's code is at best on a CPU core, since weft
// cannot vectorise across CUDA threads (performance.md, section 10). GCC is
// told so by an attribute that Clang does not know, Clang by a loop pragma.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wattributes"
[[gnu::noinline, gnu::optimize("no-tree-vectorize")]] void plain_scalar_vecadd(const float* a, const float* b, float* c,
                                                                               int n, std::size_t begin,
                                                                               std::size_t end) {
#if defined(__clang__)
#pragma clang loop vectorize(disable) interleave(disable)
#endif
  for (std::size_t i = begin; i < end; ++i)
    if (static_cast<int>(i) < n) c[i] = a[i] + b[i];
}

// The same with the store of threadIdx.x that weft's per-thread loop makes
// for every CUDA thread (the kernel may call code that reads it).
[[gnu::noinline, gnu::optimize("no-tree-vectorize")]] void plain_scalar_tls_vecadd(const float* a, const float* b,
                                                                                   float* c, int n, std::size_t begin,
                                                                                   std::size_t end) {
#if defined(__clang__)
#pragma clang loop vectorize(disable) interleave(disable)
#endif
  for (std::size_t i = begin; i < end; ++i) {
    threadIdx.x = static_cast<unsigned>(i % 256);
    if (static_cast<int>(i) < n) c[i] = a[i] + b[i];
  }
}
#pragma GCC diagnostic pop

// What any executor of a kernel known only by its address pays: a plain
// loop that calls the kernel through a pointer once per element, with the
// built-in variables in thread-local storage as weft has them. `volatile`
// keeps the compiler from resolving the pointer.
void (*volatile vecadd_through_pointer)(const float*, const float*, float*, int) = VecAdd;

void plain_pointer_vecadd(const float* a, const float* b, float* c, int n, std::size_t begin, std::size_t end) {
  auto kernel = vecadd_through_pointer;
  blockDim = dim3(256);
  for (std::size_t block = begin / 256; block < end / 256; ++block) {
    blockIdx.x = static_cast<unsigned>(block);
    for (unsigned t = 0; t < 256; ++t) {
      threadIdx.x = t;
      kernel(a, b, c, n);
    }
  }
}

// The same vector addition as a grid-stride loop, hand-written and with
// weft::grid_stride (weft/index_ranges.hpp), which should compile to the same
// loop: GCC 12 -O2 gives both the same five- or six-instruction inner loop
// (docs/porting.md, "Index ranges").
__global__ void VecAddGridStrideLoop(const float* A, const float* B, float* C, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) C[i] = A[i] + B[i];
}

__global__ void VecAddGridStrideRange(const float* A, const float* B, float* C, int N) {
  for (int i : weft::grid_stride(N)) C[i] = A[i] + B[i];
}

bool bench_vecadd(const options& o, std::vector<row>& rows) {
  const int log2n = o.quick ? 16 : 24;
  const int n = 1 << log2n;
  const int threads_per_block = 256;
  const int blocks = (n + threads_per_block - 1) / threads_per_block;
  const std::size_t bytes = std::size_t(n) * sizeof(float);
  unsigned workers = weft::worker_count();

  float *a, *b, *c_weft, *c_plain;
  cudaMalloc(&a, bytes);
  cudaMalloc(&b, bytes);
  cudaMalloc(&c_weft, bytes);
  cudaMalloc(&c_plain, bytes);
  fill(a, n, 1);
  fill(b, n, 2);

  bool ok = true;
  auto plain_run = [&] {
    parallel_run(workers, [&](unsigned t) {
      auto [begin, end] = split(n, workers, t);
      plain_vecadd(a, b, c_plain, begin, end);
    });
  };
  // Each form of the launch against the plain loop, its output checked.
  auto compare = [&](const std::string& name, const std::string& note, bool judged, auto&& launch) {
    std::memset(c_weft, 0, bytes);
    auto weft_run = [&] {
      launch();
      ok &= check(cudaDeviceSynchronize(), name.c_str());
    };
    pair_timing t = measure_pair(o.repeat, weft_run, plain_run);
    bool right = std::memcmp(c_weft, c_plain, bytes) == 0;
    ok &= right;
    std::string verdict_text = judged ? verdict(o, "target >= 0.80", t.plain / t.weft >= 0.8) + "; " : "";
    rows.push_back({name, t, verdict_text + note + (right ? "" : "; WRONG RESULT")});
  };

  // The kernel named at compile time (what weft-port writes for VecAdd<<<...>>>):
  // the executor's per-thread loop is compiled for VecAdd and inlines it.
  compare("vector add 2^" + std::to_string(log2n) + " floats, 256 thr/block", "weft::launch<VecAdd>", true,
          [&] { weft::launch<VecAdd>(blocks, threads_per_block, a, b, c_weft, n); });
  compare("  same, VecAdd called from a lambda kernel", "a lambda is a type too", true, [&] {
    auto kernel = [](const float* A, const float* B, float* C, int N) { VecAdd(A, B, C, N); };
    weft::launch(blocks, threads_per_block, kernel, a, b, c_weft, n);
  });
  compare("  same, VecAdd passed by address", "weft::launch(..., VecAdd, ...): a call through a pointer per thread",
          false, [&] { weft::launch(blocks, threads_per_block, VecAdd, a, b, c_weft, n); });
  compare("  plain scalar loop, not vectorised", "no weft: the floor for scalar per-element code", false, [&] {
    parallel_run(workers, [&](unsigned t) {
      auto [begin, end] = split(n, workers, t);
      plain_scalar_vecadd(a, b, c_weft, n, begin, end);
    });
  });
  compare("  same, storing threadIdx.x per element", "no weft: what weft's per-thread loop adds to it", false, [&] {
    parallel_run(workers, [&](unsigned t) {
      auto [begin, end] = split(n, workers, t);
      plain_scalar_tls_vecadd(a, b, c_weft, n, begin, end);
    });
  });
  compare("  plain loop calling VecAdd through a pointer", "no weft: the floor for a kernel known by address", false,
          [&] {
            parallel_run(workers, [&](unsigned t) {
              auto [begin, end] = split(n / 256, workers, t);
              plain_pointer_vecadd(a, b, c_weft, n, begin * 256, end * 256);
            });
          });

  // weft::grid_stride against the hand-written grid-stride loop, both through
  // weft, alternating: four blocks per worker, so that each CUDA thread runs
  // the loop for many elements and the loop itself is what is timed.
  {
    const int stride_blocks = static_cast<int>(workers) * 4;
    float* c_loop;
    cudaMalloc(&c_loop, bytes);
    std::memset(c_weft, 0, bytes);
    auto range_run = [&] {
      weft::launch<VecAddGridStrideRange>(stride_blocks, threads_per_block, a, b, c_weft, n);
      ok &= check(cudaDeviceSynchronize(), "grid_stride range");
    };
    auto loop_run = [&] {
      weft::launch<VecAddGridStrideLoop>(stride_blocks, threads_per_block, a, b, c_loop, n);
      ok &= check(cudaDeviceSynchronize(), "grid-stride loop");
    };
    pair_timing t = measure_pair(o.repeat, range_run, loop_run);
    bool right = std::memcmp(c_weft, c_plain, bytes) == 0 && std::memcmp(c_loop, c_plain, bytes) == 0;
    ok &= right;
    rows.push_back({"  grid-stride loop as weft::grid_stride(n)", t,
                    "'plain' here: the hand-written grid-stride loop, also through weft (" +
                        std::to_string(stride_blocks) + " blocks); 1.0 = the same speed" +
                        (right ? "" : "; WRONG RESULT")});
    cudaFree(c_loop);
  }

  for (float* p : {a, b, c_weft, c_plain}) cudaFree(p);
  return ok;
}

// ---------------------------------------------------------------------------
// 2. Tiled matrix multiplication (the CUDA guide's shared-memory kernel)

constexpr int BLOCK_SIZE = 16;

struct Matrix {
  int width;
  int height;
  int stride;
  float* elements;
};

__device__ float GetElement(const Matrix A, int row, int col) { return A.elements[row * A.stride + col]; }
__device__ void SetElement(Matrix A, int row, int col, float value) { A.elements[row * A.stride + col] = value; }
__device__ Matrix GetSubMatrix(Matrix A, int row, int col) {
  return {BLOCK_SIZE, BLOCK_SIZE, A.stride, &A.elements[A.stride * BLOCK_SIZE * row + BLOCK_SIZE * col]};
}

__global__ void MatMulKernel(Matrix A, Matrix B, Matrix C) {
  int blockRow = blockIdx.y, blockCol = blockIdx.x;
  int row = threadIdx.y, col = threadIdx.x;
  Matrix Csub = GetSubMatrix(C, blockRow, blockCol);
  float Cvalue = 0;
  for (int m = 0; m < A.width / BLOCK_SIZE; ++m) {
    Matrix Asub = GetSubMatrix(A, blockRow, m);
    Matrix Bsub = GetSubMatrix(B, m, blockCol);
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[row][col] = GetElement(Asub, row, col);
    Bs[row][col] = GetElement(Bsub, row, col);
    __syncthreads();
    for (int e = 0; e < BLOCK_SIZE; ++e) Cvalue += As[row][e] * Bs[e][col];
    __syncthreads();
  }
  SetElement(Csub, row, col, Cvalue);
}

// The same blocked computation as a plain loop: tiles of C are split between
// the threads; for each, tiles of A and B are copied to local arrays and
// multiplied. Every element of C sums its products in the same order as the
// kernel's Cvalue, so both give the same floats.
//
// Loops row, col, e (one CUDA thread's loop, run for each element of the
// tile in turn), or with `row_major_inner` row, e, col. GCC 12 at -O3
// vectorises both (SSE, 4 floats), not equally well, so both are reported.
void plain_matmul(const Matrix& A, const Matrix& B, Matrix& C, unsigned threads, bool row_major_inner) {
  int tiles_x = C.width / BLOCK_SIZE, tiles = tiles_x * (C.height / BLOCK_SIZE);
  parallel_run(threads, [&](unsigned t) {
    auto [first, last] = split(tiles, threads, t);
    for (std::size_t tile = first; tile < last; ++tile) {
      int br = int(tile) / tiles_x, bc = int(tile) % tiles_x;
      float acc[BLOCK_SIZE][BLOCK_SIZE] = {};
      float As[BLOCK_SIZE][BLOCK_SIZE], Bs[BLOCK_SIZE][BLOCK_SIZE];
      for (int m = 0; m < A.width / BLOCK_SIZE; ++m) {
        const float* a = &A.elements[std::size_t(A.stride) * BLOCK_SIZE * br + BLOCK_SIZE * m];
        const float* b = &B.elements[std::size_t(B.stride) * BLOCK_SIZE * m + BLOCK_SIZE * bc];
        for (int r = 0; r < BLOCK_SIZE; ++r)
          for (int c = 0; c < BLOCK_SIZE; ++c) {
            As[r][c] = a[r * A.stride + c];
            Bs[r][c] = b[r * B.stride + c];
          }
        if (row_major_inner) {
          for (int r = 0; r < BLOCK_SIZE; ++r)
            for (int e = 0; e < BLOCK_SIZE; ++e) {
              float x = As[r][e];
              for (int c = 0; c < BLOCK_SIZE; ++c) acc[r][c] += x * Bs[e][c];
            }
        } else {
          for (int r = 0; r < BLOCK_SIZE; ++r)
            for (int c = 0; c < BLOCK_SIZE; ++c) {
              float v = acc[r][c];
              for (int e = 0; e < BLOCK_SIZE; ++e) v += As[r][e] * Bs[e][c];
              acc[r][c] = v;
            }
        }
      }
      float* out = &C.elements[std::size_t(C.stride) * BLOCK_SIZE * br + BLOCK_SIZE * bc];
      for (int r = 0; r < BLOCK_SIZE; ++r)
        for (int c = 0; c < BLOCK_SIZE; ++c) out[r * C.stride + c] = acc[r][c];
    }
  });
}

bool bench_matmul(const options& o, std::vector<row>& rows) {
  const int n = o.quick ? 128 : 1024;
  const std::size_t bytes = std::size_t(n) * n * sizeof(float);
  unsigned workers = weft::worker_count();

  Matrix A{n, n, n, nullptr}, B{n, n, n, nullptr}, C{n, n, n, nullptr}, P{n, n, n, nullptr};
  cudaMalloc(&A.elements, bytes);
  cudaMalloc(&B.elements, bytes);
  cudaMalloc(&C.elements, bytes);
  cudaMalloc(&P.elements, bytes);
  fill(A.elements, std::size_t(n) * n, 3);
  fill(B.elements, std::size_t(n) * n, 4);

  bool ok = true;
  auto weft_run = [&] {
    weft::launch(dim3(n / BLOCK_SIZE, n / BLOCK_SIZE), dim3(BLOCK_SIZE, BLOCK_SIZE), MatMulKernel, A, B, C);
    ok &= check(cudaDeviceSynchronize(), "matmul");
  };
  // The result must agree with the plain loop's to float rounding; both sum
  // in the same order, so they normally agree exactly.
  auto agrees = [&] {
    for (std::size_t i = 0; i < std::size_t(n) * n; ++i)
      if (std::fabs(C.elements[i] - P.elements[i]) > 1e-3f * (1 + std::fabs(P.elements[i]))) return false;
    return true;
  };

  std::string size = std::to_string(n) + "x" + std::to_string(n);
  pair_timing t = measure_pair(o.repeat, weft_run, [&] { plain_matmul(A, B, P, workers, false); });
  ok &= agrees();
  rows.push_back({"tiled matmul " + size + ", 16x16 __shared__ tiles", t,
                  std::string("plain loops row,col,e per tile (the kernel's order)") + (ok ? "" : "; WRONG RESULT")});
  pair_timing s = measure_pair(o.repeat, weft_run, [&] { plain_matmul(A, B, P, workers, true); });
  ok &= agrees();
  rows.push_back({"  same, plain loops in another order", s,
                  std::string("plain loops row,e,col per tile") + (ok ? "" : "; WRONG RESULT")});
  double flops = 2.0 * n * n * n;
  std::printf(
      "matmul %s: weft %.2f GFLOP/s (mean of its two medians); plain %.2f GFLOP/s (row,col,e), %.2f GFLOP/s "
      "(row,e,col)\n",
      size.c_str(), (flops / t.weft + flops / s.weft) / 2e9, flops / t.plain / 1e9, flops / s.plain / 1e9);

  for (float* p : {A.elements, B.elements, C.elements, P.elements}) cudaFree(p);
  return ok;
}

// ---------------------------------------------------------------------------
// 3. Barrier cost, against a raw Boost.Context switch

// Keeps a loop the optimiser would otherwise delete.
inline void compiler_barrier() { asm volatile("" ::: "memory"); }

__global__ void BarrierLoop(int iterations) {
  for (int i = 0; i < iterations; ++i) {
    compiler_barrier();
    __syncthreads();
  }
}

__global__ void EmptyLoop(int iterations) {
  for (int i = 0; i < iterations; ++i) compiler_barrier();
}

namespace fctx = boost::context::detail;

// The two switches a ring can make: Boost.Context's own, and weft's
// (detail/fibers/context_switch.hpp: no floating-point control words, and
// written into the caller, as where a CUDA thread parks).
struct boost_switch {
  using fcontext_t = fctx::fcontext_t;
  using transfer_t = fctx::transfer_t;
  static transfer_t jump(fcontext_t to, void* data) { return fctx::jump_fcontext(to, data); }
  static fcontext_t make(void* top, std::size_t size, void (*entry)(transfer_t)) {
    return fctx::make_fcontext(top, size, entry);
  }
};

struct weft_switch {
  using fcontext_t = weft::detail::fctx::fcontext_t;
  using transfer_t = weft::detail::fctx::transfer_t;
  static transfer_t jump(fcontext_t to, void* data) { return weft::detail::jump_context_inline(to, data); }
  static fcontext_t make(void* top, std::size_t size, void (*entry)(transfer_t)) {
    return weft::detail::fctx::make_fcontext(top, size, entry);
  }
};

// Where a ring's fibers live. Stacks are mapped as weft maps them (64 KiB and
// a guard page each), so their tops share a page offset unless staggered:
// fiber i's top moved down by (i mod 61) x 64 bytes, as weft's block
// executor does. `line_aligned` moves every top down a little further, so
// that the frame each switch saves starts a cache line (one line per fiber,
// not two); `packed` puts four 1 KiB stacks to a page (64 pages for 256
// fibers instead of 256), to tell what the first-level TLB costs apart from
// what the cache does (docs/performance.md, "What is slow, and why").
enum class ring_layout { same_offset, staggered, line_aligned, packed };

// A ring of fcontexts on their own stacks, each jumping straight to the next:
// the pattern in which a completed barrier resumes a block's parked threads.
template <class Switch>
class fcontext_ring {
  using fcontext_t = typename Switch::fcontext_t;
  using transfer_t = typename Switch::transfer_t;

 public:
  fcontext_ring(unsigned count, ring_layout layout, std::size_t extra_offset = 0) {
    self = this;
    contexts_.resize(count);
    bool packed = layout == ring_layout::packed;
    char* packed_stacks = nullptr;
    if (packed) packed_stacks = static_cast<char*>(map(count * packed_stride + guard));
    for (unsigned i = 0; i < count; ++i) {
      char* top;
      std::size_t size;
      if (packed) {
        top = packed_stacks + guard + (i + 1) * packed_stride;
        size = packed_stride - 64;
      } else {
        char* p = static_cast<char*>(map(mapped));
        std::size_t stagger = layout == ring_layout::same_offset ? 0 : i % 61 * 64;
        top = p + mapped - stagger;
        size = usable - stagger;
      }
      fcontext_t c = Switch::make(top - extra_offset, size - extra_offset, entry);
      contexts_[i] = Switch::jump(c, reinterpret_cast<void*>(std::uintptr_t{i})).fctx;  // parked
    }
  }
  // The fibers stay parked in their loops for good; their stacks hold nothing to destroy.
  ~fcontext_ring() {
    for (auto [p, length] : mappings_) ::munmap(p, length);
  }

  /// Makes about `switches` jumps around the ring, going on where the last call stopped.
  void run(long switches) {
    remaining_ = switches;
    transfer_t t = Switch::jump(contexts_[next_], from_host);
    contexts_[last_] = t.fctx;
    next_ = (last_ + 1) % contexts_.size();
  }

  /// How far past a cache line's start a fiber's saved frame lies, once the
  /// ring has gone round: the same for every fiber, whose tops differ by
  /// whole lines and which all park in the same loop.
  std::size_t frame_line_offset() const { return reinterpret_cast<std::uintptr_t>(contexts_[next_]) % 64; }

 private:
  static constexpr std::size_t guard = 4096, usable = 64 * 1024, mapped = usable + guard;
  static constexpr std::size_t packed_stride = 1024 + 64;  // four to a page, staggered by a line
  static inline void* const from_host = reinterpret_cast<void*>(1);
  static inline fcontext_ring* self = nullptr;

  void* map(std::size_t length) {
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::mprotect(p, guard, PROT_NONE);
    mappings_.push_back({p, length});
    return p;
  }

  static void entry(transfer_t t) {
    fcontext_ring& r = *self;
    std::size_t i = reinterpret_cast<std::uintptr_t>(t.data), n = r.contexts_.size();
    t = Switch::jump(t.fctx, nullptr);  // set up: back to the constructor
    // Neighbours without a division: two 64-bit divisions per switch made
    // the ring cost more than a barrier (docs/performance.md, log).
    std::size_t previous = i == 0 ? n - 1 : i - 1, next = i + 1 == n ? 0 : i + 1;
    for (;;) {
      // Whoever jumped here is parked at t.fctx: the host, or the previous fiber.
      if (t.data == from_host)
        r.host_ = t.fctx;
      else
        r.contexts_[previous] = t.fctx;
      if (--r.remaining_ == 0) {
        r.last_ = i;
        t = Switch::jump(r.host_, nullptr);
      } else {
        t = Switch::jump(r.contexts_[next], nullptr);
      }
    }
  }

  std::vector<fcontext_t> contexts_;
  std::vector<std::pair<void*, std::size_t>> mappings_;
  fcontext_t host_ = nullptr;
  long remaining_ = 0;
  std::size_t last_ = 0, next_ = 0;
};

// Times a ring. A line-aligned ring first goes round once as laid out to
// find where its frames fall, then is laid out again that much lower (a
// stack top must stay 16-byte aligned: a frame 8 bytes off a line cannot be
// moved onto one, and the row then says so with a negative time).
template <class Switch = boost_switch>
timing ring_switches(unsigned count, ring_layout layout, long switches, int repeat) {
  std::size_t extra = 0;
  if (layout == ring_layout::line_aligned || layout == ring_layout::packed) {
    fcontext_ring<Switch> probe(count, layout == ring_layout::packed ? layout : ring_layout::staggered);
    probe.run(2 * count + 1);
    extra = probe.frame_line_offset();
    if (extra % 16 != 0) return {-1, -1};
  }
  fcontext_ring<Switch> ring(count, layout == ring_layout::line_aligned ? ring_layout::staggered : layout, extra);
  return measure(repeat, [&] { ring.run(switches); });
}

// Two boost::context::fiber ping-ponging: 2 x round_trips resumes.
timing fiber_switches(long round_trips, int repeat) {
  namespace ctx = boost::context;
  return measure(repeat, [&] {
    ctx::fiber f{[round_trips](ctx::fiber&& main) {
      for (long i = 0; i < round_trips; ++i) main = std::move(main).resume();
      return std::move(main);
    }};
    for (long i = 0; i <= round_trips; ++i) f = std::move(f).resume();
  });
}

bool bench_barrier(const options& o) {
  const int threads = 256;
  const int iterations = o.quick ? 100 : 1000;
  // Short runs, many of them: a run of a few milliseconds on a shared
  // machine is often cut by the scheduler, and the best run is the one read.
  const long switches = o.quick ? 20000 : 200000;
  const int repeat = 3 * o.repeat;  // each run is short, and the subtraction needs a steady baseline
  unsigned saved_workers = weft::worker_count();
  weft::set_worker_count(1);

  bool ok = true;
  auto launch = [&](void (*kernel)(int)) {
    return [&, kernel] {
      weft::launch(1, threads, kernel, iterations);
      ok &= check(cudaDeviceSynchronize(), "barrier");
    };
  };
  pair_timing t = measure_pair(repeat, launch(BarrierLoop), launch(EmptyLoop));
  weft::set_worker_count(saved_workers);

  double per_event = 1e9 / (double(threads) * iterations);
  double net = (t.weft - t.plain) * per_event, net_best = (t.weft_min - t.plain_min) * per_event;
  std::printf("\nbarrier: 1 block of %d threads on 1 SM worker, %d iterations of __syncthreads(), %d runs\n", threads,
              iterations, repeat);
  std::printf("  %-52s %10s %12s %12s\n", "ns per thread per iteration", "median run", "median", "best run");
  std::printf("  %-52s %10s %12.2f %12.2f\n", "kernel with the __syncthreads loop", pretty_time(t.weft).c_str(),
              t.weft * per_event, t.weft_min * per_event);
  std::printf("  %-52s %10s %12.2f %12.2f\n", "same kernel, loop without the barrier (baseline)",
              pretty_time(t.plain).c_str(), t.plain * per_event, t.plain_min * per_event);
  std::printf("  %-52s %10s %12.2f %12.2f  %s\n", "net cost of one barrier per thread", "", net, net_best,
              verdict(o, "target <= 5", net <= 5).c_str());

  std::printf("\n  raw context switches, for comparison (ns per switch)                       median     best run\n");
  auto show = [](const char* name, timing s, long count) {
    if (s.best < 0)
      std::printf("  %-70s %22s\n", name, "(frames 8 bytes off a line)");
    else
      std::printf("  %-70s %9.2f %12.2f\n", name, s.median * 1e9 / count, s.best * 1e9 / count);
  };
  show("boost::context::fiber::resume, 2 fibers ping-ponging", fiber_switches(switches / 2, repeat), switches);
  using enum ring_layout;
  show("jump_fcontext, ring of 2 fibers on 64 KiB mmap'ed stacks", ring_switches(2, same_offset, switches, repeat),
       switches);
  show("jump_fcontext, ring of 256, all stack tops at one page offset",
       ring_switches(threads, same_offset, switches, repeat), switches);
  show("jump_fcontext, ring of 256, tops staggered (i mod 61) x 64 B as weft's",
       ring_switches(threads, staggered, switches, repeat), switches);
  show("weft's switch, ring of 2 fibers", ring_switches<weft_switch>(2, same_offset, switches, repeat), switches);
  show("weft's switch, ring of 256, tops staggered (i mod 61) x 64 B as weft's",
       ring_switches<weft_switch>(threads, staggered, switches, repeat), switches);
  show("  the same, each saved frame on one cache line, not two",
       ring_switches<weft_switch>(threads, line_aligned, switches, repeat), switches);
  show("  the same, and 1 KiB stacks four to a page: 64 pages, not 256",
       ring_switches<weft_switch>(threads, packed, switches, repeat), switches);
  return ok;
}

// The same barrier loop as a stackless kernel (weft/stackless_kernel.hpp):
// each CUDA thread a coroutine that the stackless executor resumes in
// order, against the fiber executor's __syncthreads, in the same run.
weft::stackless_kernel StacklessBarrierLoop(int iterations) {
  for (int i = 0; i < iterations; ++i) {
    compiler_barrier();
    co_await weft::syncthreads();
  }
}

weft::stackless_kernel StacklessEmptyLoop(int iterations) {
  for (int i = 0; i < iterations; ++i) compiler_barrier();
  co_return;
}

bool bench_stackless_barrier(const options& o) {
  const int threads = 256;
  const int iterations = o.quick ? 100 : 1000;
  const int repeat = 3 * o.repeat;
  unsigned saved_workers = weft::worker_count();
  weft::set_worker_count(1);

  bool ok = true;
  auto launch = [&](auto kernel) {
    return [&, kernel] {
      weft::launch(1, threads, kernel, iterations);
      ok &= check(cudaDeviceSynchronize(), "stackless barrier");
    };
  };
  pair_timing stackless = measure_pair(repeat, launch(&StacklessBarrierLoop), launch(&StacklessEmptyLoop));
  pair_timing fibers = measure_pair(repeat, launch(&BarrierLoop), launch(&EmptyLoop));
  weft::set_worker_count(saved_workers);

  double per_event = 1e9 / (double(threads) * iterations);
  auto net = [&](const pair_timing& t) { return (t.weft - t.plain) * per_event; };
  auto net_best = [&](const pair_timing& t) { return (t.weft_min - t.plain_min) * per_event; };
  std::printf("\nbarrier, stackless kernel: 1 block of %d threads on 1 SM worker, %d iterations, %d runs each\n",
              threads, iterations, repeat);
  std::printf("  %-52s %10s %12s %12s\n", "ns per thread per iteration", "median run", "median", "best run");
  std::printf("  %-52s %10s %12.2f %12.2f\n", "stackless kernel, co_await weft::syncthreads() loop",
              pretty_time(stackless.weft).c_str(), stackless.weft * per_event, stackless.weft_min * per_event);
  std::printf("  %-52s %10s %12.2f %12.2f\n", "same, loop without the barrier (baseline)",
              pretty_time(stackless.plain).c_str(), stackless.plain * per_event, stackless.plain_min * per_event);
  std::printf("  %-52s %10s %12.2f %12.2f  %s\n", "net cost of one barrier per thread, stackless", "", net(stackless),
              net_best(stackless), verdict(o, "target <= 3", net(stackless) <= 3).c_str());
  std::printf("  %-52s %10s %12.2f %12.2f  %s\n", "net cost of one barrier per thread, fibers, this run", "",
              net(fibers), net_best(fibers), verdict(o, "target <= 5", net(fibers) <= 5).c_str());
  return ok;
}

// What a 1024-thread block's CUDA threads hold while they wait at a
// barrier: the growth of the process's resident memory over the first such
// block, measured in a child process of its own (a fresh worker, whose
// fiber stacks or frame arena have never held a block that large), after
// 32-thread blocks of both kinds have brought in the code and the runtime.
// Fibers: the stack pages each thread touched; stackless: the coroutine
// frames and the executor's per-thread state. Page-granular.
long resident_kib() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, status))
    if (std::sscanf(line, "RssAnon: %ld kB", &kib) == 1) break;
  std::fclose(status);
  return kib;
}

int thread_state_child(bool stackless) {
  weft::set_worker_count(1);
  weft::launch(1, 32, BarrierLoop, 1);
  weft::launch(1, 32, StacklessBarrierLoop, 1);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  long before = resident_kib();
  if (stackless)
    weft::launch(1, 1024, StacklessBarrierLoop, 10);
  else
    weft::launch(1, 1024, BarrierLoop, 10);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  std::printf("thread-state\t%ld\n", resident_kib() - before);
  return 0;
}

bool bench_thread_state() {
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return false;
  auto measure = [&](const char* kind) {
    std::string command = std::string("'") + self + "' --thread-state " + kind;
    std::FILE* child = popen(command.c_str(), "r");
    long kib = -1;
    char line[256];
    while (child && std::fgets(line, sizeof line, child)) std::sscanf(line, "thread-state\t%ld", &kib);
    bool ran = child && pclose(child) == 0;
    return ran ? kib : -1;
  };
  long stackless = measure("stackless"), fibers = measure("fibers");
  std::printf("\nthread state of one 1024-thread block waiting at a barrier (resident memory it added, KiB)\n");
  std::printf("  %-52s %10ld  %s\n", "stackless kernel: frames and per-thread state", stackless,
              stackless >= 0 && stackless <= 256 ? "target <= 256 KiB: met" : "target <= 256 KiB: MISSED");
  std::printf("  %-52s %10ld\n", "fibers: the stack pages the threads touched", fibers);
  return stackless >= 0 && fibers >= 0;
}

// ---------------------------------------------------------------------------
// 4. Warp shuffle reduction cost

// The CUDA guide's warp sum, `iterations` times: five __shfl_down_sync per
// reduction, each a rendezvous of the warp's 32 lanes. The result is kept so
// that the loop cannot be dropped; every lane 0 checks its sum.
__global__ void ShuffleReduceLoop(int iterations, int* wrong) {
  for (int i = 0; i < iterations; ++i) {
    int v = static_cast<int>(threadIdx.x % 32) + i;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0 && v != 496 + 32 * i) atomicAdd(wrong, 1);
  }
}

__global__ void ShuffleFreeLoop(int iterations, int* wrong) {
  for (int i = 0; i < iterations; ++i) {
    int v = static_cast<int>(threadIdx.x % 32) + i;
    compiler_barrier();
    if (v < 0) atomicAdd(wrong, 1);
  }
}

bool bench_warp(const options& o) {
  const int threads = 256;
  const int iterations = o.quick ? 20 : 200;
  const int repeat = 3 * o.repeat;
  unsigned saved_workers = weft::worker_count();
  weft::set_worker_count(1);
  int* wrong = nullptr;
  bool ok = check(cudaMalloc(&wrong, sizeof(int)), "warp") && check(cudaMemset(wrong, 0, sizeof(int)), "warp");
  auto launch = [&](void (*kernel)(int, int*)) {
    return [&, kernel] {
      weft::launch(1, threads, kernel, iterations, wrong);
      ok &= check(cudaDeviceSynchronize(), "warp");
    };
  };
  pair_timing t = measure_pair(repeat, launch(ShuffleReduceLoop), launch(ShuffleFreeLoop));
  int wrong_count = 0;
  ok &= check(cudaMemcpy(&wrong_count, wrong, sizeof(int), cudaMemcpyDeviceToHost), "warp");
  ok &= wrong_count == 0;
  cudaFree(wrong);
  weft::set_worker_count(saved_workers);

  double per_reduction = 1e9 / (double(threads) * iterations);
  double net = (t.weft - t.plain) * per_reduction, net_best = (t.weft_min - t.plain_min) * per_reduction;
  std::printf(
      "\nwarp: 1 block of %d threads on 1 SM worker, %d iterations of a 5-step __shfl_down_sync reduction, %d runs\n",
      threads, iterations, repeat);
  std::printf("  %-52s %10s %12s %12s\n", "ns per thread per reduction (5 shuffles)", "median run", "median",
              "best run");
  std::printf("  %-52s %10s %12.2f %12.2f\n", "kernel with the shuffle reduction", pretty_time(t.weft).c_str(),
              t.weft * per_reduction, t.weft_min * per_reduction);
  std::printf("  %-52s %10s %12.2f %12.2f\n", "same loop without shuffles (baseline)", pretty_time(t.plain).c_str(),
              t.plain * per_reduction, t.plain_min * per_reduction);
  std::printf("  %-52s %10s %12.2f %12.2f  %s\n", "net cost of one 5-step reduction per thread", "", net, net_best,
              verdict(o, "target <= 40", net <= 40).c_str());
  if (wrong_count != 0) std::printf("  WRONG RESULT: %d warp sums were wrong\n", wrong_count);
  return ok;
}

// The same warp sum as a stackless kernel: each shuffle a co_await of
// weft::shfl_down_sync, against the fiber executor's __shfl_down_sync in
// the same run.
weft::stackless_kernel StacklessShuffleReduceLoop(int iterations, int* wrong) {
  for (int i = 0; i < iterations; ++i) {
    int v = static_cast<int>(threadIdx.x % 32) + i;
    for (int offset = 16; offset > 0; offset /= 2) v += co_await weft::shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0 && v != 496 + 32 * i) atomicAdd(wrong, 1);
  }
}

weft::stackless_kernel StacklessShuffleFreeLoop(int iterations, int* wrong) {
  for (int i = 0; i < iterations; ++i) {
    int v = static_cast<int>(threadIdx.x % 32) + i;
    compiler_barrier();
    if (v < 0) atomicAdd(wrong, 1);
  }
  co_return;
}

bool bench_stackless_warp(const options& o) {
  const int threads = 256;
  const int iterations = o.quick ? 20 : 200;
  const int repeat = 3 * o.repeat;
  unsigned saved_workers = weft::worker_count();
  weft::set_worker_count(1);
  int* wrong = nullptr;
  bool ok = check(cudaMalloc(&wrong, sizeof(int)), "stackless warp") &&
            check(cudaMemset(wrong, 0, sizeof(int)), "stackless warp");
  auto launch = [&](auto kernel) {
    return [&, kernel] {
      weft::launch(1, threads, kernel, iterations, wrong);
      ok &= check(cudaDeviceSynchronize(), "stackless warp");
    };
  };
  pair_timing stackless = measure_pair(repeat, launch(&StacklessShuffleReduceLoop), launch(&StacklessShuffleFreeLoop));
  pair_timing fibers = measure_pair(repeat, launch(&ShuffleReduceLoop), launch(&ShuffleFreeLoop));
  int wrong_count = 0;
  ok &= check(cudaMemcpy(&wrong_count, wrong, sizeof(int), cudaMemcpyDeviceToHost), "stackless warp");
  ok &= wrong_count == 0;
  cudaFree(wrong);
  weft::set_worker_count(saved_workers);

  double per_reduction = 1e9 / (double(threads) * iterations);
  auto net = [&](const pair_timing& t) { return (t.weft - t.plain) * per_reduction; };
  auto net_best = [&](const pair_timing& t) { return (t.weft_min - t.plain_min) * per_reduction; };
  std::printf("\nwarp, stackless kernel: 1 block of %d threads on 1 SM worker, %d iterations, %d runs each\n", threads,
              iterations, repeat);
  std::printf("  %-52s %10s %12s %12s\n", "ns per thread per reduction (5 shuffles)", "median run", "median",
              "best run");
  std::printf("  %-52s %10s %12.2f %12.2f\n", "stackless kernel, co_await weft::shfl_down_sync",
              pretty_time(stackless.weft).c_str(), stackless.weft * per_reduction, stackless.weft_min * per_reduction);
  std::printf("  %-52s %10s %12.2f %12.2f\n", "same loop without shuffles (baseline)",
              pretty_time(stackless.plain).c_str(), stackless.plain * per_reduction,
              stackless.plain_min * per_reduction);
  std::printf("  %-52s %10s %12.2f %12.2f  %s\n", "net cost of one 5-step reduction per thread, stackless", "",
              net(stackless), net_best(stackless), verdict(o, "target <= 25", net(stackless) <= 25).c_str());
  std::printf("  %-52s %10s %12.2f %12.2f  %s\n", "net cost of one 5-step reduction per thread, fibers", "",
              net(fibers), net_best(fibers), verdict(o, "target <= 40", net(fibers) <= 40).c_str());
  if (wrong_count != 0) std::printf("  WRONG RESULT: %d warp sums were wrong\n", wrong_count);
  return ok;
}

// ---------------------------------------------------------------------------
// 5. Launch overhead: an empty kernel launched and waited for, one at a
// time (the round trip through the SM workers), and launches enqueued behind
// a held stream (what the launching thread pays per launch).
//
// The round trip is timed two ways, in alternating runs under the same load:
// each launch + cudaDeviceSynchronize on its own, the kernel passed by
// address, the median trip reported (the row this benchmark always had); and
// a loop of them timed whole, the kernel spelt as weft-port writes
// `NothingKernel<<<1, 1>>>()` (issue 17's loop, as a ported .cu runs it), the
// loop's mean per trip reported. A median leaves out the trips that a
// preempted or sleeping thread stretches; a mean does not, so on a loaded
// machine the second row is the higher (docs/performance.md, "Launch
// latency"). Then the same loop ends with cudaStreamSynchronize, with an
// event's record and cudaEventSynchronize, and with a cudaMemcpy of the
// kernel's result instead.

__global__ void NothingKernel() {}
__global__ void StoreOne(int* out) { *out = 1; }

bool bench_launch(const options& o) {
  const int round_trips = o.quick ? 200 : 5000;
  const int enqueued = o.quick ? 1000 : 20000;
  const int ported_runs = o.quick ? 3 : 21;
  bool ok = true;

  std::vector<double> trip, ported;
  trip.reserve(round_trips);
  auto by_address = [&](int count, bool timed) {
    for (int i = 0; i < count; ++i) {
      auto start = clock_type::now();
      weft::launch(1, 1, NothingKernel);
      ok &= check(cudaDeviceSynchronize(), "launch");
      if (timed) trip.push_back(seconds_since(start));
    }
  };
  auto as_ported = [&](int count) {
    for (int i = 0; i < count; ++i) {
      weft::launch<NothingKernel>(weft::launch_config{1, 1});
      ok &= check(cudaDeviceSynchronize(), "launch");
    }
  };
  by_address(round_trips / 10, false);  // warming up
  as_ported(round_trips / 10);
  for (int r = 0; r < ported_runs; ++r) {
    by_address(round_trips / ported_runs, true);
    ported.push_back(time_once([&] { as_ported(round_trips / ported_runs); }) / (round_trips / ported_runs));
  }

  // The same loop with the other waits a program writes after a launch:
  // its stream's, an event recorded after it, and a copy of its result.
  cudaStream_t own = nullptr;
  cudaEvent_t recorded = nullptr;
  int* result = nullptr;
  ok &= check(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking), "launch");
  ok &= check(cudaEventCreateWithFlags(&recorded, cudaEventDisableTiming), "launch");
  ok &= check(cudaMalloc(&result, sizeof(int)), "launch");
  const int wait_trips = round_trips / ported_runs;
  auto loop_mean = [&](auto&& trip) {
    std::vector<double> means;
    for (int i = 0; i < wait_trips; ++i) trip();  // warming up
    for (int r = 0; r < ported_runs; ++r)
      means.push_back(time_once([&] {
                        for (int i = 0; i < wait_trips; ++i) trip();
                      }) /
                      wait_trips);
    return median(means) * 1e6;
  };
  double stream_mean = loop_mean([&] {
    weft::launch<NothingKernel>(weft::launch_config{1, 1, 0, own});
    ok &= check(cudaStreamSynchronize(own), "launch");
  });
  double event_mean = loop_mean([&] {
    weft::launch<NothingKernel>(weft::launch_config{1, 1});
    ok &= check(cudaEventRecord(recorded), "launch");
    ok &= check(cudaEventSynchronize(recorded), "launch");
  });
  double copy_mean = loop_mean([&] {
    int copied = 0;
    weft::launch<StoreOne>(weft::launch_config{1, 1}, result);
    ok &= check(cudaMemcpy(&copied, result, sizeof copied, cudaMemcpyDeviceToHost), "launch");
    ok &= copied == 1;
  });
  cudaFree(result);
  cudaEventDestroy(recorded);
  cudaStreamDestroy(own);

  cudaStream_t stream;
  ok &= check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "launch");
  int* gate = nullptr;
  ok &= check(cudaMallocManaged(&gate, sizeof(int)), "launch");
  std::vector<double> per_launch;
  for (int r = 0; r < o.repeat; ++r) {
    std::atomic_ref<int>(*gate).store(0);
    weft::launch(
        {1, 1, 0, stream},
        [](int* g) {
          while (std::atomic_ref<int>(*g).load() == 0) std::this_thread::yield();
        },
        gate);
    auto start = clock_type::now();
    for (int i = 0; i < enqueued; ++i) weft::launch({1, 1, 0, stream}, NothingKernel);
    per_launch.push_back(seconds_since(start) / enqueued);
    std::atomic_ref<int>(*gate).store(1);
    ok &= check(cudaStreamSynchronize(stream), "launch");
  }
  cudaFree(gate);
  cudaStreamDestroy(stream);

  double trip_median = median(trip) * 1e6, enqueue_median = median(per_launch) * 1e6;
  double trip_mean = std::accumulate(trip.begin(), trip.end(), 0.0) / static_cast<double>(trip.size()) * 1e6;
  double ported_median = median(ported) * 1e6;
  std::printf(
      "\nlaunch: empty kernel <<<1, 1>>>, %d round trips each way (alternating runs of %d); %d launches enqueued "
      "behind a held stream, %d runs\n",
      round_trips, round_trips / ported_runs, enqueued, o.repeat);
  std::printf("  %-56s %6.2f us  %s\n", "launch + cudaDeviceSynchronize (median)", trip_median,
              verdict(o, "target <= 3 us", trip_median <= 3).c_str());
  std::printf("  %-56s %6.2f us\n", "launch + cudaDeviceSynchronize (fastest)",
              *std::min_element(trip.begin(), trip.end()) * 1e6);
  std::printf("  %-56s %6.2f us\n", "launch + cudaDeviceSynchronize (mean of the same)", trip_mean);
  std::printf("  %-56s %6.2f us  %s\n", "Kernel<<<1, 1>>>() as ported + sync, loop mean (median)", ported_median,
              verdict(o, "target <= 1 us", ported_median <= 1).c_str());
  std::printf("  %-56s %6.2f us\n", "Kernel<<<1, 1>>>() as ported + sync, loop mean (best)",
              *std::min_element(ported.begin(), ported.end()) * 1e6);
  std::printf("  %-56s %6.2f us\n", "... + cudaStreamSynchronize, loop mean (median)", stream_mean);
  std::printf("  %-56s %6.2f us\n", "... + cudaEventRecord + Synchronize, loop mean (median)", event_mean);
  std::printf("  %-56s %6.2f us\n", "... + cudaMemcpy of its result, loop mean (median)", copy_mean);
  std::printf("  %-56s %6.3f us  %s\n", "asynchronous launch enqueue (median run)", enqueue_median,
              verdict(o, "target <= 0.5 us", enqueue_median <= 0.5).c_str());
  return ok;
}

// ---------------------------------------------------------------------------
// 6. Warp matrix multiply: mma_sync (m16n16k16, half factors, float
// accumulators) as cuda-samples' tensor-core GEMMs call it, each warp
// holding 2 x 4 accumulators and loading 2 A and 4 B fragments per step,
// against the same 16x16x16 tile products as a plain float loop. Factors
// are small integers, so every sum is exact and both sides must agree.

constexpr int wmma_warps = 8, wmma_steps_per_tile = 8;

__global__ void WarpMatrixLoop(const __half* a, const __half* b, float* d, int steps) {
  using namespace nvcuda;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[2][4];
  for (auto& row : c)
    for (auto& f : row) wmma::fill_fragment(f, 0.0f);
  for (int s = 0; s < steps; ++s) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb[4];
    int tile = s % wmma_steps_per_tile;
    for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], a + (tile * 2 + i) * 256, 16);
    for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(fb[j], b + (tile * 4 + j) * 256, 16);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) wmma::mma_sync(c[i][j], fa[i], fb[j], c[i][j]);
  }
  float* mine = d + (threadIdx.x / 32) * 8 * 256;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) wmma::store_matrix_sync(mine + (i * 4 + j) * 256, c[i][j], 16, wmma::mem_row_major);
}

// The same products as plain loops: A row-major, B column-major, D row-major.
void plain_warp_matrix_loop(const float* a, const float* b, float* d, int steps) {
  for (int w = 0; w < wmma_warps; ++w) {
    float* mine = d + w * 8 * 256;
    std::fill(mine, mine + 8 * 256, 0.0f);
    for (int s = 0; s < steps; ++s) {
      int tile = s % wmma_steps_per_tile;
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) {
          const float* ta = a + (tile * 2 + i) * 256;
          const float* tb = b + (tile * 4 + j) * 256;
          float* td = mine + (i * 4 + j) * 256;
          for (int r = 0; r < 16; ++r)
            for (int col = 0; col < 16; ++col) {
              float sum = td[r * 16 + col];
              for (int k = 0; k < 16; ++k) sum += ta[r * 16 + k] * tb[col * 16 + k];
              td[r * 16 + col] = sum;
            }
        }
    }
  }
}

bool bench_wmma(const options& o) {
  const int steps = o.quick ? 8 : 200;
  const int repeat = o.repeat;
  const std::size_t a_count = wmma_steps_per_tile * 2 * 256, b_count = wmma_steps_per_tile * 4 * 256;
  const std::size_t d_count = wmma_warps * 8 * 256;
  unsigned saved_workers = weft::worker_count();
  weft::set_worker_count(1);
  __half *a = nullptr, *b = nullptr;
  float* d = nullptr;
  bool ok = check(cudaMallocManaged(&a, a_count * sizeof(__half)), "wmma") &&
            check(cudaMallocManaged(&b, b_count * sizeof(__half)), "wmma") &&
            check(cudaMallocManaged(&d, d_count * sizeof(float)), "wmma");
  std::vector<float> fa(a_count), fb(b_count), plain_d(d_count);
  for (std::size_t i = 0; i < a_count; ++i) fa[i] = float(int(i * 7 % 5) - 2), a[i] = __float2half(fa[i]);
  for (std::size_t i = 0; i < b_count; ++i) fb[i] = float(int(i * 3 % 7) - 3), b[i] = __float2half(fb[i]);
  pair_timing t = measure_pair(
      repeat,
      [&] {
        weft::launch(1, wmma_warps * 32, WarpMatrixLoop, a, b, d, steps);
        ok &= check(cudaDeviceSynchronize(), "wmma");
      },
      [&] { plain_warp_matrix_loop(fa.data(), fb.data(), plain_d.data(), steps); });
  ok &= std::equal(plain_d.begin(), plain_d.end(), d);
  cudaFree(a);
  cudaFree(b);
  cudaFree(d);
  weft::set_worker_count(saved_workers);

  double calls = double(wmma_warps) * steps * 8;
  std::printf(
      "\nwmma: 1 block of %d warps on 1 SM worker, %d steps of 2 x 4 mma_sync (m16n16k16, half -> float), "
      "%d runs\n",
      wmma_warps, steps, repeat);
  std::printf("  %-52s %10s %12s %12s\n", "us per 16x16x16 tile product", "median run", "median", "best run");
  std::printf("  %-52s %10s %12.3f %12.3f\n", "mma_sync", pretty_time(t.weft).c_str(), t.weft / calls * 1e6,
              t.weft_min / calls * 1e6);
  std::printf("  %-52s %10s %12.3f %12.3f\n", "plain float loop, same products", pretty_time(t.plain).c_str(),
              t.plain / calls * 1e6, t.plain_min / calls * 1e6);
  if (!ok) std::printf("  WRONG RESULT: mma_sync and the plain loop disagree\n");
  return ok;
}

// ---------------------------------------------------------------------------
// 7. Graph replay: a chain of 100 small kernels (<<<1, 32>>>, each adding to
// a counter) launched into a stream one by one, against one launch of an
// executable graph of the same 100 kernel nodes. Host time is what the
// launching thread pays (the 100 launch calls, or the one cudaGraphLaunch);
// total time runs until cudaStreamSynchronize returns.

__global__ void CountKernel(int* counter) {
  if (threadIdx.x == 0) *counter += 1;
}

bool bench_graph(const options& o) {
  const int kernels = 100;
  const int repeat = std::max(o.repeat, o.quick ? 3 : 31);
  static bool registered = weft::register_kernel<&CountKernel>();
  (void)registered;
  bool ok = true;
  cudaStream_t stream;
  ok &= check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "graph");
  int* counter = nullptr;
  ok &= check(cudaMallocManaged(&counter, sizeof(int)), "graph");
  *counter = 0;

  cudaGraph_t graph;
  ok &= check(cudaGraphCreate(&graph, 0), "graph");
  cudaGraphNode_t previous = nullptr;
  void* args[] = {&counter};
  cudaKernelNodeParams params = {};
  params.func = reinterpret_cast<void*>(CountKernel);
  params.gridDim = dim3(1);
  params.blockDim = dim3(32);
  params.kernelParams = args;
  for (int i = 0; i < kernels; ++i) {
    cudaGraphNode_t node;
    ok &=
        check(cudaGraphAddKernelNode(&node, graph, previous ? &previous : nullptr, previous ? 1 : 0, &params), "graph");
    previous = node;
  }
  cudaGraphExec_t exec;
  ok &= check(cudaGraphInstantiate(&exec, graph, 0), "graph");

  std::vector<double> stream_host, stream_total, graph_host, graph_total;
  auto run_stream = [&] {
    auto start = clock_type::now();
    for (int i = 0; i < kernels; ++i) weft::launch({1, 32, 0, stream}, CountKernel, counter);
    stream_host.push_back(seconds_since(start));
    ok &= check(cudaStreamSynchronize(stream), "graph");
    stream_total.push_back(seconds_since(start));
  };
  auto run_graph = [&] {
    auto start = clock_type::now();
    ok &= check(cudaGraphLaunch(exec, stream), "graph");
    graph_host.push_back(seconds_since(start));
    ok &= check(cudaStreamSynchronize(stream), "graph");
    graph_total.push_back(seconds_since(start));
  };
  run_stream();
  run_graph();
  stream_host.clear(), stream_total.clear(), graph_host.clear(), graph_total.clear();
  for (int r = 0; r < repeat; ++r) {
    run_stream();
    run_graph();
  }
  ok &= *counter == kernels * 2 * (repeat + 1);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(counter);
  cudaStreamDestroy(stream);

  double host_ratio = median(graph_host) / median(stream_host);
  double total_ratio = median(graph_total) / median(stream_total);
  std::printf("\ngraph: a chain of %d kernels <<<1, 32>>> into a stream one by one, and as one graph launch, %d runs\n",
              kernels, repeat);
  std::printf("  %-52s %12s %12s\n", "", "host time", "total time");
  std::printf("  %-52s %12s %12s\n", "100 launches into a stream (median)", pretty_time(median(stream_host)).c_str(),
              pretty_time(median(stream_total)).c_str());
  std::printf("  %-52s %12s %12s\n", "one cudaGraphLaunch of 100 nodes (median)",
              pretty_time(median(graph_host)).c_str(), pretty_time(median(graph_total)).c_str());
  std::printf("  %-52s %12.2f %12.2f  %s\n", "graph / stream", host_ratio, total_ratio,
              verdict(o, "target host <= 0.33 and total < 1", host_ratio <= 1.0 / 3 && total_ratio < 1).c_str());
  if (!ok) std::printf("  WRONG RESULT: the counter missed kernels\n");
  return ok;
}

// ---------------------------------------------------------------------------
// 8. Texture fetches: each thread of a 2D grid reads one value of a float
// image in pitched memory and stores it. tex2D with linear filtering against
// the same bilinear interpolation written by hand from the same memory (the
// same coordinates, clamped neighbours, weights computed in float), and a
// point fetch at a texel's centre against a plain load. Both sides are weft
// kernels of the same shape, so the ratio is what the texture path costs
// over the code a user would write without it.
//
// Each timed run launches a kernel repeatedly into the legacy stream and
// synchronises once, for 16M fetches in all (64 launches of the smallest
// image), and reports the time per launch. One launch and synchronise per
// run measured, beside other processes, the OS scheduler instead: a worker
// or host thread woken while other programs run on every core gets a core
// only at the next scheduler tick (4 ms at Linux's HZ=250), so a 0.14 ms
// kernel took 4, 8 or 16 ms a trip and both columns showed the same tick
// (docs/performance.md, "texture").

/// Launches per timed run for a kernel of `fetches` threads.
int launches_per_run(std::size_t fetches, bool quick) {
  constexpr std::size_t fetches_per_run = std::size_t(1) << 24;
  return quick ? 1 : static_cast<int>(std::max<std::size_t>(1, fetches_per_run / fetches));
}

// Sampling positions: a slight scale and shift, so that the linear fetches
// fall between texel centres.
__device__ float SampleX(int x) { return x * 0.9375f + 0.3f; }
__device__ float SampleY(int y) { return y * 0.9375f + 0.7f; }

__device__ float PitchedTexel(const float* image, std::size_t pitch, int i, int j) {
  return reinterpret_cast<const float*>(reinterpret_cast<const char*>(image) + j * pitch)[i];
}

__global__ void LinearFetchKernel(float* out, cudaTextureObject_t image, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = tex2D<float>(image, SampleX(x), SampleY(y));
}

__global__ void HandBilinearKernel(float* out, const float* image, std::size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  // Texel i's centre is at i + 0.5; neighbours outside the image clamp to its edge.
  float xb = SampleX(x) - 0.5f, yb = SampleY(y) - 0.5f;
  float fx = floorf(xb), fy = floorf(yb);
  float a = xb - fx, b = yb - fy;
  int i0 = min(max(int(fx), 0), width - 1), i1 = min(max(int(fx) + 1, 0), width - 1);
  int j0 = min(max(int(fy), 0), height - 1), j1 = min(max(int(fy) + 1, 0), height - 1);
  float top = (1 - a) * PitchedTexel(image, pitch, i0, j0) + a * PitchedTexel(image, pitch, i1, j0);
  float bottom = (1 - a) * PitchedTexel(image, pitch, i0, j1) + a * PitchedTexel(image, pitch, i1, j1);
  out[y * width + x] = (1 - b) * top + b * bottom;
}

__global__ void PointFetchKernel(float* out, cudaTextureObject_t image, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = tex2D<float>(image, x + 0.5f, y + 0.5f);
}

__global__ void PlainLoadKernel(float* out, const float* image, std::size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = PitchedTexel(image, pitch, x, y);
}

// The least a point fetch has to do, written by hand: the caller's texel
// centre x + 0.5 as a float, truncated back to an int, checked against the
// size, and the load. The floor under the point fetch's ratio.
__global__ void CoordinatesByHandKernel(float* out, const float* image, std::size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int i = static_cast<int>(x + 0.5f), j = static_cast<int>(y + 0.5f);
  bool inside = static_cast<unsigned>(i) < static_cast<unsigned>(width) &&
                static_cast<unsigned>(j) < static_cast<unsigned>(height);
  out[y * width + x] = inside ? PitchedTexel(image, pitch, i, j) : 0.0f;
}

struct point_fetch_timing {
  int width, height;
  double fetch, plain, by_hand;                 // median seconds
  double fetch_best, plain_best, by_hand_best;  // fastest run, seconds
  bool right;
};

// A point fetch at every texel's centre against a plain load and against
// the coordinate arithmetic by hand, of one image of width x height floats
// in pitched memory, the three kernels alternating.
point_fetch_timing time_point_fetches(const options& o, int width, int height, bool& ok) {
  const std::size_t count = std::size_t(width) * height, bytes = count * sizeof(float);
  const dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
  point_fetch_timing result{width, height, 0, 0, 0, 0, 0, 0, false};
  std::vector<float> host(count);
  fill(host.data(), count, 5);
  float *image, *out_fetch, *out_plain, *out_by_hand;
  std::size_t pitch = 0;
  ok &= check(cudaMallocPitch(reinterpret_cast<void**>(&image), &pitch, width * sizeof(float), height), "texture");
  ok &= check(cudaMalloc(&out_fetch, bytes), "texture");
  ok &= check(cudaMalloc(&out_plain, bytes), "texture");
  ok &= check(cudaMalloc(&out_by_hand, bytes), "texture");
  ok &= check(cudaMemcpy2D(image, pitch, host.data(), width * sizeof(float), width * sizeof(float), height,
                           cudaMemcpyHostToDevice),
              "texture");
  cudaResourceDesc resource = {};
  resource.resType = cudaResourceTypePitch2D;
  resource.res.pitch2D.devPtr = image;
  resource.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  resource.res.pitch2D.width = width;
  resource.res.pitch2D.height = height;
  resource.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc how = {};
  how.addressMode[0] = how.addressMode[1] = cudaAddressModeClamp;
  how.readMode = cudaReadModeElementType;
  how.filterMode = cudaFilterModePoint;
  cudaTextureObject_t point = 0;
  ok &= check(cudaCreateTextureObject(&point, &resource, &how, nullptr), "texture");
  if (!ok) return result;

  const int launches = launches_per_run(count, o.quick);
  auto synchronised = [&ok, launches](auto launch) {
    return [&ok, launches, launch] {
      for (int i = 0; i < launches; ++i) launch();
      ok &= check(cudaDeviceSynchronize(), "texture");
    };
  };
  auto fetch = synchronised([&] { weft::launch<PointFetchKernel>(grid, block, out_fetch, point, width, height); });
  auto plain =
      synchronised([&] { weft::launch<PlainLoadKernel>(grid, block, out_plain, image, pitch, width, height); });
  auto by_hand = synchronised(
      [&] { weft::launch<CoordinatesByHandKernel>(grid, block, out_by_hand, image, pitch, width, height); });
  fetch();
  plain();
  by_hand();
  std::vector<double> fetch_t, plain_t, by_hand_t;
  for (int i = 0; i < o.repeat; ++i) {
    fetch_t.push_back(time_once(fetch));
    plain_t.push_back(time_once(plain));
    by_hand_t.push_back(time_once(by_hand));
  }
  result.fetch = median(fetch_t) / launches;
  result.plain = median(plain_t) / launches;
  result.by_hand = median(by_hand_t) / launches;
  result.fetch_best = *std::min_element(fetch_t.begin(), fetch_t.end()) / launches;
  result.plain_best = *std::min_element(plain_t.begin(), plain_t.end()) / launches;
  result.by_hand_best = *std::min_element(by_hand_t.begin(), by_hand_t.end()) / launches;
  result.right = std::memcmp(out_fetch, out_plain, bytes) == 0 && std::memcmp(out_by_hand, out_plain, bytes) == 0 &&
                 std::memcmp(out_plain, host.data(), bytes) == 0;
  ok &= result.right;
  cudaDestroyTextureObject(point);
  for (float* p : {image, out_fetch, out_plain, out_by_hand}) cudaFree(p);
  return result;
}

bool bench_texture(const options& o) {
  const int width = o.quick ? 128 : 2048, height = o.quick ? 128 : 1024;
  const std::size_t count = std::size_t(width) * height, bytes = count * sizeof(float);
  const dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
  bool ok = true;

  std::vector<float> host(count);
  fill(host.data(), count, 3);
  float *image, *out_texture, *out_plain;
  std::size_t pitch = 0;
  ok &= check(cudaMallocPitch(reinterpret_cast<void**>(&image), &pitch, width * sizeof(float), height), "texture");
  ok &= check(cudaMalloc(&out_texture, bytes), "texture");
  ok &= check(cudaMalloc(&out_plain, bytes), "texture");
  ok &= check(cudaMemcpy2D(image, pitch, host.data(), width * sizeof(float), width * sizeof(float), height,
                           cudaMemcpyHostToDevice),
              "texture");
  cudaResourceDesc resource = {};
  resource.resType = cudaResourceTypePitch2D;
  resource.res.pitch2D.devPtr = image;
  resource.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  resource.res.pitch2D.width = width;
  resource.res.pitch2D.height = height;
  resource.res.pitch2D.pitchInBytes = pitch;
  cudaTextureDesc how = {};
  how.addressMode[0] = how.addressMode[1] = cudaAddressModeClamp;
  how.readMode = cudaReadModeElementType;
  how.filterMode = cudaFilterModeLinear;
  cudaTextureObject_t linear = 0;
  ok &= check(cudaCreateTextureObject(&linear, &resource, &how, nullptr), "texture");
  if (!ok) return false;

  const int launches = launches_per_run(count, o.quick);
  auto run = [&](auto launch) {
    return [&ok, launches, launch] {
      for (int i = 0; i < launches; ++i) launch();
      ok &= check(cudaDeviceSynchronize(), "texture");
    };
  };
  pair_timing linear_t = measure_pair(
      o.repeat, run([&] { weft::launch<LinearFetchKernel>(grid, block, out_texture, linear, width, height); }),
      run([&] { weft::launch<HandBilinearKernel>(grid, block, out_plain, image, pitch, width, height); }));
  // The texture's weights carry 8 fractional bits (1/256) and the hand-written
  // ones a float's 24: with values in [-1, 1], neighbours differ by at most
  // 2, so the two results differ by at most 2 * 2/256 over two dimensions.
  float worst = 0;
  for (std::size_t i = 0; i < count; ++i) worst = std::max(worst, std::fabs(out_texture[i] - out_plain[i]));
  bool linear_right = worst <= 4.0f / 256;
  ok &= linear_right;

  cudaDestroyTextureObject(linear);
  for (float* p : {image, out_texture, out_plain}) cudaFree(p);

  // Point fetches of an image that fits a core's L2 (1 MiB on the EPYC
  // development machine, with its output), one in L3, one past L3 (32 MiB).
  std::vector<point_fetch_timing> points;
  const int point_sizes[3][2] = {{256, 256}, {2048, 1024}, {4096, 4096}};
  for (const auto& size : point_sizes)
    points.push_back(time_point_fetches(o, o.quick ? size[0] / 16 : size[0], o.quick ? size[1] / 16 : size[1], ok));

  for (double* t : {&linear_t.weft, &linear_t.plain, &linear_t.weft_min, &linear_t.plain_min}) *t /= launches;
  double linear_ratio = linear_t.weft / linear_t.plain;
  std::printf(
      "\ntexture: floats in pitched memory, one fetch per thread, 16x16 threads per block; times per launch\n"
      "(a run launches up to 16M fetches, then synchronises); ratio = texture time / hand-written time (medians)\n");
  std::printf("  %-50s %10s %10s %7s %9s\n", "", "texture", "by hand", "ratio", "best-run");
  char name[96];
  std::snprintf(name, sizeof name, "tex2D linear / bilinear from the same memory, %dx%d", width, height);
  std::printf("  %-50s %10s %10s %7.2f %9.2f  %s%s\n", name, pretty_time(linear_t.weft).c_str(),
              pretty_time(linear_t.plain).c_str(), linear_ratio, linear_t.weft_min / linear_t.plain_min,
              verdict(o, "target <= 3", linear_ratio <= 3).c_str(), linear_right ? "" : "; WRONG RESULT");
  for (const point_fetch_timing& p : points) {
    double image_mib = double(p.width) * p.height * sizeof(float) / (1 << 20), ratio = p.fetch / p.plain;
    std::snprintf(name, sizeof name, "tex2D point / plain load, %dx%d (%.3g MiB)", p.width, p.height, image_mib);
    std::printf("  %-50s %10s %10s %7.2f %9.2f  %s%s\n", name, pretty_time(p.fetch).c_str(),
                pretty_time(p.plain).c_str(), ratio, p.fetch_best / p.plain_best,
                verdict(o, "target <= 1.5", ratio <= 1.5).c_str(), p.right ? "" : "; WRONG RESULT");
    std::printf("  %-50s %10s %10s %7.2f %9.2f  (the least a point fetch does)\n",
                "  by hand (x + 0.5, truncate, check) / plain load", pretty_time(p.by_hand).c_str(),
                pretty_time(p.plain).c_str(), p.by_hand / p.plain, p.by_hand_best / p.plain_best);
  }
  return ok;
}

void usage() {
  std::printf(
      "usage: weft_bench [--quick] [--repeat N] [vecadd] [matmul] [barrier] [warp] [launch] [wmma] [graph] [texture]\n"
      "                  [suite] [suite options]\n"
      "  With no benchmark named, runs all nine (only the suite when a suite option is given).\n"
      "  --quick     small sizes and 3 repetitions (a smoke test; figures mean little)\n"
      "  --repeat N  timed repetitions per measurement, median reported (default 7)\n"
      "  WEFT_WORKERS sets the number of SM workers (and plain threads).\n%s",
      weft_bench::suite::suite_usage());
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  weft_bench::suite::suite_options suite_options;
  bool repeat_given = false, suite_option_given = false;
  if (argc == 3 && std::string(argv[1]) == "--thread-state")
    return thread_state_child(std::string(argv[2]) == "stackless");
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick")
      o.quick = true;
    else if (a == "--repeat" && i + 1 < argc) {
      o.repeat = std::max(1, std::atoi(argv[++i]));
      repeat_given = true;
    } else if (a == "vecadd")
      o.vecadd = true;
    else if (a == "matmul")
      o.matmul = true;
    else if (a == "barrier")
      o.barrier = true;
    else if (a == "warp")
      o.warp = true;
    else if (a == "launch")
      o.launch = true;
    else if (a == "wmma")
      o.wmma = true;
    else if (a == "graph")
      o.graph = true;
    else if (a == "texture")
      o.texture = true;
    else if (a == "suite")
      o.suite = true;
    else if (weft_bench::suite::parse_suite_argument(i, argc, argv, suite_options))
      suite_option_given = true;
    else {
      usage();
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  if (!o.vecadd && !o.matmul && !o.barrier && !o.warp && !o.launch && !o.wmma && !o.graph && !o.texture && !o.suite) {
    if (suite_option_given)
      o.suite = true;
    else
      o.vecadd = o.matmul = o.barrier = o.warp = o.launch = o.wmma = o.graph = o.texture = o.suite = true;
  }
  if (o.quick && !repeat_given) o.repeat = 3;
  suite_options.quick = o.quick;
  suite_options.repeat = o.repeat;

  std::printf("weft_bench%s: %u SM workers, plain loops on %u std::threads, median of %d runs\n",
              o.quick ? " --quick" : "", weft::worker_count(), weft::worker_count(), o.repeat);
  bool ok = true;
  std::vector<row> rows;
  if (o.vecadd) ok &= bench_vecadd(o, rows);
  if (o.matmul) ok &= bench_matmul(o, rows);
  if (!rows.empty()) print_table(rows);
  if (o.barrier) ok &= bench_barrier(o);
  if (o.barrier) ok &= bench_stackless_barrier(o);
  if (o.barrier) ok &= bench_thread_state();
  if (o.warp) ok &= bench_warp(o);
  if (o.warp) ok &= bench_stackless_warp(o);
  if (o.launch) ok &= bench_launch(o);
  if (o.wmma) ok &= bench_wmma(o);
  if (o.graph) ok &= bench_graph(o);
  if (o.texture) ok &= bench_texture(o);
  if (o.suite) ok &= weft_bench::suite::run_suite(suite_options);
  if (!ok) std::printf("\nFAILED: a benchmark computed a wrong result or a kernel failed\n");
  return ok ? 0 : 1;
}
