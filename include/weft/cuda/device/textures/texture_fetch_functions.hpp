// The texture fetch functions kernels call (CUDA guide, "Texture Object
// API" under "Texture Functions"; CUDA 13's texture_indirect_functions.h):
// tex1Dfetch, tex1D, tex2D, tex3D, the layered and cubemap forms, the *Lod
// and *Grad forms, tex2Dgather, each as `T f<T>(obj, ...)` and as
// `void f(T* out, obj, ...)`, and the sparse forms with `bool* isResident`
// (weft's arrays are never sparse, so every texel is resident).
//
// T is what CUDA allows: char, signed char, unsigned char, short, unsigned
// short, int, unsigned int, float and their 1-, 2- and 4-vectors. The
// texture unit returns four 32-bit words (detail/textures/sampling/texel_values.hpp);
// T takes its first 1, 2 or 4 of them, integer words truncated to its
// components, float words as they are, as CUDA's intrinsics do.
//
// The handle is the address of the object's sampler, so a fetch reads its
// state directly: a handle that names no live object is undefined, as in CUDA.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "weft/cuda/runtime/textures/texture_types.hpp"
#include "weft/cuda/vector_types.hpp"
#include "weft/detail/textures/sampling/anisotropic_sampling.hpp"
#include "weft/detail/textures/sampling/cubemap_gradient_level.hpp"
#include "weft/detail/textures/sampling/register_preserving_call.hpp"
#include "weft/detail/textures/sampling/seamless_cubemap.hpp"
#include "weft/detail/textures/sampling/texel_values.hpp"
#include "weft/detail/textures/sampling/texture_sampling.hpp"

