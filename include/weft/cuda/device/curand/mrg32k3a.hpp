// cuRAND's MRG32k3a (curandStateMRG32k3a_t): L'Ecuyer's combined multiple
// recursive generator, two recurrences of order 3 modulo m1 = 2^32 - 209 and
// m2 = 2^32 - 22853, seeded and split into subsequences of 2^76 draws as
// cuRAND does. A jump of n draws is the two 3x3 matrices to the n-th power,
// applied to the states: the powers 2^k are squared once, on first use.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "weft/cuda/device/curand/state_start.hpp"
#include "weft/cuda/vector_types.hpp"

struct curandStateMRG32k3a {
  unsigned int s1[3];
  unsigned int s2[3];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;

namespace weft::detail {

inline constexpr std::uint64_t mrg_m1 = 4294967087ull, mrg_m2 = 4294944443ull;

using mrg_matrix = std::array<std::array<std::uint64_t, 3>, 3>;

inline mrg_matrix mrg_multiply(const mrg_matrix& a, const mrg_matrix& b, std::uint64_t m) {
  mrg_matrix c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      unsigned __int128 sum = 0;
      for (int k = 0; k < 3; ++k) sum += static_cast<unsigned __int128>(a[i][k]) * b[k][j];
      c[i][j] = static_cast<std::uint64_t>(sum % m);
    }
  return c;
}

inline void mrg_apply(const mrg_matrix& a, unsigned (&s)[3], std::uint64_t m) {
  std::uint64_t out[3];
  for (int i = 0; i < 3; ++i) {
    unsigned __int128 sum = 0;
    for (int k = 0; k < 3; ++k) sum += static_cast<unsigned __int128>(a[i][k]) * s[k];
    out[i] = static_cast<std::uint64_t>(sum % m);
  }
  for (int i = 0; i < 3; ++i) s[i] = static_cast<unsigned>(out[i]);
}

/// The one-step matrices' powers 2^k, k < 140 (offsets below 2^64,
/// subsequences below 2^64 at 2^76 draws each).
class mrg_jumps {
 public:
  static constexpr int powers = 140;
  static const mrg_jumps& get() {
    static const mrg_jumps jumps;
    return jumps;
  }
  void jump(std::uint64_t n, int shift, curandStateMRG32k3a_t& s) const {
    for (int k = shift; n != 0; ++k, n >>= 1)
      if (n & 1) {
        mrg_apply(a1_[k], s.s1, mrg_m1);
        mrg_apply(a2_[k], s.s2, mrg_m2);
      }
  }

 private:
  mrg_jumps() {
    // s1' = (s1[1], s1[2], 1403580 s1[1] - 810728 s1[0]); s2' = (s2[1], s2[2], 527612 s2[2] - 1370589 s2[0]).
    a1_[0] = {{{0, 1, 0}, {0, 0, 1}, {mrg_m1 - 810728, 1403580, 0}}};
    a2_[0] = {{{0, 1, 0}, {0, 0, 1}, {mrg_m2 - 1370589, 0, 527612}}};
    for (int k = 1; k < powers; ++k) {
      a1_[k] = mrg_multiply(a1_[k - 1], a1_[k - 1], mrg_m1);
      a2_[k] = mrg_multiply(a2_[k - 1], a2_[k - 1], mrg_m2);
    }
  }
  mrg_matrix a1_[powers], a2_[powers];
};

/// One step; the result in [1, m1] as cuRAND combines the two.
inline std::uint64_t mrg_step(curandStateMRG32k3a_t& s) {
  std::int64_t p1 = (1403580ll * s.s1[1] - 810728ll * s.s1[0]) % static_cast<std::int64_t>(mrg_m1);
  if (p1 < 0) p1 += mrg_m1;
  s.s1[0] = s.s1[1];
  s.s1[1] = s.s1[2];
  s.s1[2] = static_cast<unsigned>(p1);
  std::int64_t p2 = (527612ll * s.s2[2] - 1370589ll * s.s2[0]) % static_cast<std::int64_t>(mrg_m2);
  if (p2 < 0) p2 += mrg_m2;
  s.s2[0] = s.s2[1];
  s.s2[1] = s.s2[2];
  s.s2[2] = static_cast<unsigned>(p2);
  return p1 > p2 ? static_cast<std::uint64_t>(p1 - p2)
                 : static_cast<std::uint64_t>(p1 - p2 + static_cast<std::int64_t>(mrg_m1));
}

inline unsigned mrg_modmul(unsigned a, unsigned b, std::uint64_t m) {
  return static_cast<unsigned>((static_cast<std::uint64_t>(a) * b) % m);
}

}  // namespace weft::detail

