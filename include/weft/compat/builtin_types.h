// CUDA's builtin_types.h: the device, driver and vector types together, as
// CUDA's copy includes them.
#pragma once
#include "driver_types.h"
#include "vector_types.h"
