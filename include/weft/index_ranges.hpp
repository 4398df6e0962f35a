// Index ranges for kernels: the grid-stride and block-stride loops of CUDA
// courses as ranges, weft's own spelling (CUDA has none), for
//
//   for (int i : weft::grid_stride(n)) y[i] = a * x[i] + y[i];
//
// in place of
//
//   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) ...
//
// - grid_stride(n): from blockIdx.x * blockDim.x + threadIdx.x, in steps of
//   gridDim.x * blockDim.x, while below n;
// - block_stride(n): from threadIdx.x, in steps of blockDim.x, while below n;
// - grid_stride_2d(width, height), grid_stride_3d(width, height, depth) and
//   block_stride_2d/_3d: the same on each axis of blockIdx/threadIdx, giving
//   index_2d {x, y} or index_3d {x, y, z}, x fastest, as the nested
//   hand-written loops with x innermost would:
//     for (auto [x, y] : weft::grid_stride_2d(width, height)) out[y * width + x] = ...;
// The index has the type of the bound (int, unsigned, std::size_t, ...), and
// is computed in that type from the built-in variables, as the hand-written
// loop declared with that type would; a negative bound gives no index. Like
// that loop, a step that overflows the type (a bound within one stride of the
// type's largest value) is the caller's concern.
//
// Not in weft.hpp, and not in CUDA: a program that must also build with nvcc
// keeps the hand-written loop. The ranges are small trivially copyable views
// (a begin/end pair over integers) that a kernel uses without range-v3's
// headers; they derive from range-v3's view_base (its light forward header
// only), so range-v3's views and algorithms take them when a program includes
// those: grid_stride(n) | ranges::views::filter(...) is a view. The 1D ranges
// are random access and sized, with `i < n` as their end test, so that a loop
// over them compiles to the hand-written loop (docs/porting.md, "Index
// ranges", has the benchmark and the assembly); the 2D and 3D ones are
// forward and sized.
#pragma once

#include <array>
#include <compare>
#include <concepts>
#include <cstddef>
#include <iterator>
#include <type_traits>

#include <range/v3/range_fwd.hpp>

#include "weft/detail/base/builtin_variables.hpp"

namespace weft {

/// An integer type a kernel may index with: any integral type but bool and
/// the character types.
template <class T>
concept index_integer =
    std::integral<T> && !std::same_as<std::remove_cv_t<T>, bool> && !std::same_as<std::remove_cv_t<T>, char> &&
    !std::same_as<std::remove_cv_t<T>, wchar_t> && !std::same_as<std::remove_cv_t<T>, char8_t> &&
    !std::same_as<std::remove_cv_t<T>, char16_t> && !std::same_as<std::remove_cv_t<T>, char32_t>;

/// Where a 1D stride range ends: the first index not below the bound.
template <index_integer Index>
struct stride_sentinel {
  Index bound{};
};

/// One index of a 1D stride range; random access, stepping by the stride.
template <index_integer Index>
class stride_iterator {
 public:
  using value_type = Index;
  using difference_type = std::ptrdiff_t;
  using iterator_concept = std::random_access_iterator_tag;
  // The index is returned by value, which the older iterator categories do
  // not allow for more than input iterators.
  using iterator_category = std::input_iterator_tag;

  constexpr stride_iterator() = default;
  constexpr stride_iterator(Index index, Index stride) : index_(index), stride_(stride) {}

  constexpr Index operator*() const { return index_; }
  constexpr Index operator[](difference_type n) const { return *(*this + n); }

  constexpr stride_iterator& operator++() {
    index_ += stride_;
    return *this;
  }
  constexpr stride_iterator operator++(int) {
    stride_iterator before = *this;
    ++*this;
    return before;
  }
  constexpr stride_iterator& operator--() {
    index_ -= stride_;
    return *this;
  }
  constexpr stride_iterator operator--(int) {
    stride_iterator before = *this;
    --*this;
    return before;
  }
  constexpr stride_iterator& operator+=(difference_type n) {
    index_ = static_cast<Index>(index_ + static_cast<Index>(n) * stride_);
    return *this;
  }
  constexpr stride_iterator& operator-=(difference_type n) { return *this += -n; }
  friend constexpr stride_iterator operator+(stride_iterator it, difference_type n) { return it += n; }
  friend constexpr stride_iterator operator+(difference_type n, stride_iterator it) { return it += n; }
  friend constexpr stride_iterator operator-(stride_iterator it, difference_type n) { return it -= n; }
  friend constexpr difference_type operator-(const stride_iterator& a, const stride_iterator& b) {
    // Unsigned indices: subtract the smaller from the larger.
    return a.index_ >= b.index_ ? static_cast<difference_type>((a.index_ - b.index_) / a.stride_)
                                : -static_cast<difference_type>((b.index_ - a.index_) / a.stride_);
  }