namespace weft::detail::textures {

/// The component type and count of a type texture fetches may return.
template <class T>
struct fetch_type_traits {
  static constexpr bool allowed = false;
};

template <class Component, int Count>
struct fetch_type_shape {
  static constexpr bool allowed = true;
  using component = Component;
  static constexpr int count = Count;
};

// clang-format off
template <> struct fetch_type_traits<char> : fetch_type_shape<char, 1> {};
template <> struct fetch_type_traits<signed char> : fetch_type_shape<signed char, 1> {};
template <> struct fetch_type_traits<unsigned char> : fetch_type_shape<unsigned char, 1> {};
template <> struct fetch_type_traits<short> : fetch_type_shape<short, 1> {};
template <> struct fetch_type_traits<unsigned short> : fetch_type_shape<unsigned short, 1> {};
template <> struct fetch_type_traits<int> : fetch_type_shape<int, 1> {};
template <> struct fetch_type_traits<unsigned int> : fetch_type_shape<unsigned int, 1> {};
template <> struct fetch_type_traits<float> : fetch_type_shape<float, 1> {};
template <> struct fetch_type_traits<char1> : fetch_type_shape<signed char, 1> {};
template <> struct fetch_type_traits<char2> : fetch_type_shape<signed char, 2> {};
template <> struct fetch_type_traits<char4> : fetch_type_shape<signed char, 4> {};
template <> struct fetch_type_traits<uchar1> : fetch_type_shape<unsigned char, 1> {};
template <> struct fetch_type_traits<uchar2> : fetch_type_shape<unsigned char, 2> {};
template <> struct fetch_type_traits<uchar4> : fetch_type_shape<unsigned char, 4> {};
template <> struct fetch_type_traits<short1> : fetch_type_shape<short, 1> {};
template <> struct fetch_type_traits<short2> : fetch_type_shape<short, 2> {};
template <> struct fetch_type_traits<short4> : fetch_type_shape<short, 4> {};
template <> struct fetch_type_traits<ushort1> : fetch_type_shape<unsigned short, 1> {};
template <> struct fetch_type_traits<ushort2> : fetch_type_shape<unsigned short, 2> {};
template <> struct fetch_type_traits<ushort4> : fetch_type_shape<unsigned short, 4> {};
template <> struct fetch_type_traits<int1> : fetch_type_shape<int, 1> {};
template <> struct fetch_type_traits<int2> : fetch_type_shape<int, 2> {};
template <> struct fetch_type_traits<int4> : fetch_type_shape<int, 4> {};
template <> struct fetch_type_traits<uint1> : fetch_type_shape<unsigned int, 1> {};
template <> struct fetch_type_traits<uint2> : fetch_type_shape<unsigned int, 2> {};
template <> struct fetch_type_traits<uint4> : fetch_type_shape<unsigned int, 4> {};
template <> struct fetch_type_traits<float1> : fetch_type_shape<float, 1> {};
template <> struct fetch_type_traits<float2> : fetch_type_shape<float, 2> {};
template <> struct fetch_type_traits<float4> : fetch_type_shape<float, 4> {};
// clang-format on

template <class T>
concept texture_fetch_type = fetch_type_traits<T>::allowed;

template <class Component>
Component word_as(std::uint32_t word) {
  if constexpr (std::is_same_v<Component, float>)
    return std::bit_cast<float>(word);
  else
    return static_cast<Component>(word);
}

/// The fetch's words as T.
template <texture_fetch_type T>
T texel_as(const texel_words& w) {
  using traits = fetch_type_traits<T>;
  using C = typename traits::component;
  if constexpr (std::is_arithmetic_v<T>) {
    return word_as<T>(w.word[0]);
  } else if constexpr (traits::count == 1) {
    return T{word_as<C>(w.word[0])};
  } else if constexpr (traits::count == 2) {
    return T{word_as<C>(w.word[0]), word_as<C>(w.word[1])};
  } else {
    return T{word_as<C>(w.word[0]), word_as<C>(w.word[1]), word_as<C>(w.word[2]), word_as<C>(w.word[3])};
  }
}

/// What handle 0 reads: one texel of zeros. A GPU's fetch through a null
/// handle returns without a fault, so weft's must not crash either. Its
/// codec is named, not looked up by format: every program includes this
/// and makes the null sampler before main, and the look-up would compile
/// every format's routines into programs that use no texture.
inline texture_sampler make_null_sampler() {
  using zeros_codec = texel_codec<std::uint32_t, 4, texel_conversion::integer>;
  static const std::byte zeros[16] = {};
  texture_sampler s{};
  s.routines = &routines_of<zeros_codec>;
  s.shape = texture_shape::linear;
  s.address[0] = s.address[1] = s.address[2] = address_mode::clamp;
  s.layers = 1;
  s.levels.push_back({zeros, {0, 0, 0}, 0, {1, 1, 1}, {1.0f, 1.0f, 1.0f}});
  choose_fetch_routines(s, fetch_routines_of<zeros_codec>());
  return s;
}

/// Made before main (a fetch's choice of it is then a select, not a call).
inline const texture_sampler null_sampler = make_null_sampler();

[[gnu::always_inline]] inline const texture_sampler& sampler_of(cudaTextureObject_t object) {
  return object == 0 ? null_sampler : *reinterpret_cast<const texture_sampler*>(static_cast<std::uintptr_t>(object));
}

/// A fetch with no explicit level of detail by the general rules: for 2D,
/// the routine the texture's format chose (which, for a plain point
/// texture, is `sample`).
template <int Dims>
texel_words general_fetch(const texture_sampler& s, float x, float y, float z, int layer) {
  if constexpr (Dims == 1)
    return sample<1>(s, {{x}}, layer);
  else if constexpr (Dims == 2)
    return s.fetch_2d(s, x, y, layer);
  else
    return sample<3>(s, {{x, y, z}}, layer);
}

/// A fetch with no explicit level of detail, as T: a plain point fetch of
/// a texel inside inlined; any other fetch (another kind of texture, a
/// texel outside) one call, from one place, that keeps the kernel's
/// registers.
///
/// The inlined path loads the texel's words as floats (the bits are the
/// same whatever its format): a load typed float cannot alias the runner
/// loop's threadIdx (unsigned ints), where a copy as bytes may, so the loop
/// keeps threadIdx in a register instead of storing it for every thread
/// (docs/textures.md, "Performance"). What the type changes is what the
/// compiler may assume: the load may be moved before the kernel's own
/// stores of other types to the texture's memory in the same launch, a
/// read after a write that CUDA leaves undefined (guide 6.2.14.4). A T of
/// as many floats as the texture's texels have dense channels also skips
/// the x stride: it is the texel's size, a constant here.
template <texture_fetch_type T, int Dims>
[[gnu::always_inline]] inline T fetch_as(cudaTextureObject_t object, const texture_coordinates<Dims>& at,
                                         int layer = 0) {
  using traits = fetch_type_traits<T>;
  const texture_sampler& s = sampler_of(object);
  // No flag is read: a sampler's plain sizes are 0 where its path does not
  // apply, so every coordinate is outside it (texture_sampler.hpp).
  if constexpr (std::is_same_v<typename traits::component, float>) {
    const float* floats;
    if (plain_point_dense_texel<Dims, traits::count>(s, at, floats)) [[likely]] {
      if constexpr (std::is_arithmetic_v<T>)
        return floats[0];
      else if constexpr (traits::count == 1)
        return T{floats[0]};
      else if constexpr (traits::count == 2)
        return T{floats[0], floats[1]};
      else
        return T{floats[0], floats[1], floats[2], floats[3]};
    }
  }
  const std::byte* texel;
  if (plain_point_texel<Dims>(s, at, texel)) [[likely]]
    return texel_as<T>(load_texel_words(s.raw_word_channels, texel));
  return texel_as<T>(call_preserving_registers(&general_fetch<Dims>, s, at.value[0], Dims > 1 ? at.value[1] : 0.0f,
                                               Dims > 2 ? at.value[2] : 0.0f, layer));
}

template <int Dims>
texel_words fetch_lod(cudaTextureObject_t object, const texture_coordinates<Dims>& at, int layer, float level) {
  const texture_sampler& s = sampler_of(object);
  return sample_lod<Dims>(s, at, s.layers > 1 ? clamp_layer(s, layer) : 0, level);
}

template <int Dims>
texel_words fetch_grad(cudaTextureObject_t object, const texture_coordinates<Dims>& at, int layer,
                       const float (&dx)[Dims], const float (&dy)[Dims]) {
  const texture_sampler& s = sampler_of(object);
  return sample_gradients<Dims>(s, at, s.layers > 1 ? clamp_layer(s, layer) : 0, dx, dy);
}

inline texel_words fetch_cubemap(cudaTextureObject_t object, float x, float y, float z, int cube, bool explicit_level,
                                 float level, bool from_gradients = false) {
  const texture_sampler& s = sampler_of(object);
  cubemap_position p = cubemap_face(x, y, z);
  if (s.seamless_cubemap) [[unlikely]]
    return sample_seamless_lod(s, p, s.layers > 1 ? clamp_layer(s, cube) : 0, explicit_level ? level : 0.0f);
  texture_coordinates<2> at{{p.u, p.v}};
  int slice = cubemap_slice(p, s.layers > 1 ? clamp_layer(s, cube) : 0);
  if (!explicit_level && s.level_count() == 1) return sample_level<2>(s, s.levels[0], at, slice);
  return sample_lod<2>(s, at, slice, explicit_level ? level : 0.0f, from_gradients);
}

/// The level of detail of a cubemap fetch with gradients, as an H100 takes
/// it (cubemap_gradient_level.hpp), in levels.
inline float cubemap_level_from_gradients(const texture_sampler& s, float x, float y, float z, float4 dx, float4 dy) {
  const double direction[3] = {x, y, z}, gradient_x[3] = {dx.x, dx.y, dx.z}, gradient_y[3] = {dy.x, dy.y, dy.z};
  int level =
      cubemap_level_from_footprint(direction, gradient_x, gradient_y, s.levels[0].float_size[0], s.max_anisotropy);
  return static_cast<float>(level) / (1 << gradient_level_bits);
}

}  // namespace weft::detail::textures

