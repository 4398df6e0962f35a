// A cuRAND host-API generator (curandGenerator_t) and how it lays out its
// results. Each generator draws from the same code as the device API
// (curand_init/curand of weft/cuda/device/curand/), arranged as an H100's
// cuRAND arranges them (tests/differential/curand_host_probe.expected):
//
// - XORWOW: result n of the generator's running count comes from thread
//   n mod 4096, which is subsequence n mod 4096 of curand_init(seed, ...),
//   at its draw n / 4096 (cuRAND's documented ordering). A result that takes
//   w draws (a double: 2; a normal pair: 2, a double pair: 4) takes draws
//   w * (n / 4096) ... of its thread.
// - Philox4_32_10: four results a subsequence: result n is in subsequence
//   n / 4, and takes draws w (n mod 4) ... w (n mod 4) + w - 1 of it (a
//   double: 2 draws, so one subsequence's four doubles take two counters).
// - MTGP32: 64 blocks of 256 threads a pass; pass p uses states
//   64 (p mod 3) + block, at their step p / 3; state i is parameter set i
//   seeded as curandMakeMTGP32KernelState does.
// - MT19937: the reference sequence of Matsumoto and Nishimura's
//   init_genrand(seed), draw after draw (an H100's first draw agrees; its
//   later results are interleaved differently: docs/curand.md).
// - Sobol: dimension d's points fill the d-th n / dimensions results.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "weft/cuda/curand/curand_types.hpp"
#include "weft/cuda/curand/mt19937.hpp"
#include "weft/cuda/device/curand/distributions.hpp"
#include "weft/cuda/device/curand/mrg32k3a.hpp"
#include "weft/cuda/device/curand/mtgp32.hpp"
#include "weft/cuda/device/curand/mtgp32_params.hpp"
#include "weft/cuda/device/curand/philox.hpp"
#include "weft/cuda/device/curand/sobol.hpp"
#include "weft/cuda/device/curand/sobol_tables.hpp"
#include "weft/cuda/device/curand/xorwow.hpp"
#include "weft/cuda/vector_types.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"

struct curandGenerator_st {
  curandRngType_t type;
  bool on_host;
  unsigned long long seed = 0;
  unsigned long long offset = 0;  // results made so far (pseudo), points (quasi)
  curandOrdering_t ordering;
  unsigned dimensions = 1;
  cudaStream_t stream = nullptr;

  // The stateful engines, seeded on first use after a seed change.
  bool engines_seeded = false;
  std::vector<curandStateMtgp32_t> mtgp_states;
  std::vector<unsigned> mtgp_steps_done;               // per state
  std::vector<std::array<unsigned, 256>> mtgp_latest;  // per state: its latest step's words
  std::unique_ptr<mtgp32_kernel_params_t> mtgp_params;
  weft::detail::mt19937_engine mt;
  unsigned long long mt_drawn = 0;
};
typedef struct curandGenerator_st* curandGenerator_t;

struct curandDiscreteDistribution_st {
  double lambda;
};
typedef struct curandDiscreteDistribution_st* curandDiscreteDistribution_t;

