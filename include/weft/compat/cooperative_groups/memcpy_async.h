// CUDA's <cooperative_groups/memcpy_async.h>: cg::memcpy_async, cg::wait, cg::wait_prior.
#pragma once
#include <cooperative_groups.h>
#include <weft/cuda/device/cooperative_groups/memcpy_async.hpp>
