// dim3, uint3 and CUDA's vector types (float4, int2, ...), with CUDA's
// include guard, which code tests to learn whether the types are declared.
#pragma once
#include <weft/cuda/vector_types.hpp>

#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__
#endif