  friend constexpr bool operator==(const stride_iterator& a, const stride_iterator& b) { return a.index_ == b.index_; }
  friend constexpr auto operator<=>(const stride_iterator& a, const stride_iterator& b) {
    return a.index_ <=> b.index_;
  }

  // The end test of the hand-written loop, `i < n`, so that the compiler
  // sees the same loop; an index past the bound is at the end too.
  friend constexpr bool operator==(const stride_iterator& it, const stride_sentinel<Index>& end) {
    return !(it.index_ < end.bound);
  }
  friend constexpr difference_type operator-(const stride_sentinel<Index>& end, const stride_iterator& it) {
    if (!(it.index_ < end.bound)) return 0;
    return static_cast<difference_type>((end.bound - it.index_ - 1) / it.stride_ + 1);
  }
  friend constexpr difference_type operator-(const stride_iterator& it, const stride_sentinel<Index>& end) {
    return -(end - it);
  }

 private:
  Index index_{};
  Index stride_{1};
};

/// The indices first, first + stride, ... below bound: one CUDA thread's share
/// of a strided loop.
template <index_integer Index>
class stride_range : public ranges::view_base {
 public:
  constexpr stride_range() = default;
  constexpr stride_range(Index first, Index stride, Index bound) : first_(first), stride_(stride), bound_(bound) {}

  constexpr stride_iterator<Index> begin() const { return {first_, stride_}; }
  constexpr stride_sentinel<Index> end() const { return {bound_}; }
  constexpr std::size_t size() const { return static_cast<std::size_t>(end() - begin()); }
  constexpr bool empty() const { return !(first_ < bound_); }

 private:
  Index first_{};
  Index stride_{1};
  Index bound_{};
};

/// grid_stride(n): this thread's indices of a grid-stride loop over [0, n).
template <index_integer Index>
stride_range<Index> grid_stride(Index n) {
  using detail::blockDim, detail::blockIdx, detail::gridDim, detail::threadIdx;
  return {static_cast<Index>(static_cast<Index>(blockIdx.x) * static_cast<Index>(blockDim.x) +
                             static_cast<Index>(threadIdx.x)),
          static_cast<Index>(static_cast<Index>(gridDim.x) * static_cast<Index>(blockDim.x)), n};
}

/// block_stride(n): this thread's indices of a block-stride loop over [0, n).
template <index_integer Index>
stride_range<Index> block_stride(Index n) {
  return {static_cast<Index>(detail::threadIdx.x), static_cast<Index>(detail::blockDim.x), n};
}

/// A point of a 2D index space.
template <index_integer Index>
struct index_2d {
  Index x, y;
  friend constexpr bool operator==(const index_2d&, const index_2d&) = default;
};

/// A point of a 3D index space.
template <index_integer Index>
struct index_3d {
  Index x, y, z;
  friend constexpr bool operator==(const index_3d&, const index_3d&) = default;
};

/// Where a 2D or 3D stride space ends (its iterator knows the bounds).
struct stride_space_sentinel {};

/// One point of a 2D or 3D stride space: an odometer with x fastest.
template <index_integer Index, int Rank>
class stride_space_iterator {
  static_assert(Rank == 2 || Rank == 3);

 public:
  using value_type = std::conditional_t<Rank == 2, index_2d<Index>, index_3d<Index>>;
  using difference_type = std::ptrdiff_t;
  using iterator_concept = std::forward_iterator_tag;
  using iterator_category = std::input_iterator_tag;
  using axes = std::array<Index, Rank>;

  constexpr stride_space_iterator() = default;
  constexpr stride_space_iterator(const axes& first, const axes& stride, const axes& bound)
      : at_(first), first_(first), stride_(stride), bound_(bound) {
    // An empty axis empties the space: start at the end.
    for (int axis = 0; axis < Rank; ++axis)
      if (!(first[axis] < bound[axis])) at_[Rank - 1] = bound[Rank - 1];
  }

  constexpr value_type operator*() const {
    if constexpr (Rank == 2)
      return {at_[0], at_[1]};
    else
      return {at_[0], at_[1], at_[2]};
  }

  constexpr stride_space_iterator& operator++() {
    // The hand-written nest: the inner loop's step and test, and only when
    // it runs out, the next row (and plane).
    for (int axis = 0; axis < Rank - 1; ++axis) {
      at_[axis] += stride_[axis];
      if (at_[axis] < bound_[axis]) return *this;
      at_[axis] = first_[axis];
    }
    at_[Rank - 1] += stride_[Rank - 1];
    return *this;
  }
  constexpr stride_space_iterator operator++(int) {
    stride_space_iterator before = *this;
    ++*this;
    return before;
  }

  friend constexpr bool operator==(const stride_space_iterator& a, const stride_space_iterator& b) {
    return a.at_ == b.at_;
  }
  friend constexpr bool operator==(const stride_space_iterator& it, stride_space_sentinel) {
    return !(it.at_[Rank - 1] < it.bound_[Rank - 1]);
  }

