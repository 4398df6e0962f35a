// texture_fetch_functions.h, which CUDA 11 had and older programs still
// include: the texture fetch functions (tex1Dfetch, tex2D, ... over texture
// objects: weft/cuda/device/textures/texture_fetch_functions.hpp, in
// weft.hpp), with CUDA 11's include guard. Texture references, the header's
// other half, were removed in CUDA 12 and are not in weft.
#pragma once
#include <weft.hpp>

#ifndef __TEXTURE_FETCH_FUNCTIONS_H__
#define __TEXTURE_FETCH_FUNCTIONS_H__
#endif
