// cuRAND's device API with its default generator, XORWOW (curandState):
// the same sequences as on a GPU, bit for bit for curand, curand_uniform and
// curand_uniform_double (tests/differential/curand_probe.expected is an
// H100's output). Normals use the same Box-Muller transform on the same
// draws, with the host's logf/sinf/cosf, so they may differ from a GPU's in
// the last bits.
//
// A state is one thread's generator: curand_init(seed, subsequence, offset,
// &state) seeds it, then skips `subsequence` times 2^67 draws and `offset`
// draws (detail/xorwow_jump.hpp), so threads seeded with their index as the
// subsequence draw from non-overlapping parts of one sequence.
#pragma once

#include <cmath>
#include <cstdint>

#include "../detail/xorwow_jump.hpp"
#include "math_functions.hpp"
#include "vector_types.hpp"

struct curandStateXORWOW {
  unsigned int d;
  unsigned int v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef curandStateXORWOW_t curandState_t;
typedef curandState_t curandState;

namespace weft::detail {

inline constexpr unsigned xorwow_weyl_step = 362437;
inline constexpr int box_muller_has_normal = 1;      // boxmuller_extra holds curand_normal's second value
inline constexpr int box_muller_has_log_normal = 2;  // ... curand_log_normal's

inline xorwow_words xorwow_words_of(const curandStateXORWOW_t& s) { return {s.v[0], s.v[1], s.v[2], s.v[3], s.v[4]}; }
inline void store_words(const xorwow_words& w, curandStateXORWOW_t& s) {
  for (unsigned i = 0; i < 5; ++i) s.v[i] = w[i];
}

// The uniform in (0, 1] that cuRAND makes of one draw: x / 2^32 plus half a step.
inline float uniform_of(unsigned x) { return static_cast<float>(x) * 0x1p-32f + 0x1p-33f; }
// ... and of two draws, with 53 random bits.
inline double uniform_double_of(unsigned x, unsigned y) {
  std::uint64_t z = static_cast<std::uint64_t>(x) ^ (static_cast<std::uint64_t>(y) << (53 - 32));
  return static_cast<double>(z) * 0x1p-53 + 0x1p-54;
}

// Box-Muller on two draws (float) or four (double): the radius from the
// first uniform, the angle from the second; x is the sine side.
inline float2 box_muller(unsigned x, unsigned y) {
  float u = uniform_of(x);
  float angle = static_cast<float>(y) * (0x1p-32f * 6.28318530717958647692f) + 0x1p-32f * 3.14159265358979323846f;
  float radius = std::sqrt(-2.0f * std::log(u));
  return {radius * std::sin(angle), radius * std::cos(angle)};
}
inline double2 box_muller_double(unsigned x0, unsigned x1, unsigned y0, unsigned y1) {
  double u = uniform_double_of(x0, x1);
  std::uint64_t zy = static_cast<std::uint64_t>(y0) ^ (static_cast<std::uint64_t>(y1) << (53 - 32));
  double half_turns = static_cast<double>(zy) * 0x1p-52 + 0x1p-53;  // the angle over pi, in (0, 2]
  double radius = std::sqrt(-2.0 * std::log(u)), s, c;
  ::sincospi(half_turns, &s, &c);
  return {radius * s, radius * c};
}

}  // namespace weft::detail

/// The next 32 random bits.
inline unsigned int curand(curandStateXORWOW_t* state) {
  weft::detail::xorwow_words v = weft::detail::xorwow_words_of(*state);
  weft::detail::xorwow_shift(v);
  weft::detail::store_words(v, *state);
  state->d += weft::detail::xorwow_weyl_step;
  return state->v[4] + state->d;
}

/// Advances the state as n calls of curand would.
inline void skipahead(unsigned long long n, curandStateXORWOW_t* state) {
  weft::detail::xorwow_words v = weft::detail::xorwow_words_of(*state);
  weft::detail::xorwow_jumps::get().jump(n, 0, v);
  weft::detail::store_words(v, *state);
  state->d += static_cast<unsigned>(n) * weft::detail::xorwow_weyl_step;  // modulo 2^32, as the draws would
}

/// Advances the state by n subsequences of 2^67 draws (which leave the Weyl
/// counter as it was, 2^67 being a multiple of 2^32).
inline void skipahead_sequence(unsigned long long n, curandStateXORWOW_t* state) {
  weft::detail::xorwow_words v = weft::detail::xorwow_words_of(*state);
  weft::detail::xorwow_jumps::get().jump(n, weft::detail::xorwow_jumps::subsequence_shift, v);
  weft::detail::store_words(v, *state);
}

inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStateXORWOW_t* state) {
  unsigned s0 = static_cast<unsigned>(seed) ^ 0xaad26b49u;
  unsigned s1 = static_cast<unsigned>(seed >> 32) ^ 0xf7dcefddu;
  unsigned t0 = 1099087573u * s0;
  unsigned t1 = 2591861531u * s1;
  state->d = 6615241u + t1 + t0;
  state->v[0] = 123456789u + t0;
  state->v[1] = 362436069u ^ t0;
  state->v[2] = 521288629u + t1;
  state->v[3] = 88675123u ^ t1;
  state->v[4] = 5783321u + t0;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.0f;
  state->boxmuller_extra_double = 0.0;
}

