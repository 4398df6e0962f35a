// The plain side of the suite: each problem's elements as an ordinary C++
// loop, split into contiguous parts over as many std::threads as weft has
// SM workers, spawned and joined in every run (as the other sections of
// weft_bench do). The loops compute what the kernels compute, written as one
// would for a CPU: no shared-memory staging, no barriers.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "implementation.hpp"

namespace weft_bench::suite {
namespace {

void parallel_parts(unsigned threads, std::size_t items, const std::function<void(std::size_t, std::size_t)>& body) {
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(body, items * t / threads, items * (t + 1) / threads);
  for (std::thread& thread : pool) thread.join();
}

void vector_add(const float* __restrict a, const float* __restrict b, float* __restrict c, std::size_t first,
                std::size_t last) {
  for (std::size_t i = first; i < last; ++i) c[i] = a[i] + b[i];
}

void saxpy(float alpha, const float* __restrict x, const float* __restrict y, float* __restrict out, std::size_t first,
           std::size_t last) {
  for (std::size_t i = first; i < last; ++i) out[i] = alpha * x[i] + y[i];
}

void stencil(const int* __restrict in, int* __restrict out, std::size_t first, std::size_t last) {
  for (std::size_t i = first; i < last; ++i) {
    int sum = 0;
    for (int k = 0; k <= 2 * stencil_radius; ++k) sum += in[i + k];
    out[i] = sum;
  }
}

// Rows of tiles: [first_tile_row, last_tile_row) of 32-row bands.
void transpose(const float* __restrict in, float* __restrict out, std::size_t n, std::size_t first_band,
               std::size_t last_band) {
  for (std::size_t band = first_band; band < last_band; ++band)
    for (std::size_t col0 = 0; col0 < n; col0 += transpose_tile)
      for (std::size_t r = band * transpose_tile; r < (band + 1) * transpose_tile; ++r)
        for (std::size_t c = col0; c < col0 + transpose_tile; ++c) out[c * n + r] = in[r * n + c];
}

// Rows [first, last) of C, by 16x16 tiles of A and B, the innermost loop
// along a row of B so that the compiler vectorises it.
void matmul(const float* __restrict a, const float* __restrict b, float* __restrict c, std::size_t n, std::size_t first,
            std::size_t last) {
  for (std::size_t i = first; i < last; ++i) std::fill(c + i * n, c + (i + 1) * n, 0.0f);
  for (std::size_t k0 = 0; k0 < n; k0 += matmul_tile)
    for (std::size_t i = first; i < last; ++i)
      for (std::size_t k = k0; k < k0 + matmul_tile; ++k) {
        float x = a[i * n + k];
        const float* row = b + k * n;
        float* out = c + i * n;
        for (std::size_t j = 0; j < n; ++j) out[j] += x * row[j];
      }
}

void block_sums(const float* __restrict in, float* __restrict sums, std::size_t first, std::size_t last) {
  for (std::size_t block = first; block < last; ++block) {
    float sum = 0;
    for (int t = 0; t < block_threads; ++t) sum += in[block * block_threads + t];
    sums[block] = sum;
  }
}

void block_scans(const int* __restrict in, int* __restrict out, std::size_t first, std::size_t last) {
  for (std::size_t block = first; block < last; ++block) {
    int sum = 0;
    for (std::size_t i = block * block_threads; i < (block + 1) * block_threads; ++i) out[i] = sum += in[i];
  }
}

void nbody(const float* __restrict bodies, float* __restrict acceleration, std::size_t n, std::size_t first,
           std::size_t last) {
  for (std::size_t i = first; i < last; ++i) {
    const float* me = bodies + 4 * i;
    float ax = 0, ay = 0, az = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const float* other = bodies + 4 * j;
      float dx = other[0] - me[0], dy = other[1] - me[1], dz = other[2] - me[2];
      float d2 = dx * dx + dy * dy + dz * dz + nbody_softening;
      float inverse = 1.0f / std::sqrt(d2);
      float s = other[3] * inverse * inverse * inverse;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    float* out = acceleration + 4 * i;
    out[0] = ax, out[1] = ay, out[2] = az, out[3] = 0;
  }
}

class plain_implementation final : public implementation {
 public:
  plain_implementation(const problem& p, unsigned threads)
      : p_(p), threads_(threads), out_(p.output_count, 0), int_out_(p.output_count, 0) {}

  void run() override {
    const std::size_t n = p_.n;
    float* out = out_.data();
    int* int_out = int_out_.data();
    switch (p_.kind) {
      case kernel_kind::vector_add:
        parallel_parts(threads_, n, [&](auto f, auto l) { vector_add(p_.a.data(), p_.b.data(), out, f, l); });
        break;
      case kernel_kind::saxpy:
        parallel_parts(threads_, n, [&](auto f, auto l) { saxpy(p_.alpha, p_.a.data(), p_.b.data(), out, f, l); });
        break;
      case kernel_kind::stencil:
        parallel_parts(threads_, n, [&](auto f, auto l) { stencil(p_.ints.data(), int_out, f, l); });
        break;
      case kernel_kind::transpose:
        parallel_parts(threads_, n / transpose_tile, [&](auto f, auto l) { transpose(p_.a.data(), out, n, f, l); });
        break;
      case kernel_kind::matmul:
        parallel_parts(threads_, n, [&](auto f, auto l) { matmul(p_.a.data(), p_.b.data(), out, n, f, l); });
        break;
      case kernel_kind::block_reduce:
      case kernel_kind::warp_reduce:
      case kernel_kind::cg_reduce:
        parallel_parts(threads_, n / block_threads, [&](auto f, auto l) { block_sums(p_.a.data(), out, f, l); });
        break;
      case kernel_kind::scan_shared:
      case kernel_kind::scan_shuffle:
        parallel_parts(threads_, n / block_threads,
                       [&](auto f, auto l) { block_scans(p_.ints.data(), int_out, f, l); });
        break;
      case kernel_kind::histogram: {
        // Each thread counts its part privately; the counts are added at the end.
        std::vector<std::atomic<int>> bins(histogram_bins);
        parallel_parts(threads_, n, [&](std::size_t first, std::size_t last) {
          int mine[histogram_bins] = {};
          for (std::size_t i = first; i < last; ++i) ++mine[p_.bytes[i]];
          for (int bin = 0; bin < histogram_bins; ++bin) bins[bin].fetch_add(mine[bin], std::memory_order_relaxed);
        });
        for (int bin = 0; bin < histogram_bins; ++bin) int_out[bin] = bins[bin].load();
        break;
      }
      case kernel_kind::nbody:
        parallel_parts(threads_, n, [&](auto f, auto l) { nbody(p_.a.data(), out, n, f, l); });
        break;
    }
  }

  void read_result(void* result) override {
    if (p_.int_output)
      std::memcpy(result, int_out_.data(), p_.output_count * sizeof(int));
    else
      std::memcpy(result, out_.data(), p_.output_count * sizeof(float));
  }
  bool healthy() const override { return true; }

 private:
  const problem& p_;
  unsigned threads_;
  std::vector<float> out_;
  std::vector<int> int_out_;
};

}  // namespace

std::unique_ptr<implementation> make_plain_implementation(const problem& p, unsigned threads) {
  return std::make_unique<plain_implementation>(p, threads);
}

}  // namespace weft_bench::suite
