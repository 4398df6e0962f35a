// The suite's kernels in CUDA spelling, as a CUDA course writes them, and the
// weft implementation that launches them with <<<...>>>. The only file of the
// suite that includes weft (each such translation unit costs about 15 s to
// compile); the build ports it with weft-port, as weft_add_cuda_executable
// does any .cu file, so the kernels whose barriers all sit in their own
// bodies become stackless kernels (docs/porting.md, "Stackless kernels").
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <weft.hpp>

#include <cstdio>
#include <cstring>

#include "implementation.hpp"

namespace weft_bench::suite {
namespace {

namespace cg = cooperative_groups;
constexpr unsigned full_mask = 0xffffffffu;
constexpr int warps_per_block = block_threads / 32;

__global__ void SuiteVectorAdd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void SuiteSaxpy(float alpha, const float* x, const float* y, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * x[i] + y[i];
}

// Each block loads its 256 inputs and the 2 * radius beyond them into shared
// memory once; each output then sums 2 * radius + 1 neighbours from there.
__global__ void SuiteStencil(const int* in, int* out) {
  __shared__ int window[block_threads + 2 * stencil_radius];
  int first = blockIdx.x * blockDim.x;
  int t = threadIdx.x;
  window[t] = in[first + t];
  if (t < 2 * stencil_radius) window[blockDim.x + t] = in[first + blockDim.x + t];
  __syncthreads();
  int sum = 0;
  for (int k = 0; k <= 2 * stencil_radius; ++k) sum += window[t + k];
  out[first + t] = sum;
}

// A 32x32 tile read in rows and written in columns; the padding column keeps
// a GPU's column reads off a single shared-memory bank.
__global__ void SuiteTranspose(const float* in, float* out, int n) {
  __shared__ float tile[transpose_tile][transpose_tile + 1];
  int x = blockIdx.x * transpose_tile + threadIdx.x;
  int y = blockIdx.y * transpose_tile + threadIdx.y;
  for (int r = 0; r < transpose_tile; r += transpose_rows) tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * n + x];
  __syncthreads();
  x = blockIdx.y * transpose_tile + threadIdx.x;
  y = blockIdx.x * transpose_tile + threadIdx.y;
  for (int r = 0; r < transpose_tile; r += transpose_rows) out[(y + r) * n + x] = tile[threadIdx.x][threadIdx.y + r];
}

__global__ void SuiteMatMul(const float* a, const float* b, float* c, int n) {
  __shared__ float as[matmul_tile][matmul_tile];
  __shared__ float bs[matmul_tile][matmul_tile];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * matmul_tile + ty, col = blockIdx.x * matmul_tile + tx;
  float sum = 0;
  for (int m = 0; m < n / matmul_tile; ++m) {
    as[ty][tx] = a[row * n + m * matmul_tile + tx];
    bs[ty][tx] = b[(m * matmul_tile + ty) * n + col];
    __syncthreads();
    for (int e = 0; e < matmul_tile; ++e) sum += as[ty][e] * bs[e][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

// Halving tree in shared memory: one barrier after the load, eight after the steps.
__global__ void SuiteBlockReduce(const float* in, float* block_sums) {
  __shared__ float partial[block_threads];
  unsigned t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) block_sums[blockIdx.x] = partial[0];
}

__device__ float suite_warp_sum(float value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(full_mask, value, offset);
  return value;
}

// Each warp sums by shuffles, the warps' sums meet in shared memory, and the
// first warp sums those.
__global__ void SuiteWarpReduce(const float* in, float* block_sums) {
  __shared__ float warp_sums[warps_per_block];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float value = suite_warp_sum(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = suite_warp_sum(lane < warps_per_block ? warp_sums[lane] : 0.0f);
    if (lane == 0) block_sums[blockIdx.x] = value;
  }
}

// The same with cooperative groups: cg::reduce over 32-thread tiles.
__global__ void SuiteGroupReduce(const float* in, float* block_sums) {
  __shared__ float tile_sums[warps_per_block];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float value = cg::reduce(tile, in[blockIdx.x * blockDim.x + threadIdx.x], cg::plus<float>());
  if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = value;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    value = cg::reduce(tile, tile.thread_rank() < warps_per_block ? tile_sums[tile.thread_rank()] : 0.0f,
                       cg::plus<float>());
    if (tile.thread_rank() == 0) block_sums[blockIdx.x] = value;
  }
}

// Hillis-Steele inclusive scan, double-buffered: eight steps, a barrier each.
__global__ void SuiteScanShared(const int* in, int* out) {
  __shared__ int buffer[2][block_threads];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int current = 0;
  buffer[current][t] = in[i];
  __syncthreads();
  for (int offset = 1; offset < block_threads; offset *= 2) {
    int value = buffer[current][t];
    if (t >= offset) value += buffer[current][t - offset];
    buffer[1 - current][t] = value;
    current = 1 - current;
    __syncthreads();
  }
  out[i] = buffer[current][t];
}

__device__ int suite_warp_scan(int value, int lane) {
  for (int offset = 1; offset < 32; offset *= 2) {
    int below = __shfl_up_sync(full_mask, value, offset);
    if (lane >= offset) value += below;
  }
  return value;
}

// Each warp scans by shuffles; the first warp scans the warps' totals, which
// the later warps then add.
__global__ void SuiteScanShuffle(const int* in, int* out) {
  __shared__ int warp_totals[warps_per_block];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int value = suite_warp_scan(in[i], lane);
  if (lane == 31) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) {
    int total = suite_warp_scan(lane < warps_per_block ? warp_totals[lane] : 0, lane);
    if (lane < warps_per_block) warp_totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) value += warp_totals[warp - 1];
  out[i] = value;
}

// A block counts its grid-stride share into shared bins, then adds them to
// the global ones.
__global__ void SuiteHistogram(const unsigned char* in, unsigned* bins, int n) {
  __shared__ unsigned local_bins[histogram_bins];
  local_bins[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local_bins[in[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local_bins[threadIdx.x]);
}

// Every body against every other, the others read in shared tiles.
__global__ void SuiteNBody(const float4* bodies, float4* acceleration, int n) {
  __shared__ float4 tile[nbody_tile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = bodies[i];
  float ax = 0, ay = 0, az = 0;
  for (int first = 0; first < n; first += nbody_tile) {
    tile[threadIdx.x] = bodies[first + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < nbody_tile; ++j) {
      float4 other = tile[j];
      float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
      float d2 = dx * dx + dy * dy + dz * dz + nbody_softening;
      float inverse = 1.0f / sqrtf(d2);
      float s = other.w * inverse * inverse * inverse;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    __syncthreads();
  }
  acceleration[i] = make_float4(ax, ay, az, 0.0f);
}

template <class T>
T* device_copy(const std::vector<T>& host) {
  T* device = nullptr;
  if (host.empty()) return nullptr;
  cudaMalloc(&device, host.size() * sizeof(T));
  cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return device;
}

class weft_implementation final : public implementation {
 public:
  explicit weft_implementation(const problem& p)
      : p_(p), a_(device_copy(p.a)), b_(device_copy(p.b)), ints_(device_copy(p.ints)), bytes_(device_copy(p.bytes)) {
    output_bytes_ = p.output_count * sizeof(float);  // int and float are both 4 bytes
    cudaMalloc(&out_, output_bytes_);
    healthy_ = cudaGetLastError() == cudaSuccess;
  }
  ~weft_implementation() override {
    for (void* pointer :
         {static_cast<void*>(a_), static_cast<void*>(b_), static_cast<void*>(ints_), static_cast<void*>(bytes_), out_})
      cudaFree(pointer);
  }

  void run() override {
    launch();
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      if (healthy_)
        std::fprintf(stderr, "weft: %s: %s %s\n", p_.title.c_str(), cudaGetErrorName(e), weft::fault_message().c_str());
      healthy_ = false;
    }
  }
  void read_result(void* out) override { std::memcpy(out, out_, output_bytes_); }
  bool healthy() const override { return healthy_; }

 private:
  void launch() {
    const int n = p_.n;
    const dim3 blocks(n / block_threads), threads(block_threads);
    float* out = static_cast<float*>(out_);
    int* int_out = static_cast<int*>(out_);
    switch (p_.kind) {
      case kernel_kind::vector_add:
        SuiteVectorAdd<<<blocks, threads>>>(a_, b_, out, n);
        break;
      case kernel_kind::saxpy:
        SuiteSaxpy<<<blocks, threads>>>(p_.alpha, a_, b_, out, n);
        break;
      case kernel_kind::stencil:
        SuiteStencil<<<blocks, threads>>>(ints_, int_out);
        break;
      case kernel_kind::transpose:
        SuiteTranspose<<<dim3(n / transpose_tile, n / transpose_tile), dim3(transpose_tile, transpose_rows)>>>(a_, out,
                                                                                                               n);
        break;
      case kernel_kind::matmul:
        SuiteMatMul<<<dim3(n / matmul_tile, n / matmul_tile), dim3(matmul_tile, matmul_tile)>>>(a_, b_, out, n);
        break;
      case kernel_kind::block_reduce:
        SuiteBlockReduce<<<blocks, threads>>>(a_, out);
        break;
      case kernel_kind::warp_reduce:
        SuiteWarpReduce<<<blocks, threads>>>(a_, out);
        break;
      case kernel_kind::cg_reduce:
        SuiteGroupReduce<<<blocks, threads>>>(a_, out);
        break;
      case kernel_kind::scan_shared:
        SuiteScanShared<<<blocks, threads>>>(ints_, int_out);
        break;
      case kernel_kind::scan_shuffle:
        SuiteScanShuffle<<<blocks, threads>>>(ints_, int_out);
        break;
      case kernel_kind::histogram: {
        unsigned* bins = static_cast<unsigned*>(out_);
        cudaMemset(bins, 0, output_bytes_);
        int grid = std::min(histogram_blocks, n / block_threads);
        SuiteHistogram<<<dim3(grid), threads>>>(bytes_, bins, n);
        break;
      }
      case kernel_kind::nbody:
        SuiteNBody<<<dim3(n / nbody_tile), dim3(nbody_tile)>>>(reinterpret_cast<const float4*>(a_),
                                                               reinterpret_cast<float4*>(out_), n);
        break;
    }
  }

  const problem& p_;
  float* a_;
  float* b_;
  int* ints_;
  unsigned char* bytes_;
  void* out_ = nullptr;
  std::size_t output_bytes_ = 0;
  bool healthy_ = true;
};

}  // namespace

std::unique_ptr<implementation> make_weft_implementation(const problem& p) {
  return std::make_unique<weft_implementation>(p);
}

unsigned weft_workers() { return weft::worker_count(); }

}  // namespace weft_bench::suite
