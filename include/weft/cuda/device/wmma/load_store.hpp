// load_matrix_sync and store_matrix_sync: each lane reads or writes the
// elements of its own fragment (fragment.hpp says which), so these need no
// meeting of the warp. ldm is the stride between rows (row-major) or
// columns (column-major) in elements; CUDA requires it to be a multiple of
// 16 bytes, and weft fails the launch with a report when it is not.
#pragma once

#include <cstring>
#include <source_location>
#include <string>

#include "weft/cuda/device/wmma/fragment.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail::wmma {

template <class T>
constexpr int bits_per_element() {
  if constexpr (element_traits<T>::per_storage > 1)
    return 32 / element_traits<T>::per_storage;
  else
    return 8 * sizeof(typename element_traits<T>::storage);
}

template <class T>
void check_stride(unsigned ldm, const char* what, std::source_location where) {
  if ((static_cast<unsigned long long>(ldm) * bits_per_element<T>()) % 128 != 0) [[unlikely]]
    throw kernel_fault{cudaErrorLaunchFailure, std::string(what) + " at " + where.file_name() + ":" +
                                                   std::to_string(where.line()) + ": ldm " + std::to_string(ldm) +
                                                   " is not a multiple of 16 bytes (" +
                                                   std::to_string(128 / bits_per_element<T>()) + " elements)"};
}

inline unsigned calling_lane() { return linear_thread_index(threadIdx, blockDim) % 32; }

/// Offset in elements of tile element (row, col) at stride ldm.
constexpr std::size_t element_offset(position p, unsigned ldm, bool row_major) {
  return row_major ? static_cast<std::size_t>(p.row) * ldm + p.col : static_cast<std::size_t>(p.col) * ldm + p.row;
}

/// How many elements of a lane's fragment, in x[] order, lie next to each
/// other along the tile's own order (A and accumulators along rows, B along
/// columns): pairs in the H100's layout, the whole fragment in weft's own
/// where a row (a column of B) holds whole fragments; and how many of its
/// elements are not copies.
template <class Use, int rows, int cols, int per_lane>
constexpr int run_length() {
  if constexpr (h100_tile_layout<Use, rows, cols, per_lane>()) return 2;
  constexpr int along = std::is_same_v<Use, nw::matrix_b> ? rows : cols;
  return along % per_lane == 0 ? per_lane : 1;
}
template <class Use, int rows, int cols, int per_lane>
constexpr int distinct_elements() {
  return h100_tile_layout<Use, rows, cols, per_lane>() ? 8 : per_lane;
}

/// Whether memory laid out `row_major` runs along the tile's own order.
template <class Use>
constexpr bool memory_runs_along_tile(bool row_major) {
  return std::is_same_v<Use, nw::matrix_b> ? !row_major : row_major;
}

template <class Use, int m, int n, int k, class T, class Layout, class Memory>
void load(nw::fragment<Use, m, n, k, T, Layout>& f, const Memory* p, unsigned ldm, bool row_major) {
  using extent = tile_extent<Use, m, n, k>;
  using frag = nw::fragment<Use, m, n, k, T, Layout>;
  constexpr int pack = element_traits<T>::per_storage;
  unsigned lane = calling_lane();
  if constexpr (pack == 1) {
    constexpr int per_lane = frag::num_elements;
    constexpr int run = run_length<Use, extent::rows, extent::cols, per_lane>();
    constexpr int distinct = distinct_elements<Use, extent::rows, extent::cols, per_lane>();
    if (run > 1 && memory_runs_along_tile<Use>(row_major)) {
      // Runs of elements lie next to each other in memory too: copied whole.
      const tile_place* place = element_places<Use, extent::rows, extent::cols, per_lane>.data() + lane * per_lane;
      for (int e = 0; e < distinct; e += run)
        std::memcpy(&f.x[e], p + element_offset({place[e].row, place[e].col}, ldm, row_major), run * sizeof f.x[0]);
      if constexpr (distinct < per_lane) std::memcpy(&f.x[distinct], &f.x[0], (per_lane - distinct) * sizeof f.x[0]);
      return;
    }
    for_each_element<Use, extent::rows, extent::cols, per_lane>(lane, [&](int e, int row, int col) {
      f.x[e] = p[element_offset({row, col}, ldm, row_major)];
    });
  } else {
    // A sub-byte fragment packs its elements into one word: they lie next
    // to each other in memory, in one aligned 32-bit word (the lowest
    // element in the lowest bits).
    static_assert(frag::num_storage_elements == 1);
    position pos = element_position<Use, extent::rows, extent::cols, frag::num_elements>(lane, 0);
    std::size_t at = element_offset(pos, ldm, row_major);
    std::memcpy(&f.x[0], static_cast<const char*>(static_cast<const void*>(p)) + at * bits_per_element<T>() / 8, 4);
  }
}

}  // namespace weft::detail::wmma

namespace nvcuda::wmma {

/// Loads A or B (their layout is part of the fragment's type).
template <class Use, int m, int n, int k, class T, class Layout>
requires(!std::is_same_v<Use, accumulator>) void load_matrix_sync(
    fragment<Use, m, n, k, T, Layout>& a, const typename weft::detail::wmma::element_traits<T>::memory* mptr,
    unsigned ldm, std::source_location where = std::source_location::current()) {
  weft::detail::wmma::check_stride<T>(ldm, "nvcuda::wmma::load_matrix_sync", where);
  weft::detail::wmma::load(a, mptr, ldm, std::is_same_v<Layout, row_major>);
}

/// Loads an accumulator laid out as `layout` says.
template <int m, int n, int k, class T>
void load_matrix_sync(fragment<accumulator, m, n, k, T>& a, const std::type_identity_t<T>* mptr, unsigned ldm,
                      layout_t layout, std::source_location where = std::source_location::current()) {
  weft::detail::wmma::check_stride<T>(ldm, "nvcuda::wmma::load_matrix_sync", where);
  weft::detail::wmma::load(a, mptr, ldm, layout == mem_row_major);
}

/// Stores an accumulator laid out as `layout` says.
template <int m, int n, int k, class T>
void store_matrix_sync(std::type_identity_t<T>* mptr, const fragment<accumulator, m, n, k, T>& a, unsigned ldm,
                       layout_t layout, std::source_location where = std::source_location::current()) {
  using namespace weft::detail::wmma;
  using frag = fragment<accumulator, m, n, k, T>;
  check_stride<T>(ldm, "nvcuda::wmma::store_matrix_sync", where);
  constexpr int run = run_length<accumulator, m, n, frag::num_elements>();
  unsigned lane = calling_lane();
  bool row_major = layout == mem_row_major;
  if (run > 1 && row_major) {
    const tile_place* place = element_places<accumulator, m, n, frag::num_elements>.data() + lane * frag::num_elements;
    for (int e = 0; e < frag::num_elements; e += run)
      std::memcpy(mptr + element_offset({place[e].row, place[e].col}, ldm, true), &a.x[e], run * sizeof a.x[0]);
    return;
  }
  for_each_element<accumulator, m, n, frag::num_elements>(lane, [&](int e, int row, int col) {
    mptr[element_offset({row, col}, ldm, row_major)] = a.x[e];
  });
}

}  // namespace nvcuda::wmma
