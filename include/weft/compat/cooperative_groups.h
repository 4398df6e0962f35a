// CUDA's <cooperative_groups.h>, as weft provides it: the groups and their
// partitions. As in CUDA, reduce, the scans and memcpy_async have headers of
// their own (<cooperative_groups/reduce.h>, .../scan.h, .../memcpy_async.h).
#pragma once
#include <weft.hpp>
#include <weft/cuda/device/cooperative_groups/cluster_group.hpp>
#include <weft/cuda/device/cooperative_groups/coalesced_group.hpp>
#include <weft/cuda/device/cooperative_groups/grid_group.hpp>
#include <weft/cuda/device/cooperative_groups/partitions.hpp>
#include <weft/cuda/device/cooperative_groups/thread_block.hpp>
#include <weft/cuda/device/cooperative_groups/thread_group.hpp>
#include <weft/cuda/device/cooperative_groups/tiled_partition.hpp>
