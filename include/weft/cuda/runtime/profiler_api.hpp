// cudaProfilerStart and cudaProfilerStop (cuda_profiler_api.h). There is no
// profiler to start on a CPU: both succeed, and each draws a mark on the
// calling host thread's track of the trace timeline under WEFT_TRACE
// (docs/trace.md), which is weft's profile.
#pragma once

#include "weft/cuda/runtime/error_codes.hpp"
#include "weft/detail/trace/annotations.hpp"
#include "weft/detail/trace/trace.hpp"

namespace weft::surface {

inline void mark_on_timeline(const char* what) {
  if (!weft::detail::trace::enabled) [[likely]]
    return;
  auto& a = weft::detail::trace::annotations::get();
  auto now = weft::detail::trace::annotations::steady::now();
  a.add(a.thread_number(), what, now, now, true);
}

}  // namespace weft::surface

inline cudaError_t cudaProfilerStart() {
  weft::surface::mark_on_timeline("cudaProfilerStart");
  return cudaSuccess;
}

inline cudaError_t cudaProfilerStop() {
  weft::surface::mark_on_timeline("cudaProfilerStop");
  return cudaSuccess;
}
