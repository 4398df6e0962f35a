// cuRAND's quasi-random generators (curandStateSobol32/64 and the scrambled
// ones): Sobol's sequence in one dimension, given that dimension's direction
// vectors, in Gray-code order as cuRAND draws it, so that point i is the XOR
// of the vectors at the set bits of i ^ (i >> 1); a scrambled state XORs a
// constant into every point. Point 0 is 0 (or the constant).
//
// The direction vectors themselves are data: curandGetDirectionVectors32/64
// (curand.h) expands Joe and Kuo's numbers (sobol_direction_numbers.hpp)
// with sobol_direction_vectors below.
#pragma once

#include <bit>
#include <cstdint>
#include <cstdlib>

#include "weft/cuda/device/math/math_functions.hpp"

typedef unsigned int curandDirectionVectors32_t[32];
typedef unsigned long long curandDirectionVectors64_t[64];

struct curandStateSobol32 {
  unsigned int i, x, c;
  unsigned int direction_vectors[32];
};
typedef struct curandStateSobol32 curandStateSobol32_t;

struct curandStateScrambledSobol32 {
  unsigned int i, x, c;
  unsigned int direction_vectors[32];
};
typedef struct curandStateScrambledSobol32 curandStateScrambledSobol32_t;

struct curandStateSobol64 {
  unsigned long long i, x, c;
  unsigned long long direction_vectors[64];
};
typedef struct curandStateSobol64 curandStateSobol64_t;

struct curandStateScrambledSobol64 {
  unsigned long long i, x, c;
  unsigned long long direction_vectors[64];
};
typedef struct curandStateScrambledSobol64 curandStateScrambledSobol64_t;

namespace weft::detail {

template <class State>
concept sobol32_state = std::same_as<State, curandStateSobol32_t> || std::same_as<State, curandStateScrambledSobol32_t>;
template <class State>
concept sobol64_state = std::same_as<State, curandStateSobol64_t> || std::same_as<State, curandStateScrambledSobol64_t>;

/// Point `index` of one dimension: the XOR of the vectors at the set bits of
/// index's Gray code.
template <class Word, int Bits>
Word sobol_point(const Word (&vectors)[Bits], std::uint64_t index) {
  Word x = 0;
  std::uint64_t gray = index ^ (index >> 1);
  for (int k = 0; gray != 0 && k < Bits; ++k, gray >>= 1)
    if (gray & 1) x ^= vectors[k];
  return x;
}

template <class State>
void sobol_seat(State& state, std::uint64_t index) {
  state.i = static_cast<decltype(state.i)>(index);
  state.x = state.c ^ sobol_point(state.direction_vectors, index);
}

/// Gray-code step: from point i to point i + 1 one vector changes, the one at
/// i's lowest zero bit.
template <class State>
auto sobol_next(State& state) {
  auto result = state.x;
  constexpr int bits = sizeof(state.x) * 8;
  int k = std::countr_one(static_cast<std::uint64_t>(state.i));
  state.x ^= state.direction_vectors[k < bits ? k : bits - 1];
  ++state.i;
  return result;
}

/// Expands one dimension of Joe and Kuo's table (degree s, coefficients a,
/// m_1..m_s) into `Bits` direction vectors: v_k = m_k << (Bits - k), then
/// Bratley and Fox's recurrence for k > s.
template <class Word, int Bits>
void sobol_direction_vectors(int s, unsigned a, const unsigned* m, Word (&v)[Bits]) {
  for (int k = 0; k < Bits; ++k) {
    if (k < s) {
      v[k] = static_cast<Word>(m[k]) << (Bits - 1 - k);
      continue;
    }
    Word x = v[k - s] ^ (v[k - s] >> s);
    for (int j = 1; j < s; ++j)
      if ((a >> (s - 1 - j)) & 1) x ^= v[k - j];
    v[k] = x;
  }
}

/// Reads one hexadecimal number of the data tables at p, skipping spaces and
/// newlines before it (a few lines instead of <charconv>, which costs more
/// to compile than all the rest).
inline unsigned read_hex(const char*& p) {
  while (*p == ' ' || *p == '\n') ++p;
  unsigned value = 0;
  for (;; ++p) {
    char c = *p;
    unsigned digit = c >= '0' && c <= '9'   ? static_cast<unsigned>(c - '0')
                     : c >= 'a' && c <= 'f' ? static_cast<unsigned>(c - 'a' + 10)
                                            : 16u;
    if (digit == 16) return value;
    value = value * 16 + digit;
  }
}

// Uniforms and normals of a 32-bit quasi-random draw, as cuRAND makes them:
// floats in (0, 1] with half a step added, the normal as the inverse normal
// CDF of that uniform (no Box-Muller: it would spoil the point set).
inline double quasi_uniform_double_of(unsigned x) { return static_cast<double>(x) * 0x1p-32 + 0x1p-32; }
inline double quasi_uniform_double_of(unsigned long long x) { return static_cast<double>(x >> 11) * 0x1p-53 + 0x1p-54; }
inline float quasi_normal_of(unsigned x) { return normcdfinvf(static_cast<float>(x) * 0x1p-32f + 0x1p-33f); }
inline double quasi_normal_double_of(unsigned x) { return normcdfinv(static_cast<double>(x) * 0x1p-32 + 0x1p-33); }
inline double quasi_normal_double_of(unsigned long long x) {
  return normcdfinv(static_cast<double>(x >> 11) * 0x1p-53 + 0x1p-54);
}

}  // namespace weft::detail

