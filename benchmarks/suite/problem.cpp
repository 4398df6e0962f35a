#include "problem.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace weft_bench::suite {
namespace {

// A float's unit roundoff: every tolerance below is a worst-case bound of
// rounding error, a multiple of it times the sum of the magnitudes of the
// terms, so that any summation order (a tree in a kernel, a loop in the plain
// version, fused multiply-adds or not) passes and a wrong term fails.
constexpr double unit_roundoff = 1.0 / (1 << 24);

struct generator {
  std::uint32_t state;
  std::uint32_t next() { return state = state * 1664525u + 1013904223u; }
  float unit() { return float(next() >> 8) / float(1 << 23) - 1.0f; }  // [-1, 1)
  int small_int() { return int((next() >> 8) % 100); }
};

std::vector<float> floats(std::size_t count, std::uint32_t seed) {
  generator g{seed};
  std::vector<float> v(count);
  for (float& x : v) x = g.unit();
  return v;
}

std::vector<int> small_ints(std::size_t count, std::uint32_t seed) {
  generator g{seed};
  std::vector<int> v(count);
  for (int& x : v) x = g.small_int();
  return v;
}

void expect_floats(problem& p, std::size_t count) {
  p.output_count = count;
  p.reference.assign(count, 0.0);
  p.tolerance.assign(count, 0.0);
}

void expect_ints(problem& p, std::size_t count) {
  p.int_output = true;
  p.output_count = count;
  p.reference_ints.assign(count, 0);
}

// Per-block sums of 256 floats: a reduction's result.
void block_sums(problem& p) {
  expect_floats(p, p.a.size() / block_threads);
  for (std::size_t block = 0; block < p.output_count; ++block) {
    double sum = 0, magnitude = 0;
    for (int t = 0; t < block_threads; ++t) {
      double x = p.a[block * block_threads + t];
      sum += x;
      magnitude += std::fabs(x);
    }
    p.reference[block] = sum;
    p.tolerance[block] = block_threads * unit_roundoff * magnitude;
  }
  p.check = "each block's sum within 256 u * sum |x| of a double sum (u = 2^-24)";
}

// Inclusive scans of each block of 256 ints.
void block_scans(problem& p) {
  expect_ints(p, p.ints.size());
  for (std::size_t block = 0; block < p.ints.size() / block_threads; ++block) {
    int sum = 0;
    for (int t = 0; t < block_threads; ++t) {
      sum += p.ints[block * block_threads + t];
      p.reference_ints[block * block_threads + t] = sum;
    }
  }
  p.check = "exact";
}

std::string power_of_two(int n) { return "2^" + std::to_string(int(std::log2(n))); }

}  // namespace

const char* short_name(kernel_kind kind) {
  switch (kind) {
    case kernel_kind::vector_add:
      return "vecadd";
    case kernel_kind::saxpy:
      return "saxpy";
    case kernel_kind::stencil:
      return "stencil";
    case kernel_kind::transpose:
      return "transpose";
    case kernel_kind::matmul:
      return "matmul";
    case kernel_kind::block_reduce:
      return "reduce";
    case kernel_kind::warp_reduce:
      return "shfl_reduce";
    case kernel_kind::cg_reduce:
      return "cg_reduce";
    case kernel_kind::scan_shared:
      return "scan";
    case kernel_kind::scan_shuffle:
      return "shfl_scan";
    case kernel_kind::histogram:
      return "histogram";
    case kernel_kind::nbody:
      return "nbody";
  }
  return "?";
}

