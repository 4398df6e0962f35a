// CUDA's cuda_profiler_api.h: cudaProfilerStart and cudaProfilerStop, which
// succeed and mark the trace timeline (weft/cuda/runtime/profiler_api.hpp).
#pragma once
#include <weft/cuda/runtime/profiler_api.hpp>
#include <weft/host_view.hpp>

#ifndef __CUDA_PROFILER_API_H__
#define __CUDA_PROFILER_API_H__
#endif
