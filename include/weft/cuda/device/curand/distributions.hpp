// cuRAND's distributions, made of a generator's 32-bit draws exactly as
// cuRAND makes them (tests/differential/curand_probe: an H100's values):
// uniforms in (0, 1], and normals by Box-Muller, which makes two at a time
// and keeps the second in the state for the next call. The normals use the
// host's logf, sinf and cosf, so they may differ from a GPU's in the last
// bits; the draws they come from are the same.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>

#include "weft/cuda/device/curand/philox.hpp"
#include "weft/cuda/device/curand/xorwow.hpp"
#include "weft/cuda/device/math/math_functions.hpp"
#include "weft/cuda/vector_types.hpp"

namespace weft::detail {

template <class State>
concept curand_generator = std::same_as<State, curandStateXORWOW_t> || std::same_as<State, curandStatePhilox4_32_10_t>;

inline constexpr int box_muller_has_normal = 1;      // boxmuller_extra holds curand_normal's second value
inline constexpr int box_muller_has_log_normal = 2;  // ... curand_log_normal's

// x / 2^32 plus half a step: never 0, and 1 for the largest draw.
inline float uniform_of(unsigned x) { return static_cast<float>(x) * 0x1p-32f + 0x1p-33f; }
// 53 bits from two draws, the same way.
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

// One value of a pair that Box-Muller makes, the other kept for the next
// call made with the same `kind` (a normal and a log-normal do not share).
template <class Value, class State, class MakePair>
Value cached_pair(int& flag, Value& extra, int kind, State* state, MakePair make_pair) {
  if (flag == kind) {
    flag = 0;
    return extra;
  }
  auto pair = make_pair(state);
  extra = pair.y;
  flag = kind;
  return pair.x;
}

}  // namespace weft::detail

/// Uniform in (0, 1]: 0 excluded, 1 included, as in cuRAND.
template <weft::detail::curand_generator State>
float curand_uniform(State* state) {
  return weft::detail::uniform_of(curand(state));
}

/// 53 random bits from two draws with XORWOW; Philox makes a double of one
/// draw, as cuRAND does.
inline double curand_uniform_double(curandStateXORWOW_t* state) {
  unsigned x = curand(state);
  unsigned y = curand(state);
  return weft::detail::uniform_double_of(x, y);
}
inline double curand_uniform_double(curandStatePhilox4_32_10_t* state) {
  return static_cast<double>(curand(state)) * 0x1p-32 + 0x1p-32;
}

/// Two standard normals from two draws.
template <weft::detail::curand_generator State>
float2 curand_normal2(State* state) {
  unsigned x = curand(state);
  unsigned y = curand(state);
  return weft::detail::box_muller(x, y);
}

template <weft::detail::curand_generator State>
double2 curand_normal2_double(State* state) {
  unsigned x0 = curand(state), x1 = curand(state), y0 = curand(state), y1 = curand(state);
  return weft::detail::box_muller_double(x0, x1, y0, y1);
}

/// A standard normal; the pair's second value comes from the state next time.
template <weft::detail::curand_generator State>
float curand_normal(State* state) {
  return weft::detail::cached_pair(state->boxmuller_flag, state->boxmuller_extra, weft::detail::box_muller_has_normal,
                                   state, [](State* s) { return curand_normal2(s); });
}

template <weft::detail::curand_generator State>
double curand_normal_double(State* state) {
  return weft::detail::cached_pair(state->boxmuller_flag_double, state->boxmuller_extra_double,
                                   weft::detail::box_muller_has_normal, state,
                                   [](State* s) { return curand_normal2_double(s); });
}

/// exp of a normal with this mean and standard deviation.
template <weft::detail::curand_generator State>
float curand_log_normal(State* state, float mean, float stddev) {
  float z =
      weft::detail::cached_pair(state->boxmuller_flag, state->boxmuller_extra, weft::detail::box_muller_has_log_normal,
                                state, [](State* s) { return curand_normal2(s); });
  return std::exp(mean + stddev * z);
}

template <weft::detail::curand_generator State>
double curand_log_normal_double(State* state, double mean, double stddev) {
  double z = weft::detail::cached_pair(state->boxmuller_flag_double, state->boxmuller_extra_double,
                                       weft::detail::box_muller_has_log_normal, state,
                                       [](State* s) { return curand_normal2_double(s); });
  return std::exp(mean + stddev * z);
}

/// Philox's four-at-a-time forms: four uniforms, or two Box-Muller pairs.
inline float4 curand_uniform4(curandStatePhilox4_32_10_t* state) {
  uint4 x = curand4(state);
  using weft::detail::uniform_of;
  return {uniform_of(x.x), uniform_of(x.y), uniform_of(x.z), uniform_of(x.w)};
}

inline float4 curand_normal4(curandStatePhilox4_32_10_t* state) {
  uint4 x = curand4(state);
  float2 a = weft::detail::box_muller(x.x, x.y), b = weft::detail::box_muller(x.z, x.w);
  return {a.x, a.y, b.x, b.y};
}
