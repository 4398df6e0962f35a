// fill_fragment: every element of the calling lane's fragment set to one
// value (packed types: the low 4 bits, or the low bit, repeated).
#pragma once

#include <cstdint>

#include "weft/cuda/device/wmma/fragment.hpp"

namespace weft::detail::wmma {

template <class T>
struct fill_argument {
  using type = T;
};
template <>
struct fill_argument<nw::precision::tf32> {
  using type = float;
};
template <>
struct fill_argument<nw::experimental::precision::u4> {
  using type = unsigned;
};
template <>
struct fill_argument<nw::experimental::precision::s4> {
  using type = int;
};
template <>
struct fill_argument<nw::experimental::precision::b1> {
  using type = unsigned;
};

/// The storage word that holds `v` in every packed position.
template <class T>
typename element_traits<T>::storage packed_fill(typename fill_argument<T>::type v) {
  using storage = typename element_traits<T>::storage;
  if constexpr (element_traits<T>::per_storage == 8) {
    std::uint32_t nib = static_cast<std::uint32_t>(v) & 0xfu;
    return static_cast<storage>(nib * 0x11111111u);
  } else if constexpr (element_traits<T>::per_storage == 32) {
    return (static_cast<std::uint32_t>(v) & 1u) ? 0xffffffffu : 0u;
  } else {
    return static_cast<storage>(v);
  }
}

}  // namespace weft::detail::wmma

namespace nvcuda::wmma {

template <class Use, int m, int n, int k, class T, class Layout>
void fill_fragment(fragment<Use, m, n, k, T, Layout>& a, const typename weft::detail::wmma::fill_argument<T>::type& v) {
  auto word = weft::detail::wmma::packed_fill<T>(v);
  for (auto& x : a.x) x = word;
}

}  // namespace nvcuda::wmma