/// Uniform in (0, 1]: 0 excluded, 1 included, as in cuRAND.
inline float curand_uniform(curandStateXORWOW_t* state) { return weft::detail::uniform_of(curand(state)); }

inline double curand_uniform_double(curandStateXORWOW_t* state) {
  unsigned x = curand(state);
  unsigned y = curand(state);
  return weft::detail::uniform_double_of(x, y);
}

/// Two standard normals from two draws.
inline float2 curand_normal2(curandStateXORWOW_t* state) {
  unsigned x = curand(state);
  unsigned y = curand(state);
  return weft::detail::box_muller(x, y);
}

inline double2 curand_normal2_double(curandStateXORWOW_t* state) {
  unsigned x0 = curand(state), x1 = curand(state), y0 = curand(state), y1 = curand(state);
  return weft::detail::box_muller_double(x0, x1, y0, y1);
}

/// A standard normal. Box-Muller makes two: the second is kept in the state
/// and returned by the next call.
inline float curand_normal(curandStateXORWOW_t* state) {
  if (state->boxmuller_flag == weft::detail::box_muller_has_normal) {
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
  }
  float2 pair = curand_normal2(state);
  state->boxmuller_extra = pair.y;
  state->boxmuller_flag = weft::detail::box_muller_has_normal;
  return pair.x;
}

inline double curand_normal_double(curandStateXORWOW_t* state) {
  if (state->boxmuller_flag_double == weft::detail::box_muller_has_normal) {
    state->boxmuller_flag_double = 0;
    return state->boxmuller_extra_double;
  }
  double2 pair = curand_normal2_double(state);
  state->boxmuller_extra_double = pair.y;
  state->boxmuller_flag_double = weft::detail::box_muller_has_normal;
  return pair.x;
}

/// exp of a normal with this mean and standard deviation; the second value
/// of the pair is kept as curand_normal keeps its own.
inline float curand_log_normal(curandStateXORWOW_t* state, float mean, float stddev) {
  if (state->boxmuller_flag == weft::detail::box_muller_has_log_normal) {
    state->boxmuller_flag = 0;
    return std::exp(mean + stddev * state->boxmuller_extra);
  }
  float2 pair = curand_normal2(state);
  state->boxmuller_extra = pair.y;
  state->boxmuller_flag = weft::detail::box_muller_has_log_normal;
  return std::exp(mean + stddev * pair.x);
}

inline double curand_log_normal_double(curandStateXORWOW_t* state, double mean, double stddev) {
  if (state->boxmuller_flag_double == weft::detail::box_muller_has_log_normal) {
    state->boxmuller_flag_double = 0;
    return std::exp(mean + stddev * state->boxmuller_extra_double);
  }
  double2 pair = curand_normal2_double(state);
  state->boxmuller_extra_double = pair.y;
  state->boxmuller_flag_double = weft::detail::box_muller_has_log_normal;
  return std::exp(mean + stddev * pair.x);
}
