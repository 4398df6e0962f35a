// cooperative_groups::grid_group (this_grid()): every thread of the grid.
// sync() needs a cooperative launch (cudaLaunchCooperativeKernel, or
// cudaLaunchKernelEx with cudaLaunchAttributeCooperative), whose blocks all
// run at once, one per SM worker; elsewhere is_valid() is false (as on an
// H100, also for cluster launches) and sync() fails the launch with a report
// instead of hanging.
#pragma once

#include <source_location>
#include <string>

#include "weft/cuda/device/builtins.hpp"
#include "weft/cuda/device/cooperative_groups/block_set_sync.hpp"
#include "weft/cuda/device/cooperative_groups/thread_group.hpp"
#include "weft/detail/executor/block_groups.hpp"

namespace weft::detail::groups {

/// The running block's grid barrier; `what` (this_grid().sync()) fails the
/// calling thread unless the launch is cooperative.
inline block_group_barrier& grid_barrier(const char* what) {
  auto& me = membership(what);
  if (!me.grid_barrier)
    refuse(std::string(what) +
           " needs a cooperative launch (cudaLaunchCooperativeKernel, or cudaLaunchKernelEx with "
           "cudaLaunchAttributeCooperative); this grid was launched without one, so its blocks need not all run at "
           "once");
  return *me.grid_barrier;
}

}  // namespace weft::detail::groups

namespace cooperative_groups {

class grid_group {
 public:
  bool is_valid() const { return weft::detail::running_membership && weft::detail::running_membership->grid_barrier; }

  void sync(std::source_location where = std::source_location::current()) const {
    auto& barrier = weft::detail::groups::grid_barrier("this_grid().sync()");
    weft::detail::groups::sync_blocks(barrier, static_cast<unsigned>(block_rank()), where);
  }

  unsigned long long block_rank() const {
    return blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + gridDim.y * blockIdx.z);
  }
  unsigned long long thread_rank() const {
    return block_rank() * (blockDim.x * blockDim.y * blockDim.z) + weft::detail::groups::block_rank();
  }
  unsigned long long num_blocks() const { return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z; }
  unsigned long long num_threads() const { return num_blocks() * (blockDim.x * blockDim.y * blockDim.z); }
  unsigned long long size() const { return num_threads(); }
  dim3 dim_blocks() const { return gridDim; }
  dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 dim_threads() const { return blockDim; }
  dim3 group_dim() const { return gridDim; }
};

inline grid_group this_grid() { return grid_group(); }

}  // namespace cooperative_groups
