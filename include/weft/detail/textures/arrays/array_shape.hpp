// Which CUDA arrays may be allocated: the texel formats an array may hold,
// and the extents and flags cudaMallocArray, cudaMalloc3DArray and
// cudaMallocMipmappedArray accept, against the device's limits
// (cudaDeviceProp's maxTexture* and maxSurface*: an H100's, in
// detail/runtime/device_properties.hpp). The rules are those of CUDA 13's
// cudaMalloc3DArray documentation:
//
//   extent (w, h, d)   flags               array           limits
//   (w, 0, 0)          -                   1D              maxTexture1D (mipmapped: maxTexture1DMipmap)
//   (w, h, 0)          -                   2D              maxTexture2D (Mipmap; TextureGather: maxTexture2DGather)
//   (w, h, d)          -                   3D              maxTexture3D, or all within maxTexture3DAlt
//   (w, 0, n)          Layered             1D layered      maxTexture1DLayered
//   (w, h, n)          Layered             2D layered      maxTexture2DLayered
//   (w, w, 6)          Cubemap             cubemap         maxTextureCubemap
//   (w, w, 6n)         Cubemap | Layered   cubemap layered maxTextureCubemapLayered
//
// and with SurfaceLoadStore the maxSurface* limit of the same kind as well.
#pragma once

#include <cstddef>

#include "weft/detail/base/cuda_device_properties.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/textures/arrays/array_storage.hpp"
#include "weft/detail/textures/arrays/texel_format.hpp"

