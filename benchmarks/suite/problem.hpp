// The suite's kernels as problems: the inputs every implementation (weft,
// plain loop, OpenCL on PoCL) reads, and the reference on the host that each
// one's result is checked against. Nothing here includes weft.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace weft_bench::suite {

enum class kernel_kind {
  vector_add,
  saxpy,
  stencil,
  transpose,
  matmul,
  block_reduce,
  warp_reduce,
  cg_reduce,
  scan_shared,
  scan_shuffle,
  histogram,
  nbody,
};

inline constexpr kernel_kind all_kernels[] = {
    kernel_kind::vector_add,  kernel_kind::saxpy,        kernel_kind::stencil,     kernel_kind::transpose,
    kernel_kind::matmul,      kernel_kind::block_reduce, kernel_kind::warp_reduce, kernel_kind::cg_reduce,
    kernel_kind::scan_shared, kernel_kind::scan_shuffle, kernel_kind::histogram,   kernel_kind::nbody,
};

/// The name `--kernels` accepts ("vecadd", "matmul", ...).
const char* short_name(kernel_kind kind);

// Launch shapes shared by the three implementations, so that each computes
// the same elements in the same groups.
inline constexpr int block_threads = 256;  // every 1D kernel
inline constexpr int stencil_radius = 3;   // out[i] = in[i] + ... + in[i + 2 * radius]
inline constexpr int transpose_tile = 32;  // 32x32 tiles, 32x8 threads
inline constexpr int transpose_rows = 8;
inline constexpr int matmul_tile = 16;  // 16x16 tiles, 16x16 threads
inline constexpr int histogram_bins = 256;
inline constexpr int histogram_blocks = 1024;  // a grid-stride loop over the input
inline constexpr int nbody_tile = 128;         // bodies per block and per shared tile
inline constexpr float nbody_softening = 0.01f;

struct problem {
  kernel_kind kind = kernel_kind::vector_add;
  std::string title;  // the table's row: what is computed and how big
  std::string check;  // how a result is compared with the reference
  int n = 0;          // elements; the matrix side for transpose and matmul; bodies for n-body
  float alpha = 0;    // saxpy's factor

  std::vector<float> a, b;           // float inputs (n-body: x, y, z, mass per body in a)
  std::vector<int> ints;             // int inputs (stencil: n + 2 * radius of them; scans)
  std::vector<unsigned char> bytes;  // histogram input

  bool int_output = false;
  std::size_t output_count = 0;     // floats or ints the result holds
  std::vector<int> reference_ints;  // exact reference
  std::vector<double> reference;    // float results: value in double precision,
  std::vector<double> tolerance;    // and the largest difference accepted, per element
};

/// The problem of `kind`, its inputs filled and its reference computed;
/// `quick` gives sizes for a smoke test.
problem make_problem(kernel_kind kind, bool quick);

/// Whether `result` (output_count floats or ints) matches the reference; if
/// not, `why` says where.
bool matches_reference(const problem& p, const void* result, std::string& why);

}  // namespace weft_bench::suite
