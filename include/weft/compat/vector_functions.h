// CUDA's vector_functions.h: make_int2, make_float4, ... (weft declares them
// with the vector types).
#pragma once
#include "vector_types.h"

#ifndef __VECTOR_FUNCTIONS_H__
#define __VECTOR_FUNCTIONS_H__
#endif