namespace weft::detail {

inline bool curand_is_quasi(curandRngType_t t) {
  return t == CURAND_RNG_QUASI_SOBOL32 || t == CURAND_RNG_QUASI_SOBOL64 || t == CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 ||
         t == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
}
inline bool curand_is_wide(curandRngType_t t) {
  return t == CURAND_RNG_QUASI_SOBOL64 || t == CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
}

inline constexpr unsigned xorwow_host_threads = 4096;
inline constexpr unsigned mtgp_host_blocks = 64, mtgp_host_groups = 3;

inline void seed_engines(curandGenerator_st& g) {
  if (g.engines_seeded) return;
  if (g.type == CURAND_RNG_PSEUDO_MTGP32) {
    unsigned states = mtgp_host_blocks * mtgp_host_groups;
    g.mtgp_params = std::make_unique<mtgp32_kernel_params_t>();
    curandMakeMTGP32Constants(mtgp32dc_params_fast_11213, g.mtgp_params.get());
    g.mtgp_states.assign(states, curandStateMtgp32_t{});
    curandMakeMTGP32KernelState(g.mtgp_states.data(), mtgp32dc_params_fast_11213, g.mtgp_params.get(),
                                static_cast<int>(states), g.seed);
    g.mtgp_steps_done.assign(states, 0);
    g.mtgp_latest.assign(states, {});
  }
  if (g.type == CURAND_RNG_PSEUDO_MT19937) {
    g.mt.seed(static_cast<std::uint32_t>(g.seed));
    g.mt_drawn = 0;
  }
  g.engines_seeded = true;
}

/// Results spread over `threads` subsequences: result n is thread n mod
/// threads's (n / threads)-th result, made of its next `width` draws.
template <class State, class Emit, class Draw>
void strided_draws(curandGenerator_st& g, std::uint64_t threads, std::uint64_t first, std::size_t count, unsigned width,
                   Emit& emit, Draw draw) {
  unsigned draws[4];
  std::uint64_t used = std::min<std::uint64_t>(threads, count);
  for (std::uint64_t k = 0; k < used; ++k) {
    std::uint64_t e = first + k;  // this thread's first result
    State s;
    curand_init(g.seed, e % threads, width * (e / threads), &s);
    for (std::uint64_t i = k; i < count; i += threads) {
      for (unsigned w = 0; w < width; ++w) draws[w] = draw(s);
      emit(i, draws);
    }
  }
}

/// Calls emit(i, draws) for results first .. first + count - 1 of the running
/// count, each made of `width` 32-bit draws laid out as the generator's type
/// lays them out (the comment at the top).
template <class Emit>
void pseudo_draws(curandGenerator_st& g, std::uint64_t first, std::size_t count, unsigned width, Emit emit,
                  unsigned results_per_element = 1) {
  unsigned draws[4];
  switch (g.type) {
    case CURAND_RNG_PSEUDO_XORWOW:
      strided_draws<curandStateXORWOW_t>(g, xorwow_host_threads, first, count, width, emit,
                                         [](curandStateXORWOW_t& s) { return curand(&s); });
      break;
    case CURAND_RNG_PSEUDO_MRG32K3A: {
      unsigned threads = g.ordering == CURAND_ORDERING_PSEUDO_LEGACY ? 4096 : 16384;
      strided_draws<curandStateMRG32k3a_t>(g, threads, first, count, width, emit,
                                           [](curandStateMRG32k3a_t& s) { return static_cast<unsigned>(mrg_step(s)); });
      break;
    }
    case CURAND_RNG_PSEUDO_PHILOX4_32_10: {
      // Four results a subsequence; a result of w draws takes draws w (r mod 4) ...
      unsigned draws_per_result = width / results_per_element;
      for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t r = (first + i) * results_per_element;
        curandStatePhilox4_32_10_t s;
        curand_init(g.seed, r / 4, draws_per_result * (r % 4), &s);
        for (unsigned w = 0; w < width; ++w) draws[w] = curand(&s);
        emit(i, draws);
      }
      break;
    }
    case CURAND_RNG_PSEUDO_MTGP32: {
      seed_engines(g);
      for (std::size_t i = 0; i < count; ++i) {
        for (unsigned w = 0; w < width; ++w) {
          std::uint64_t f = (first + i) * width + w;
          std::uint64_t pass = f / (256 * mtgp_host_blocks);
          unsigned state = static_cast<unsigned>(64 * (pass % mtgp_host_groups) + (f / 256) % mtgp_host_blocks);
          std::uint64_t step = pass / mtgp_host_groups;
          while (g.mtgp_steps_done[state] <= step) {
            mtgp32_step(g.mtgp_states[state], 256, g.mtgp_latest[state].data());
            ++g.mtgp_steps_done[state];
          }
          draws[w] = g.mtgp_latest[state][f % 256];
        }
        emit(i, draws);
      }
      break;
    }
    case CURAND_RNG_PSEUDO_MT19937: {
      seed_engines(g);
      for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t f = (first + i) * width;
        if (f > g.mt_drawn) g.mt.discard(f - g.mt_drawn);
        for (unsigned w = 0; w < width; ++w) draws[w] = static_cast<unsigned>(g.mt());
        g.mt_drawn = f + width;
        emit(i, draws);
      }
      break;
    }
    default:
      break;
  }
}

/// One double from the draws a result takes: two draws' 53 bits where the
/// generator spends two (XORWOW, Philox), one draw otherwise.
inline unsigned pseudo_double_width(curandRngType_t t) {
  return t == CURAND_RNG_PSEUDO_XORWOW || t == CURAND_RNG_PSEUDO_PHILOX4_32_10 ? 2 : 1;
}
inline double pseudo_double_of(const unsigned* d, unsigned width, curandRngType_t type) {
  if (type == CURAND_RNG_PSEUDO_MRG32K3A) return mrg_uniform_double(d[0]);
  return width == 2 ? uniform_double_of(d[0], d[1]) : static_cast<double>(d[0]) * 0x1p-32 + 0x1p-32;
}

/// Box-Muller on one draw each for the radius and the angle where the
/// double takes one draw: the radius and angle of box_muller_double.
inline double2 pseudo_normal_pair_double(const unsigned* d, unsigned width) {
  if (width == 2) return box_muller_double(d[0], d[1], d[2], d[3]);
  double u = static_cast<double>(d[0]) * 0x1p-32 + 0x1p-32;
  double half_turns = static_cast<double>(d[1]) * 0x1p-31 + 0x1p-32;
  double radius = std::sqrt(-2.0 * std::log(u)), s, c;
  ::sincospi(half_turns, &s, &c);
  return {radius * s, radius * c};
}

