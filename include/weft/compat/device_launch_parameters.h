// threadIdx, blockIdx, blockDim, gridDim and warpSize.
#pragma once
#include <weft/cuda/builtins.hpp>
