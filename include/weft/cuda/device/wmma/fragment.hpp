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

#include <cstdint>
#include <type_traits>

#include "weft/cuda/device/bfloat16.hpp"
#include "weft/cuda/device/half.hpp"

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
enum layout_t { mem_row_major, mem_col_major };

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
enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 };
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
/// turn, stepping the position instead of dividing for each element.
/// With first_copy_only, the copies (x[8] to x[15] of a 16 x 16 half A or
/// B) are left out.
template <class Use, int rows, int cols, int per_lane, bool first_copy_only = false, class F>
[[gnu::always_inline]] inline void for_each_element(unsigned lane, F&& f) {
  if constexpr (h100_tile_layout<Use, rows, cols, per_lane>()) {
    int quad = static_cast<int>(lane) / 4, pair = 2 * (static_cast<int>(lane) % 4);
    for (int e = 0; e < (first_copy_only ? 8 : per_lane); ++e) {
      int i = e % 8;
      int along_pair = pair + i % 2 + 8 * (i / 2 % 2), along_quad = quad + 8 * (i / 4);
      if constexpr (std::is_same_v<Use, nw::matrix_b>)
        f(e, along_pair, along_quad);
      else
        f(e, quad + 8 * (i / 2 % 2), pair + i % 2 + 8 * (i / 4));
    }
  } else {
    constexpr bool down_columns = std::is_same_v<Use, nw::matrix_b>;
    constexpr int run = down_columns ? rows : cols;
    int linear = (static_cast<int>(lane) * per_lane) % (rows * cols);
    int line = linear / run, along = linear % run;
    for (int e = 0; e < per_lane; ++e) {
      if constexpr (down_columns)
        f(e, along, line);
      else
        f(e, line, along);
      if (++along == run) {
        along = 0;
        ++line;
      }
    }
  }
}

/// Whether `lane` holds the first copy of its elements (see the top of this
/// file): the lanes that mma_sync reads.
template <class Use, int rows, int cols, int per_lane>
constexpr bool holds_first_copy(unsigned lane) {
  return h100_tile_layout<Use, rows, cols, per_lane>() || static_cast<int>(lane) * per_lane < rows * cols;
}

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
