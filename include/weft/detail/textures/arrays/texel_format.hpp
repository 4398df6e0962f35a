// What one texel of a CUDA array (or of linear memory seen as a texture) is:
// the bits of each of its four channels and how they read (signed, unsigned,
// float, normalized integers, ...), in weft's own terms.
//
// The surface's cudaChannelFormatDesc says the same thing in CUDA's spelling
// (cuda/runtime/textures/channel_descriptor.hpp); `channel_kind`'s values
// are cudaChannelFormatKind's, which the surface asserts, so a format passes
// between the two by a cast. The layers below the surface never see CUDA's
// enum (they must not include the surface).
//
// Block-compressed kinds (BC1..BC7) describe 4x4 blocks of texels, not one
// texel: `bytes_per_element` counts a block for them.
#pragma once

#include <cstddef>

namespace weft::detail {

/// How a texel's channels read; the values are cudaChannelFormatKind's.
enum class channel_kind : int {
  signed_integer = 0,
  unsigned_integer = 1,
  floating = 2,
  none = 3,
  nv12 = 4,
  unsigned_normalized_8x1 = 5,
  unsigned_normalized_8x2 = 6,
  unsigned_normalized_8x4 = 7,
  unsigned_normalized_16x1 = 8,
  unsigned_normalized_16x2 = 9,
  unsigned_normalized_16x4 = 10,
  signed_normalized_8x1 = 11,
  signed_normalized_8x2 = 12,
  signed_normalized_8x4 = 13,
  signed_normalized_16x1 = 14,
  signed_normalized_16x2 = 15,
  signed_normalized_16x4 = 16,
  unsigned_block_compressed_1 = 17,
  unsigned_block_compressed_1_srgb = 18,
  unsigned_block_compressed_2 = 19,
  unsigned_block_compressed_2_srgb = 20,
  unsigned_block_compressed_3 = 21,
  unsigned_block_compressed_3_srgb = 22,
  unsigned_block_compressed_4 = 23,
  signed_block_compressed_4 = 24,
  unsigned_block_compressed_5 = 25,
  signed_block_compressed_5 = 26,
  unsigned_block_compressed_6h = 27,
  signed_block_compressed_6h = 28,
  unsigned_block_compressed_7 = 29,
  unsigned_block_compressed_7_srgb = 30,
  unsigned_normalized_1010102 = 31,
};

/// The last kind CUDA 13 defines.
inline constexpr channel_kind last_channel_kind = channel_kind::unsigned_normalized_1010102;

/// Whether the kind is one of BC1..BC7, whose elements are 4x4 blocks.
constexpr bool is_block_compressed(channel_kind k) {
  return k >= channel_kind::unsigned_block_compressed_1 && k <= channel_kind::unsigned_block_compressed_7_srgb;
}

/// Whether integers of the kind read as floats in [0, 1] or [-1, 1] whatever
/// the texture's read mode (the kinds CUDA 11.5 added; the plain signed and
/// unsigned kinds read so only with cudaReadModeNormalizedFloat).
constexpr bool is_normalized_integer(channel_kind k) {
  return (k >= channel_kind::unsigned_normalized_8x1 && k <= channel_kind::signed_normalized_16x4) ||
         k == channel_kind::unsigned_normalized_1010102;
}

/// A texel's layout: the bits of channels x, y, z, w (0 for an absent
/// channel) and their kind, as cudaChannelFormatDesc gives them.
struct texel_format {
  int x_bits = 0, y_bits = 0, z_bits = 0, w_bits = 0;
  channel_kind kind = channel_kind::none;

  /// Channels present (1, 2 or 4 for an array's format; 3 only for NV12 and BC6H).
  constexpr int channels() const { return (x_bits != 0) + (y_bits != 0) + (z_bits != 0) + (w_bits != 0); }

  /// Bytes of one texel (the channels packed without padding: a float2 texel is 8 bytes).
  constexpr std::size_t bytes_per_texel() const {
    return static_cast<std::size_t>(x_bits + y_bits + z_bits + w_bits) / 8;
  }

  /// Bytes of one element as copies count it: a texel, or for a
  /// block-compressed kind a 4x4 block (8 bytes for BC1 and BC4, 16 for the rest).
  constexpr std::size_t bytes_per_element() const {
    if (!is_block_compressed(kind)) return bytes_per_texel();
    bool half_block =
        kind == channel_kind::unsigned_block_compressed_1 || kind == channel_kind::unsigned_block_compressed_1_srgb ||
        kind == channel_kind::unsigned_block_compressed_4 || kind == channel_kind::signed_block_compressed_4;
    return half_block ? 8 : 16;
  }

  friend constexpr bool operator==(const texel_format&, const texel_format&) = default;
};

}  // namespace weft::detail