// clang-format off
namespace weft::surface {
using weft::detail::textures::texture_fetch_type;
}  // namespace weft::surface
// clang-format on

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex1Dfetch(T* out, cudaTextureObject_t object, int x) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_linear(t::sampler_of(object), x));
}
template <class T>
[[gnu::always_inline]] inline T tex1Dfetch(cudaTextureObject_t object, int x) {
  T out;
  tex1Dfetch(&out, object, x);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex1D(T* out, cudaTextureObject_t object, float x) {
  namespace t = weft::detail::textures;
  *out = t::fetch_as<T, 2>(object, {{x, 0.0f}});
}
template <class T>
[[gnu::always_inline]] inline T tex1D(cudaTextureObject_t object, float x) {
  T out;
  tex1D(&out, object, x);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2D(T* out, cudaTextureObject_t object, float x, float y) {
  namespace t = weft::detail::textures;
  *out = t::fetch_as<T, 2>(object, {{x, y}});
}
template <class T>
[[gnu::always_inline]] inline T tex2D(cudaTextureObject_t object, float x, float y) {
  T out;
  tex2D(&out, object, x, y);
  return out;
}
template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2D(T* out, cudaTextureObject_t object, float x, float y, bool* isResident) {
  tex2D(out, object, x, y);
  *isResident = true;
}
template <class T>
[[gnu::always_inline]] inline T tex2D(cudaTextureObject_t object, float x, float y, bool* isResident) {
  T out;
  tex2D(&out, object, x, y, isResident);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex3D(T* out, cudaTextureObject_t object, float x, float y, float z) {
  namespace t = weft::detail::textures;
  *out = t::fetch_as<T, 3>(object, {{x, y, z}});
}
template <class T>
[[gnu::always_inline]] inline T tex3D(cudaTextureObject_t object, float x, float y, float z) {
  T out;
  tex3D(&out, object, x, y, z);
  return out;
}
template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex3D(T* out, cudaTextureObject_t object, float x, float y, float z,
                                         bool* isResident) {
  tex3D(out, object, x, y, z);
  *isResident = true;
}
template <class T>
[[gnu::always_inline]] inline T tex3D(cudaTextureObject_t object, float x, float y, float z, bool* isResident) {
  T out;
  tex3D(&out, object, x, y, z, isResident);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex1DLayered(T* out, cudaTextureObject_t object, float x, int layer) {
  namespace t = weft::detail::textures;
  *out = t::fetch_as<T, 1>(object, {{x}}, layer);
}
template <class T>
[[gnu::always_inline]] inline T tex1DLayered(cudaTextureObject_t object, float x, int layer) {
  T out;
  tex1DLayered(&out, object, x, layer);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2DLayered(T* out, cudaTextureObject_t object, float x, float y, int layer) {
  namespace t = weft::detail::textures;
  *out = t::fetch_as<T, 2>(object, {{x, y}}, layer);
}
template <class T>
[[gnu::always_inline]] inline T tex2DLayered(cudaTextureObject_t object, float x, float y, int layer) {
  T out;
  tex2DLayered(&out, object, x, y, layer);
  return out;
}
template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2DLayered(T* out, cudaTextureObject_t object, float x, float y, int layer,
                                                bool* isResident) {
  tex2DLayered(out, object, x, y, layer);
  *isResident = true;
}
template <class T>
[[gnu::always_inline]] inline T tex2DLayered(cudaTextureObject_t object, float x, float y, int layer,
                                             bool* isResident) {
  T out;
  tex2DLayered(&out, object, x, y, layer, isResident);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void texCubemap(T* out, cudaTextureObject_t object, float x, float y, float z) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_cubemap(object, x, y, z, 0, false, 0.0f));
}
template <class T>
[[gnu::always_inline]] inline T texCubemap(cudaTextureObject_t object, float x, float y, float z) {
  T out;
  texCubemap(&out, object, x, y, z);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void texCubemapLayered(T* out, cudaTextureObject_t object, float x, float y, float z,
                                                     int layer) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_cubemap(object, x, y, z, layer, false, 0.0f));
}
template <class T>
[[gnu::always_inline]] inline T texCubemapLayered(cudaTextureObject_t object, float x, float y, float z, int layer) {
  T out;
  texCubemapLayered(&out, object, x, y, z, layer);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2Dgather(T* out, cudaTextureObject_t object, float x, float y, int comp = 0) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::gather(t::sampler_of(object), x, y, comp));
}
template <class T>
[[gnu::always_inline]] inline T tex2Dgather(cudaTextureObject_t object, float x, float y, int comp = 0) {
  T out;
  tex2Dgather(&out, object, x, y, comp);
  return out;
}
template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2Dgather(T* out, cudaTextureObject_t object, float x, float y, bool* isResident,
                                               int comp = 0) {
  tex2Dgather(out, object, x, y, comp);
  *isResident = true;
}
template <class T>
[[gnu::always_inline]] inline T tex2Dgather(cudaTextureObject_t object, float x, float y, bool* isResident,
                                            int comp = 0) {
  T out;
  tex2Dgather(&out, object, x, y, isResident, comp);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex1DLod(T* out, cudaTextureObject_t object, float x, float level) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_lod<2>(object, {{x, 0.0f}}, 0, level));
}
template <class T>
[[gnu::always_inline]] inline T tex1DLod(cudaTextureObject_t object, float x, float level) {
  T out;
  tex1DLod(&out, object, x, level);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2DLod(T* out, cudaTextureObject_t object, float x, float y, float level) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_lod<2>(object, {{x, y}}, 0, level));
}
template <class T>
[[gnu::always_inline]] inline T tex2DLod(cudaTextureObject_t object, float x, float y, float level) {
  T out;
  tex2DLod(&out, object, x, y, level);
  return out;
}
template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2DLod(T* out, cudaTextureObject_t object, float x, float y, float level,
                                            bool* isResident) {
  tex2DLod(out, object, x, y, level);
  *isResident = true;
}
template <class T>
[[gnu::always_inline]] inline T tex2DLod(cudaTextureObject_t object, float x, float y, float level, bool* isResident) {
  T out;
  tex2DLod(&out, object, x, y, level, isResident);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex3DLod(T* out, cudaTextureObject_t object, float x, float y, float z,
                                            float level) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_lod<3>(object, {{x, y, z}}, 0, level));
}
template <class T>
[[gnu::always_inline]] inline T tex3DLod(cudaTextureObject_t object, float x, float y, float z, float level) {
  T out;
  tex3DLod(&out, object, x, y, z, level);
  return out;
}
template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex3DLod(T* out, cudaTextureObject_t object, float x, float y, float z, float level,
                                            bool* isResident) {
  tex3DLod(out, object, x, y, z, level);
  *isResident = true;
}
template <class T>
[[gnu::always_inline]] inline T tex3DLod(cudaTextureObject_t object, float x, float y, float z, float level,
                                         bool* isResident) {
  T out;
  tex3DLod(&out, object, x, y, z, level, isResident);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex1DLayeredLod(T* out, cudaTextureObject_t object, float x, int layer,
                                                   float level) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_lod<1>(object, {{x}}, layer, level));
}
template <class T>
[[gnu::always_inline]] inline T tex1DLayeredLod(cudaTextureObject_t object, float x, int layer, float level) {
  T out;
  tex1DLayeredLod(&out, object, x, layer, level);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2DLayeredLod(T* out, cudaTextureObject_t object, float x, float y, int layer,
                                                   float level) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_lod<2>(object, {{x, y}}, layer, level));
}
template <class T>
[[gnu::always_inline]] inline T tex2DLayeredLod(cudaTextureObject_t object, float x, float y, int layer, float level) {
  T out;
  tex2DLayeredLod(&out, object, x, y, layer, level);
  return out;
}
template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2DLayeredLod(T* out, cudaTextureObject_t object, float x, float y, int layer,
                                                   float level, bool* isResident) {
  tex2DLayeredLod(out, object, x, y, layer, level);
  *isResident = true;
}
template <class T>
[[gnu::always_inline]] inline T tex2DLayeredLod(cudaTextureObject_t object, float x, float y, int layer, float level,
                                                bool* isResident) {
  T out;
  tex2DLayeredLod(&out, object, x, y, layer, level, isResident);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void texCubemapLod(T* out, cudaTextureObject_t object, float x, float y, float z,
                                                 float level) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_cubemap(object, x, y, z, 0, true, level));
}
template <class T>
[[gnu::always_inline]] inline T texCubemapLod(cudaTextureObject_t object, float x, float y, float z, float level) {
  T out;
  texCubemapLod(&out, object, x, y, z, level);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void texCubemapLayeredLod(T* out, cudaTextureObject_t object, float x, float y, float z,
                                                        int layer, float level) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_cubemap(object, x, y, z, layer, true, level));
}
template <class T>
[[gnu::always_inline]] inline T texCubemapLayeredLod(cudaTextureObject_t object, float x, float y, float z, int layer,
                                                     float level) {
  T out;
  texCubemapLayeredLod(&out, object, x, y, z, layer, level);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void texCubemapGrad(T* out, cudaTextureObject_t object, float x, float y, float z,
                                                  float4 dPdx, float4 dPdy) {
  namespace t = weft::detail::textures;
  float level = t::cubemap_level_from_gradients(t::sampler_of(object), x, y, z, dPdx, dPdy);
  *out = t::texel_as<T>(t::fetch_cubemap(object, x, y, z, 0, true, level, true));
}
template <class T>
[[gnu::always_inline]] inline T texCubemapGrad(cudaTextureObject_t object, float x, float y, float z, float4 dPdx,
                                               float4 dPdy) {
  T out;
  texCubemapGrad(&out, object, x, y, z, dPdx, dPdy);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void texCubemapLayeredGrad(T* out, cudaTextureObject_t object, float x, float y, float z,
                                                         int layer, float4 dPdx, float4 dPdy) {
  namespace t = weft::detail::textures;
  float level = t::cubemap_level_from_gradients(t::sampler_of(object), x, y, z, dPdx, dPdy);
  *out = t::texel_as<T>(t::fetch_cubemap(object, x, y, z, layer, true, level, true));
}
template <class T>
[[gnu::always_inline]] inline T texCubemapLayeredGrad(cudaTextureObject_t object, float x, float y, float z, int layer,
                                                      float4 dPdx, float4 dPdy) {
  T out;
  texCubemapLayeredGrad(&out, object, x, y, z, layer, dPdx, dPdy);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex1DGrad(T* out, cudaTextureObject_t object, float x, float dPdx, float dPdy) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_grad<2>(object, {{x, 0.0f}}, 0, {dPdx, 0.0f}, {dPdy, 0.0f}));
}
template <class T>
[[gnu::always_inline]] inline T tex1DGrad(cudaTextureObject_t object, float x, float dPdx, float dPdy) {
  T out;
  tex1DGrad(&out, object, x, dPdx, dPdy);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2DGrad(T* out, cudaTextureObject_t object, float x, float y, float2 dPdx,
                                             float2 dPdy) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_grad<2>(object, {{x, y}}, 0, {dPdx.x, dPdx.y}, {dPdy.x, dPdy.y}));
}
template <class T>
[[gnu::always_inline]] inline T tex2DGrad(cudaTextureObject_t object, float x, float y, float2 dPdx, float2 dPdy) {
  T out;
  tex2DGrad(&out, object, x, y, dPdx, dPdy);
  return out;
}
template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2DGrad(T* out, cudaTextureObject_t object, float x, float y, float2 dPdx,
                                             float2 dPdy, bool* isResident) {
  tex2DGrad(out, object, x, y, dPdx, dPdy);
  *isResident = true;
}
template <class T>
[[gnu::always_inline]] inline T tex2DGrad(cudaTextureObject_t object, float x, float y, float2 dPdx, float2 dPdy,
                                          bool* isResident) {
  T out;
  tex2DGrad(&out, object, x, y, dPdx, dPdy, isResident);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex3DGrad(T* out, cudaTextureObject_t object, float x, float y, float z, float4 dPdx,
                                             float4 dPdy) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_grad<3>(object, {{x, y, z}}, 0, {dPdx.x, dPdx.y, dPdx.z}, {dPdy.x, dPdy.y, dPdy.z}));
}
template <class T>
[[gnu::always_inline]] inline T tex3DGrad(cudaTextureObject_t object, float x, float y, float z, float4 dPdx,
                                          float4 dPdy) {
  T out;
  tex3DGrad(&out, object, x, y, z, dPdx, dPdy);
  return out;
}
template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex3DGrad(T* out, cudaTextureObject_t object, float x, float y, float z, float4 dPdx,
                                             float4 dPdy, bool* isResident) {
  tex3DGrad(out, object, x, y, z, dPdx, dPdy);
  *isResident = true;
}
template <class T>
[[gnu::always_inline]] inline T tex3DGrad(cudaTextureObject_t object, float x, float y, float z, float4 dPdx,
                                          float4 dPdy, bool* isResident) {
  T out;
  tex3DGrad(&out, object, x, y, z, dPdx, dPdy, isResident);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex1DLayeredGrad(T* out, cudaTextureObject_t object, float x, int layer, float dPdx,
                                                    float dPdy) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_grad<1>(object, {{x}}, layer, {dPdx}, {dPdy}));
}
template <class T>
[[gnu::always_inline]] inline T tex1DLayeredGrad(cudaTextureObject_t object, float x, int layer, float dPdx,
                                                 float dPdy) {
  T out;
  tex1DLayeredGrad(&out, object, x, layer, dPdx, dPdy);
  return out;
}