  /// How many points this thread has left, this one included.
  constexpr std::size_t remaining() const {
    if (*this == stride_space_sentinel{}) return 0;
    // Whole rows (planes) after this one, then what is left of this one.
    std::size_t left = 0;
    for (int axis = Rank - 1; axis >= 0; --axis) {
      std::size_t after = count_from(axis, at_[axis]) - 1;
      std::size_t below = 1;
      for (int lower = 0; lower < axis; ++lower) below *= count_from(lower, first_[lower]);
      left += after * below;
    }
    return left + 1;
  }

 private:
  constexpr std::size_t count_from(int axis, Index from) const {
    if (!(from < bound_[axis])) return 0;
    return static_cast<std::size_t>((bound_[axis] - from - 1) / stride_[axis]) + 1;
  }

  axes at_{}, first_{}, stride_{}, bound_{};
};

/// The points of a 2D or 3D grid- or block-stride loop nest that one CUDA
/// thread visits, x fastest.
template <index_integer Index, int Rank>
class stride_space : public ranges::view_base {
 public:
  using axes = std::array<Index, Rank>;

  constexpr stride_space() = default;
  constexpr stride_space(const axes& first, const axes& stride, const axes& bound)
      : first_(first), stride_(stride), bound_(bound) {}

  constexpr stride_space_iterator<Index, Rank> begin() const { return {first_, stride_, bound_}; }
  constexpr stride_space_sentinel end() const { return {}; }
  constexpr std::size_t size() const { return begin().remaining(); }
  constexpr bool empty() const { return begin() == end(); }

 private:
  axes first_{}, stride_{}, bound_{};
};

namespace detail {

// One axis of the built-in variables, converted to the index type.
template <index_integer Index>
constexpr Index grid_first(unsigned block, unsigned block_size, unsigned thread) {
  return static_cast<Index>(static_cast<Index>(block) * static_cast<Index>(block_size) + static_cast<Index>(thread));
}
template <index_integer Index>
constexpr Index grid_step(unsigned grid_size, unsigned block_size) {
  return static_cast<Index>(static_cast<Index>(grid_size) * static_cast<Index>(block_size));
}

}  // namespace detail

/// grid_stride_2d(width, height): this thread's points {x, y} of the 2D
/// grid-stride nest over [0, width) x [0, height).
template <index_integer Index>
stride_space<Index, 2> grid_stride_2d(Index width, Index height) {
  using detail::blockDim, detail::blockIdx, detail::gridDim, detail::threadIdx;
  return {{detail::grid_first<Index>(blockIdx.x, blockDim.x, threadIdx.x),
           detail::grid_first<Index>(blockIdx.y, blockDim.y, threadIdx.y)},
          {detail::grid_step<Index>(gridDim.x, blockDim.x), detail::grid_step<Index>(gridDim.y, blockDim.y)},
          {width, height}};
}

/// grid_stride_3d(width, height, depth): this thread's points {x, y, z}.
template <index_integer Index>
stride_space<Index, 3> grid_stride_3d(Index width, Index height, Index depth) {
  using detail::blockDim, detail::blockIdx, detail::gridDim, detail::threadIdx;
  return {{detail::grid_first<Index>(blockIdx.x, blockDim.x, threadIdx.x),
           detail::grid_first<Index>(blockIdx.y, blockDim.y, threadIdx.y),
           detail::grid_first<Index>(blockIdx.z, blockDim.z, threadIdx.z)},
          {detail::grid_step<Index>(gridDim.x, blockDim.x), detail::grid_step<Index>(gridDim.y, blockDim.y),
           detail::grid_step<Index>(gridDim.z, blockDim.z)},
          {width, height, depth}};
}

/// block_stride_2d(width, height): this thread's points {x, y} of the
/// block-stride nest (from threadIdx, in steps of blockDim).
template <index_integer Index>
stride_space<Index, 2> block_stride_2d(Index width, Index height) {
  using detail::blockDim, detail::threadIdx;
  return {{static_cast<Index>(threadIdx.x), static_cast<Index>(threadIdx.y)},
          {static_cast<Index>(blockDim.x), static_cast<Index>(blockDim.y)},
          {width, height}};
}

/// block_stride_3d(width, height, depth): this thread's points {x, y, z}.
template <index_integer Index>
stride_space<Index, 3> block_stride_3d(Index width, Index height, Index depth) {
  using detail::blockDim, detail::threadIdx;
  return {{static_cast<Index>(threadIdx.x), static_cast<Index>(threadIdx.y), static_cast<Index>(threadIdx.z)},
          {static_cast<Index>(blockDim.x), static_cast<Index>(blockDim.y), static_cast<Index>(blockDim.z)},
          {width, height, depth}};
}

}  // namespace weft
