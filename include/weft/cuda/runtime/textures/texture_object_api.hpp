// Texture objects (CUDA guide 6.2.14.1, "Texture Object API"):
// cudaCreateTextureObject over linear memory, pitched 2D memory, a CUDA
// array or a mipmapped array; cudaDestroyTextureObject; and the queries
// cudaGetTextureObjectResourceDesc, ...TextureDesc, ...ResourceViewDesc.
//
// Creation reads the descriptors into a sampler
// (detail/textures/sampling/texture_sampler.hpp) that holds everything a
// fetch needs, decided once: the routines for the format and read mode,
// each level's strides, the address modes as fetches apply them. The handle
// is that sampler's address, so a fetch costs no lookup; the registry only
// serves destroy and the queries. Bad descriptors get the codes CUDA 13 returns for them.
#pragma once

#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "weft/cuda/runtime/textures/array_handles.hpp"
#include "weft/cuda/runtime/textures/array_types.hpp"
#include "weft/cuda/runtime/textures/channel_descriptor.hpp"
#include "weft/cuda/runtime/textures/resource_types.hpp"
#include "weft/cuda/runtime/textures/texture_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/runtime/runtime.hpp"
#include "weft/detail/streams/device_control.hpp"
#include "weft/detail/textures/arrays/array_storage.hpp"
#include "weft/detail/textures/objects/texture_object_registry.hpp"
#include "weft/detail/textures/sampling/texel_reading.hpp"
#include "weft/detail/textures/sampling/texture_addressing.hpp"
#include "weft/detail/textures/sampling/texture_sampler.hpp"
#include "weft/detail/textures/sampling/texture_sampling.hpp"

static_assert(static_cast<int>(weft::detail::textures::address_mode::wrap) == cudaAddressModeWrap);
static_assert(static_cast<int>(weft::detail::textures::address_mode::clamp) == cudaAddressModeClamp);
static_assert(static_cast<int>(weft::detail::textures::address_mode::mirror) == cudaAddressModeMirror);
static_assert(static_cast<int>(weft::detail::textures::address_mode::border) == cudaAddressModeBorder);

