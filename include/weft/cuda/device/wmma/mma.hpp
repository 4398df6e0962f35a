// mma_sync (D = A x B + C) and bmma_sync (the 1-bit form), computed as an
// H100's tensor cores compute them, at one warp-level exchange per call
// (warp_tile_exchange.hpp).
//
// Precision, as the differential probe (tests/differential/wmma_probe)
// measured it on an H100: products of half, bfloat16 and tf32 factors are
// exact (tf32 factors first lose their low 13 mantissa bits: the tensor
// cores ignore them). For each element of D, C and the k products are one
// group: each term is cut (towards zero) to 25 bits below the leading bit
// of the group's largest term, the cut terms are summed exactly, and the
// sum is rounded towards zero to float, or to nearest to half; NaN comes
// out as 0x7fffffff. double uses a fused multiply-add per k, in order.
// 8-bit and 4-bit integers are summed in 32 bits, wrapping on overflow, or
// clamped to int's range with satf.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <source_location>
#include <type_traits>
#include <utility>

#include "weft/cuda/device/wmma/conversions.hpp"
#include "weft/cuda/device/wmma/fragment.hpp"
#include "weft/cuda/device/wmma/warp_tile_exchange.hpp"

namespace weft::detail::wmma {

// Four floats or four 32-bit integers: one SSE register, vectorised at any
// optimisation level (GCC's and Clang's vector extension).
typedef float floats4 __attribute__((vector_size(16)));
typedef std::int32_t ints4 __attribute__((vector_size(16)));
typedef std::uint32_t uints4 __attribute__((vector_size(16)));

[[gnu::always_inline]] inline floats4 load4(const float* p) {
  floats4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// The type a product is computed in, for each factor type.
template <class T>
struct product_type {
  using type = float;  // __half, __nv_bfloat16, tf32
};
template <>
struct product_type<double> {
  using type = double;
};
template <>
struct product_type<signed char> {
  using type = std::int32_t;
};
template <>
struct product_type<unsigned char> {
  using type = std::int32_t;
};
template <>
struct product_type<nw::experimental::precision::s4> {
  using type = std::int32_t;
};
template <>
struct product_type<nw::experimental::precision::u4> {
  using type = std::int32_t;
};

/// A half widened to float, exactly, in a few instructions: the exponent
/// and mantissa moved into place and the exponent's bias corrected by one
/// exact multiplication by 2^112 (which also normalises subnormals);
/// infinity and NaN keep an all-ones exponent.
[[gnu::always_inline]] inline float half_to_float(__half h) {
  std::uint32_t bits = std::bit_cast<std::uint16_t>(h);
  std::uint32_t magnitude = (bits & 0x7fffu) << 13;
  float value = std::bit_cast<float>(magnitude) * 0x1p112f;
  if ((bits & 0x7c00u) == 0x7c00u) value = std::bit_cast<float>(magnitude | 0x7f800000u);
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(value) | (bits & 0x8000u) << 16);
}

/// Four halves widened to float as half_to_float does, in one vector each
/// step.
[[gnu::always_inline]] inline floats4 halves_to_floats(uints4 bits) {
  uints4 magnitude = (bits & 0x7fffu) << 13;
  uints4 scaled = std::bit_cast<uints4>(std::bit_cast<floats4>(magnitude) * 0x1p112f);
  uints4 special = (bits & 0x7c00u) == 0x7c00u;  // infinity or NaN: all ones where so
  uints4 value = (scaled & ~special) | ((magnitude | 0x7f800000u) & special);
  return std::bit_cast<floats4>(value | (bits & 0x8000u) << 16);
}

/// `count` halves (a multiple of 8) widened to float, in order.
inline void widen_halves(const __half* in, float* out, int count) {
  typedef std::uint16_t ushorts8 __attribute__((vector_size(16)));
  typedef std::uint16_t ushorts4 __attribute__((vector_size(8)));
  for (int i = 0; i < count; i += 8) {
    ushorts8 bits;
    std::memcpy(&bits, in + i, sizeof bits);
    floats4 low = halves_to_floats(__builtin_convertvector(__builtin_shufflevector(bits, bits, 0, 1, 2, 3), uints4));
    floats4 high = halves_to_floats(__builtin_convertvector(__builtin_shufflevector(bits, bits, 4, 5, 6, 7), uints4));
    std::memcpy(out + i, &low, sizeof low);
    std::memcpy(out + i + 4, &high, sizeof high);
  }
  static_assert(sizeof(ushorts4) == 8);
}

/// A factor element as the tensor cores read it.
template <class T, class S>
[[gnu::always_inline]] inline typename product_type<T>::type widen_factor(S v) {
  if constexpr (std::is_same_v<T, __half>)
    return half_to_float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return std::bit_cast<float>(std::uint32_t{std::bit_cast<std::uint16_t>(v)} << 16);
  else if constexpr (std::is_same_v<T, nw::precision::tf32>)
    return tf32_truncated(v);
  else
    return static_cast<typename product_type<T>::type>(v);
}

/// An accumulator element widened for the sum, and narrowed back.
template <class Acc, class P>
[[gnu::always_inline]] inline P widen_accumulator(Acc v) {
  if constexpr (std::is_same_v<Acc, __half>)
    return half_to_float(v);
  else
    return static_cast<P>(v);
}

/// Bits kept below the leading bit of a group's largest term (the probe's
/// "1 + 16 * 2^-25" keeps its products, "1 + 16 * 2^-26" loses them).
inline constexpr int kept_fraction_bits = 25;

/// A tensor core's float sum (see the top of this file) rounded to the
/// accumulator's type: towards zero for float (beyond float's range it is
/// infinite), to nearest for half.
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
/// the rare ones the vector path below leaves out (infinities, NaN, terms
/// far from float's normal range).
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

/// Calls f(std::integral_constant<int, q>{}) for q = 0, ..., count - 1,
/// unrolled at any optimisation level.
template <int count, class F>
[[gnu::always_inline]] inline void unrolled(F&& f) {
  [&]<int... q>(std::integer_sequence<int, q...>) { (f(std::integral_constant<int, q>{}), ...); }
  (std::make_integer_sequence<int, count>{});
}

typedef double doubles2 __attribute__((vector_size(16)));
typedef std::int32_t ints2 __attribute__((vector_size(8)));
typedef std::uint64_t ulongs2 __attribute__((vector_size(16)));

/// Two scaled integer sums stored as doubles: sum * 2^(exponent - 1023).
[[gnu::always_inline]] inline void store_scaled(double* out, ints2 sum, ints2 exponent) {
  doubles2 unscale = std::bit_cast<doubles2>(__builtin_convertvector(exponent, ulongs2) << 52);
  doubles2 value = __builtin_convertvector(sum, doubles2) * unscale;
  std::memcpy(out, &value, sizeof value);
}

/// D (m x n, exact sums before rounding) = C + A x B for float tiles, four
/// columns at a time as vectors: the products of half, bfloat16
/// and tf32 values are exact in float; scaled by 2^(25 - the largest
/// term's exponent), each term is below 2^26, so converting it to int32
/// cuts it exactly where the tensor cores cut, and 17 of them sum in int32
/// without overflow. Elements with a term that is infinite, NaN, or
/// outside float's normal range, or whose largest term is below 2^-102
/// (where the scale would leave float's range), go through
/// tensor_core_sum.
///
/// products_normal: the factors are half, whose nonzero products are float
/// normals (2^-48 and up, below 2^32) unless a factor is infinite or NaN,
/// so a product needs only that check.
template <int m, int n, int k, bool products_normal>
void tensor_core_sums(const float* a, const float* b, const float* c, double* d) {
  constexpr int chunks = n / 4;  // four columns per 16-byte vector
  constexpr std::int32_t magnitude_bits = 0x7fffffff;
  constexpr std::int32_t smallest_normal = 0x00800000, above_largest = 0x7f800000;  // as bits
  auto out_of_range = [](ints4 size) { return (size >= above_largest) | ((size < smallest_normal) & (size != 0)); };
  for (int i = 0; i < m; ++i) {
    // Row i of D, all its columns at once: each factor of A is broadcast
    // once. A float's magnitude orders as its bits do, except NaN, which
    // `outside` sends to tensor_core_sum anyway.
    floats4 row_c[chunks], largest[chunks], products[k][chunks];
    ints4 outside[chunks];
    unrolled<chunks>([&](auto q) {
      row_c[q] = load4(c + i * n + 4 * q);
      ints4 size = std::bit_cast<ints4>(row_c[q]) & magnitude_bits;
      largest[q] = std::bit_cast<floats4>(size);
      outside[q] = out_of_range(size);
    });
    for (int kk = 0; kk < k; ++kk) {
      floats4 factor = floats4{} + a[i * k + kk];
      const float* row_b = b + kk * n;
      unrolled<chunks>([&](auto q) {
        floats4 product = factor * load4(row_b + 4 * q);
        products[kk][q] = product;
        ints4 size = std::bit_cast<ints4>(product) & magnitude_bits;
        floats4 magnitude = std::bit_cast<floats4>(size);
        largest[q] = magnitude > largest[q] ? magnitude : largest[q];
        if constexpr (products_normal)
          outside[q] |= size >= above_largest;
        else
          outside[q] |= out_of_range(size);
      });
    }
    unrolled<chunks>([&](auto q) {
      ints4 top = std::bit_cast<ints4>(largest[q]);
      ints4 biased = top >> 23;
      ints4 out = outside[q] | ((biased < 25) & (top != 0));
      ints4 tiny = biased < 25;
      biased = (biased & ~tiny) | (25 & tiny);                       // all-zero elements: any scale will do
      floats4 scale = std::bit_cast<floats4>((279 - biased) << 23);  // 2^(25 - (biased - 127))
      ints4 unscale_exponent = biased - 152 + 1023;                  // 1 / scale, as a double's exponent
      ints4 sum = __builtin_convertvector(row_c[q] * scale, ints4);
      for (int kk = 0; kk < k; ++kk) sum += __builtin_convertvector(products[kk][q] * scale, ints4);
      double* row_d = d + i * n + 4 * q;
      if (!(out[0] | out[1] | out[2] | out[3])) [[likely]] {
        store_scaled(row_d, __builtin_shufflevector(sum, sum, 0, 1),
                     __builtin_shufflevector(unscale_exponent, unscale_exponent, 0, 1));
        store_scaled(row_d + 2, __builtin_shufflevector(sum, sum, 2, 3),
                     __builtin_shufflevector(unscale_exponent, unscale_exponent, 2, 3));
        return;
      }
      for (int l = 0; l < 4; ++l)
        row_d[l] = out[l] ? tensor_core_sum<m, n, k>(a, b, c, i, 4 * q + l)
                          : static_cast<double>(sum[l]) *
                                std::bit_cast<double>(static_cast<std::uint64_t>(unscale_exponent[l]) << 52);
    });
  }
}

/// round_sum of each of `count` (even) sums, two at a time where both round
/// to a float normal: towards zero is then a double's low 29 mantissa bits
/// cleared (those below a float's last bit), and the conversion is exact.
template <class Acc>
void round_sums(const double* sums, Acc* out, int count) {
  for (int i = 0; i < count; i += 2) {
    if constexpr (std::is_same_v<Acc, float>) {
      typedef float floats2 __attribute__((vector_size(8)));
      doubles2 x;
      std::memcpy(&x, sums + i, sizeof x);
      ulongs2 bits = std::bit_cast<ulongs2>(x);
      doubles2 size = std::bit_cast<doubles2>(bits & 0x7fffffffffffffffu);
      auto normal = (size >= 0x1p-126) & (size < 0x1p128);  // false for NaN
      if (normal[0] & normal[1]) [[likely]] {
        floats2 cut = __builtin_convertvector(std::bit_cast<doubles2>(bits & ~ulongs2{} << 29), floats2);
        std::memcpy(out + i, &cut, sizeof cut);
        continue;
      }
    }
    out[i] = round_sum<Acc>(sums[i]);
    out[i + 1] = round_sum<Acc>(sums[i + 1]);
  }
}

/// Builds a factor's tile (rows x cols, row by row, in the product type)
/// from the lanes' fragments, which lie lane after lane as each lane holds
/// its x[].
template <class Use, int rows, int cols, class T, int per_lane, class Storage, class P>
void gather_factor(const Storage* lanes, P* tile) {
  constexpr int pack = element_traits<T>::per_storage;
  if constexpr (std::is_same_v<T, __half>) {  // the common case: placed, then widened eight at a time
    alignas(16) __half placed[rows * cols];
    for (element_move move : first_copies<Use, rows, cols, per_lane>) placed[move.place] = lanes[move.element];
    widen_halves(placed, tile, rows * cols);
    return;
  }
  for (element_move move : first_copies<Use, rows, cols, per_lane>) {
    if constexpr (pack == 1)
      tile[move.place] = widen_factor<T>(lanes[move.element]);
    else
      tile[move.place] = nibble<T>(static_cast<std::uint32_t>(lanes[move.element / pack]), move.element % pack);
  }
}

/// C (m x n) += A (m x k) x B (k x n) for double tiles (a fused
/// multiply-add per k, in order, as the H100's DMMA gave) and integer tiles
/// (four columns of C per vector, to which each A(i, kk) times the same
/// columns of row kk of B is added).
template <int m, int n, int k, class P>
void multiply_tiles(const P* a, const P* b, P* c) {
  if constexpr (std::is_same_v<P, double>) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = c[i * n + j];
        for (int kk = 0; kk < k; ++kk) sum = std::fma(a[i * k + kk], b[kk * n + j], sum);
        c[i * n + j] = sum;
      }
  } else {
    // Integers are summed unsigned: they wrap on overflow, as the GPU's
    // 32-bit sums do. Four columns per vector.
    for (int i = 0; i < m; ++i)
      for (int q = 0; q < n / 4; ++q) {
        uints4 row;
        std::memcpy(&row, c + i * n + 4 * q, sizeof row);
        for (int kk = 0; kk < k; ++kk) {
          uints4 b_part;
          std::memcpy(&b_part, b + kk * n + 4 * q, sizeof b_part);
          row += static_cast<std::uint32_t>(a[i * k + kk]) * b_part;
        }
        std::memcpy(c + i * n + 4 * q, &row, sizeof row);
      }
  }
}

