// How an H100's tensor cores sum a product of half, bfloat16 or tf32 tiles,
// as the differential probe (tests/differential/wmma_probe) measured it:
// products of the factors are exact; for each element of D, C and the k
// products are one group, each term is cut (towards zero) to 25 bits below
// the leading bit of the group's largest term, the cut terms are summed
// exactly, and the sum is rounded towards zero to float, or to nearest to
// half; NaN comes out as 0x7fffffff.
//
// tensor_core_sum is that rule for one element, in double, for any terms;
// tensor_core_rows computes whole rows of D in vectors, as wide as the CPU
// has (vector_isa.hpp), sending the rare elements it cannot to
// tensor_core_sum. 8-bit integer products are exact, and so are their sums
// in float (integer_product_rows), to which C is then added in 32 bits.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "weft/cuda/device/math/half.hpp"
#include "weft/cuda/device/wmma/vector_isa.hpp"

namespace weft::detail::wmma {

/// Bits kept below the leading bit of a group's largest term (the probe's
/// "1 + 16 * 2^-25" keeps its products, "1 + 16 * 2^-26" loses them).
inline constexpr int kept_fraction_bits = 25;

/// A tensor core's float sum rounded to the accumulator's type: towards
/// zero for float (beyond float's range it is infinite), to nearest for half.
template <class Acc>
[[gnu::always_inline]] inline Acc round_sum(double sum) {
  if (sum != sum) [[unlikely]] {  // NaN
    if constexpr (std::is_same_v<Acc, __half>)
      return std::bit_cast<__half>(std::uint16_t{0x7fff});
    else
      return std::bit_cast<float>(0x7fffffffu);
  }
  if constexpr (std::is_same_v<Acc, __half>) {
    return weft::detail::narrow<__half>(sum);
  } else {
    double size = sum < 0 ? -sum : sum;
    if (size >= 0x1p128) [[unlikely]]
      return sum < 0 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
    // Towards zero: the nearest float, one step back towards zero if it
    // rounded away (a float's magnitude bits step by one ulp).
    float nearest = static_cast<float>(sum);
    double nearest_size = nearest < 0 ? -static_cast<double>(nearest) : nearest;
    if (nearest_size > size) nearest = std::bit_cast<float>(std::bit_cast<std::uint32_t>(nearest) - 1);
    return nearest;
  }
}

/// One element of D (its exact sum before rounding) as the tensor cores
/// sum it: each term cut to kept_fraction_bits below the largest term's
/// leading bit, the cut terms summed exactly. In double, for any terms:
/// the rare ones the vector path leaves out (infinities, NaN, terms far
/// from float's normal range). A is m x k and B k x n, row by row.
template <int m, int n, int k>
double tensor_core_sum(const float* a, const float* b, const float* c, int i, int j) {
  double largest = std::fabs(static_cast<double>(c[i * n + j]));
  bool finite = largest <= 0x1p1000;
  for (int kk = 0; kk < k; ++kk) {
    double term = std::fabs(static_cast<double>(a[i * k + kk]) * b[kk * n + j]);
    largest = std::max(largest, term);
    finite = finite && term <= 0x1p1000;
  }
  if (!finite) {  // IEEE arithmetic gives the infinity or NaN
    double naive = c[i * n + j];
    for (int kk = 0; kk < k; ++kk) naive += static_cast<double>(a[i * k + kk]) * b[kk * n + j];
    return naive;
  }
  if (largest == 0) return 0;
  int leading = static_cast<int>((std::bit_cast<std::uint64_t>(largest) >> 52) & 0x7ff) - 1023;
  double scale = std::ldexp(1.0, kept_fraction_bits - leading);
  std::int64_t sum = static_cast<std::int64_t>(static_cast<double>(c[i * n + j]) * scale);
  for (int kk = 0; kk < k; ++kk)
    sum += static_cast<std::int64_t>(static_cast<double>(a[i * k + kk]) * b[kk * n + j] * scale);
  return static_cast<double>(sum) / scale;
}

/// `count` elements of type T as one vector (GCC's and Clang's vector
/// extension, vectorised at any optimisation level).
template <class T, int count>
struct vector_type {
  using type [[gnu::vector_size(sizeof(T) * count)]] = T;
};
template <class T, int count>
using vector_of = typename vector_type<T, count>::type;

/// Whether any lane of an integer vector is nonzero, for any width.
template <class Vector>
[[gnu::always_inline]] inline bool any_lane(const Vector& v) {
  std::uint64_t words[sizeof v / 8], any = 0;
  std::memcpy(words, &v, sizeof v);
  for (std::uint64_t w : words) any |= w;
  return any != 0;
}

/// D = C + A x B (A m x k, B k x n, C m x n, row by row) for float tiles,
/// `width` columns of a row of D at a time: rounded to float (Out = float)
/// or the exact sums (Out = double, for half accumulators). The products
/// of half, bfloat16 and tf32 values are exact in float; scaled by
/// 2^(25 - the largest term's exponent), each term is below 2^26, so
/// converting it to int32 cuts it exactly where the tensor cores cut, and
/// 17 of them sum in int32 without overflow; the sum times 1 / scale is
/// exact in double, and where it is a float normal, rounding it towards
/// zero is clearing the double's 29 bits below a float's last. Elements
/// with a term that is infinite, NaN, or outside float's normal range, or
/// whose largest term is below 2^-102 (where the scale would leave
/// float's range), go through tensor_core_sum, and sums that are not float
/// normals through round_sum.
///
/// products_normal: the factors are half, whose nonzero products are float
/// normals (2^-48 and up, below 2^32) unless a factor is infinite or NaN,
/// so a product needs only that check.
///
/// All in one function, without lambdas or calls that take or return
/// vectors (hence __builtin_bit_cast), so that the per-width instances
/// below compile it all for their target.
template <int m, int n, int k, bool products_normal, int width, class Out>
[[gnu::always_inline]] inline void tensor_core_rows(const float* a, const float* b, const float* c, Out* d) {
  using floats = vector_of<float, width>;
  using ints = vector_of<std::int32_t, width>;
  using half_ints = vector_of<std::int32_t, width / 2>;
  using longs = vector_of<std::int64_t, width / 2>;
  using doubles = vector_of<double, width / 2>;
  using half_floats = vector_of<float, width / 2>;
  static_assert(n % width == 0);
  constexpr std::int32_t magnitude_bits = 0x7fffffff;
  constexpr std::int32_t largest_finite = 0x7f7fffff, smallest_normal = 0x00800000, infinity = 0x7f800000;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; j += width) {
      // A float's magnitude orders as its bits do, except NaN, which
      // `outside` sends to tensor_core_sum anyway. Flags are sign bits
      // from integer arithmetic, not comparisons: GCC scalarises a vector
      // comparison of a function it inlines into a wider target.
      floats row_c, products[k];
      std::memcpy(&row_c, c + i * n + j, sizeof row_c);
      ints size = __builtin_bit_cast(ints, row_c) & magnitude_bits;
      floats largest = __builtin_bit_cast(floats, size);
      ints outside = (largest_finite - size) | (~(size - 1) & (size - smallest_normal));  // not finite, or subnormal
      for (int kk = 0; kk < k; ++kk) {
        floats row_b;
        std::memcpy(&row_b, b + kk * n + j, sizeof row_b);
        floats product = (floats{} + a[i * k + kk]) * row_b;
        products[kk] = product;
        ints product_size = __builtin_bit_cast(ints, product) & magnitude_bits;
        floats magnitude = __builtin_bit_cast(floats, product_size);
        largest = magnitude > largest ? magnitude : largest;  // a max instruction
        if constexpr (products_normal)
          outside |= largest_finite - product_size;
        else
          outside |= (largest_finite - product_size) | (~(product_size - 1) & (product_size - smallest_normal));
      }
      ints top = __builtin_bit_cast(ints, largest);
      ints biased = top >> 23;
      ints tiny = (biased - 25) >> 31;  // all ones where the largest term is below 2^-102
      ints out = (outside | (tiny & -top)) >> 31;
      biased = (biased & ~tiny) | (25 & tiny);                          // all-zero elements: any scale will do
      floats scale = __builtin_bit_cast(floats, (279 - biased) << 23);  // 2^(25 - (biased - 127))
      ints unscale_exponent = biased - 152 + 1023;                      // 1 / scale, as a double's exponent
      ints sum = __builtin_convertvector(row_c * scale, ints);
      for (int kk = 0; kk < k; ++kk) sum += __builtin_convertvector(products[kk] * scale, ints);
      Out* row_d = d + i * n + j;
      if (!any_lane(out)) [[likely]] {
        for (int part = 0; part < 2; ++part) {
          half_ints part_sum, part_exponent;
          std::memcpy(&part_sum, reinterpret_cast<const char*>(&sum) + part * sizeof part_sum, sizeof part_sum);
          std::memcpy(&part_exponent, reinterpret_cast<const char*>(&unscale_exponent) + part * sizeof part_exponent,
                      sizeof part_exponent);
          doubles unscale = __builtin_bit_cast(doubles, __builtin_convertvector(part_exponent, longs) << 52);
          doubles value = __builtin_convertvector(part_sum, doubles) * unscale;
          Out* out_part = row_d + part * (width / 2);
          if constexpr (std::is_same_v<Out, double>) {
            std::memcpy(out_part, &value, sizeof value);
          } else {
            // Towards zero, where the result is a float normal: the low 29
            // bits cleared make the conversion exact. Results at or below
            // the smallest normal, and infinite ones, go through round_sum.
            longs bits = __builtin_bit_cast(longs, value);
            half_floats cut =
                __builtin_convertvector(__builtin_bit_cast(doubles, bits & (~longs{} << 29)), half_floats);
            half_ints cut_size = __builtin_bit_cast(half_ints, cut) & magnitude_bits;
            half_ints not_normal = ~((smallest_normal - cut_size) & (cut_size - infinity)) >> 31;
            if (!any_lane(not_normal)) [[likely]] {
              std::memcpy(out_part, &cut, sizeof cut);
            } else {
              for (int l = 0; l < width / 2; ++l) out_part[l] = round_sum<float>(value[l]);
            }
          }
        }
        continue;
      }
      for (int l = 0; l < width; ++l) {
        double exact = out[l] ? tensor_core_sum<m, n, k>(a, b, c, i, j + l)
                              : static_cast<double>(sum[l]) *
                                    __builtin_bit_cast(double, static_cast<std::uint64_t>(unscale_exponent[l]) << 52);
        if constexpr (std::is_same_v<Out, double>)
          row_d[l] = exact;
        else
          row_d[l] = round_sum<float>(exact);
      }
    }
}

