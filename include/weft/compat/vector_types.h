// dim3, uint3 and CUDA's vector types (float4, int2, ...).
#pragma once
#include <weft/cuda/vector_types.hpp>
