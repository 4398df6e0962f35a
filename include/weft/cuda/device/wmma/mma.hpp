// mma_sync (D = A x B + C) and bmma_sync (the 1-bit form), computed as an
// H100's tensor cores compute them, at one warp-level exchange per call
// (warp_tile_exchange.hpp).
//
// Precision: half, bfloat16 and tf32 factors are widened to float, where
// their products are exact; tf32 factors first lose their low 13 mantissa
// bits (truncation, as the tensor cores read them). Each row of D is then
// C plus the products added in order of k in float. A half accumulator is
// widened to float for the sum and rounded to nearest once at the end.
// double uses a fused multiply-add per k, in order. 8-bit and 4-bit
// integers are summed in 32 bits, wrapping on overflow, or clamped to the
// int range with satf. docs/semantics.md, "Warp matrix functions", says
// where this may differ from a GPU in the last bit and how the differential
// probe checks it.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <source_location>
#include <type_traits>

#include "weft/cuda/device/wmma/conversions.hpp"
#include "weft/cuda/device/wmma/fragment.hpp"
#include "weft/cuda/device/wmma/warp_tile_exchange.hpp"

namespace weft::detail::wmma {

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

/// A factor element as the tensor cores read it.
template <class T, class S>
typename product_type<T>::type widen_factor(S v) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(v);
  else if constexpr (std::is_same_v<T, nw::precision::tf32>)
    return tf32_truncated(v);
  else
    return static_cast<typename product_type<T>::type>(v);
}

/// An accumulator element widened for the sum, and narrowed back.
template <class Acc, class P>
P widen_accumulator(Acc v) {
  if constexpr (std::is_same_v<Acc, __half>)
    return __half2float(v);
  else
    return static_cast<P>(v);
}

template <class Acc, class P>
Acc narrow_accumulator(P v, bool satf) {
  if constexpr (std::is_same_v<Acc, __half>) {
    if (satf && std::isnan(v)) return __float2half_rn(0.0f);
    __half h = __float2half_rn(v);
    if (satf && std::isinf(__half2float(h))) return __float2half_rn(v > 0 ? 65504.0f : -65504.0f);
    return h;
  } else if constexpr (std::is_same_v<Acc, float>) {
    if (satf) {
      if (std::isnan(v)) return 0.0f;
      if (std::isinf(v)) return v > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
    }
    return v;
  } else {
    return static_cast<Acc>(v);
  }
}

/// Copies a factor fragment's first copy of its elements into `tile`
/// (rows x cols, row by row) in the product type.
template <class Use, int rows, int cols, class T, int per_lane, class Storage, class P>
void deposit_factor(unsigned lane, const Storage* x, P* tile) {
  if (!holds_first_copy<rows, cols, per_lane>(lane)) return;
  constexpr int pack = element_traits<T>::per_storage;
  for (int e = 0; e < per_lane; ++e) {
    position p = element_position<Use, rows, cols, per_lane>(lane, e);
    if constexpr (pack == 1)
      tile[p.row * cols + p.col] = widen_factor<T>(x[e]);
    else
      tile[p.row * cols + p.col] = nibble<T>(static_cast<std::uint32_t>(x[e / pack]), e % pack);
  }
}