problem make_problem(kernel_kind kind, bool quick) {
  problem p;
  p.kind = kind;
  // Streaming kernels get 2^24 elements (the sizes); the scans, at
  // nine barriers a thread, 2^22, so that a run stays under a second.
  const int large = quick ? 1 << 14 : 1 << 24;
  const int medium = quick ? 1 << 14 : 1 << 22;
  switch (kind) {
    case kernel_kind::vector_add:
      p.n = large;
      p.a = floats(p.n, 1);
      p.b = floats(p.n, 2);
      expect_floats(p, p.n);
      for (int i = 0; i < p.n; ++i) p.reference[i] = p.a[i] + p.b[i];  // one float rounding, as in every version
      p.title = "vector add, " + power_of_two(p.n) + " floats";
      p.check = "exact";
      break;
    case kernel_kind::saxpy:
      p.n = large;
      p.alpha = 1.75f;
      p.a = floats(p.n, 3);
      p.b = floats(p.n, 4);
      expect_floats(p, p.n);
      for (int i = 0; i < p.n; ++i) {
        double ax = double(p.alpha) * p.a[i];
        p.reference[i] = ax + p.b[i];
        p.tolerance[i] = 4 * unit_roundoff * (std::fabs(ax) + std::fabs(p.b[i]));
      }
      p.title = "saxpy, " + power_of_two(p.n) + " floats";
      p.check = "within 4 u * (|a x| + |y|): fused or not";
      break;
    case kernel_kind::stencil:
      p.n = large;
      p.ints = small_ints(std::size_t(p.n) + 2 * stencil_radius, 5);
      expect_ints(p, p.n);
      for (int i = 0; i < p.n; ++i)
        for (int k = 0; k <= 2 * stencil_radius; ++k) p.reference_ints[i] += p.ints[i + k];
      p.title = "1D stencil, radius 3, " + power_of_two(p.n) + " ints, shared halo";
      p.check = "exact";
      break;
    case kernel_kind::transpose:
      p.n = quick ? 128 : 2048;
      p.a = floats(std::size_t(p.n) * p.n, 6);
      expect_floats(p, std::size_t(p.n) * p.n);
      for (int r = 0; r < p.n; ++r)
        for (int c = 0; c < p.n; ++c) p.reference[std::size_t(c) * p.n + r] = p.a[std::size_t(r) * p.n + c];
      p.title = "transpose " + std::to_string(p.n) + "x" + std::to_string(p.n) + " floats, 32x32 shared tiles";
      p.check = "exact";
      break;
    case kernel_kind::matmul: {
      p.n = quick ? 64 : 1024;
      std::size_t n = p.n;
      p.a = floats(n * n, 7);
      p.b = floats(n * n, 8);
      expect_floats(p, n * n);
      std::vector<double> magnitude(n * n, 0.0);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < n; ++k) {
          double x = p.a[i * n + k], ax = std::fabs(x);
          double* row = &p.reference[i * n];
          double* row_magnitude = &magnitude[i * n];
          const float* b = &p.b[k * n];
          for (std::size_t j = 0; j < n; ++j) {
            row[j] += x * b[j];
            row_magnitude[j] += ax * std::fabs(b[j]);
          }
        }
      for (std::size_t i = 0; i < n * n; ++i) p.tolerance[i] = double(n + 2) * unit_roundoff * magnitude[i];
      p.title = "tiled matmul " + std::to_string(p.n) + ", 16x16 shared tiles";
      p.check = "within (n + 2) u * sum |a b| of a double product";
      break;
    }
    case kernel_kind::block_reduce:
    case kernel_kind::warp_reduce:
    case kernel_kind::cg_reduce:
      p.n = large;
      p.a = floats(p.n, 9);
      block_sums(p);
      p.title = kind == kernel_kind::block_reduce  ? "block reduction, shared tree, "
                : kind == kernel_kind::warp_reduce ? "warp-shuffle reduction, "
                                                   : "cg::reduce, ";
      p.title += power_of_two(p.n) + " floats";
      break;
    case kernel_kind::scan_shared:
    case kernel_kind::scan_shuffle:
      p.n = medium;
      p.ints = small_ints(p.n, 10);
      block_scans(p);
      p.title = std::string(kind == kernel_kind::scan_shared ? "shared-memory block scan, " : "shuffle block scan, ") +
                power_of_two(p.n) + " ints";
      break;
    case kernel_kind::histogram: {
      p.n = large;
      generator g{11};
      p.bytes.resize(p.n);
      for (unsigned char& byte : p.bytes) byte = static_cast<unsigned char>(g.next() >> 24);
      expect_ints(p, histogram_bins);
      for (unsigned char byte : p.bytes) ++p.reference_ints[byte];
      p.title = "histogram, 256 bins, " + power_of_two(p.n) + " bytes, shared atomics";
      p.check = "exact";
      break;
    }
    case kernel_kind::nbody: {
      p.n = quick ? 256 : 16384;
      p.a = floats(std::size_t(p.n) * 4, 12);
      for (int i = 0; i < p.n; ++i) p.a[4 * i + 3] = 0.5f + 0.25f * p.a[4 * i + 3];  // masses in [0.25, 0.75)
      expect_floats(p, std::size_t(p.n) * 4);
      for (int i = 0; i < p.n; ++i) {
        // The kernel's arithmetic, each step in float as the kernel rounds
        // it, summed in double; the tolerance bounds what summing in float
        // in any order, and a few ulps per term, can change.
        const float* me = &p.a[4 * i];
        double acc[3] = {}, magnitude[3] = {};
        for (int j = 0; j < p.n; ++j) {
          const float* other = &p.a[4 * j];
          float d[3] = {other[0] - me[0], other[1] - me[1], other[2] - me[2]};
          float d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + nbody_softening;
          float inverse = 1.0f / std::sqrt(d2);
          float s = other[3] * inverse * inverse * inverse;
          for (int c = 0; c < 3; ++c) {
            acc[c] += double(d[c]) * s;
            magnitude[c] += std::fabs(double(d[c]) * s);
          }
        }
        for (int c = 0; c < 3; ++c) {
          p.reference[4 * i + c] = acc[c];
          p.tolerance[4 * i + c] = double(p.n + 32) * unit_roundoff * magnitude[c];
        }
      }
      p.title = "n-body, " + std::to_string(p.n) + " bodies, shared tiles of " + std::to_string(nbody_tile);
      p.check = "within (n + 32) u * sum |term| per component";
      break;
    }
  }
  return p;
}

bool matches_reference(const problem& p, const void* result, std::string& why) {
  char text[160];
  for (std::size_t i = 0; i < p.output_count; ++i) {
    if (p.int_output) {
      int got = static_cast<const int*>(result)[i];
      if (got == p.reference_ints[i]) continue;
      std::snprintf(text, sizeof text, "element %zu: %d, expected %d", i, got, p.reference_ints[i]);
    } else {
      double got = static_cast<const float*>(result)[i];
      if (std::fabs(got - p.reference[i]) <= p.tolerance[i]) continue;
      std::snprintf(text, sizeof text, "element %zu: %.9g, expected %.9g within %.3g", i, got, p.reference[i],
                    p.tolerance[i]);
    }
    why = text;
    return false;
  }
  return true;
}

}  // namespace weft_bench::suite
