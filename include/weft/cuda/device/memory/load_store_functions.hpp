// Loads and stores with cache hints (CUDA guide, "Read-Only Data Cache Load
// Function", "Load Functions Using Cache Hints", "Store Functions Using
// Cache Hints"): __ldg, __ldcg, __ldca, __ldcs, __ldlu, __ldcv, __stwb,
// __stcg, __stcs, __stwt. A CPU has no such hints, so each is a plain load or
// store. They accept the types CUDA overloads them for, so code that passes
// another type fails to compile here as it would with nvcc; headers for
// other types (__half...) add their own overloads.
#pragma once

#include <type_traits>

#include "weft/cuda/vector_types.hpp"

namespace weft::detail {

template <class T, class... U>
inline constexpr bool one_of = (std::is_same_v<T, U> || ...);

template <class T>
concept cache_hint_type =
    one_of<T, char, signed char, short, int, long, long long, unsigned char, unsigned short, unsigned int,
           unsigned long, unsigned long long, char2, char4, short2, short4, int2, int4, longlong2, uchar2, uchar4,
           ushort2, ushort4, uint2, uint4, ulonglong2, float, double, float2, float4, double2>;

}  // namespace weft::detail

// clang-format off
template <weft::detail::cache_hint_type T> T __ldg(const T* p) { return *p; }
template <weft::detail::cache_hint_type T> T __ldcg(const T* p) { return *p; }
template <weft::detail::cache_hint_type T> T __ldca(const T* p) { return *p; }
template <weft::detail::cache_hint_type T> T __ldcs(const T* p) { return *p; }
template <weft::detail::cache_hint_type T> T __ldlu(const T* p) { return *p; }
template <weft::detail::cache_hint_type T> T __ldcv(const T* p) { return *p; }

// The value converts to the pointee's type, as with CUDA's overloads.
template <weft::detail::cache_hint_type T> void __stwb(T* p, std::type_identity_t<T> value) { *p = value; }
template <weft::detail::cache_hint_type T> void __stcg(T* p, std::type_identity_t<T> value) { *p = value; }
template <weft::detail::cache_hint_type T> void __stcs(T* p, std::type_identity_t<T> value) { *p = value; }
template <weft::detail::cache_hint_type T> void __stwt(T* p, std::type_identity_t<T> value) { *p = value; }
// clang-format on
