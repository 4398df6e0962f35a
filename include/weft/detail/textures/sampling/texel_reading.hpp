// Reading one texel of a given format as the texture unit returns it, and
// blending texels for linear filtering: the routines a texture object picks
// once, at creation, for its format and read mode, so that a fetch pays no
// decision about either (one indirect call, then code made for the format).
//
// Read rules (CUDA guide 6.2.14.1, "read mode"): an element-type read of
// integer texels returns them unchanged, widened to 32 bits; a
// normalized-float read of 8- and 16-bit integers maps unsigned values to
// [0, 1] (v / (2^n - 1)) and signed ones to [-1, 1] (v / (2^(n-1) - 1), so
// that the most negative value, one below -max, also reads as -1); float
// and half texels read as float; sRGB texels (8-bit unsigned, normalized)
// are turned into linear values on r, g and b, not alpha. Channels the
// format lacks read as 0, alpha too (as on an H100).
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "weft/detail/textures/sampling/srgb_decoding.hpp"
#include "weft/detail/textures/sampling/texel_values.hpp"

namespace weft::detail::textures {

/// How a texel's channels become the fetch's words.
enum class texel_conversion {
  integer,              // element-type read of integer channels
  floating,             // float or half channels
  unsigned_normalized,  // to [0, 1]
  signed_normalized,    // to [-1, 1]
  srgb,                 // 8-bit unsigned, to linear [0, 1]
};

/// A half-precision channel, stored as its bits.
struct half_bits {
  std::uint16_t bits;
};

/// The float equal to a half's value (every half is exactly a float).
inline float half_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  int exponent = (h >> 10) & 0x1f;
  std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(exponent - 15 + 127) << 23) | (mantissa << 13));
}

template <class Component, texel_conversion Conversion>
float channel_as_float(Component c) {
  if constexpr (std::is_same_v<Component, half_bits>) {
    return half_to_float(c.bits);
  } else if constexpr (std::is_same_v<Component, float>) {
    return c;
  } else if constexpr (Conversion == texel_conversion::unsigned_normalized) {
    return static_cast<float>(c) / static_cast<float>(std::numeric_limits<Component>::max());
  } else if constexpr (Conversion == texel_conversion::signed_normalized) {
    float v = static_cast<float>(c) / static_cast<float>(std::numeric_limits<Component>::max());
    return v < -1.0f ? -1.0f : v;
  } else {
    return static_cast<float>(c);
  }
}

/// The routines for texels of `Channels` channels of type Component.
template <class Component, int Channels, texel_conversion Conversion>
struct texel_codec {
  using component = Component;
  static constexpr int channels = Channels;
  static constexpr bool normalized_integer =
      Conversion == texel_conversion::unsigned_normalized || Conversion == texel_conversion::signed_normalized;
  static constexpr bool srgb_alpha = Conversion == texel_conversion::srgb && Channels == 4;
  static constexpr bool srgb_colour = Conversion == texel_conversion::srgb;
  static constexpr bool returns_float = Conversion != texel_conversion::integer;

  static std::array<Component, Channels> load(const std::byte* texel) {
    std::array<Component, Channels> channels;
    std::memcpy(channels.data(), texel, sizeof channels);
    return channels;
  }

  static texel_floats floats(const std::byte* texel) {
    auto channels = load(texel);
    texel_floats out{{0.0f, 0.0f, 0.0f, 0.0f}};
    for (int c = 0; c < Channels; ++c) {
      if constexpr (Conversion == texel_conversion::srgb) {
        auto v = static_cast<std::uint8_t>(channels[c]);
        out.value[c] = c < 3 ? srgb_to_linear(v) : static_cast<float>(v) / 255.0f;
      } else {
        out.value[c] = channel_as_float<Component, Conversion>(channels[c]);
      }
    }
    return out;
  }

  static texel_words words(const std::byte* texel) {
    if constexpr (returns_float) {
      return as_words(floats(texel));
    } else {
      auto channels = load(texel);
      texel_words out{{0, 0, 0, 0}};
      for (int c = 0; c < Channels; ++c)
        out.word[c] = static_cast<std::uint32_t>(static_cast<std::int64_t>(channels[c]));
      return out;
    }
  }
};

/// The weighted sum of `Count` texels (2, 4 or 8: a linear fetch in 1, 2 or
/// 3 dimensions); a null texel is outside a border-mode texture and stands
/// for the border colour. Only the channels the format has are blended.
/// Zero, with its sign, for a subnormal float.
inline float flush_subnormal(float v) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
  return (bits & 0x7f800000u) == 0 ? std::bit_cast<float>(bits & 0x80000000u) : v;
}

