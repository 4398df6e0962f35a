// CUDA's warp matrix header: nvcuda::wmma (fragments, load_matrix_sync,
// store_matrix_sync, fill_fragment, mma_sync, bmma_sync, precision::tf32,
// __float_to_tf32 and the experimental sub-byte types), for every shape and
// type sm_90 supports. Like CUDA's, it brings cuda_fp16.h and cuda_bf16.h.
// docs/semantics.md, "Warp matrix functions", says how weft computes them.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <weft.hpp>
#include <weft/cuda/device/wmma/conversions.hpp>
#include <weft/cuda/device/wmma/fill.hpp>
#include <weft/cuda/device/wmma/fragment.hpp>
#include <weft/cuda/device/wmma/load_store.hpp>
#include <weft/cuda/device/wmma/mma.hpp>
