// CUDA's <cuda_pipeline.h>, as weft provides it: the pipeline primitives
// (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior).
#pragma once
#include <weft.hpp>
#include <weft/cuda/device/async/pipeline_primitives.hpp>