/// v rounded to the nearest half-precision value (ties to even), as a float.
inline float round_to_half_precision(float v) {
  if (v != v) return v;
  float magnitude = v < 0 ? -v : v;
  if (magnitude >= 65520.0f)
    return v < 0 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  if (magnitude < 6.103515625e-05f) {  // half's subnormals: multiples of 2^-24
    float scaled = magnitude * 16777216.0f;
    float whole = static_cast<float>(static_cast<std::int32_t>(scaled));
    float rest = scaled - whole;
    if (rest > 0.5f || (rest == 0.5f && (static_cast<std::int32_t>(whole) & 1))) whole += 1.0f;
    float rounded = whole / 16777216.0f;
    return (std::bit_cast<std::uint32_t>(v) >> 31) ? -rounded : rounded;  // -0 stays -0
  }
  std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
  bits += 0x0fffu + ((bits >> 13) & 1u);
  return std::bit_cast<float>(bits & ~0x1fffu);
}

/// The half-precision bits nearest a float (ties to even).
inline std::uint16_t float_to_half_bits(float v) {
  float rounded = round_to_half_precision(v);
  std::uint32_t bits = std::bit_cast<std::uint32_t>(rounded);
  std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  if (rounded != rounded) return static_cast<std::uint16_t>(sign | 0x7fffu);
  float magnitude = rounded < 0 ? -rounded : rounded;
  if (magnitude == std::numeric_limits<float>::infinity()) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (magnitude < 6.103515625e-05f)
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(magnitude * 16777216.0f));
  int exponent = static_cast<int>((bits >> 23) & 0xffu) - 127 + 15;
  return static_cast<std::uint16_t>(sign | (exponent << 10) | ((bits >> 13) & 0x3ffu));
}

/// Weights come in 256ths (their float values times 256 are integers).
inline constexpr double weight_scale_256 = 256.0;

/// One sRGB colour channel of a linear fetch, as an H100 blends it (fitted
/// to a sweep of 10728 blends of every 8-bit value with its neighbours, with
/// the values 37 codes away and with 0 and 255 at weights 0 to 255,
/// tests/differential/h100_measurements/srgb.txt, all of which it gives bit
/// for bit): the decoded texels are truncated to 8 significant bits of the
/// largest of their blend scales (srgb_blend_scale: the decoded value, or
/// the next power of two for a code just below one), so that smaller ones
/// lose their low bits, or vanish; the weighted sum is exact, and the result
/// is rounded, half up, to half precision.
inline float blend_srgb_channel(const float* values, const float* scales, const float* weights, int count) {
  double largest = 0.0, largest_value = 0.0;
  for (int i = 0; i < count; ++i)
    if (weights[i] != 0.0f) {
      if (scales[i] > largest) largest = scales[i];
      if (values[i] > largest_value) largest_value = values[i];
    }
  if (largest_value == 0.0) return 0.0f;
  int exponent = 0;
  std::frexp(largest, &exponent);  // largest in [2^(exponent - 1), 2^exponent)
  double unit = std::ldexp(1.0, exponent - 1 - 7);
  double sum = 0.0;
  for (int i = 0; i < count; ++i)
    if (weights[i] != 0.0f) sum += static_cast<double>(weights[i]) * std::floor(values[i] / unit);
  double result = sum * unit;
  if (result == 0.0) return 0.0f;
  std::frexp(result, &exponent);
  int half_exponent = exponent - 1 < -14 ? -14 : exponent - 1;  // half's subnormals below 2^-14
  double half_unit = std::ldexp(1.0, half_exponent - 10);
  return static_cast<float>(std::floor(result / half_unit + 0.5) * half_unit);
}

