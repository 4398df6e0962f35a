// CUDA's <cooperative_groups/reduce.h>: cg::reduce and its operators.
#pragma once
#include <cooperative_groups.h>
#include <weft/cuda/cooperative_groups/reduce.hpp>
