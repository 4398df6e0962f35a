// cuRAND's MTGP32 generator: Saito and Matsumoto's Mersenne Twister for
// Graphic Processors with period 2^11213 - 1. A state belongs to a block;
// each call of curand(state) by the block's threads (up to 256, all of them
// calling) makes one word per thread from a ring buffer of 1024 words, so a
// block's call yields the next blockDim words of its sequence, thread t
// the t-th. The host generator (curand.h) steps the same states with
// mtgp32_step, 256 words at a time.
#pragma once

#include <cstring>

#include "weft/cuda/curand/curand_types.hpp"
#include "weft/cuda/device/builtins.hpp"
#include "weft/cuda/device/curand/mtgp32_types.hpp"
#include "weft/cuda/device/sync/synchronization.hpp"

namespace weft::detail {

inline unsigned mtgp32_recursion(const mtgp32_kernel_params_t& k, int set, unsigned x1, unsigned x2, unsigned y) {
  unsigned x = (x1 & k.mask[0]) ^ x2;
  x ^= x << k.sh1_tbl[set];
  y = x ^ (y >> k.sh2_tbl[set]);
  return y ^ k.param_tbl[set][y & 0x0f];
}

inline unsigned mtgp32_temper(const mtgp32_kernel_params_t& k, int set, unsigned v, unsigned t) {
  t ^= t >> 16;
  t ^= t >> 8;
  return v ^ k.temper_tbl[set][t & 0x0f];
}

/// Word `t` of the state's next step (t below the step's width, at most 256):
/// it writes the new word into the ring and returns it tempered. The words of
/// one step never read what another of the same step writes.
inline unsigned mtgp32_word(curandStateMtgp32_t& state, unsigned t) {
  constexpr unsigned mask = mtgp32_state_size - 1;
  const mtgp32_kernel_params_t& k = *state.k;
  unsigned pos = k.pos_tbl[state.pIdx];
  unsigned base = t + static_cast<unsigned>(state.offset);
  unsigned r =
      mtgp32_recursion(k, state.pIdx, state.s[base & mask], state.s[(base + 1) & mask], state.s[(base + pos) & mask]);
  state.s[(base + mtgp32_words) & mask] = r;
  return mtgp32_temper(k, state.pIdx, r, state.s[(base + pos - 1) & mask]);
}

/// One whole step of `width` words, as a block of that many threads makes it.
inline void mtgp32_step(curandStateMtgp32_t& state, unsigned width, unsigned* out) {
  for (unsigned t = 0; t < width; ++t) out[t] = mtgp32_word(state, t);
  state.offset = static_cast<int>((static_cast<unsigned>(state.offset) + width) & (mtgp32_state_size - 1));
}

/// The MTGP authors' seeding of one parameter set's 351 words.
inline void mtgp32_seed(curandStateMtgp32_t& state, const mtgp32_params_fast_t& params, unsigned seed) {
  unsigned hidden = params.tbl[4] ^ (params.tbl[8] << 16);
  unsigned fill = hidden;
  fill += fill >> 16;
  fill += fill >> 8;
  std::memset(state.s, static_cast<int>(fill & 0xff), sizeof(state.s));
  state.s[0] = seed;
  state.s[1] = hidden;
  for (unsigned i = 1; i < static_cast<unsigned>(mtgp32_words); ++i)
    state.s[i] ^= 1812433253u * (state.s[i - 1] ^ (state.s[i - 1] >> 30)) + i;
  state.offset = 0;
}

}  // namespace weft::detail

/// Copies the published parameter sets into the kernel's form.
inline curandStatus_t curandMakeMTGP32Constants(const mtgp32_params_fast_t params[], mtgp32_kernel_params_t* p) {
  if (params == nullptr || p == nullptr) return CURAND_STATUS_OUT_OF_RANGE;
  for (int i = 0; i < weft::detail::mtgp32_parameter_sets; ++i) {
    p->pos_tbl[i] = static_cast<unsigned>(params[i].pos);
    p->sh1_tbl[i] = static_cast<unsigned>(params[i].sh1);
    p->sh2_tbl[i] = static_cast<unsigned>(params[i].sh2);
    for (int j = 0; j < weft::detail::mtgp32_table_size; ++j) {
      p->param_tbl[i][j] = params[i].tbl[j];
      p->temper_tbl[i][j] = params[i].tmp_tbl[j];
      p->single_temper_tbl[i][j] = params[i].flt_tmp_tbl[j];
    }
  }
  p->mask[0] = params[0].mask;
  return CURAND_STATUS_SUCCESS;
}

/// Seeds n block states (n at most 200): state i uses parameter set i and
/// the seed plus i + 1, so that no two blocks draw the same sequence.
inline curandStatus_t curandMakeMTGP32KernelState(curandStateMtgp32_t* s, mtgp32_params_fast_t params[],
                                                  mtgp32_kernel_params_t* k, int n, unsigned long long seed) {
  if (s == nullptr || params == nullptr || k == nullptr || n < 0 || n > weft::detail::mtgp32_parameter_sets)
    return CURAND_STATUS_OUT_OF_RANGE;
  unsigned folded = static_cast<unsigned>(seed) ^ static_cast<unsigned>(seed >> 32);
  for (int i = 0; i < n; ++i) {
    weft::detail::mtgp32_seed(s[i], params[i], folded + static_cast<unsigned>(i) + 1);
    s[i].pIdx = i;
    s[i].k = k;
  }
  return CURAND_STATUS_SUCCESS;
}

/// The block's next word for this thread: every thread of the block calls it.
inline unsigned int curand(curandStateMtgp32_t* state) {
  unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  unsigned word = weft::detail::mtgp32_word(*state, t);
  __syncthreads();
  if (t == 0) state->offset = static_cast<int>((static_cast<unsigned>(state->offset) + threads) & 1023u);
  __syncthreads();
  return word;
}

/// Uniform in (0, 1], as for the other generators.
inline float curand_uniform(curandStateMtgp32_t* state) {
  return static_cast<float>(curand(state)) * 0x1p-32f + 0x1p-33f;
}
inline double curand_uniform_double(curandStateMtgp32_t* state) {
  return static_cast<double>(curand(state)) * 0x1p-32 + 0x1p-32;
}
