// threadIdx, blockIdx, blockDim, gridDim and warpSize.
#pragma once
#include <weft/cuda/device/builtins.hpp>