/// What a generation call asks for.
enum class curand_output {
  bits32,
  bits64,
  uniform,
  uniform_double,
  normal,
  normal_double,
  log_normal,
  log_normal_double,
  poisson
};

/// The Poisson integer whose CDF first reaches u (in (0, 1]): inversion,
/// summing the probabilities from 0; above lambda = 1000, where e^-lambda
/// vanishes, the normal approximation with a continuity correction.
inline unsigned poisson_of(double u, double lambda) {
  if (lambda > 1000.0) {
    double k = std::floor(lambda + std::sqrt(lambda) * normcdfinv(std::min(u, 1.0 - 0x1p-53)) + 0.5);
    return k < 0 ? 0u : static_cast<unsigned>(k);
  }
  double p = std::exp(-lambda), cdf = p;
  unsigned k = 0;
  while (u > cdf && p > 0) {
    ++k;
    p *= lambda / k;
    cdf += p;
  }
  return k;
}

inline bool curand_output_is_double(curand_output k) {
  return k == curand_output::uniform_double || k == curand_output::normal_double ||
         k == curand_output::log_normal_double;
}

struct curand_request {
  curand_output kind;
  void* out;
  std::size_t n;
  double mean, stddev;
  std::uint64_t first;  // the generator's running count when the call was made
};

inline void generate_inverse_normals(curandGenerator_st& g, const curand_request& r);
inline void generate_box_muller(curandGenerator_st& g, const curand_request& r);
inline void generate_box_muller_double(curandGenerator_st& g, const curand_request& r);

inline void generate_pseudo(curandGenerator_st& g, const curand_request& r) {
  switch (r.kind) {
    case curand_output::bits32: {
      auto* out = static_cast<unsigned*>(r.out);
      bool mrg = g.type == CURAND_RNG_PSEUDO_MRG32K3A;
      pseudo_draws(g, r.first, r.n, 1, [&](std::size_t i, const unsigned* d) { out[i] = mrg ? mrg_bits(d[0]) : d[0]; });
      break;
    }
    case curand_output::uniform: {
      auto* out = static_cast<float*>(r.out);
      bool mrg = g.type == CURAND_RNG_PSEUDO_MRG32K3A;
      pseudo_draws(g, r.first, r.n, 1, [&](std::size_t i, const unsigned* d) {
        out[i] = mrg ? static_cast<float>(mrg_uniform_double(d[0])) : uniform_of(d[0]);
      });
      break;
    }
    case curand_output::poisson: {
      auto* out = static_cast<unsigned*>(r.out);
      unsigned w = pseudo_double_width(g.type);
      pseudo_draws(g, r.first, r.n, w, [&](std::size_t i, const unsigned* d) {
        out[i] = poisson_of(pseudo_double_of(d, w, g.type), r.mean);
      });
      break;
    }
    case curand_output::uniform_double: {
      auto* out = static_cast<double*>(r.out);
      unsigned w = pseudo_double_width(g.type);
      pseudo_draws(g, r.first, r.n, w,
                   [&](std::size_t i, const unsigned* d) { out[i] = pseudo_double_of(d, w, g.type); });
      break;
    }
    case curand_output::normal:
    case curand_output::log_normal:
    case curand_output::normal_double:
    case curand_output::log_normal_double:
      if (g.type == CURAND_RNG_PSEUDO_MTGP32) {
        generate_inverse_normals(g, r);
        break;
      }
      if (r.kind == curand_output::normal || r.kind == curand_output::log_normal)
        generate_box_muller(g, r);
      else
        generate_box_muller_double(g, r);
      break;
    case curand_output::bits64:
      break;
  }
}

/// MTGP32's normals: the inverse normal CDF of each draw's uniform, as
/// cuRAND makes them (float and double alike from one 32-bit draw).
inline void generate_inverse_normals(curandGenerator_st& g, const curand_request& r) {
  bool log = r.kind == curand_output::log_normal || r.kind == curand_output::log_normal_double;
  if (r.kind == curand_output::normal || r.kind == curand_output::log_normal) {
    auto* out = static_cast<float*>(r.out);
    float mean = static_cast<float>(r.mean), stddev = static_cast<float>(r.stddev);
    pseudo_draws(g, r.first, r.n, 1, [&](std::size_t i, const unsigned* d) {
      float z = mean + stddev * quasi_normal_of(d[0]);
      out[i] = log ? std::exp(z) : z;
    });
  } else {
    auto* out = static_cast<double*>(r.out);
    pseudo_draws(g, r.first, r.n, 1, [&](std::size_t i, const unsigned* d) {
      double z = r.mean + r.stddev * quasi_normal_double_of(d[0]);
      out[i] = log ? std::exp(z) : z;
    });
  }
}