/// The integer product with satf: summed in 64 bits, clamped to int.
template <int m, int n, int k>
void multiply_tiles_saturating(const std::int32_t* a, const std::int32_t* b, std::int32_t* c) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      std::int64_t sum = c[i * n + j];
      for (int kk = 0; kk < k; ++kk) sum += std::int64_t{a[i * k + kk]} * b[kk * n + j];
      sum = std::clamp<std::int64_t>(sum, std::numeric_limits<std::int32_t>::min(),
                                     std::numeric_limits<std::int32_t>::max());
      c[i * n + j] = static_cast<std::int32_t>(sum);
    }
}

template <class... Types>
const char* operation_name() {
  return std::source_location::current().function_name();
}

template <int m, int n, int k, class AT, class AL, class BT, class BL, class CT, class DT>
void product(nw::fragment<nw::accumulator, m, n, k, DT>& d, const nw::fragment<nw::matrix_a, m, n, k, AT, AL>& a,
             const nw::fragment<nw::matrix_b, m, n, k, BT, BL>& b, const nw::fragment<nw::accumulator, m, n, k, CT>& c,
             bool satf, std::source_location where) {
  using P = typename product_type<AT>::type;
  using frag_a = nw::fragment<nw::matrix_a, m, n, k, AT, AL>;
  using frag_b = nw::fragment<nw::matrix_b, m, n, k, BT, BL>;
  constexpr int per_lane = nw::fragment<nw::accumulator, m, n, k, CT>::num_elements;
  constexpr int per_lane_a = frag_a::num_elements, per_lane_b = frag_b::num_elements;
  using frag_c = nw::fragment<nw::accumulator, m, n, k, CT>;
  using frag_d = nw::fragment<nw::accumulator, m, n, k, DT>;
  constexpr auto& d_moves = first_copies<nw::accumulator, m, n, per_lane>;  // accumulators hold no copies
  warp_product(
      operation_name<frag_d, frag_a, frag_b, frag_c>(),
      [&](tile_set& t, unsigned lane) {
        std::memcpy(t.lanes_a + lane * sizeof a.x, a.x, sizeof a.x);
        std::memcpy(t.lanes_b + lane * sizeof b.x, b.x, sizeof b.x);
        std::memcpy(t.lanes_c + lane * sizeof c.x, c.x, sizeof c.x);
      },
      [&](tile_set& t) {
        auto* ta = reinterpret_cast<P*>(t.a);
        auto* tb = reinterpret_cast<P*>(t.b);
        auto* tc = reinterpret_cast<P*>(t.c);
        gather_factor<nw::matrix_a, m, k, AT, per_lane_a>(
            reinterpret_cast<const typename frag_a::storage_element_type*>(t.lanes_a), ta);
        gather_factor<nw::matrix_b, k, n, BT, per_lane_b>(
            reinterpret_cast<const typename frag_b::storage_element_type*>(t.lanes_b), tb);
        const auto* lanes_c = reinterpret_cast<const CT*>(t.lanes_c);
        for (element_move move : d_moves) tc[move.place] = widen_accumulator<CT, P>(lanes_c[move.element]);
        auto* lanes_d = reinterpret_cast<DT*>(t.lanes_d);
        if constexpr (std::is_same_v<P, float>) {
          auto* sums = reinterpret_cast<double*>(t.d);
          tensor_core_sums<m, n, k, std::is_same_v<AT, __half>>(ta, tb, tc, sums);
          alignas(16) DT rounded[m * n];
          round_sums(sums, rounded, m * n);
          for (element_move move : d_moves) lanes_d[move.element] = rounded[move.place];
        } else {
          if constexpr (std::is_same_v<P, std::int32_t>) {
            if (satf)
              multiply_tiles_saturating<m, n, k>(ta, tb, tc);
            else
              multiply_tiles<m, n, k>(ta, tb, tc);
          } else {
            multiply_tiles<m, n, k>(ta, tb, tc);
          }
          for (element_move move : d_moves) lanes_d[move.element] = static_cast<DT>(tc[move.place]);
        }
      },
      [&](const tile_set& t, unsigned lane) { std::memcpy(d.x, t.lanes_d + lane * sizeof d.x, sizeof d.x); }, where);
}

