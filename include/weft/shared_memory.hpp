// Dynamic shared memory: the spelling of CUDA's `extern __shared__ T name[];`.
//
//   float* tile = weft::dynamic_shared<float>();
//
// It is a per-worker buffer of the size given at launch, aligned to 128
// bytes. A worker runs one block at a time, so the buffer belongs to the
// running block. Static `__shared__` variables are thread-local statics for
// the same reason (see cuda/keywords.hpp).
#pragma once

#include <stdexcept>

#include "weft/detail/coroutine_executor/running_stackless_block.hpp"
#include "weft/detail/executor/block_executor.hpp"

namespace weft {

template <class T>
T* dynamic_shared() {
  auto* block = detail::running_block;
  if (!block) [[unlikely]]
    return reinterpret_cast<T*>(detail::stackless_dynamic_shared());
  return reinterpret_cast<T*>(block->dynamic_shared());
}

}  // namespace weft
