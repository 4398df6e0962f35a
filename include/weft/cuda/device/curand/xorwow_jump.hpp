// Jumps ahead in the XORWOW generator (cuRAND's default, curandState):
// advancing its 160-bit xorshift part by n steps at once.
//
// The xorshift step is linear over GF(2), so n steps are a 160x160 bit
// matrix M^n. The powers M^(2^k) for k < 131 are computed once, by squaring,
// on first use (about half a megabyte); a jump by n then applies the powers
// for n's set bits. Subsequences are 2^67 steps apart, so jumping by
// subsequence s uses the powers 67 to 130.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

namespace weft::detail {

using xorwow_words = std::array<std::uint32_t, 5>;

/// One step of the xorshift part (the Weyl counter `d` is added apart).
constexpr void xorwow_shift(xorwow_words& v) {
  std::uint32_t t = v[0] ^ (v[0] >> 2);
  v[0] = v[1];
  v[1] = v[2];
  v[2] = v[3];
  v[3] = v[4];
  v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

class xorwow_jumps {
 public:
  static constexpr unsigned powers = 131;  // M^(2^k), k < 131: offsets below 2^64, subsequences below 2^64
  static constexpr unsigned subsequence_shift = 67;

  static const xorwow_jumps& get() {
    static const xorwow_jumps jumps;
    return jumps;
  }

  /// v = M^(2^k) v.
  void apply_power(unsigned k, xorwow_words& v) const { v = multiply(&columns_[k * 160], v); }

  /// v = M^(n * 2^shift) v.
  void jump(std::uint64_t n, unsigned shift, xorwow_words& v) const {
    for (unsigned k = 0; n != 0; ++k, n >>= 1)
      if (n & 1) apply_power(shift + k, v);
  }

 private:
  // A matrix is its 160 columns: column i is the image of bit i (word i / 32,
  // bit i % 32).
  static xorwow_words multiply(const xorwow_words* matrix, const xorwow_words& v) {
    xorwow_words out{};
    for (unsigned w = 0; w < 5; ++w)
      for (std::uint32_t bits = v[w]; bits != 0; bits &= bits - 1) {
        const xorwow_words& column = matrix[w * 32 + static_cast<unsigned>(std::countr_zero(bits))];
        for (unsigned j = 0; j < 5; ++j) out[j] ^= column[j];
      }
    return out;
  }

  xorwow_jumps() : columns_(powers * 160) {
    for (unsigned i = 0; i < 160; ++i) {
      xorwow_words unit{};
      unit[i / 32] = 1u << (i % 32);
      xorwow_shift(unit);
      columns_[i] = unit;
    }
    for (unsigned k = 1; k < powers; ++k) {
      const xorwow_words* previous = &columns_[(k - 1) * 160];
      for (unsigned i = 0; i < 160; ++i) columns_[k * 160 + i] = multiply(previous, previous[i]);
    }
  }

  std::vector<xorwow_words> columns_;
};

}  // namespace weft::detail
