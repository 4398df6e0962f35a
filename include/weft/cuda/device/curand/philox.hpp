// cuRAND's counter-based generator, Philox4x32-10
// (curandStatePhilox4_32_10_t): ten rounds of Salmon et al.'s Philox on a
// 128-bit counter under a 64-bit key (the seed), four 32-bit outputs per
// counter. The subsequence is the counter's high 64 bits, the offset counts
// outputs from there.
#pragma once

#include <cstdint>

#include "weft/cuda/vector_types.hpp"

struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;  // the four outputs of ctr
  uint2 key;
  unsigned int STATE;  // how many of them have been returned
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

namespace weft::detail {

inline uint4 philox_round(uint4 c, uint2 k) {
  std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c.x;
  std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * c.z;
  return {static_cast<unsigned>(p1 >> 32) ^ c.y ^ k.x, static_cast<unsigned>(p1),
          static_cast<unsigned>(p0 >> 32) ^ c.w ^ k.y, static_cast<unsigned>(p0)};
}

inline uint4 philox4x32_10(uint4 counter, uint2 key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) key = {key.x + 0x9E3779B9u, key.y + 0xBB67AE85u};
    counter = philox_round(counter, key);
  }
  return counter;
}

// The counter as one 128-bit number, x lowest: adds n at 32-bit word `word`.
inline void philox_advance(curandStatePhilox4_32_10_t& s, std::uint64_t n, int word) {
  unsigned* w[4] = {&s.ctr.x, &s.ctr.y, &s.ctr.z, &s.ctr.w};
  std::uint64_t carry = n;
  for (int i = word; i < 4 && carry != 0; ++i) {
    std::uint64_t sum = std::uint64_t{*w[i]} + (carry & 0xffffffffu);
    *w[i] = static_cast<unsigned>(sum);
    carry = (carry >> 32) + (sum >> 32);
  }
}

inline void philox_refill(curandStatePhilox4_32_10_t& s) { s.output = philox4x32_10(s.ctr, s.key); }

}  // namespace weft::detail

/// The next 32 random bits.
inline unsigned int curand(curandStatePhilox4_32_10_t* state) {
  const unsigned outputs[4] = {state->output.x, state->output.y, state->output.z, state->output.w};
  unsigned r = outputs[state->STATE & 3];
  if (++state->STATE == 4) {
    weft::detail::philox_advance(*state, 1, 0);
    weft::detail::philox_refill(*state);
    state->STATE = 0;
  }
  return r;
}

/// The next four draws at once.
inline uint4 curand4(curandStatePhilox4_32_10_t* state) {
  return {curand(state), curand(state), curand(state), curand(state)};
}

/// Advances the state as n calls of curand would.
inline void skipahead(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  state->STATE += static_cast<unsigned>(n & 3);
  n /= 4;
  if (state->STATE > 3) {
    n += 1;
    state->STATE -= 4;
  }
  weft::detail::philox_advance(*state, n, 0);
  weft::detail::philox_refill(*state);
}

/// Advances the state by n subsequences (the counter's high 64 bits).
inline void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  weft::detail::philox_advance(*state, n, 2);
  weft::detail::philox_refill(*state);
}

inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStatePhilox4_32_10_t* state) {
  state->ctr = {0, 0, 0, 0};
  state->key = {static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32)};
  state->STATE = 0;
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.0f;
  state->boxmuller_extra_double = 0.0;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
}
