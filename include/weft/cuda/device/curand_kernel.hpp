// cuRAND's device API (what <curand_kernel.h> declares), for its default
// generator XORWOW (curandState) and for Philox4_32_10: the same draws as a
// GPU, bit for bit (tests/differential/curand_probe.expected is an H100's
// output), and the same uniform and normal distributions made of them.
//
// A state is one thread's generator: curand_init(seed, subsequence, offset,
// &state) seeds it and skips to the subsequence and offset, so threads
// seeded with their index as the subsequence draw from non-overlapping parts
// of one sequence.
#pragma once

#include "weft/cuda/device/curand/distributions.hpp"
#include "weft/cuda/device/curand/philox.hpp"
#include "weft/cuda/device/curand/xorwow.hpp"
