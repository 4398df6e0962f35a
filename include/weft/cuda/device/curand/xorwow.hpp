// cuRAND's default generator, XORWOW (curandState, curandStateXORWOW_t):
// Marsaglia's xorshift of 160 bits plus a Weyl counter, seeded, split into
// subsequences of 2^67 draws and jumped ahead as cuRAND does
// (cuda/device/curand/xorwow_jump.hpp), so that its draws are a GPU's bit for bit.
#pragma once

#include "weft/cuda/device/curand/state_start.hpp"
#include "weft/cuda/device/curand/xorwow_jump.hpp"

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

inline xorwow_words xorwow_words_of(const curandStateXORWOW_t& s) { return {s.v[0], s.v[1], s.v[2], s.v[3], s.v[4]}; }
inline void store_words(const xorwow_words& w, curandStateXORWOW_t& s) {
  for (unsigned i = 0; i < 5; ++i) s.v[i] = w[i];
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
  weft::detail::start_curand_state(state, subsequence, offset);
}
