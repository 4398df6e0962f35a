// The lanes' fragments of one warp, side by side (x[] of lane 0, of lane 1,
// ...), arranged into the whole tile they hold, and an accumulator tile
// laid back out lane by lane: what mma_sync does with the fragments it is
// given, once per call. A and accumulators come out row by row, B column
// by column (both as their fragments run along k; mma.hpp turns B).
//
// The two layouts of fragment.hpp have a structure that 16-byte vector
// shuffles follow, instead of moving element by element:
// - the H100's 16 x 16 layout: the four lanes 4r .. 4r + 3 hold rows r and
//   r + 8 (of A, of the accumulator, of B's columns) between them, in pairs
//   of neighbouring elements: lane 4r + j's pairs are j and j + 4 of each
//   row. For 2-byte elements a pair is a 32-bit word and the four lanes'
//   first 16 bytes are a 4 x 4 transpose of words away from the two rows;
//   for 4-byte elements a pair is 64 bits and the same holds per 64-bit
//   half. (A and the accumulator put row r + 8 in a lane's second pair,
//   B puts column r + 8 in its third.)
// - weft's own layout of the other shapes: lane after lane, the lanes hold
//   the tile in its order (later lanes repeating earlier ones), so the
//   tile is the first rows x cols elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "weft/cuda/device/wmma/fragment.hpp"

namespace weft::detail::wmma {

typedef std::uint32_t words4 __attribute__((vector_size(16)));
typedef std::uint64_t pairs2 __attribute__((vector_size(16)));

template <class Vector>
[[gnu::always_inline]] inline Vector load_vector(const void* p) {
  Vector v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class Vector>
[[gnu::always_inline]] inline void store_vector(void* p, const Vector& v) {
  std::memcpy(p, &v, sizeof v);
}

/// r0..r3 become their transpose: word j of the new r_w is word w of r_j.
[[gnu::always_inline]] inline void transpose_words(words4& r0, words4& r1, words4& r2, words4& r3) {
  words4 low01 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), low23 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
  words4 high01 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7), high23 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
  r0 = __builtin_shufflevector(low01, low23, 0, 1, 4, 5);
  r1 = __builtin_shufflevector(low01, low23, 2, 3, 6, 7);
  r2 = __builtin_shufflevector(high01, high23, 0, 1, 4, 5);
  r3 = __builtin_shufflevector(high01, high23, 2, 3, 6, 7);
}

/// A rows x cols tile of 4-byte elements (row by row) transposed into
/// `out` (cols x rows), in 4 x 4 blocks.
template <int rows, int cols>
void transpose_tile(const void* in, void* out) {
  static_assert(rows % 4 == 0 && cols % 4 == 0);
  const auto* from = static_cast<const std::byte*>(in);
  auto* to = static_cast<std::byte*>(out);
  for (int r = 0; r < rows; r += 4)
    for (int c = 0; c < cols; c += 4) {
      words4 v0 = load_vector<words4>(from + 4 * (r * cols + c)),
             v1 = load_vector<words4>(from + 4 * ((r + 1) * cols + c));
      words4 v2 = load_vector<words4>(from + 4 * ((r + 2) * cols + c)),
             v3 = load_vector<words4>(from + 4 * ((r + 3) * cols + c));
      transpose_words(v0, v1, v2, v3);
      store_vector(to + 4 * (c * rows + r), v0);
      store_vector(to + 4 * ((c + 1) * rows + r), v1);
      store_vector(to + 4 * ((c + 2) * rows + r), v2);
      store_vector(to + 4 * ((c + 3) * rows + r), v3);
    }
}

/// Where, in a 16 x 16 tile of 2-byte elements, the four 16-byte quarters
/// of rows r and r + 8 go that a transpose of lanes 4r .. 4r + 3 gives:
/// the byte offset of quarter w relative to row r's start.
template <class Use>
constexpr int h100_quarter_offset(int w) {
  constexpr int row_bytes = 32, next_half_tile = 8 * row_bytes;
  if constexpr (std::is_same_v<Use, nw::matrix_b>)  // column r + 8 third
    return (w / 2) * next_half_tile + (w % 2) * 16;
  else  // row r + 8 second
    return (w % 2) * next_half_tile + (w / 2) * 16;
}

/// The H100 layout, 2-byte elements: lanes (lane_bytes apart, the first 16
/// bytes of each read) to the 16 x 16 tile, and back (accumulators).
template <class Use>
void h100_halves_to_tile(const std::byte* lanes, std::size_t lane_bytes, std::byte* tile) {
  for (int r = 0; r < 8; ++r) {
    const std::byte* group = lanes + 4 * r * lane_bytes;
    words4 q0 = load_vector<words4>(group), q1 = load_vector<words4>(group + lane_bytes);
    words4 q2 = load_vector<words4>(group + 2 * lane_bytes), q3 = load_vector<words4>(group + 3 * lane_bytes);
    transpose_words(q0, q1, q2, q3);
    std::byte* row = tile + 32 * r;
    store_vector(row + h100_quarter_offset<Use>(0), q0);
    store_vector(row + h100_quarter_offset<Use>(1), q1);
    store_vector(row + h100_quarter_offset<Use>(2), q2);
    store_vector(row + h100_quarter_offset<Use>(3), q3);
  }
}
template <class Use>
void h100_tile_to_halves(const std::byte* tile, std::byte* lanes, std::size_t lane_bytes) {
  for (int r = 0; r < 8; ++r) {
    const std::byte* row = tile + 32 * r;
    words4 q0 = load_vector<words4>(row + h100_quarter_offset<Use>(0));
    words4 q1 = load_vector<words4>(row + h100_quarter_offset<Use>(1));
    words4 q2 = load_vector<words4>(row + h100_quarter_offset<Use>(2));
    words4 q3 = load_vector<words4>(row + h100_quarter_offset<Use>(3));
    transpose_words(q0, q1, q2, q3);
    std::byte* group = lanes + 4 * r * lane_bytes;
    store_vector(group, q0);
    store_vector(group + lane_bytes, q1);
    store_vector(group + 2 * lane_bytes, q2);
    store_vector(group + 3 * lane_bytes, q3);
  }
}