namespace weft::detail {

/// cudaErrorInvalidChannelDescriptor for a format no array holds;
/// cudaErrorNotSupported for the block-compressed and NV12 formats, which
/// CUDA's arrays hold but weft's do not yet; else cudaSuccess.
///
/// An array's texel is 1, 2 or 4 channels of the same size: 8, 16 or 32
/// bits of signed or unsigned integers, 16 or 32 bits of float; or exactly
/// the channels a normalized kind names (8X2: 8, 8, 0, 0).
inline cudaError_t check_array_format(const texel_format& f) {
  auto k = f.kind;
  if (k < channel_kind::signed_integer || k > last_channel_kind) return cudaErrorInvalidChannelDescriptor;
  if (is_block_compressed(k) || k == channel_kind::nv12) return cudaErrorNotSupported;
  auto channels_of = [&](int bits) -> int {
    if (f.x_bits != bits) return 0;
    if (f.y_bits == 0 && f.z_bits == 0 && f.w_bits == 0) return 1;
    if (f.y_bits == bits && f.z_bits == 0 && f.w_bits == 0) return 2;
    if (f.y_bits == bits && f.z_bits == bits && f.w_bits == bits) return 4;
    return 0;
  };
  switch (k) {
    case channel_kind::signed_integer:
    case channel_kind::unsigned_integer:
      return channels_of(8) || channels_of(16) || channels_of(32) ? cudaSuccess : cudaErrorInvalidChannelDescriptor;
    case channel_kind::floating:
      return channels_of(16) || channels_of(32) ? cudaSuccess : cudaErrorInvalidChannelDescriptor;
    case channel_kind::unsigned_normalized_1010102:
      return f.x_bits == 10 && f.y_bits == 10 && f.z_bits == 10 && f.w_bits == 2 ? cudaSuccess
                                                                                 : cudaErrorInvalidChannelDescriptor;
    case channel_kind::none:
      return cudaErrorInvalidChannelDescriptor;
    default: {
      // The normalized 8- and 16-bit kinds: three of each size and sign, in
      // the order 1, 2, 4 channels.
      int index = static_cast<int>(k) - static_cast<int>(channel_kind::unsigned_normalized_8x1);
      int bits = index % 6 < 3 ? 8 : 16;
      int channels = index % 3 == 0 ? 1 : index % 3 == 1 ? 2 : 4;
      return channels_of(bits) == channels ? cudaSuccess : cudaErrorInvalidChannelDescriptor;
    }
  }
}

/// CUDA's driver flag for depth textures (CUDA_ARRAY3D_DEPTH_TEXTURE),
/// which the runtime has no name for and refuses (measured on an H100).
inline constexpr unsigned depth_texture_flag = 0x10;

namespace array_shape_detail {

inline bool within(std::size_t n, int limit) { return n >= 1 && n <= static_cast<std::size_t>(limit); }

}  // namespace array_shape_detail

/// cudaSuccess if an array of extent (w, h, d) and `flags` may be allocated
/// on a device of properties `p` (mipmapped: level 0's extent, under the
/// mipmap limits), else the code CUDA returns (an H100's, where
/// tests/differential/texture_probe measured it): cudaErrorInvalidValue for
/// an extent or a flag that makes no array or exceeds a limit;
/// cudaErrorNotSupported for sparse and deferred-mapping arrays, which weft
/// does not have.
inline cudaError_t check_array_shape(std::size_t w, std::size_t h, std::size_t d, unsigned flags,
                                     const cudaDeviceProp& p, bool mipmapped) {
  using array_shape_detail::within;
  // Bits CUDA does not define pass, and cudaArrayGetInfo reports them back
  // (an H100 allocates with flags 0x100 and reports 256); the depth-texture
  // bit is refused. Only external memory makes color attachments
  // (cudaExternalMemoryGetMappedMipmappedArray).
  if (flags & (depth_texture_flag | array_flags::color_attachment)) return cudaErrorInvalidValue;
  if (flags & (array_flags::sparse | array_flags::deferred_mapping)) return cudaErrorNotSupported;
  bool layered = flags & array_flags::layered, cubemap = flags & array_flags::cubemap;
  bool gather = flags & array_flags::texture_gather, surface = flags & array_flags::surface_load_store;
  if (w == 0) return cudaErrorInvalidValue;
  bool fits = false, fits_surface = true;
  if (cubemap) {
    if (gather || h != w) return cudaErrorInvalidValue;
    if (layered) {
      // The layer limit counts faces (an H100's 2046 is 341 cubes of 6).
      if (d == 0 || d % cubemap_faces != 0) return cudaErrorInvalidValue;
      fits = within(w, p.maxTextureCubemapLayered[0]) && within(d, p.maxTextureCubemapLayered[1]);
      fits_surface = within(w, p.maxSurfaceCubemapLayered[0]) && within(d, p.maxSurfaceCubemapLayered[1]);
    } else {
      if (d != cubemap_faces) return cudaErrorInvalidValue;
      fits = within(w, p.maxTextureCubemap);
      fits_surface = within(w, p.maxSurfaceCubemap);
    }
  } else if (layered) {
    if (gather || d == 0) return cudaErrorInvalidValue;
    if (h == 0) {
      fits = within(w, p.maxTexture1DLayered[0]) && within(d, p.maxTexture1DLayered[1]);
      fits_surface = within(w, p.maxSurface1DLayered[0]) && within(d, p.maxSurface1DLayered[1]);
    } else {
      fits = within(w, p.maxTexture2DLayered[0]) && within(h, p.maxTexture2DLayered[1]) &&
             within(d, p.maxTexture2DLayered[2]);
      fits_surface = within(w, p.maxSurface2DLayered[0]) && within(h, p.maxSurface2DLayered[1]) &&
                     within(d, p.maxSurface2DLayered[2]);
    }
  } else if (h == 0) {
    if (d != 0 || gather) return cudaErrorInvalidValue;
    fits = within(w, mipmapped ? p.maxTexture1DMipmap : p.maxTexture1D);
    fits_surface = within(w, p.maxSurface1D);
  } else if (d == 0) {
    if (gather)
      fits = within(w, p.maxTexture2DGather[0]) && within(h, p.maxTexture2DGather[1]);
    else if (mipmapped)
      fits = within(w, p.maxTexture2DMipmap[0]) && within(h, p.maxTexture2DMipmap[1]);
    else
      fits = within(w, p.maxTexture2D[0]) && within(h, p.maxTexture2D[1]);
    fits_surface = within(w, p.maxSurface2D[0]) && within(h, p.maxSurface2D[1]);
  } else {
    if (gather) return cudaErrorInvalidValue;
    fits = (within(w, p.maxTexture3D[0]) && within(h, p.maxTexture3D[1]) && within(d, p.maxTexture3D[2])) ||
           (within(w, p.maxTexture3DAlt[0]) && within(h, p.maxTexture3DAlt[1]) && within(d, p.maxTexture3DAlt[2]));
    fits_surface = within(w, p.maxSurface3D[0]) && within(h, p.maxSurface3D[1]) && within(d, p.maxSurface3D[2]);
  }
  if (!fits || (surface && !fits_surface)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

/// The levels a mipmapped array of level 0's extent (w, h, d) gets when
/// `asked` are asked for: clamped to [1, 1 + floor(log2(largest dimension))],
/// where a layered array's or cubemap's depth (layers, faces) does not count.
inline unsigned mipmap_levels(std::size_t w, std::size_t h, std::size_t d, unsigned flags, unsigned asked) {
  std::size_t largest = w > h ? w : h;
  if (!(flags & (array_flags::layered | array_flags::cubemap)) && d > largest) largest = d;
  unsigned most = 1;
  while (largest >>= 1) ++most;
  if (asked < 1) return 1;
  return asked < most ? asked : most;
}

}  // namespace weft::detail