/// Normals by Box-Muller, a pair from each two draws (four for doubles where
/// a double takes two draws).
inline void generate_box_muller(curandGenerator_st& g, const curand_request& r) {
  switch (r.kind) {
    case curand_output::normal:
    case curand_output::log_normal: {
      auto* out = static_cast<float*>(r.out);
      bool log = r.kind == curand_output::log_normal;
      float mean = static_cast<float>(r.mean), stddev = static_cast<float>(r.stddev);
      pseudo_draws(
          g, r.first / 2, r.n / 2, 2,
          [&](std::size_t i, const unsigned* d) {
            float2 z = g.type == CURAND_RNG_PSEUDO_MRG32K3A ? mrg_box_muller(d[0], d[1]) : box_muller(d[0], d[1]);
            float a = mean + stddev * z.x, b = mean + stddev * z.y;
            out[2 * i] = log ? std::exp(a) : a;
            out[2 * i + 1] = log ? std::exp(b) : b;
          },
          2);
      break;
    }
    default:
      break;
  }
}

inline void generate_box_muller_double(curandGenerator_st& g, const curand_request& r) {
  switch (r.kind) {
    case curand_output::normal_double:
    case curand_output::log_normal_double: {
      auto* out = static_cast<double*>(r.out);
      bool log = r.kind == curand_output::log_normal_double;
      unsigned w = pseudo_double_width(g.type);
      pseudo_draws(
          g, r.first / 2, r.n / 2, 2 * w,
          [&](std::size_t i, const unsigned* d) {
            double2 z = g.type == CURAND_RNG_PSEUDO_MRG32K3A ? mrg_box_muller_double(d[0], d[1])
                                                             : pseudo_normal_pair_double(d, w);
            double a = r.mean + r.stddev * z.x, b = r.mean + r.stddev * z.y;
            out[2 * i] = log ? std::exp(a) : a;
            out[2 * i + 1] = log ? std::exp(b) : b;
          },
          2);
      break;
    }
    default:
      break;
  }
}

template <class Word>
void store_quasi(const curand_request& r, std::size_t at, Word x) {
  switch (r.kind) {
    case curand_output::bits32:
      static_cast<unsigned*>(r.out)[at] = static_cast<unsigned>(x);
      break;
    case curand_output::bits64:
      static_cast<unsigned long long*>(r.out)[at] = x;
      break;
    case curand_output::uniform: {
      unsigned top = sizeof(Word) == 8 ? static_cast<unsigned>(x >> 32) : static_cast<unsigned>(x);
      static_cast<float*>(r.out)[at] = uniform_of(top);
      break;
    }
    case curand_output::uniform_double:
      static_cast<double*>(r.out)[at] = quasi_uniform_double_of(x);
      break;
    case curand_output::poisson:
      static_cast<unsigned*>(r.out)[at] = poisson_of(quasi_uniform_double_of(x), r.mean);
      break;
    case curand_output::normal:
    case curand_output::log_normal: {
      unsigned top = sizeof(Word) == 8 ? static_cast<unsigned>(x >> 32) : static_cast<unsigned>(x);
      float z = static_cast<float>(r.mean) + static_cast<float>(r.stddev) * quasi_normal_of(top);
      static_cast<float*>(r.out)[at] = r.kind == curand_output::log_normal ? std::exp(z) : z;
      break;
    }
    case curand_output::normal_double:
    case curand_output::log_normal_double: {
      double z = r.mean + r.stddev * quasi_normal_double_of(x);
      static_cast<double*>(r.out)[at] = r.kind == curand_output::log_normal_double ? std::exp(z) : z;
      break;
    }
  }
}

inline void generate_quasi(curandGenerator_st& g, const curand_request& r) {
  std::size_t points = r.n / g.dimensions;
  for (unsigned d = 0; d < g.dimensions; ++d) {
    if (curand_is_wide(g.type)) {
      curandStateSobol64_t s;
      curand_init(sobol_vectors64()[d], r.first, &s);
      for (std::size_t i = 0; i < points; ++i) store_quasi(r, d * points + i, curand(&s));
    } else {
      curandStateSobol32_t s;
      curand_init(sobol_vectors32()[d], 0u, &s);
      weft::detail::sobol_seat(s, r.first);
      for (std::size_t i = 0; i < points; ++i) store_quasi(r, d * points + i, curand(&s));
    }
  }
}

inline void generate(curandGenerator_st& g, const curand_request& r) {
  if (curand_is_quasi(g.type))
    generate_quasi(g, r);
  else
    generate_pseudo(g, r);
}

}  // namespace weft::detail
