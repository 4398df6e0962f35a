// Where a call comes from decides whether it may run: a runtime call that
// waits for the device cannot be made from a kernel (the caller's own grid
// would never finish), no runtime call that enqueues or waits can be made
// from a host function (cudaErrorNotPermitted, as CUDA says of callbacks),
// and a device-side call that acts on the running block needs one.
#pragma once

#include <stdexcept>
#include <string>

#include "weft/detail/base/cuda_vocabulary.hpp"
#include "weft/detail/base/error_state.hpp"
#include "weft/detail/commands/command_graph.hpp"
#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft::detail {

/// Whether the calling thread may enqueue work: not from a host function,
/// and, for a call that `waits`, not from a kernel. Never in a forked child,
/// before any lock is taken (forked_child.hpp).
inline cudaError_t check_caller(bool waits) {
  if (cudaError_t e = check_not_forked()) return e;
  if (in_host_function || (waits && running_block)) return record(cudaErrorNotPermitted);
  return cudaSuccess;
}

/// Refuses a device-side call (`what`, as the program spells it) made
/// outside a kernel, where it has no block to act on.
inline void require_kernel(const char* what) {
  if (!running_block && !running_stackless_block)
    throw std::logic_error(std::string(what) + " can only be called inside a kernel");
}

}  // namespace weft::detail