template <class Codec, int Count>
[[gnu::always_inline]] inline texel_words blend_texels(const std::byte* const* texels, const float* weights,
                                                       const texel_floats& border) {
  texel_floats sum{{0.0f, 0.0f, 0.0f, 0.0f}};
  if constexpr (Codec::normalized_integer) {
    // An H100 blends 8- and 16-bit normalized texels as integers: the
    // weighted sum of the raw values (weights in 256ths), widened to 16
    // bits (x 65535/255, or 32767/127 if signed) and rounded half up, then
    // divided by 65535 (32767). So the midpoint of 127 and 128 (u8) reads
    // 32768/65535, not 0.5.
    using component = typename Codec::component;
    constexpr double raw_max = static_cast<double>(std::numeric_limits<component>::max());
    constexpr double wide_max = std::is_signed_v<component> ? 32767.0 : 65535.0;
    double blended[4] = {0, 0, 0, 0};
    for (int i = 0; i < Count; ++i) {
      double weight = static_cast<double>(weights[i]) * weight_scale_256;
      if (texels[i]) {
        auto raw = Codec::load(texels[i]);
        for (int c = 0; c < Codec::channels; ++c) blended[c] += weight * static_cast<double>(raw[c]);
      } else {
        for (int c = 0; c < Codec::channels; ++c) blended[c] += weight * static_cast<double>(border.value[c]) * raw_max;
      }
    }
    for (int c = 0; c < Codec::channels; ++c) {
      double wide = std::floor(blended[c] * wide_max / (raw_max * weight_scale_256) + 0.5);
      float value = static_cast<float>(wide / wide_max);
      sum.value[c] = value < -1.0f ? -1.0f : value;
    }
    return as_words(sum);
  }
  if constexpr (Codec::srgb_alpha || Codec::srgb_colour) {
    float values[3][Count];
    float scales[3][Count];
    for (int i = 0; i < Count; ++i) {
      if (texels[i]) {
        auto codes = Codec::load(texels[i]);
        for (int c = 0; c < 3 && c < Codec::channels; ++c) {
          auto code = static_cast<std::uint8_t>(codes[static_cast<std::size_t>(c)]);
          values[c][i] = srgb_to_linear(code);
          scales[c][i] = srgb_blend_scale(code);
        }
      } else {
        for (int c = 0; c < 3 && c < Codec::channels; ++c) {
          values[c][i] = border.value[c];
          scales[c][i] = srgb_blend_scale_of_linear(border.value[c]);
        }
      }
    }
    texel_words out{{0, 0, 0, 0}};
    for (int c = 0; c < 3 && c < Codec::channels; ++c)
      out.word[c] = std::bit_cast<std::uint32_t>(blend_srgb_channel(values[c], scales[c], weights, Count));
    if constexpr (Codec::srgb_alpha) {
      // sRGB's alpha is a plain 8-bit normalized channel: blended as one.
      using alpha_codec = texel_codec<std::uint8_t, 4, texel_conversion::unsigned_normalized>;
      out.word[3] = blend_texels<alpha_codec, Count>(texels, weights, border).word[3];
    }
    return out;
  }
  // Float and half texels, as an H100 blends them: texels of weight 0 take
  // no part (an infinity beside a texel centre stays out), subnormals are
  // flushed to zero going in and coming out, a NaN comes out as 0x7fffffff,
  // and a half texture's result is rounded to half precision.
  bool started = false;
  for (int i = 0; i < Count; ++i) {
    if (weights[i] == 0.0f) continue;
    texel_floats value = texels[i] ? Codec::floats(texels[i]) : border;
    for (int c = 0; c < Codec::channels; ++c) {
      float term = weights[i] * flush_subnormal(value.value[c]);
      sum.value[c] = started ? sum.value[c] + term : term;
    }
    started = true;
  }
  texel_words out = as_words(sum);
  for (int c = 0; c < Codec::channels; ++c) {
    float v = flush_subnormal(sum.value[c]);
    if constexpr (std::is_same_v<typename Codec::component, half_bits>) v = round_to_half_precision(v);
    out.word[c] = v != v ? (std::is_same_v<typename Codec::component, half_bits> ? 0x7fffe000u : 0x7fffffffu)
                         : std::bit_cast<std::uint32_t>(v);
  }
  return out;
}

using blend_routine = texel_words (*)(const std::byte* const* texels, const float* weights, const texel_floats& border);

/// What a texture object calls for its texels: chosen once, per format.
struct texel_routines {
  texel_words (*words)(const std::byte* texel);
  texel_floats (*floats)(const std::byte* texel);
  blend_routine blend[3];  // of 2, 4 and 8 texels
  bool returns_float;
};

template <class Codec>
constexpr texel_routines routines_for() {
  if constexpr (Codec::returns_float)
    return {&Codec::words,
            &Codec::floats,
            {&blend_texels<Codec, 2>, &blend_texels<Codec, 4>, &blend_texels<Codec, 8>},
            true};
  else
    return {&Codec::words, &Codec::floats, {nullptr, nullptr, nullptr}, false};
}

/// How a texel is stored: channel count, bits per channel, and what its
/// channels hold.
enum class channel_encoding { signed_integer, unsigned_integer, floating, unsigned_normalized, signed_normalized };

