// CUDA's cooperative groups (namespace cooperative_groups, usually spelled
// `namespace cg = cooperative_groups;`), device side: the thread block,
// tiles, coalesced groups and partitions, reduce and the scans,
// memcpy_async. See docs/cooperative-groups.md.
//
// <weft.hpp> does not include this, as <cuda_runtime.h> does not include
// <cooperative_groups.h>: include it, or the CUDA-named headers in
// include/weft/compat (target weft::cuda).
#pragma once

#include "weft/cuda/device/cooperative_groups/cluster_group.hpp"
#include "weft/cuda/device/cooperative_groups/coalesced_group.hpp"
#include "weft/cuda/device/cooperative_groups/functional.hpp"
#include "weft/cuda/device/cooperative_groups/grid_group.hpp"
#include "weft/cuda/device/cooperative_groups/memcpy_async.hpp"
#include "weft/cuda/device/cooperative_groups/multi_warp_tile.hpp"
#include "weft/cuda/device/cooperative_groups/partitions.hpp"
#include "weft/cuda/device/cooperative_groups/reduce.hpp"
#include "weft/cuda/device/cooperative_groups/scan.hpp"
#include "weft/cuda/device/cooperative_groups/thread_block.hpp"
#include "weft/cuda/device/cooperative_groups/thread_group.hpp"
#include "weft/cuda/device/cooperative_groups/tiled_partition.hpp"
#include "weft/cuda/device/cooperative_groups/warp_group.hpp"
