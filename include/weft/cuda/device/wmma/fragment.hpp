// Warp matrix fragments (CUDA guide, "Warp Matrix Functions"): the tags
// that name a fragment's use, its memory layout and its element type, the
// shapes and types sm_90 supports, and which matrix element each lane's
// x[i] holds.
//
// A fragment is a lane's share of an m x k (matrix_a), k x n (matrix_b) or
// m x n (accumulator) tile. CUDA leaves the mapping of elements to lanes
// unspecified. For 16 x 16 tiles weft uses the H100's (h100_tile_layout
// below); for the other shapes, which the probe has not recorded, lane l
// holds the num_elements consecutive elements l*num_elements, ... of the
// tile in the order A's rows, B's columns and the accumulator's rows run
// (the order in which a row-major A, a column-major B and a row-major C lie
// in memory), and where CUDA's num_elements is larger than the tile divided
// by 32 (half operands), the later lanes hold copies of the earlier lanes'
// elements. Copies are meant to stay equal (a program that scales every
// x[i] keeps them so); mma_sync reads one of them.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

#include "weft/cuda/device/math/bfloat16.hpp"
#include "weft/cuda/device/math/half.hpp"

namespace nvcuda::wmma {

// What a fragment is used as: the first factor A, the second factor B, or
// the accumulator C and result D.
struct matrix_a {};
struct matrix_b {};
struct accumulator {};

// How A and B lie in memory (part of their fragment's type).
struct row_major {};
struct col_major {};

// How an accumulator lies in memory (an argument of its loads and stores).
enum layout_t : int { mem_row_major, mem_col_major };

namespace precision {
/// TensorFloat-32: a float whose low 13 mantissa bits the tensor cores ignore.
struct tf32 {};
}  // namespace precision

namespace experimental {
namespace precision {
struct u4 {};  // 4-bit unsigned, 8 to a 32-bit word
struct s4 {};  // 4-bit signed, 8 to a 32-bit word
struct b1 {};  // single bits, 32 to a 32-bit word
}  // namespace precision
enum bmmaBitOp : int { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp : int { bmmaAccumulateOpPOPC = 1 };
}  // namespace experimental

}  // namespace nvcuda::wmma

namespace weft::detail::wmma {

namespace nw = nvcuda::wmma;

/// How elements of type T are kept in a fragment's x[] and in memory.
template <class T>
struct element_traits {
  using storage = T;                     // x[]'s type
  using memory = T;                      // what load_matrix_sync reads
  static constexpr int per_storage = 1;  // elements packed in one x[i]
};
template <>
struct element_traits<nw::precision::tf32> {
  using storage = float;
  using memory = float;
  static constexpr int per_storage = 1;
};
template <>
struct element_traits<nw::experimental::precision::u4> {
  using storage = unsigned;
  using memory = void;
  static constexpr int per_storage = 8;
};
template <>
struct element_traits<nw::experimental::precision::s4> {
  using storage = int;
  using memory = void;
  static constexpr int per_storage = 8;
};
template <>
struct element_traits<nw::experimental::precision::b1> {
  using storage = unsigned;
  using memory = void;
  static constexpr int per_storage = 32;
};

/// A tile's rows and columns for its use: A is m x k, B k x n, C m x n.
template <class Use, int m, int n, int k>
struct tile_extent {
  static constexpr int rows = std::is_same_v<Use, nw::matrix_a> ? m : std::is_same_v<Use, nw::matrix_b> ? k : m;
  static constexpr int cols = std::is_same_v<Use, nw::matrix_a> ? k : n;
};

/// CUDA's num_elements for each fragment sm_90 supports; 0 for any other
/// combination of use, shape and type.
template <class Use, int m, int n, int k, class T>
constexpr int elements_per_lane() {
  using namespace nvcuda::wmma;
  constexpr bool is_a = std::is_same_v<Use, matrix_a>, is_b = std::is_same_v<Use, matrix_b>,
                 is_c = std::is_same_v<Use, accumulator>;
  constexpr bool half_shape =
      (m == 16 && n == 16 && k == 16) || (m == 32 && n == 8 && k == 16) || (m == 8 && n == 32 && k == 16);
  if constexpr (half_shape) {
    if constexpr (std::is_same_v<T, __half> && (is_a || is_b)) return 16;
    if constexpr (is_c && (std::is_same_v<T, __half> || std::is_same_v<T, float> || std::is_same_v<T, int>)) return 8;
    if constexpr (std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, signed char> ||
                  std::is_same_v<T, unsigned char>) {
      if constexpr (is_a) return m * k / 32;
      if constexpr (is_b) return k * n / 32;
    }
    return 0;
  } else if constexpr (m == 16 && n == 16 && k == 8) {
    if constexpr ((is_a || is_b) && std::is_same_v<T, precision::tf32>) return 4;
    if constexpr (is_c && std::is_same_v<T, float>) return 8;
    return 0;
  } else if constexpr (m == 8 && n == 8 && k == 4) {
    if constexpr ((is_a || is_b) && std::is_same_v<T, double>) return 1;
    if constexpr (is_c && std::is_same_v<T, double>) return 2;
    return 0;
  } else if constexpr (m == 8 && n == 8 && k == 32) {
    if constexpr ((is_a || is_b) &&
                  (std::is_same_v<T, experimental::precision::u4> || std::is_same_v<T, experimental::precision::s4>))
      return 8;
    if constexpr (is_c && std::is_same_v<T, int>) return 2;
    return 0;
  } else if constexpr (m == 8 && n == 8 && k == 128) {
    if constexpr ((is_a || is_b) && std::is_same_v<T, experimental::precision::b1>) return 32;
    if constexpr (is_c && std::is_same_v<T, int>) return 2;
    return 0;
  } else {
    return 0;
  }
}

/// Whether the fragment's layout argument is one CUDA accepts: A and B need
/// row_major or col_major (sub-byte A only row_major, sub-byte B only
/// col_major), an accumulator none.
template <class Use, class T, class Layout>
constexpr bool layout_allowed() {
  using namespace nvcuda::wmma;
  if constexpr (std::is_same_v<Use, accumulator>) return std::is_void_v<Layout>;
  constexpr bool packed = element_traits<T>::per_storage > 1;
  if constexpr (packed)
    return std::is_same_v<Layout, std::conditional_t<std::is_same_v<Use, matrix_a>, row_major, col_major>>;
  return std::is_same_v<Layout, row_major> || std::is_same_v<Layout, col_major>;
}

/// The storage CUDA gives a fragment: num_elements, num_storage_elements,
/// element_type, storage_element_type and the array x.
template <class T, int size>
struct alignas(8) fragment_storage {
  enum { num_elements = size };
  enum { num_storage_elements = size / element_traits<T>::per_storage };
  using element_type = T;
  using storage_element_type = typename element_traits<T>::storage;
  storage_element_type x[num_storage_elements];
};

/// Row and column in the tile of element `element` (counting packed
/// elements one by one) of `lane`'s fragment, which holds `per_lane`
/// elements: see the top of this file.
struct position {
  int row;
  int col;
};
template <class Use, int rows, int cols, int per_lane>
constexpr position element_position(unsigned lane, int element) {
  int linear = (static_cast<int>(lane) * per_lane + element) % (rows * cols);
  if constexpr (std::is_same_v<Use, nw::matrix_b>)
    return {linear % rows, linear / rows};  // B runs down its columns
  else
    return {linear / cols, linear % cols};
}

/// Whether a fragment has the H100's layout for 16 x 16 tiles, which the
/// differential probe recorded (tests/differential/wmma_probe.layout.expected):
/// half A and B (16 elements, the second 8 a copy of the first) and every
/// 16 x 16 accumulator (8 elements). Lane l's element i (i < 8) is, with
/// q = l / 4 and p = 2 * (l % 4) + i % 2: for A and the accumulator, row
/// q + 8 * (i / 2 % 2), column p + 8 * (i / 4); for B, row (k) p + 8 *
/// (i / 2 % 2), column q + 8 * (i / 4).
template <class Use, int rows, int cols, int per_lane>
constexpr bool h100_tile_layout() {
  if constexpr (rows != 16 || cols != 16) return false;
  if constexpr (std::is_same_v<Use, nw::accumulator>) return per_lane == 8;
  return per_lane == 16;
}

/// Calls f(element, row, col) for each element of `lane`'s fragment in
/// turn (constexpr: it builds the tables below).
template <class Use, int rows, int cols, int per_lane, class F>
constexpr void for_each_element_of(unsigned lane, F&& f) {
  if constexpr (h100_tile_layout<Use, rows, cols, per_lane>()) {
    int quad = static_cast<int>(lane) / 4, pair = 2 * (static_cast<int>(lane) % 4);
    for (int e = 0; e < per_lane; ++e) {
      int i = e % 8;
      int along_pair = pair + i % 2 + 8 * (i / 2 % 2), along_quad = quad + 8 * (i / 4);
      if constexpr (std::is_same_v<Use, nw::matrix_b>)
        f(e, along_pair, along_quad);
      else
        f(e, quad + 8 * (i / 2 % 2), pair + i % 2 + 8 * (i / 4));
    }
  } else {
    for (int e = 0; e < per_lane; ++e) {
      position p = element_position<Use, rows, cols, per_lane>(lane, e);
      f(e, p.row, p.col);
    }
  }
}

/// A tile element's place, small enough for a table.
struct tile_place {
  std::int8_t row;
  std::int8_t col;
};

/// The place of every element the lanes hold: entry lane * per_lane + e
/// for lane's x[e]. Looked up instead of computed, since fragments are
/// loaded, stored and multiplied in the innermost loops of a kernel.
template <class Use, int rows, int cols, int per_lane>
inline constexpr auto element_places = [] {
  std::array<tile_place, 32 * per_lane> places{};
  for (unsigned lane = 0; lane < 32; ++lane)
    for_each_element_of<Use, rows, cols, per_lane>(lane, [&](int e, int row, int col) {
      places[lane * per_lane + e] = {static_cast<std::int8_t>(row), static_cast<std::int8_t>(col)};
    });
  return places;
}();

/// Calls f(element, row, col) for each element of `lane`'s fragment.
template <class Use, int rows, int cols, int per_lane, class F>
[[gnu::always_inline]] inline void for_each_element(unsigned lane, F&& f) {
  const tile_place* place = element_places<Use, rows, cols, per_lane>.data() + lane * per_lane;
  for (int e = 0; e < per_lane; ++e) f(e, place[e].row, place[e].col);
}

/// Where lane-by-lane fragment elements go in a row-major tile: for each
/// element that is the first copy of its tile element (lane order, then
/// x[] order: the copy mma_sync reads, see the top of this file), its
/// index lane * per_lane + e and its place row * cols + col.
struct element_move {
  std::int16_t element;
  std::int16_t place;
};
template <class Use, int rows, int cols, int per_lane>
inline constexpr auto first_copies = [] {
  std::array<element_move, rows * cols> moves{};
  std::array<bool, rows * cols> seen{};
  int count = 0;
  for (int i = 0; i < 32 * per_lane; ++i) {
    tile_place p = element_places<Use, rows, cols, per_lane>[i];
    int place = p.row * cols + p.col;
    if (seen[place]) continue;
    seen[place] = true;
    moves[count++] = {static_cast<std::int16_t>(i), static_cast<std::int16_t>(place)};
  }
  if (count != rows * cols) throw "a fragment layout leaves a tile element out";  // fails the compile
  return moves;
}();

}  // namespace weft::detail::wmma

namespace nvcuda::wmma {

/// A lane's share of a warp's tile (see the top of this file). Only the
/// uses, shapes, types and layouts sm_90 supports compile.
template <class Use, int m, int n, int k, class T, class Layout = void>
class fragment
    : public weft::detail::wmma::fragment_storage<T, weft::detail::wmma::elements_per_lane<Use, m, n, k, T>()> {
  static_assert(weft::detail::wmma::elements_per_lane<Use, m, n, k, T>() != 0,
                "nvcuda::wmma::fragment: this use, shape and element type is not one sm_90 supports");
  static_assert(weft::detail::wmma::layout_allowed<Use, T, Layout>(),
                "nvcuda::wmma::fragment: matrix_a and matrix_b need row_major or col_major (sub-byte A row_major, "
                "sub-byte B col_major); an accumulator takes no layout");
};

}  // namespace nvcuda::wmma
