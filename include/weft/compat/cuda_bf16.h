// CUDA's bfloat16 header: __nv_bfloat16, __nv_bfloat162 and their functions,
// the nv_bfloat16 and nv_bfloat162 names, and the CUDART_*_BF16 constants
// (macros, as CUDA spells them). Like CUDA's, it brings cuda_fp16.h too.
#pragma once
#include <cuda_fp16.h>
#include <weft/cuda/device/math/bfloat16.hpp>

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7f80u)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7fffu)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001u)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7f7fu)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000u)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000u)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3f80u)