/// Whether sm_90 has mma_sync for these factor and accumulator types.
template <class AT, class BT, class CT, class DT>
constexpr bool product_supported() {
  if constexpr (!std::is_same_v<AT, BT>) return false;
  if constexpr (std::is_same_v<AT, __half>)
    return (std::is_same_v<CT, float> || std::is_same_v<CT, __half>)&&(std::is_same_v<DT, float> ||
                                                                       std::is_same_v<DT, __half>);
  if constexpr (std::is_same_v<AT, __nv_bfloat16> || std::is_same_v<AT, nw::precision::tf32>)
    return std::is_same_v<CT, float> && std::is_same_v<DT, float>;
  if constexpr (std::is_same_v<AT, double>) return std::is_same_v<CT, double> && std::is_same_v<DT, double>;
  if constexpr (std::is_same_v<AT, signed char> || std::is_same_v<AT, unsigned char> ||
                std::is_same_v<AT, nw::experimental::precision::s4> ||
                std::is_same_v<AT, nw::experimental::precision::u4>)
    return std::is_same_v<CT, int> && std::is_same_v<DT, int>;
  return false;  // b1 multiplies with bmma_sync
}

/// bmma_sync: D[i][j] = C[i][j] + popcount of (row i of A op column j of B),
/// 128 bits each, kept as four 32-bit words.
inline void bit_product(int* d, const std::uint32_t* a, const std::uint32_t* b, const int* c,
                        nw::experimental::bmmaBitOp op) {
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      std::uint32_t count = 0;
      for (int w = 0; w < 4; ++w) {
        std::uint32_t x = a[i * 4 + w], y = b[j * 4 + w];
        count += static_cast<std::uint32_t>(std::popcount(op == nw::experimental::bmmaBitOpAND ? x & y : x ^ y));
      }
      d[i * 8 + j] = static_cast<int>(static_cast<std::uint32_t>(c[i * 8 + j]) + count);
    }
}

}  // namespace weft::detail::wmma