/// C (m x n) += A (m x k) x B (k x n), row by row: the inner loop runs
/// along a row of B and of C, which the compiler vectorises.
template <int m, int n, int k, class P>
void multiply_tiles(const P* a, const P* b, P* c) {
  for (int i = 0; i < m; ++i) {
    P row[n];
    for (int j = 0; j < n; ++j) row[j] = c[i * n + j];
    for (int kk = 0; kk < k; ++kk) {
      P factor = a[i * k + kk];
      const P* b_row = b + kk * n;
      if constexpr (std::is_same_v<P, double>) {
        for (int j = 0; j < n; ++j) row[j] = std::fma(factor, b_row[j], row[j]);
      } else if constexpr (std::is_same_v<P, std::int32_t>) {
        // Wraps on overflow as the GPU's 32-bit sum does (unsigned: no UB).
        for (int j = 0; j < n; ++j)
          row[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(row[j]) +
                                             static_cast<std::uint32_t>(factor) * static_cast<std::uint32_t>(b_row[j]));
      } else {
        // Products of half, bfloat16 and tf32 values are exact in float, so
        // a fused and an unfused multiply-add give the same sum.
        for (int j = 0; j < n; ++j) row[j] += factor * b_row[j];
      }
    }
    for (int j = 0; j < n; ++j) c[i * n + j] = row[j];
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
  lane_place self = current_lane("nvcuda::wmma::mma_sync");
  warp_product(
      operation_name<nw::fragment<nw::accumulator, m, n, k, DT>, frag_a, frag_b,
                     nw::fragment<nw::accumulator, m, n, k, CT>>(),
      [&](tile_set& t) {
        deposit_factor<nw::matrix_a, m, k, AT, frag_a::num_elements>(self.lane, a.x, reinterpret_cast<P*>(t.a));
        deposit_factor<nw::matrix_b, k, n, BT, frag_b::num_elements>(self.lane, b.x, reinterpret_cast<P*>(t.b));
        P* tile = reinterpret_cast<P*>(t.c);
        for (int e = 0; e < per_lane; ++e) {
          position p = element_position<nw::accumulator, m, n, per_lane>(self.lane, e);
          tile[p.row * n + p.col] = widen_accumulator<CT, P>(c.x[e]);
        }
      },
      [&](tile_set& t) {
        auto* ta = reinterpret_cast<const P*>(t.a);
        auto* tb = reinterpret_cast<const P*>(t.b);
        auto* tc = reinterpret_cast<P*>(t.c);
        if constexpr (std::is_same_v<P, std::int32_t>) {
          if (satf) return multiply_tiles_saturating<m, n, k>(ta, tb, tc);
        }
        multiply_tiles<m, n, k>(ta, tb, tc);
      },
      [&](tile_set& t) {
        const P* tile = reinterpret_cast<const P*>(t.c);
        for (int e = 0; e < per_lane; ++e) {
          position p = element_position<nw::accumulator, m, n, per_lane>(self.lane, e);
          d.x[e] = narrow_accumulator<DT, P>(tile[p.row * n + p.col], satf);
        }
      },
      where);
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
/// fragments). satf: a floating-point result that is infinite becomes the
/// largest finite value of its sign and NaN becomes +0; an integer result
/// is clamped to int's range instead of wrapping.
template <int m, int n, int k, class AT, class AL, class BT, class BL, class CT, class DT>
requires(weft::detail::wmma::product_supported<AT, BT, CT, DT>()) void mma_sync(
    fragment<accumulator, m, n, k, DT>& d, const fragment<matrix_a, m, n, k, AT, AL>& a,
    const fragment<matrix_b, m, n, k, BT, BL>& b, const fragment<accumulator, m, n, k, CT>& c, bool satf = false,
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
  lane_place self = current_lane("nvcuda::wmma::bmma_sync");
  warp_product(
      "nvcuda::wmma::bmma_sync (m8n8k128, b1)",
      [&](tile_set& t) {
        // Lane l holds 32 bits of row l/4 of A and of column l/4 of B.
        auto* words_a = reinterpret_cast<std::uint32_t*>(t.a);
        auto* words_b = reinterpret_cast<std::uint32_t*>(t.b);
        position pa = element_position<matrix_a, 8, 128, 32>(self.lane, 0);
        position pb = element_position<matrix_b, 128, 8, 32>(self.lane, 0);
        words_a[pa.row * 4 + pa.col / 32] = a.x[0];
        words_b[pb.col * 4 + pb.row / 32] = b.x[0];
        auto* tile = reinterpret_cast<int*>(t.c);
        for (int e = 0; e < 2; ++e) {
          position p = element_position<accumulator, 8, 8, 2>(self.lane, e);
          tile[p.row * 8 + p.col] = c.x[e];
        }
      },
      [&](tile_set& t) {
        auto* tile = reinterpret_cast<int*>(t.c);
        bit_product(tile, reinterpret_cast<const std::uint32_t*>(t.a), reinterpret_cast<const std::uint32_t*>(t.b),
                    tile, op);
      },
      [&](tile_set& t) {
        const auto* tile = reinterpret_cast<const int*>(t.c);
        for (int e = 0; e < 2; ++e) {
          position p = element_position<accumulator, 8, 8, 2>(self.lane, e);
          d.x[e] = tile[p.row * 8 + p.col];
        }
      },
      where);
}

}  // namespace nvcuda::wmma