/// The k products of each element of D for 8-bit integer factors (given as
/// floats), `width` columns at a time: each product is below 2^16 in
/// size and 16 of them below 2^20, so float sums them exactly, in any order.
template <int m, int n, int k, int width>
[[gnu::always_inline]] inline void integer_product_rows(const float* a, const float* b, float* sums) {
  using floats = vector_of<float, width>;
  static_assert(n % width == 0 && k <= 16);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; j += width) {
      floats sum{};
      for (int kk = 0; kk < k; ++kk) {
        floats row_b;
        std::memcpy(&row_b, b + kk * n + j, sizeof row_b);
        sum += (floats{} + a[i * k + kk]) * row_b;
      }
      std::memcpy(sums + i * n + j, &sum, sizeof sum);
    }
}

// The instances per width (vector_isa.hpp): a row of 16 floats is one
// AVX-512 vector. Narrow tiles use the widest vectors that fit a row.
template <int m, int n, int k, bool products_normal, class Out>
void tensor_core_rows_sse2(const float* a, const float* b, const float* c, Out* d) {
  tensor_core_rows<m, n, k, products_normal, 4>(a, b, c, d);
}
template <int m, int n, int k>
void integer_product_rows_sse2(const float* a, const float* b, float* sums) {
  integer_product_rows<m, n, k, 4>(a, b, sums);
}
#if defined(__x86_64__)
template <int m, int n, int k>
[[gnu::target("avx2")]] void integer_product_rows_avx2(const float* a, const float* b, float* sums) {
  integer_product_rows<m, n, k, std::min(n, 8)>(a, b, sums);
  __builtin_ia32_vzeroupper();
}
template <int m, int n, int k>
[[gnu::target("avx512f,avx512dq,avx512vl,avx512bw")]] void integer_product_rows_avx512(const float* a, const float* b,
                                                                                       float* sums) {
  integer_product_rows<m, n, k, std::min(n, 16)>(a, b, sums);
  __builtin_ia32_vzeroupper();
}
template <int m, int n, int k, bool products_normal, class Out>
[[gnu::target("avx2")]] void tensor_core_rows_avx2(const float* a, const float* b, const float* c, Out* d) {
  tensor_core_rows<m, n, k, products_normal, std::min(n, 8)>(a, b, c, d);
  __builtin_ia32_vzeroupper();  // GCC leaves it out below -O2: SSE code after AVX code would stall
}
template <int m, int n, int k, bool products_normal, class Out>
[[gnu::target("avx512f,avx512dq,avx512vl,avx512bw")]] void tensor_core_rows_avx512(const float* a, const float* b,
                                                                                   const float* c, Out* d) {
  tensor_core_rows<m, n, k, products_normal, std::min(n, 16)>(a, b, c, d);
  __builtin_ia32_vzeroupper();
}
#endif

/// tensor_core_rows with the vectors `isa` names (which the CPU must run).
template <int m, int n, int k, bool products_normal, class Out>
void tensor_core_product(vector_isa isa, const float* a, const float* b, const float* c, Out* d) {
#if defined(__x86_64__)
  if (isa == vector_isa::avx512) return tensor_core_rows_avx512<m, n, k, products_normal>(a, b, c, d);
  if (isa == vector_isa::avx2) return tensor_core_rows_avx2<m, n, k, products_normal>(a, b, c, d);
#endif
  (void)isa;
  tensor_core_rows_sse2<m, n, k, products_normal>(a, b, c, d);
}

/// integer_product_rows with the vectors `isa` names.
template <int m, int n, int k>
void integer_product_sums(vector_isa isa, const float* a, const float* b, float* sums) {
#if defined(__x86_64__)
  if (isa == vector_isa::avx512) return integer_product_rows_avx512<m, n, k>(a, b, sums);
  if (isa == vector_isa::avx2) return integer_product_rows_avx2<m, n, k>(a, b, sums);
#endif
  (void)isa;
  integer_product_rows_sse2<m, n, k>(a, b, sums);
}

}  // namespace weft::detail::wmma
