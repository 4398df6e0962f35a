// CUDA's built-in variables (CUDA guide, "Built-in Variables"): threadIdx,
// blockIdx, blockDim and gridDim, which the block executor keeps current for
// the running CUDA thread (detail/base/builtin_variables.hpp), and
// warpSize.
#pragma once

#include "weft/cuda/vector_types.hpp"
#include "weft/detail/base/builtin_variables.hpp"

using weft::detail::blockDim;
using weft::detail::blockIdx;
using weft::detail::gridDim;
using weft::detail::threadIdx;

/// Threads per warp, as on every NVIDIA architecture so far.
inline constexpr int warpSize = 32;