namespace weft::detail {
inline constexpr double mrg_norm = 2.3283065498378290e-10;  // 1 / (m1 + 1)
/// 32 bits of a combined value r: r scaled by about 2^32 / m1 (the factor
/// to 13 digits, as cuRAND scales it).
inline unsigned mrg_bits(std::uint64_t r) { return static_cast<unsigned>(static_cast<double>(r) * 1.000000048662); }
inline double mrg_uniform_double(std::uint64_t r) { return static_cast<double>(r) * mrg_norm; }
/// Box-Muller on two combined values: float and double.
inline float2 mrg_box_muller(std::uint64_t a, std::uint64_t b) {
  float x = static_cast<float>(mrg_uniform_double(a));
  float y = static_cast<float>(mrg_uniform_double(b)) * 6.2831855f;
  float s = std::sqrt(-2.0f * std::log(x));
  return {s * std::sin(y), s * std::cos(y)};
}
inline double2 mrg_box_muller_double(std::uint64_t a, std::uint64_t b) {
  double x = mrg_uniform_double(a);
  double y = mrg_uniform_double(b) * 6.2831853071795860;
  double s = std::sqrt(-2.0 * std::log(x));
  return {s * std::sin(y), s * std::cos(y)};
}
}  // namespace weft::detail

/// 32 random bits.
inline unsigned int curand(curandStateMRG32k3a_t* state) {
  return weft::detail::mrg_bits(weft::detail::mrg_step(*state));
}
/// Uniform in (0, 1): one step's combined value over m1 + 1.
inline float curand_uniform(curandStateMRG32k3a_t* state) {
  return static_cast<float>(weft::detail::mrg_uniform_double(weft::detail::mrg_step(*state)));
}
inline double curand_uniform_double(curandStateMRG32k3a_t* state) {
  return weft::detail::mrg_uniform_double(weft::detail::mrg_step(*state));
}
inline float2 curand_normal2(curandStateMRG32k3a_t* state) {
  std::uint64_t a = weft::detail::mrg_step(*state), b = weft::detail::mrg_step(*state);
  return weft::detail::mrg_box_muller(a, b);
}
inline double2 curand_normal2_double(curandStateMRG32k3a_t* state) {
  std::uint64_t a = weft::detail::mrg_step(*state), b = weft::detail::mrg_step(*state);
  return weft::detail::mrg_box_muller_double(a, b);
}
/// A standard normal; the pair's second value comes from the state next time.
inline float curand_normal(curandStateMRG32k3a_t* state) {
  if (state->boxmuller_flag == 1) {
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
  }
  float2 z = curand_normal2(state);
  state->boxmuller_extra = z.y;
  state->boxmuller_flag = 1;
  return z.x;
}
inline double curand_normal_double(curandStateMRG32k3a_t* state) {
  if (state->boxmuller_flag_double == 1) {
    state->boxmuller_flag_double = 0;
    return state->boxmuller_extra_double;
  }
  double2 z = curand_normal2_double(state);
  state->boxmuller_extra_double = z.y;
  state->boxmuller_flag_double = 1;
  return z.x;
}
inline float curand_log_normal(curandStateMRG32k3a_t* state, float mean, float stddev) {
  return std::exp(mean + stddev * curand_normal(state));
}
inline double curand_log_normal_double(curandStateMRG32k3a_t* state, double mean, double stddev) {
  return std::exp(mean + stddev * curand_normal_double(state));
}

inline void skipahead(unsigned long long n, curandStateMRG32k3a_t* state) {
  weft::detail::mrg_jumps::get().jump(n, 0, *state);
}
inline void skipahead_sequence(unsigned long long n, curandStateMRG32k3a_t* state) {
  weft::detail::mrg_jumps::get().jump(n, 76, *state);
}
inline void skipahead_subsequence(unsigned long long n, curandStateMRG32k3a_t* state) { skipahead_sequence(n, state); }

inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStateMRG32k3a_t* state) {
  for (int i = 0; i < 3; ++i) state->s1[i] = state->s2[i] = 12345u;
  if (seed != 0) {
    unsigned x1 = static_cast<unsigned>(seed) ^ 0x55555555u;
    unsigned x2 = static_cast<unsigned>(seed >> 32) ^ 0xAAAAAAAAu;
    using weft::detail::mrg_m1, weft::detail::mrg_m2, weft::detail::mrg_modmul;
    state->s1[0] = mrg_modmul(x1, state->s1[0], mrg_m1);
    state->s1[1] = mrg_modmul(x2, state->s1[1], mrg_m1);
    state->s1[2] = mrg_modmul(x1, state->s1[2], mrg_m1);
    state->s2[0] = mrg_modmul(x2, state->s2[0], mrg_m2);
    state->s2[1] = mrg_modmul(x1, state->s2[1], mrg_m2);
    state->s2[2] = mrg_modmul(x2, state->s2[2], mrg_m2);
  }
  weft::detail::start_curand_state(state, subsequence, offset);
}