/// The H100 layout of a 16 x 16 accumulator of 4-byte elements (32 bytes a
/// lane): lanes to tile, and back. Lane 4r + j's 64-bit pairs are, in
/// order, (row r, pair j), (row r + 8, pair j), (row r, pair j + 4),
/// (row r + 8, pair j + 4).
inline void h100_words_to_tile(const std::byte* lanes, std::byte* tile) {
  for (int r = 0; r < 8; ++r) {
    const std::byte* group = lanes + 4 * r * 32;
    std::byte *row = tile + 64 * r, *row_below = tile + 64 * (r + 8);
    for (int half = 0; half < 2; ++half) {  // pairs j, then pairs j + 4
      pairs2 l0 = load_vector<pairs2>(group + 16 * half), l1 = load_vector<pairs2>(group + 32 + 16 * half);
      pairs2 l2 = load_vector<pairs2>(group + 64 + 16 * half), l3 = load_vector<pairs2>(group + 96 + 16 * half);
      store_vector(row + 32 * half, __builtin_shufflevector(l0, l1, 0, 2));
      store_vector(row + 32 * half + 16, __builtin_shufflevector(l2, l3, 0, 2));
      store_vector(row_below + 32 * half, __builtin_shufflevector(l0, l1, 1, 3));
      store_vector(row_below + 32 * half + 16, __builtin_shufflevector(l2, l3, 1, 3));
    }
  }
}
inline void h100_tile_to_words(const std::byte* tile, std::byte* lanes) {
  for (int r = 0; r < 8; ++r) {
    std::byte* group = lanes + 4 * r * 32;
    const std::byte *row = tile + 64 * r, *row_below = tile + 64 * (r + 8);
    for (int half = 0; half < 2; ++half) {
      pairs2 above01 = load_vector<pairs2>(row + 32 * half), above23 = load_vector<pairs2>(row + 32 * half + 16);
      pairs2 below01 = load_vector<pairs2>(row_below + 32 * half),
             below23 = load_vector<pairs2>(row_below + 32 * half + 16);
      store_vector(group + 16 * half, __builtin_shufflevector(above01, below01, 0, 2));
      store_vector(group + 32 + 16 * half, __builtin_shufflevector(above01, below01, 1, 3));
      store_vector(group + 64 + 16 * half, __builtin_shufflevector(above23, below23, 0, 2));
      store_vector(group + 96 + 16 * half, __builtin_shufflevector(above23, below23, 1, 3));
    }
  }
}

/// The tile that the lanes' fragments hold (`lanes`: per_lane elements of
/// type E a lane, lane after lane), A and accumulators row by row, B
/// column by column. Not for packed (sub-byte) elements.
template <class Use, int rows, int cols, int per_lane, class E>
void lanes_to_tile(const E* lanes, E* tile) {
  const auto* from = reinterpret_cast<const std::byte*>(lanes);
  auto* to = reinterpret_cast<std::byte*>(tile);
  if constexpr (h100_tile_layout<Use, rows, cols, per_lane>() && sizeof(E) == 2) {
    h100_halves_to_tile<Use>(from, per_lane * sizeof(E), to);
  } else if constexpr (h100_tile_layout<Use, rows, cols, per_lane>()) {
    static_assert(sizeof(E) == 4 && per_lane == 8);
    h100_words_to_tile(from, to);
  } else {
    std::memcpy(to, from, rows * cols * sizeof(E));
  }
}

/// An accumulator tile (row by row) laid out as the lanes hold it.
template <int rows, int cols, int per_lane, class E>
void tile_to_lanes(const E* tile, E* lanes) {
  const auto* from = reinterpret_cast<const std::byte*>(tile);
  auto* to = reinterpret_cast<std::byte*>(lanes);
  if constexpr (h100_tile_layout<nw::accumulator, rows, cols, per_lane>() && sizeof(E) == 2) {
    h100_tile_to_halves<nw::accumulator>(from, to, per_lane * sizeof(E));
  } else if constexpr (h100_tile_layout<nw::accumulator, rows, cols, per_lane>()) {
    static_assert(sizeof(E) == 4 && per_lane == 8);
    h100_tile_to_words(from, to);
  } else {
    static_assert(32 * per_lane == rows * cols, "accumulators hold no copies");
    std::memcpy(to, from, rows * cols * sizeof(E));
  }
}

}  // namespace weft::detail::wmma
