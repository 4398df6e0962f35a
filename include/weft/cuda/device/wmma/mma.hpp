// mma_sync (D = A x B + C) and bmma_sync (the 1-bit form), computed as an
// H100's tensor cores compute them, at one warp-level exchange per call
// (warp_tile_exchange.hpp).
//
// Precision, as the differential probe (tests/differential/wmma_probe)
// measured it on an H100: products of half, bfloat16 and tf32 factors are
// exact (tf32 factors first lose their low 13 mantissa bits: the tensor
// cores ignore them), and are summed as tensor_core_sums.hpp says. double
// uses a fused multiply-add per k, in order. 8-bit and 4-bit integers are
// summed in 32 bits, wrapping on overflow, or clamped to int's range with
// satf.
//
// The lane that multiplies arranges the lanes' fragments into whole tiles
// by vector shuffles (tile_arrangement.hpp), widens the factors to float
// (or int) 8 or 4 at a time, turns B so that its rows run along n, and
// computes rows of D in vectors as wide as the CPU has.
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
#include "weft/cuda/device/wmma/tensor_core_sums.hpp"
#include "weft/cuda/device/wmma/tile_arrangement.hpp"
#include "weft/cuda/device/wmma/vector_isa.hpp"
#include "weft/cuda/device/wmma/warp_tile_exchange.hpp"