template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2DLayeredGrad(T* out, cudaTextureObject_t object, float x, float y, int layer,
                                                    float2 dPdx, float2 dPdy) {
  namespace t = weft::detail::textures;
  *out = t::texel_as<T>(t::fetch_grad<2>(object, {{x, y}}, layer, {dPdx.x, dPdx.y}, {dPdy.x, dPdy.y}));
}
template <class T>
[[gnu::always_inline]] inline T tex2DLayeredGrad(cudaTextureObject_t object, float x, float y, int layer, float2 dPdx,
                                                 float2 dPdy) {
  T out;
  tex2DLayeredGrad(&out, object, x, y, layer, dPdx, dPdy);
  return out;
}
template <weft::surface::texture_fetch_type T>
[[gnu::always_inline]] inline void tex2DLayeredGrad(T* out, cudaTextureObject_t object, float x, float y, int layer,
                                                    float2 dPdx, float2 dPdy, bool* isResident) {
  tex2DLayeredGrad(out, object, x, y, layer, dPdx, dPdy);
  *isResident = true;
}
template <class T>
[[gnu::always_inline]] inline T tex2DLayeredGrad(cudaTextureObject_t object, float x, float y, int layer, float2 dPdx,
                                                 float2 dPdy, bool* isResident) {
  T out;
  tex2DLayeredGrad(&out, object, x, y, layer, dPdx, dPdy, isResident);
  return out;
}