namespace weft::surface {

/// What a texture object was created from, for the queries to hand back.
struct texture_descriptors {
  cudaResourceDesc resource;
  cudaTextureDesc texture;
  cudaResourceViewDesc view;
  cudaChannelFormatDesc format;  // of the texels, whatever the resource
  /// Whether the last query of an array texture was
  /// cudaGetTextureObjectResourceDesc. An H100's runtime (CUDA 13) does not
  /// keep borderColor: cudaGetTextureObjectTextureDesc hands back whatever
  /// its stack holds there, often the colour given, sometimes pointer bits,
  /// and right after cudaGetTextureObjectResourceDesc of an array texture
  /// the format's channel sizes x, y, z and w (0x20, 0, 0, 0 for float; 8,
  /// 0, 0, 0 for uchar2), whatever the colour and modes (measured:
  /// tests/differential/h100_measurements/README.md). weft hands back the
  /// colour given, and the channel sizes in that one case, which
  /// texture_probe's sequence takes.
  std::shared_ptr<std::atomic<bool>> resource_desc_read;
};

/// An H100's alignments for texture memory (cudaDeviceProp's
/// textureAlignment and texturePitchAlignment) and linear-texture limits.
inline constexpr std::uintptr_t texture_alignment = 512;
inline constexpr std::size_t texture_pitch_alignment = 32;
inline constexpr std::size_t max_texture_1d_linear = std::size_t{1} << 28;
inline constexpr std::size_t max_texture_2d_linear[3] = {131072, 65000, 2097120};

/// A channel format a texture can read: 1, 2 or 4 channels of equal size,
/// 8, 16 or 32 bits of integers, 16 or 32 of float, or one of the
/// normalized-integer kinds. Its layout in weft's terms, or false.
inline bool texel_layout_of(const cudaChannelFormatDesc& d, weft::detail::textures::texel_layout& layout) {
  using weft::detail::textures::channel_encoding;
  int channels = (d.x != 0) + (d.y != 0) + (d.z != 0) + (d.w != 0);
  bool packed = (d.x != 0) && (d.y != 0 || d.z == 0) && (d.z != 0 || d.w == 0);
  if (!packed || channels == 3) return false;
  int sizes[4] = {d.x, d.y, d.z, d.w};
  for (int c = 1; c < channels; ++c)
    if (sizes[c] != d.x) return false;
  layout.channels = channels;
  layout.bits = d.x;
  auto normalized = [&](channel_encoding encoding, int bits, int count) {
    layout.encoding = encoding;
    return d.x == bits && channels == count;
  };
  switch (d.f) {
    case cudaChannelFormatKindSigned:
      layout.encoding = channel_encoding::signed_integer;
      return d.x == 8 || d.x == 16 || d.x == 32;
    case cudaChannelFormatKindUnsigned:
      layout.encoding = channel_encoding::unsigned_integer;
      return d.x == 8 || d.x == 16 || d.x == 32;
    case cudaChannelFormatKindFloat:
      layout.encoding = channel_encoding::floating;
      return d.x == 16 || d.x == 32;
    case cudaChannelFormatKindUnsignedNormalized8X1:
      return normalized(channel_encoding::unsigned_normalized, 8, 1);
    case cudaChannelFormatKindUnsignedNormalized8X2:
      return normalized(channel_encoding::unsigned_normalized, 8, 2);
    case cudaChannelFormatKindUnsignedNormalized8X4:
      return normalized(channel_encoding::unsigned_normalized, 8, 4);
    case cudaChannelFormatKindUnsignedNormalized16X1:
      return normalized(channel_encoding::unsigned_normalized, 16, 1);
    case cudaChannelFormatKindUnsignedNormalized16X2:
      return normalized(channel_encoding::unsigned_normalized, 16, 2);
    case cudaChannelFormatKindUnsignedNormalized16X4:
      return normalized(channel_encoding::unsigned_normalized, 16, 4);
    case cudaChannelFormatKindSignedNormalized8X1:
      return normalized(channel_encoding::signed_normalized, 8, 1);
    case cudaChannelFormatKindSignedNormalized8X2:
      return normalized(channel_encoding::signed_normalized, 8, 2);
    case cudaChannelFormatKindSignedNormalized8X4:
      return normalized(channel_encoding::signed_normalized, 8, 4);
    case cudaChannelFormatKindSignedNormalized16X1:
      return normalized(channel_encoding::signed_normalized, 16, 1);
    case cudaChannelFormatKindSignedNormalized16X2:
      return normalized(channel_encoding::signed_normalized, 16, 2);
    case cudaChannelFormatKindSignedNormalized16X4:
      return normalized(channel_encoding::signed_normalized, 16, 4);
    default:
      return false;
  }
}

inline cudaChannelFormatDesc channel_desc_of_level(const weft::detail::array_level& level) {
  return {level.format.x_bits, level.format.y_bits, level.format.z_bits, level.format.w_bits,
          static_cast<cudaChannelFormatKind>(level.format.kind)};
}

inline weft::detail::textures::texture_level texture_level_of(const weft::detail::array_level& a) {
  weft::detail::textures::texture_level level{};
  level.base = a.base;
  level.stride[0] = a.element_bytes;
  level.stride[1] = a.row_pitch;
  level.stride[2] = a.slice_pitch;
  level.layer_pitch = a.slice_pitch;
  level.size[0] = static_cast<int>(a.width);
  level.size[1] = static_cast<int>(a.rows());
  level.size[2] = (a.layered() || a.cubemap()) ? 1 : static_cast<int>(a.slices());
  for (int d = 0; d < 3; ++d) level.float_size[d] = static_cast<float>(level.size[d]);
  return level;
}

inline weft::detail::textures::texture_shape shape_of(const weft::detail::array_level& a) {
  using weft::detail::textures::texture_shape;
  if (a.cubemap()) return a.layered() ? texture_shape::cubemap_layered : texture_shape::cubemap;
  if (a.layered()) return a.height ? texture_shape::two_d_layered : texture_shape::one_d_layered;
  if (a.depth) return texture_shape::three_d;
  return a.height ? texture_shape::two_d : texture_shape::one_d;
}

inline int layers_of(const weft::detail::array_level& a) { return a.layered() ? static_cast<int>(a.layers()) : 1; }

/// The sampler's levels, shape and format from the resource descriptor, or
/// CUDA's code for a resource it cannot read.
inline cudaError_t read_resource(const cudaResourceDesc& r, weft::detail::textures::texture_sampler& s,
                                 cudaChannelFormatDesc& format) {
  using weft::detail::textures::texture_level;
  using weft::detail::textures::texture_shape;
  if (r.flags != 0) return cudaErrorInvalidValue;
  switch (r.resType) {
    case cudaResourceTypeArray: {
      cudaError_t code = cudaSuccess;
      const weft::detail::array_level* live = live_array(r.res.array.array, code);
      if (!live) return cudaErrorInvalidResourceHandle;  // a null array too, as on an H100
      const weft::detail::array_level& a = *live;
      format = channel_desc_of_level(a);
      s.shape = shape_of(a);
      s.layers = layers_of(a);
      s.levels.push_back(texture_level_of(a));
      return cudaSuccess;
    }
    case cudaResourceTypeMipmappedArray: {
      cudaError_t code = cudaSuccess;
      const weft::detail::mipmapped_array* live = live_mipmapped_array(r.res.mipmap.mipmap, code);
      if (!live) return cudaErrorInvalidResourceHandle;
      const weft::detail::mipmapped_array& m = *live;
      if (m.levels.empty()) return cudaErrorInvalidResourceHandle;
      format = channel_desc_of_level(m.levels[0]);
      s.shape = shape_of(m.levels[0]);
      s.layers = layers_of(m.levels[0]);
      for (const auto& a : m.levels) s.levels.push_back(texture_level_of(a));
      return cudaSuccess;
    }
    case cudaResourceTypeLinear: {
      const auto& linear = r.res.linear;
      format = linear.desc;
      weft::detail::textures::texel_layout layout;
      if (!texel_layout_of(format, layout)) return cudaErrorInvalidChannelDescriptor;
      auto address = reinterpret_cast<std::uintptr_t>(linear.devPtr);
      if (!linear.devPtr || address % texture_alignment) return cudaErrorInvalidValue;
      std::size_t texels = linear.sizeInBytes / static_cast<std::size_t>(layout.bytes());
      // Size 0 is accepted (an H100 does), and so is a tail short of a texel.
      if (texels > max_texture_1d_linear) return cudaErrorInvalidValue;
      texture_level level{};
      level.base = static_cast<const std::byte*>(linear.devPtr);
      level.stride[0] = static_cast<std::size_t>(layout.bytes());
      level.size[0] = static_cast<int>(texels);
      level.size[1] = level.size[2] = 1;
      s.shape = texture_shape::linear;
      s.levels.push_back(level);
      break;
    }
    case cudaResourceTypePitch2D: {
      const auto& pitched = r.res.pitch2D;
      format = pitched.desc;
      weft::detail::textures::texel_layout layout;
      if (!texel_layout_of(format, layout)) return cudaErrorInvalidChannelDescriptor;
      auto address = reinterpret_cast<std::uintptr_t>(pitched.devPtr);
      if (!pitched.devPtr || address % texture_alignment) return cudaErrorInvalidValue;
      // An H100 accepts a zero width or height, and a pitch below a row.
      if (pitched.width > max_texture_2d_linear[0] || pitched.height > max_texture_2d_linear[1] ||
          pitched.pitchInBytes > max_texture_2d_linear[2] || pitched.pitchInBytes % texture_pitch_alignment)
        return cudaErrorInvalidValue;
      texture_level level{};
      level.base = static_cast<const std::byte*>(pitched.devPtr);
      level.stride[0] = static_cast<std::size_t>(layout.bytes());
      level.stride[1] = pitched.pitchInBytes;
      // A zero width or height reads as one texel (addressing needs one).
      level.size[0] = pitched.width ? static_cast<int>(pitched.width) : 1;
      level.size[1] = pitched.height ? static_cast<int>(pitched.height) : 1;
      level.size[2] = 1;
      s.shape = texture_shape::two_d;
      s.levels.push_back(level);
      break;
    }
    default:
      return cudaErrorInvalidValue;
  }
  for (auto& level : s.levels)
    for (int d = 0; d < 3; ++d) level.float_size[d] = static_cast<float>(level.size[d]);
  return cudaSuccess;
}

inline bool valid_address_mode(cudaTextureAddressMode m) {
  return m == cudaAddressModeWrap || m == cudaAddressModeClamp || m == cudaAddressModeMirror ||
         m == cudaAddressModeBorder;
}
inline bool valid_filter_mode(cudaTextureFilterMode m) { return m == cudaFilterModePoint || m == cudaFilterModeLinear; }

/// The border colour as a texel of `layout` (see texture_sampler::border_texel).
/// sRGB textures hold their border colour's r, g and b encoded: linear
/// values in [0, 1] through sRGB's curve to 8 bits, rounded to nearest
/// (an H100 reads a border of 0.5 as the sRGB texel 188 decodes, 0x3f010000).
inline void encode_border_texel(const float (&colour)[4], const weft::detail::textures::texel_layout& layout,
                                bool normalized_read, bool srgb, std::byte* texel) {
  using weft::detail::textures::channel_encoding;
  std::memset(texel, 0, 16);
  int bytes = layout.bits / 8;
  bool normalized = normalized_read || layout.encoding == channel_encoding::unsigned_normalized ||
                    layout.encoding == channel_encoding::signed_normalized;
  bool is_signed =
      layout.encoding == channel_encoding::signed_integer || layout.encoding == channel_encoding::signed_normalized;
  for (int c = 0; c < layout.channels; ++c) {
    float v = colour[c];
    if (srgb && c < 3) {
      double linear = v != v ? 0.0 : (v < 0.0f ? 0.0 : (v > 1.0f ? 1.0 : static_cast<double>(v)));
      double encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
      texel[c] = static_cast<std::byte>(static_cast<std::uint8_t>(std::floor(encoded * 255.0 + 0.5)));
      continue;
    }
    std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
    if (layout.encoding == channel_encoding::floating && layout.bits == 16) {
      bits = weft::detail::textures::float_to_half_bits(v);
    } else if (normalized) {
      // Scaled to the integer range and rounded, ties down (0.5 in u8 is 127).
      double top = is_signed ? (layout.bits == 8 ? 127.0 : 32767.0) : (layout.bits == 8 ? 255.0 : 65535.0);
      double low = is_signed ? -1.0 : 0.0;
      double clamped = v != v ? 0.0 : (v < low ? low : (v > 1.0 ? 1.0 : static_cast<double>(v)));
      double scaled = std::ceil(clamped * top - 0.5);
      bits = static_cast<std::uint32_t>(static_cast<std::int32_t>(scaled));
    }
    std::memcpy(texel + c * bytes, &bits, static_cast<std::size_t>(bytes));  // little-endian: the low bits
  }
}

/// The sampler's filtering, addressing and conversion from the texture
/// descriptor, or CUDA's code for a combination it refuses.
inline cudaError_t read_texture_desc(const cudaTextureDesc& t, const cudaChannelFormatDesc& format,
                                     weft::detail::textures::texture_sampler& s) {
  using namespace weft::detail::textures;
  for (auto mode : t.addressMode)
    if (!valid_address_mode(mode)) return cudaErrorInvalidValue;
  if (!valid_filter_mode(t.filterMode) || !valid_filter_mode(t.mipmapFilterMode)) return cudaErrorInvalidValue;
  texel_layout layout;
  if (!texel_layout_of(format, layout)) return cudaErrorInvalidChannelDescriptor;
  // Any read mode but normalized float reads elements (an H100 takes 3).
  bool normalized_read = t.readMode == cudaReadModeNormalizedFloat;
  // Normalized-float reads are for 8- and 16-bit integers only.
  if (normalized_read && (layout.encoding == channel_encoding::floating || layout.bits == 32))
    return cudaErrorInvalidNormSetting;
  bool srgb = t.sRGB != 0 && layout.bits == 8 &&
              (layout.encoding == channel_encoding::unsigned_integer ||
               layout.encoding == channel_encoding::unsigned_normalized);
  s.routines = find_texel_routines(layout, normalized_read, srgb);
  if (!s.routines) return cudaErrorInvalidValue;
  s.linear_filter = t.filterMode == cudaFilterModeLinear;
  if (s.linear_filter && !s.routines->returns_float) return cudaErrorInvalidFilterSetting;
  s.normalized_coordinates = t.normalizedCoords != 0;
  bool cubemap = s.shape == texture_shape::cubemap || s.shape == texture_shape::cubemap_layered;
  for (int d = 0; d < 3; ++d) {
    auto mode = static_cast<address_mode>(t.addressMode[d]);
    // Wrap and mirror need normalized coordinates (guide 6.2.14.1); with
    // unnormalized ones an H100 clamps. A cubemap's faces keep the modes.
    bool repeats = mode == address_mode::wrap || mode == address_mode::mirror;
    if (repeats && !s.normalized_coordinates && !cubemap) mode = address_mode::clamp;
    s.address[d] = mode;
  }
  if (cubemap) s.normalized_coordinates = true;
  // Seamless filtering changes only linear fetches of cubemaps.
  s.seamless_cubemap = cubemap && s.linear_filter && t.seamlessCubemap != 0;
  encode_border_texel(t.borderColor, layout, normalized_read, srgb && normalized_read, s.border_texel);
  texel_floats border{{t.borderColor[0], t.borderColor[1], t.borderColor[2], t.borderColor[3]}};
  s.border_floats = border;
  s.border_words = as_words(border);
  if (!s.routines->returns_float)
    for (int c = 0; c < 4; ++c) s.border_words.word[c] = static_cast<std::uint32_t>(static_cast<int>(border.value[c]));
  s.linear_mipmap_filter = t.mipmapFilterMode == cudaFilterModeLinear;
  s.mipmap_level_bias = t.mipmapLevelBias;
  float last = static_cast<float>(s.level_count() - 1);
  s.min_mipmap_level =
      t.minMipmapLevelClamp < 0.0f ? 0.0f : (t.minMipmapLevelClamp > last ? last : t.minMipmapLevelClamp);
  s.max_mipmap_level =
      t.maxMipmapLevelClamp > last ? last : (t.maxMipmapLevelClamp < 0.0f ? 0.0f : t.maxMipmapLevelClamp);
  if (s.max_mipmap_level < s.min_mipmap_level) s.max_mipmap_level = s.min_mipmap_level;
  s.max_anisotropy = t.maxAnisotropy;
  choose_fetch_routines(s, layout, normalized_read, srgb);
  return cudaSuccess;
}

/// A resource view narrows an array's levels and layers: the sampler keeps
/// only those (its format must have the texel size of the array's).
inline cudaError_t apply_view(const cudaResourceViewDesc& v, const cudaResourceDesc& r,
                              weft::detail::textures::texture_sampler& s) {
  // A view of linear or pitched memory changes nothing (an H100 accepts one).
  if (r.resType != cudaResourceTypeArray && r.resType != cudaResourceTypeMipmappedArray) return cudaSuccess;
  for (unsigned word : v.reserved)
    if (word) return cudaErrorInvalidValue;
  if (v.lastMipmapLevel < v.firstMipmapLevel || v.lastMipmapLevel >= static_cast<unsigned>(s.level_count()))
    return cudaErrorInvalidValue;
  if (v.lastLayer < v.firstLayer) return cudaErrorInvalidValue;
  bool layered = s.layers > 1 || s.shape == weft::detail::textures::texture_shape::one_d_layered ||
                 s.shape == weft::detail::textures::texture_shape::two_d_layered;
  if (layered && v.lastLayer >= static_cast<unsigned>(s.layers)) return cudaErrorInvalidValue;
  s.levels.erase(s.levels.begin() + v.lastMipmapLevel + 1, s.levels.end());
  s.levels.erase(s.levels.begin(), s.levels.begin() + v.firstMipmapLevel);
  if (layered) {
    for (auto& level : s.levels) level.base += v.firstLayer * level.layer_pitch;
    s.layers = static_cast<int>(v.lastLayer - v.firstLayer + 1);
  }
  return cudaSuccess;
}

}  // namespace weft::surface

