// Matsumoto and Nishimura's MT19937, seeded by their init_genrand, for the
// host generator CURAND_RNG_PSEUDO_MT19937 (a few lines here rather than
// <random>, which would cost every TU that includes <curand.h> its parse).
#pragma once

#include <cstdint>

namespace weft::detail {

class mt19937_engine {
 public:
  void seed(std::uint32_t s) {
    state_[0] = s;
    for (unsigned i = 1; i < n; ++i) state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + i;
    next_ = n;
  }

  std::uint32_t operator()() {
    if (next_ == n) twist();
    std::uint32_t y = state_[next_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }

  void discard(std::uint64_t count) {
    for (; count != 0; --count) (*this)();
  }

 private:
  static constexpr unsigned n = 624, m = 397;

  void twist() {
    for (unsigned i = 0; i < n; ++i) {
      std::uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % n] & 0x7fffffffu);
      state_[i] = state_[(i + m) % n] ^ (y >> 1) ^ ((y & 1) ? 0x9908b0dfu : 0u);
    }
    next_ = 0;
  }

  std::uint32_t state_[n] = {};
  unsigned next_ = n;
};

}  // namespace weft::detail
