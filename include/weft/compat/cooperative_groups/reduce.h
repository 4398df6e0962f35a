// CUDA's <cooperative_groups/reduce.h>: cg::reduce and its operators.
#pragma once
#include <cooperative_groups.h>
#include <weft/cuda/device/cooperative_groups/reduce.hpp>