inline cudaError_t cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const cudaResourceDesc* pResDesc,
                                           const cudaTextureDesc* pTexDesc, const cudaResourceViewDesc* pResViewDesc) {
  using namespace weft::surface;
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (!pTexObject || !pResDesc) return weft::detail::record(cudaErrorInvalidValue);
  if (!pTexDesc) return weft::detail::record(cudaErrorInvalidResourceHandle);  // an H100's code
  auto object = std::make_unique<weft::detail::textures::texture_object>();
  auto& s = object->sampler;
  s.layers = 1;
  cudaChannelFormatDesc format{};
  if (cudaError_t e = read_resource(*pResDesc, s, format)) return weft::detail::record(e);
  if (pResViewDesc)
    if (cudaError_t e = apply_view(*pResViewDesc, *pResDesc, s)) return weft::detail::record(e);
  if (cudaError_t e = read_texture_desc(*pTexDesc, format, s)) return weft::detail::record(e);
  texture_descriptors kept{*pResDesc, *pTexDesc, {}, format, std::make_shared<std::atomic<bool>>(false)};
  if (pResViewDesc) kept.view = *pResViewDesc;
  object->descriptors = kept;
  const void* handle_at = &object->sampler;
  *pTexObject = weft::detail::textures::texture_object_registry::get().add(std::move(object), handle_at,
                                                                           weft::detail::current_device);
  return cudaSuccess;
}

