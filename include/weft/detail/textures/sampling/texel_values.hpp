// What a texture fetch returns before it becomes the caller's type: four
// 32-bit words, as the texture unit writes four registers. A fetch that
// returns floating point (float and half texels, normalized-float reads,
// any filtered fetch) writes float bit patterns; an element-type fetch of
// integer texels writes the channels sign- or zero-extended to 32 bits.
// The caller's type then takes as many words as it has components, so that
// tex2D<float4> of a one-channel texture sees the channels it lacks.
#pragma once

#include <bit>
#include <cstdint>

namespace weft::detail::textures {

struct texel_words {
  std::uint32_t word[4];
};

/// Channel values in float, for filtering.
struct texel_floats {
  float value[4];
};

inline texel_words as_words(const texel_floats& f) {
  return {{std::bit_cast<std::uint32_t>(f.value[0]), std::bit_cast<std::uint32_t>(f.value[1]),
           std::bit_cast<std::uint32_t>(f.value[2]), std::bit_cast<std::uint32_t>(f.value[3])}};
}

inline texel_floats as_floats(const texel_words& w) {
  return {{std::bit_cast<float>(w.word[0]), std::bit_cast<float>(w.word[1]), std::bit_cast<float>(w.word[2]),
           std::bit_cast<float>(w.word[3])}};
}

}  // namespace weft::detail::textures
