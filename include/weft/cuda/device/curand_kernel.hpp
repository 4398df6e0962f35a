// cuRAND's device API (what <curand_kernel.h> declares): XORWOW (curandState)
// and Philox4_32_10, the same draws as a GPU, bit for bit
// (tests/differential/curand_probe.expected is an H100's output), and the
// same uniform and normal distributions made of them; Sobol's quasi-random
// sequences (curandStateSobol32/64 and the scrambled ones, given direction
// vectors from curandGetDirectionVectors32/64); MTGP32 (curandStateMtgp32_t,
// one state per block, every thread of the block calling curand).
//
// A state is one thread's generator: curand_init(seed, subsequence, offset,
// &state) seeds it and skips to the subsequence and offset, so threads
// seeded with their index as the subsequence draw from non-overlapping parts
// of one sequence.
#pragma once

#include "weft/cuda/device/curand/distributions.hpp"
#include "weft/cuda/device/curand/mrg32k3a.hpp"
#include "weft/cuda/device/curand/mtgp32.hpp"
#include "weft/cuda/device/curand/philox.hpp"
#include "weft/cuda/device/curand/sobol.hpp"
#include "weft/cuda/device/curand/xorwow.hpp"