namespace weft::detail::wmma {

// Four floats or four 32-bit integers: one SSE register, vectorised at any
// optimisation level (GCC's and Clang's vector extension).
typedef float floats4 __attribute__((vector_size(16)));
typedef std::int32_t ints4 __attribute__((vector_size(16)));
typedef std::uint32_t uints4 __attribute__((vector_size(16)));

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

/// round_sum of each of `count` sums (for half accumulators: float ones
/// are rounded as tensor_core_rows computes them).
template <class Acc>
void round_sums(const double* sums, Acc* out, int count) {
  for (int i = 0; i < count; ++i) out[i] = round_sum<Acc>(sums[i]);
}

/// Builds a factor's tile (rows x cols, row by row, in the product type)
/// from the lanes' fragments, which lie lane after lane as each lane holds
/// its x[], element by element: for double and packed factors, whose
/// tiles are small.
template <class Use, int rows, int cols, class T, int per_lane, class Storage, class P>
void gather_factor(const Storage* lanes, P* tile) {
  constexpr int pack = element_traits<T>::per_storage;
  for (element_move move : first_copies<Use, rows, cols, per_lane>) {
    if constexpr (pack == 1)
      tile[move.place] = widen_factor<T>(lanes[move.element]);
    else
      tile[move.place] = nibble<T>(static_cast<std::uint32_t>(lanes[move.element / pack]), move.element % pack);
  }
}

/// `count` (a multiple of 8) factor elements of type T widened as the
/// tensor cores read them: half, bfloat16 and tf32 to float; 8-bit
/// integers to float too, exactly (integer_product_rows).
template <class T, class S, class P>
void widen_tile(const S* in, P* out, int count) {
  if constexpr (std::is_same_v<T, __half>) {
    widen_halves(in, out, count);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {  // a bfloat16 is a float's top 16 bits
    typedef std::uint16_t ushorts8 __attribute__((vector_size(16)));
    for (int i = 0; i < count; i += 8) {
      auto bits = load_vector<ushorts8>(in + i);
      store_vector(out + i, __builtin_convertvector(__builtin_shufflevector(bits, bits, 0, 1, 2, 3), uints4) << 16);
      store_vector(out + i + 4, __builtin_convertvector(__builtin_shufflevector(bits, bits, 4, 5, 6, 7), uints4) << 16);
    }
  } else if constexpr (std::is_same_v<T, nw::precision::tf32>) {
    for (int i = 0; i < count; i += 4) store_vector(out + i, load_vector<uints4>(in + i) & 0xffffe000u);
  } else {
    static_assert(std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char>);
    for (int i = 0; i < count; i += 4)
      store_vector(out + i, __builtin_convertvector(load_vector<vector_of<T, 4>>(in + i), floats4));
  }
}

/// A factor's tile as the tensor cores read it, from the lanes' fragments:
/// A row by row, B column by column (tile_arrangement.hpp). `placed`: room
/// for a 16 x 16 tile of 2-byte elements.
template <class Use, int rows, int cols, class T, int per_lane, class S, class P>
void factor_tile(const S* lanes, std::byte* placed, P* tile) {
  const S* arranged = lanes;  // weft's own layout: the tile, in order
  if constexpr (h100_tile_layout<Use, rows, cols, per_lane>()) {
    auto* tile_in_place = reinterpret_cast<S*>(placed);
    lanes_to_tile<Use, rows, cols, per_lane>(lanes, tile_in_place);
    arranged = tile_in_place;
  }
  widen_tile<T>(arranged, tile, rows * cols);
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

/// D from the whole tiles of one call, for float and 8-bit integer factors:
/// the lanes' fragments arranged by vector shuffles and widened to float,
/// B turned so that a vector runs along n, rows of D computed in vectors,
/// and D laid out lane by lane.
template <int m, int n, int k, class AT, class CT, class DT, int per_lane_a, int per_lane_b, int per_lane>
void whole_tile_product(tile_set& t, bool satf) {
  using P = float;
  using storage = typename element_traits<AT>::storage;
  auto* ta = reinterpret_cast<P*>(t.a);
  auto* tb = reinterpret_cast<P*>(t.b);
  auto* tc = reinterpret_cast<P*>(t.c);
  auto* b_columns = reinterpret_cast<P*>(t.b_columns);
  factor_tile<nw::matrix_a, m, k, AT, per_lane_a>(reinterpret_cast<const storage*>(t.lanes_a), t.placed, ta);
  factor_tile<nw::matrix_b, k, n, AT, per_lane_b>(reinterpret_cast<const storage*>(t.lanes_b), t.placed, b_columns);
  transpose_tile<n, k>(b_columns, tb);
  const auto* lanes_c = reinterpret_cast<const CT*>(t.lanes_c);
  auto* lanes_d = reinterpret_cast<DT*>(t.lanes_d);
  if constexpr (std::is_same_v<CT, __half>) {
    auto* placed = reinterpret_cast<__half*>(t.placed);
    lanes_to_tile<nw::accumulator, m, n, per_lane>(lanes_c, placed);
    widen_halves(placed, tc, m * n);
  } else {
    lanes_to_tile<nw::accumulator, m, n, per_lane>(lanes_c, reinterpret_cast<CT*>(tc));  // int C stays int
  }
  if constexpr (std::is_same_v<CT, int>) {
    auto* sums = reinterpret_cast<float*>(t.d);
    integer_product_sums<m, n, k>(widest_vector_isa(), ta, tb, sums);
    auto* d_tile = reinterpret_cast<std::int32_t*>(tc);  // D over C, element by element
    const auto* c_tile = d_tile;
    if (satf) {
      for (int i = 0; i < m * n; ++i)
        d_tile[i] = static_cast<std::int32_t>(std::clamp<std::int64_t>(
            std::int64_t{c_tile[i]} + static_cast<std::int64_t>(sums[i]), std::numeric_limits<std::int32_t>::min(),
            std::numeric_limits<std::int32_t>::max()));
    } else {
      // Summed unsigned: C + the products wraps on overflow, as the GPU's
      // 32-bit sums do.
      for (int i = 0; i < m * n; i += 4)
        store_vector(d_tile + i, load_vector<uints4>(c_tile + i) + std::bit_cast<uints4>(__builtin_convertvector(
                                                                       load_vector<floats4>(sums + i), ints4)));
    }
    tile_to_lanes<m, n, per_lane>(reinterpret_cast<const DT*>(d_tile), lanes_d);
  } else if constexpr (std::is_same_v<DT, float>) {
    auto* rounded = reinterpret_cast<float*>(t.d);
    tensor_core_product<m, n, k, std::is_same_v<AT, __half>>(widest_vector_isa(), ta, tb, tc, rounded);
    tile_to_lanes<m, n, per_lane>(rounded, lanes_d);
  } else {
    auto* sums = reinterpret_cast<double*>(t.d);
    tensor_core_product<m, n, k, std::is_same_v<AT, __half>>(widest_vector_isa(), ta, tb, tc, sums);
    auto* rounded = reinterpret_cast<DT*>(t.placed);
    round_sums(sums, rounded, m * n);
    tile_to_lanes<m, n, per_lane>(rounded, lanes_d);
  }
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
  // Float products, and 8-bit integer ones, go by whole tiles in vectors;
  // double and 4-bit ones, on small tiles, element by element.
  constexpr bool whole_tiles =
      std::is_same_v<P, float> || (std::is_same_v<P, std::int32_t> && element_traits<AT>::per_storage == 1);
  warp_product(
      operation_name<frag_d, frag_a, frag_b, frag_c>(), a, b, c, d,
      [&](tile_set& t) {
        if constexpr (whole_tiles) {
          whole_tile_product<m, n, k, AT, CT, DT, per_lane_a, per_lane_b, per_lane>(t, satf);
        } else {
          constexpr auto& d_moves = first_copies<nw::accumulator, m, n, per_lane>;  // accumulators hold no copies
          auto* ta = reinterpret_cast<P*>(t.a);
          auto* tb = reinterpret_cast<P*>(t.b);
          auto* tc = reinterpret_cast<P*>(t.c);
          gather_factor<nw::matrix_a, m, k, AT, per_lane_a>(
              reinterpret_cast<const typename frag_a::storage_element_type*>(t.lanes_a), ta);
          gather_factor<nw::matrix_b, k, n, BT, per_lane_b>(
              reinterpret_cast<const typename frag_b::storage_element_type*>(t.lanes_b), tb);
          const auto* lanes_c = reinterpret_cast<const CT*>(t.lanes_c);
          for (element_move move : d_moves) tc[move.place] = widen_accumulator<CT, P>(lanes_c[move.element]);
          if constexpr (std::is_same_v<P, std::int32_t>) {
            if (satf)
              multiply_tiles_saturating<m, n, k>(ta, tb, tc);
            else
              multiply_tiles<m, n, k>(ta, tb, tc);
          } else {
            multiply_tiles<m, n, k>(ta, tb, tc);
          }
          auto* lanes_d = reinterpret_cast<DT*>(t.lanes_d);
          for (element_move move : d_moves) lanes_d[move.element] = static_cast<DT>(tc[move.place]);
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
      "nvcuda::wmma::bmma_sync (m8n8k128, b1)", a, b, c, d,
      [&](tile_set& t) {
        // Lane l holds 32 bits of row l/4 of A and of column l/4 of B.
        const auto* lanes_a = reinterpret_cast<const std::uint32_t*>(t.lanes_a);
        const auto* lanes_b = reinterpret_cast<const std::uint32_t*>(t.lanes_b);
        const auto* lanes_c = reinterpret_cast<const int*>(t.lanes_c);
        auto* words_a = reinterpret_cast<std::uint32_t*>(t.a);
        auto* words_b = reinterpret_cast<std::uint32_t*>(t.b);
        auto* tile = reinterpret_cast<int*>(t.c);
        for (unsigned lane = 0; lane < 32; ++lane) {
          position pa = element_position<matrix_a, 8, 128, 32>(lane, 0);
          position pb = element_position<matrix_b, 128, 8, 32>(lane, 0);
          words_a[pa.row * 4 + pa.col / 32] = lanes_a[lane];
          words_b[pb.col * 4 + pb.row / 32] = lanes_b[lane];
          for (int e = 0; e < 2; ++e) {
            position p = element_position<accumulator, 8, 8, 2>(lane, e);
            tile[p.row * 8 + p.col] = lanes_c[lane * 2 + e];
          }
        }
        bit_product(tile, words_a, words_b, tile, op);
        auto* lanes_d = reinterpret_cast<int*>(t.lanes_d);
        for (unsigned lane = 0; lane < 32; ++lane)
          for (int e = 0; e < 2; ++e) {
            position p = element_position<accumulator, 8, 8, 2>(lane, e);
            lanes_d[lane * 2 + e] = tile[p.row * 8 + p.col];
          }
      },
      where);
}

}  // namespace nvcuda::wmma
