// CUDA's <cooperative_groups/scan.h>: cg::inclusive_scan, cg::exclusive_scan.
#pragma once
#include <cooperative_groups.h>
#include <weft/cuda/device/cooperative_groups/scan.hpp>
