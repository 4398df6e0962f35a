// What the device runtime keeps for the block a worker runs: the block's
// NULL stream for launches from its threads (dynamic parallelism), and each
// CUDA thread's last error, which device-side cudaGetLastError and
// cudaPeekAtLastError read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "weft/detail/base/builtin_variables.hpp"
#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/checks/race_check.hpp"
#include "weft/detail/commands/command.hpp"
#include "weft/detail/scheduler/grid_job.hpp"
#include "weft/detail/scheduler/programmatic_launch.hpp"

namespace weft::detail {

/// The block a worker runs, as the device runtime sees it: the block's NULL
/// stream (its last launch into it) and each CUDA thread's last error. A
/// worker runs one block at a time, so a state kept per worker and renewed
/// when another block (of any grid) starts is the running block's.
struct device_block_state {
  std::uint64_t grid_serial = 0;
  std::uint64_t block = 0;
  std::shared_ptr<command> null_stream_last;
  std::vector<cudaError_t> errors;  // by linear thread index
};

inline thread_local device_block_state running_device_block;
// weft's state, not the kernel's shared memory (race_check.hpp).
inline const bool running_device_block_untraced =
    !race_check_build ||
    race_untraced([]() -> const void* { return &running_device_block; }, sizeof running_device_block);

/// The grid the calling CUDA thread belongs to (null outside a kernel).
inline grid_job* running_grid() { return static_cast<grid_job*>(running_programmatic.grid); }

inline device_block_state& device_block() {
  device_block_state& state = running_device_block;
  grid_job* grid = running_grid();
  std::uint64_t serial = grid ? grid->serial : 0;
  std::uint64_t block = blockIdx.x + std::uint64_t{gridDim.x} * (blockIdx.y + std::uint64_t{gridDim.y} * blockIdx.z);
  if (state.grid_serial != serial || state.block != block) {
    state.grid_serial = serial;
    state.block = block;
    state.null_stream_last.reset();
    state.errors.assign(volume(blockDim), cudaSuccess);
  }
  return state;
}

/// The calling CUDA thread's last error (the device runtime keeps one per
/// thread, as the host runtime keeps one per host thread).
inline cudaError_t& device_last_error() {
  device_block_state& state = device_block();
  std::size_t thread = linear_thread_index(threadIdx, blockDim);
  if (thread >= state.errors.size()) state.errors.resize(thread + 1, cudaSuccess);
  return state.errors[thread];
}

/// record() for a call made by a CUDA thread.
inline cudaError_t record_on_device(cudaError_t code) {
  if (code != cudaSuccess) device_last_error() = code;
  return code;
}

}  // namespace weft::detail
