// cuda_texture_types.h, which CUDA 11 had for texture references (removed
// in CUDA 12, as they are in weft) and which older programs still include:
// the texture types of texture_types.h, with CUDA 11's include guard.
#pragma once
#include <weft/host_view.hpp>

#ifndef __CUDA_TEXTURE_TYPES_H__
#define __CUDA_TEXTURE_TYPES_H__
#endif
