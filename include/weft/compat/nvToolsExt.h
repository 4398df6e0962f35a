// NVTX's older header name (CUDA's include/nvToolsExt.h): the same API as
// <nvtx3/nvToolsExt.h>.
#pragma once
#include "nvtx3/nvToolsExt.h"
