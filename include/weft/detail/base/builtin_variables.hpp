// CUDA's built-in index variables. A kernel and every function it calls read
// them unqualified, so cuda/device/builtins.hpp brings them into the global
// namespace; they are declared here, in weft::detail, so that host code that
// includes only the runtime API (<cuda_runtime.h> without nvcc) does not see
// them, as with CUDA, and may use the names for itself. They are per OS
// thread: a worker runs one block at a time and the block executor rewrites
// them whenever it moves to another CUDA thread, so they always describe the
// CUDA thread that is running. Fibers never migrate between OS threads, which
// is what makes thread_local storage correct here (and cheap: one
// %fs-relative load in an executable).
//
// The executor owns them (it writes them); the CUDA surface
// (cuda/device/builtins.hpp) presents them.
#pragma once

#include "weft/detail/base/cuda_vocabulary.hpp"

namespace weft::detail {

inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};

/// A thread's linear id in its block, x fastest: CUDA's order, in which lanes
/// 0-31 of warp 0 are ids 0-31 and which thread_block::thread_rank() counts.
/// The arguments are references so that the executor's runner loop compiles
/// as when it spelt this out: with threadIdx passed by value, GCC 12
/// computed the thread-local's address inside the loop, one more
/// instruction per CUDA thread.
constexpr unsigned linear_thread_index(const uint3& thread, const dim3& block) {
  return thread.x + block.x * (thread.y + block.y * thread.z);
}

}  // namespace weft::detail