struct texel_layout {
  channel_encoding encoding;
  int channels;  // 1, 2 or 4
  int bits;      // per channel: 8, 16 or 32
  int bytes() const { return channels * bits / 8; }
};

/// Calls visit.template operator()<Codec>() with the codec of `channels`
/// channels of Component; for a channel count no format has, returns what
/// that call returns, value-initialised (a null pointer).
template <class Component, texel_conversion Conversion, class Visit>
auto visit_by_channels(int channels, Visit& visit) {
  using one = texel_codec<Component, 1, Conversion>;
  switch (channels) {
    case 1:
      return visit.template operator()<one>();
    case 2:
      return visit.template operator()<texel_codec<Component, 2, Conversion>>();
    case 4:
      return visit.template operator()<texel_codec<Component, 4, Conversion>>();
  }
  return decltype(visit.template operator()<one>()){};
}

template <class Signed, class Unsigned, class Visit>
auto visit_integer_codec(const texel_layout& layout, bool normalized_float, bool srgb, Visit& visit) {
  bool is_signed =
      layout.encoding == channel_encoding::signed_integer || layout.encoding == channel_encoding::signed_normalized;
  bool normalize = normalized_float || layout.encoding == channel_encoding::unsigned_normalized ||
                   layout.encoding == channel_encoding::signed_normalized;
  if (!normalize)
    return is_signed ? visit_by_channels<Signed, texel_conversion::integer>(layout.channels, visit)
                     : visit_by_channels<Unsigned, texel_conversion::integer>(layout.channels, visit);
  if constexpr (sizeof(Signed) < 4) {
    if (is_signed) return visit_by_channels<Signed, texel_conversion::signed_normalized>(layout.channels, visit);
    if (srgb && sizeof(Unsigned) == 1)
      return visit_by_channels<Unsigned, texel_conversion::srgb>(layout.channels, visit);
    return visit_by_channels<Unsigned, texel_conversion::unsigned_normalized>(layout.channels, visit);
  }
  // 32-bit integers have no normalized reading.
  return decltype(visit.template operator()<texel_codec<Signed, 1, texel_conversion::integer>>()){};
}

/// Calls visit.template operator()<Codec>() with the codec of a layout and
/// read mode, and returns its result; value-initialised (null) where no
/// codec exists (a normalized-float read of 32-bit integers, an unknown
/// layout). What a texture object picks for its format goes through here,
/// once, when the object is made.
template <class Visit>
auto visit_texel_codec(const texel_layout& layout, bool normalized_float, bool srgb, Visit visit) {
  using none = decltype(visit.template operator()<texel_codec<float, 1, texel_conversion::floating>>());
  switch (layout.encoding) {
    case channel_encoding::floating:
      if (layout.bits == 32) return visit_by_channels<float, texel_conversion::floating>(layout.channels, visit);
      if (layout.bits == 16) return visit_by_channels<half_bits, texel_conversion::floating>(layout.channels, visit);
      return none{};
    default:
      switch (layout.bits) {
        case 8:
          return visit_integer_codec<std::int8_t, std::uint8_t>(layout, normalized_float, srgb, visit);
        case 16:
          return visit_integer_codec<std::int16_t, std::uint16_t>(layout, normalized_float, srgb, visit);
        case 32:
          return visit_integer_codec<std::int32_t, std::uint32_t>(layout, normalized_float, srgb, visit);
      }
      return none{};
  }
}

/// The routines of a codec, one constant per codec.
template <class Codec>
inline constexpr texel_routines routines_of = routines_for<Codec>();

/// The routines for a layout and read mode, or null where none exists.
inline const texel_routines* find_texel_routines(const texel_layout& layout, bool normalized_float, bool srgb) {
  return visit_texel_codec(layout, normalized_float, srgb,
                           []<class Codec>() -> const texel_routines* { return &routines_of<Codec>; });
}

/// How many channels a codec's fetch returns as the texel's own 32-bit
/// words, unconverted (float, and element-type reads of 32-bit integers):
/// a fetch may copy them in place of calling the routines. 0 for the rest.
template <class Codec>
constexpr int raw_word_channels() {
  using component = typename Codec::component;
  constexpr bool raw = std::is_same_v<component, float> || std::is_same_v<component, std::int32_t> ||
                       std::is_same_v<component, std::uint32_t>;
  return raw ? Codec::channels : 0;
}

}  // namespace weft::detail::textures