/// Sets up a Sobol state for one dimension's direction vectors, at point `offset`.
inline void curand_init(curandDirectionVectors32_t direction_vectors, unsigned int offset,
                        curandStateSobol32_t* state) {
  for (int k = 0; k < 32; ++k) state->direction_vectors[k] = direction_vectors[k];
  state->c = 0;
  weft::detail::sobol_seat(*state, offset);
}
inline void curand_init(curandDirectionVectors32_t direction_vectors, unsigned int scramble_c, unsigned int offset,
                        curandStateScrambledSobol32_t* state) {
  for (int k = 0; k < 32; ++k) state->direction_vectors[k] = direction_vectors[k];
  state->c = scramble_c;
  weft::detail::sobol_seat(*state, offset);
}
inline void curand_init(curandDirectionVectors64_t direction_vectors, unsigned long long offset,
                        curandStateSobol64_t* state) {
  for (int k = 0; k < 64; ++k) state->direction_vectors[k] = direction_vectors[k];
  state->c = 0;
  weft::detail::sobol_seat(*state, offset);
}
inline void curand_init(curandDirectionVectors64_t direction_vectors, unsigned long long scramble_c,
                        unsigned long long offset, curandStateScrambledSobol64_t* state) {
  for (int k = 0; k < 64; ++k) state->direction_vectors[k] = direction_vectors[k];
  state->c = scramble_c;
  weft::detail::sobol_seat(*state, offset);
}

/// The state's point, then a step to the next.
inline unsigned int curand(curandStateSobol32_t* state) { return weft::detail::sobol_next(*state); }
inline unsigned int curand(curandStateScrambledSobol32_t* state) { return weft::detail::sobol_next(*state); }
inline unsigned long long curand(curandStateSobol64_t* state) { return weft::detail::sobol_next(*state); }
inline unsigned long long curand(curandStateScrambledSobol64_t* state) { return weft::detail::sobol_next(*state); }

/// Moves n points on.
template <weft::detail::sobol32_state State>
void skipahead(unsigned int n, State* state) {
  weft::detail::sobol_seat(*state, static_cast<std::uint64_t>(state->i) + n);
}
template <weft::detail::sobol64_state State>
void skipahead(unsigned long long n, State* state) {
  weft::detail::sobol_seat(*state, state->i + n);
}

template <weft::detail::sobol32_state State>
float curand_uniform(State* state) {
  return static_cast<float>(curand(state)) * 0x1p-32f + 0x1p-33f;
}
template <weft::detail::sobol64_state State>
float curand_uniform(State* state) {
  return static_cast<float>(static_cast<unsigned>(curand(state) >> 32)) * 0x1p-32f + 0x1p-33f;
}
template <class State>
requires weft::detail::sobol32_state<State> || weft::detail::sobol64_state<State>
double curand_uniform_double(State* state) { return weft::detail::quasi_uniform_double_of(curand(state)); }
template <weft::detail::sobol32_state State>
float curand_normal(State* state) {
  return weft::detail::quasi_normal_of(curand(state));
}
template <weft::detail::sobol64_state State>
float curand_normal(State* state) {
  return weft::detail::quasi_normal_of(static_cast<unsigned>(curand(state) >> 32));
}
template <class State>
requires weft::detail::sobol32_state<State> || weft::detail::sobol64_state<State>
double curand_normal_double(State* state) { return weft::detail::quasi_normal_double_of(curand(state)); }
template <class State>
requires weft::detail::sobol32_state<State> || weft::detail::sobol64_state<State>
float curand_log_normal(State* state, float mean, float stddev) {
  return std::exp(mean + stddev * curand_normal(state));
}
template <class State>
requires weft::detail::sobol32_state<State> || weft::detail::sobol64_state<State>
double curand_log_normal_double(State* state, double mean, double stddev) {
  return std::exp(mean + stddev * curand_normal_double(state));
}
