// A texture object's state as its fetches read it: made once, when the
// object is created, from the resource and texture descriptors, and never
// changed, so that a fetch reads it through the object's handle (the
// handle is this struct's address) with no lookup and no lock.
//
// Everything a fetch would otherwise decide is decided here: the routines
// for the texel format and read mode, the address mode each dimension
// really gets (a cubemap clamps within its faces), each level's strides.
#pragma once

#include <cstddef>
#include <vector>

#include "weft/detail/textures/sampling/texel_reading.hpp"
#include "weft/detail/textures/sampling/texel_values.hpp"
#include "weft/detail/textures/sampling/texture_addressing.hpp"

namespace weft::detail::textures {

/// One mipmap level of a texture (or its only one): where its texels are.
struct texture_level {
  const std::byte* base;
  std::size_t stride[3];    // bytes from one texel to the next in x, y, z
  std::size_t layer_pitch;  // bytes from one layer (or cube face) to the next
  int size[3];              // width, height, depth; 1 where the shape has none
  float float_size[3];
};

/// How a texture's texels are arranged, as its fetch functions address it.
enum class texture_shape { linear, one_d, two_d, three_d, one_d_layered, two_d_layered, cubemap, cubemap_layered };

struct texture_sampler;

/// Where plain_dense_width keeps the width for fetches of `words` floats.
constexpr int dense_width_index(int words) { return words == 4 ? 2 : words - 1; }

/// A 2D fetch (tex2D, tex1D, tex2DLayered) at (x, y) in layer `layer`,
/// chosen for the sampler when it is made (texture_sampling.hpp): for one
/// linearly filtered level, the texels' reading and blending of its format
/// inlined into the coordinate arithmetic, so that the fetch makes one call.
using fetch_2d_routine = texel_words (*)(const texture_sampler& s, float x, float y, int layer);

struct texture_sampler {
  const texel_routines* routines;
  /// Channels a fetch copies straight from the texel as its words (see
  /// raw_word_channels), or 0: read through `routines`. A std::size_t, as
  /// the plain point fields below, because the inlined point fetch reads it:
  /// a read typed int may alias threadIdx, so the loop over threads would
  /// store threadIdx for every thread.
  std::size_t raw_word_channels;
  /// Whether fetches take the inlined point path: one level, one layer,
  /// point filtering of unnormalized coordinates that clamp, texels copied
  /// as words.
  bool plain_point;
  /// For a plain point texture whose texels are `raw_word_channels` 32-bit
  /// words packed with no gap in x, that count; otherwise 0.
  std::size_t plain_dense_words;
  fetch_2d_routine fetch_2d;
  /// Where plain point fetches read, copied from level 0. The sizes are 0
  /// where plain_point is not set, so that every coordinate is outside and
  /// the fetch needs no flag to read and test. Sizes are std::size_t, not
  /// int, so that a kernel's stores (of floats, or of threadIdx's unsigned
  /// ints) cannot alias them, and the compiler keeps them in registers
  /// across threads.
  const std::byte* plain_base;
  std::size_t plain_size[3];
  std::size_t plain_stride[3];
  /// The width in texels for a plain point fetch of n floats, at
  /// plain_dense_width[dense_width_index(n)] (n = 1, 2, 4): plain_size[0]
  /// where plain_dense_words is n, so that x steps by the texel's size, a
  /// constant, with no stride to read or multiply by; otherwise 0, every
  /// coordinate outside. The fetch reads no flag to tell which
  /// (texture_fetch_functions.hpp says why typed).
  std::size_t plain_dense_width[3];
  texture_shape shape;
  address_mode address[3];
  bool normalized_coordinates;
  bool linear_filter;
  bool linear_mipmap_filter;
  bool seamless_cubemap;  // a cubemap filtered linearly across its faces' edges
  int layers;             // layers (cubemaps: cubes) the texture has; 1 if not layered
  float mipmap_level_bias;
  float min_mipmap_level;  // the level-of-detail clamps, already within [0, levels - 1]
  float max_mipmap_level;
  unsigned max_anisotropy;
  texel_words border_words;
  texel_floats border_floats;
  /// The border colour as a texel of the texture's format, which fetches
  /// read in place of a texel outside: an H100 converts the colour to the
  /// format (rounding it for normalized integers, keeping the low bits of
  /// the float for element-type integers) and reads only the channels the
  /// format has.
  alignas(16) std::byte border_texel[16];
  std::vector<texture_level> levels;  // level 0 first; never empty

  int level_count() const { return static_cast<int>(levels.size()); }
};

}  // namespace weft::detail::textures
