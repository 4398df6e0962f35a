// cuRAND's MTGP32 header curand_mtgp32_host.h: weft's MTGP32 (weft/cuda/device/curand/mtgp32.hpp)
// and its 200 parameter sets for period 2^11213 - 1.
#pragma once
#include <curand_kernel.h>
#include <weft/cuda/device/curand/mtgp32_params.hpp>