inline cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  if (texObject == 0) return cudaSuccess;
  if (!weft::detail::textures::texture_object_registry::get().remove(texObject))
    return weft::detail::record(cudaErrorInvalidValue);
  return cudaSuccess;
}

namespace weft::surface {

/// The descriptors of a live texture object, or null.
inline const texture_descriptors* descriptors_of(cudaTextureObject_t texObject) {
  const auto* object = weft::detail::textures::texture_object_registry::get().find(texObject);
  return object ? std::any_cast<texture_descriptors>(&object->descriptors) : nullptr;
}

}  // namespace weft::surface

inline cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* pResDesc, cudaTextureObject_t texObject) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  const auto* kept = weft::surface::descriptors_of(texObject);
  if (!pResDesc || !kept) return weft::detail::record(cudaErrorInvalidValue);
  *pResDesc = kept->resource;
  bool array =
      kept->resource.resType == cudaResourceTypeArray || kept->resource.resType == cudaResourceTypeMipmappedArray;
  kept->resource_desc_read->store(array, std::memory_order_relaxed);
  return cudaSuccess;
}

inline cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* pTexDesc, cudaTextureObject_t texObject) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  const auto* kept = weft::surface::descriptors_of(texObject);
  if (!pTexDesc || !kept) return weft::detail::record(cudaErrorInvalidValue);
  *pTexDesc = kept->texture;
  if (kept->resource_desc_read->exchange(false, std::memory_order_relaxed)) {
    const int sizes[4] = {kept->format.x, kept->format.y, kept->format.z, kept->format.w};
    for (int c = 0; c < 4; ++c) pTexDesc->borderColor[c] = std::bit_cast<float>(sizes[c]);
  }
  return cudaSuccess;
}

inline cudaError_t cudaGetTextureObjectResourceViewDesc(cudaResourceViewDesc* pResViewDesc,
                                                        cudaTextureObject_t texObject) {
  if (cudaError_t e = weft::detail::check_device()) return e;
  const auto* kept = weft::surface::descriptors_of(texObject);
  if (!pResViewDesc || !kept) return weft::detail::record(cudaErrorInvalidValue);
  *pResViewDesc = kept->view;
  return cudaSuccess;
}
