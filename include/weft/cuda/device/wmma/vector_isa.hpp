// The widest vectors this CPU runs, for the warp matrix arithmetic. weft is
// compiled for the baseline x86-64 (SSE2, 4 floats a vector), which a GEMM's
// inner loop outruns by 2-4x on a CPU with AVX2 or AVX-512; the few
// functions that profit are compiled once per width with a target attribute
// and chosen at run time. Every width computes the same bits: the
// arithmetic is exact integer and power-of-two scaling, the same operations
// in the same order on each element.
#pragma once

namespace weft::detail::wmma {

/// Floats per vector.
enum class vector_isa : int { sse2 = 4, avx2 = 8, avx512 = 16 };

inline bool cpu_runs(vector_isa isa) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  switch (isa) {
    case vector_isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
    case vector_isa::avx2:
      return __builtin_cpu_supports("avx2");
    case vector_isa::sse2:
      return true;
  }
  return false;
#else
  return isa == vector_isa::sse2;  // the generic vectors of any target
#endif
}

/// The widest width the CPU runs, found once.
inline vector_isa widest_vector_isa() {
  static const vector_isa widest = cpu_runs(vector_isa::avx512) ? vector_isa::avx512
                                   : cpu_runs(vector_isa::avx2) ? vector_isa::avx2
                                                                : vector_isa::sse2;
  return widest;
}

}  // namespace weft::detail::wmma
