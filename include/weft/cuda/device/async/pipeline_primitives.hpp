// The pipeline primitives of <cuda_pipeline.h> (CUDA guide, "Pipeline
// Primitives Interface"): per-thread asynchronous copies of 4, 8 or 16
// bytes, committed in batches and waited for by batch. weft copies at once
// (memcpy_async.hpp says why), so commits and waits have nothing to do; the
// preconditions CUDA states are checked. In a race-check build, a copy is
// traced as in flight until the __pipeline_wait_prior that waits for its
// batch (detail/checks/race_async_copy.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <string>

#include "weft/cuda/device/async/barrier.hpp"
#include "weft/detail/checks/race_async_copy_hooks.hpp"

/// Copies size_and_align - zfill bytes and zeroes the last zfill bytes of the destination.
inline void __pipeline_memcpy_async(void* __restrict__ dst_shared, const void* __restrict__ src_global,
                                    ::std::size_t size_and_align, ::std::size_t zfill = 0,
                                    ::std::source_location where = ::std::source_location::current()) {
  auto fail = [&](const ::std::string& why) {
    weft::detail::async_misuse("__pipeline_memcpy_async with size_and_align " + ::std::to_string(size_and_align) +
                               " and zfill " + ::std::to_string(zfill) + ": " + why);
  };
  if (size_and_align != 4 && size_and_align != 8 && size_and_align != 16) fail("the size must be 4, 8 or 16");
  if (zfill > size_and_align) fail("zfill exceeds the size");
  if (reinterpret_cast<::std::uintptr_t>(dst_shared) % size_and_align != 0 ||
      reinterpret_cast<::std::uintptr_t>(src_global) % size_and_align != 0)
    fail("both addresses must be multiples of the size");
  ::std::size_t copied = size_and_align - zfill;
  if constexpr (weft::detail::race_check_build) {
    weft::detail::race_copy_async(dst_shared, src_global, copied, zfill,
                                  {.wait = weft::detail::race_copy_wait::primitives}, "__pipeline_memcpy_async", where);
    return;
  }
  ::std::memcpy(dst_shared, src_global, copied);
  ::std::memset(static_cast<char*>(dst_shared) + copied, 0, zfill);
}

inline void __pipeline_commit() {
  if constexpr (weft::detail::race_check_build) weft::detail::race_primitives_committed();
}

/// Waits for all but the latest N committed batches: they are complete already.
inline void __pipeline_wait_prior(::std::size_t prior) {
  if constexpr (weft::detail::race_check_build) weft::detail::race_primitives_waited(prior);
}