namespace nvcuda::wmma {

/// D = A x B + C for the calling warp (every lane calls it with its own
/// fragments), for half, bfloat16, tf32 and double factors.
template <int m, int n, int k, class AT, class AL, class BT, class BL, class CT, class DT>
requires(weft::detail::wmma::product_supported<AT, BT, CT, DT>() &&
         !std::is_same_v<typename weft::detail::wmma::product_type<AT>::type,
                         std::int32_t>) void mma_sync(fragment<accumulator, m, n, k, DT>& d,
                                                      const fragment<matrix_a, m, n, k, AT, AL>& a,
                                                      const fragment<matrix_b, m, n, k, BT, BL>& b,
                                                      const fragment<accumulator, m, n, k, CT>& c,
                                                      std::source_location where = std::source_location::current()) {
  weft::detail::wmma::product(d, a, b, c, false, where);
}

/// D = A x B + C for 8-bit and 4-bit integer factors. satf: a sum beyond
/// int's range is clamped to it instead of wrapping.
template <int m, int n, int k, class AT, class AL, class BT, class BL, class CT, class DT>
requires(weft::detail::wmma::product_supported<AT, BT, CT, DT>() &&
         std::is_same_v<typename weft::detail::wmma::product_type<AT>::type,
                        std::int32_t>) void mma_sync(fragment<accumulator, m, n, k, DT>& d,
                                                     const fragment<matrix_a, m, n, k, AT, AL>& a,
                                                     const fragment<matrix_b, m, n, k, BT, BL>& b,
                                                     const fragment<accumulator, m, n, k, CT>& c, bool satf = false,
                                                     std::source_location where = std::source_location::current()) {
  weft::detail::wmma::product(d, a, b, c, satf, where);
}

/// The 1-bit product (m8n8k128): each element of D is C's plus the number
/// of bits set in (row of A) XOR or AND (column of B).
inline void bmma_sync(fragment<accumulator, 8, 8, 128, int>& d,
                      const fragment<matrix_a, 8, 8, 128, experimental::precision::b1, row_major>& a,
                      const fragment<matrix_b, 8, 8, 128, experimental::precision::b1, col_major>& b,
                      const fragment<accumulator, 8, 8, 128, int>& c,
                      experimental::bmmaBitOp op = experimental::bmmaBitOpXOR,
                      experimental::bmmaAccumulateOp = experimental::bmmaAccumulateOpPOPC,
                      std::source_location where = std::source_location::current()) {
  using namespace weft::detail::wmma;
  warp_product(
      "nvcuda::wmma::bmma_sync (m8n8k128, b1)",
      [&](tile_set& t, unsigned lane) {
        // Lane l holds 32 bits of row l/4 of A and of column l/4 of B.
        auto* words_a = reinterpret_cast<std::uint32_t*>(t.a);
        auto* words_b = reinterpret_cast<std::uint32_t*>(t.b);
        position pa = element_position<matrix_a, 8, 128, 32>(lane, 0);
        position pb = element_position<matrix_b, 128, 8, 32>(lane, 0);
        words_a[pa.row * 4 + pa.col / 32] = a.x[0];
        words_b[pb.col * 4 + pb.row / 32] = b.x[0];
        auto* tile = reinterpret_cast<int*>(t.c);
        for (int e = 0; e < 2; ++e) {
          position p = element_position<accumulator, 8, 8, 2>(lane, e);
          tile[p.row * 8 + p.col] = c.x[e];
        }
      },
      [&](tile_set& t) {
        auto* tile = reinterpret_cast<int*>(t.c);
        bit_product(tile, reinterpret_cast<const std::uint32_t*>(t.a), reinterpret_cast<const std::uint32_t*>(t.b),
                    tile, op);
      },
      [&](const tile_set& t, unsigned lane) {
        const auto* tile = reinterpret_cast<const int*>(t.c);
        for (int e = 0; e < 2; ++e) {
          position p = element_position<accumulator, 8, 8, 2>(lane, e);
          d.x[e] = tile[p.row * 8 + p.col];
        }
      },
      where);
}

}  // namespace nvcuda::wmma
